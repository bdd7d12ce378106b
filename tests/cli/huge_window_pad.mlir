// A max pool whose window spans far more pixels than a stack tile holds
// (ONNX's test_MaxPool2d_stride_padding_dilation: 60x80 taps dilated by 10)
// keeps its pad on the host (a fill and a copy into the arena) instead of
// padding its border tiles on the stack, which failed the stack limit
// (1.9 MB). Its result matches the reference path; a 3x3 window's pad still
// joins its dispatch (no fill or copy).
//
// RUN: %jitrun %s --function=huge --input=1x120x130x2xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --function=huge --input=1x120x130x2xf32 --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: %jitrun %s --function=small --input=1x16x16x8xf32 --reference --output=@%t.small.npy
// RUN: %jitrun %s --function=small --input=1x16x16x8xf32 --expected_output=@%t.small.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=SMALL
// HUGE: result[0]: matches the expected output
// HUGE: "fills":1,"copies":1,
// SMALL: result[0]: matches the expected output
// SMALL: "fills":0,"copies":0,
func.func @huge(%x: tensor<1x120x130x2xf32>) -> tensor<1x6x6x2xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %p = tensor.pad %x low[0, 10, 20, 0] high[0, 10, 20, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x120x130x2xf32> to tensor<1x140x170x2xf32>
  %w = tensor.empty() : tensor<30x40xf32>
  %e = tensor.empty() : tensor<1x6x6x2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<3> : tensor<2xi64>, strides = dense<10> : tensor<2xi64>}
      ins(%p, %w : tensor<1x140x170x2xf32>, tensor<30x40xf32>) outs(%f : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  return %r : tensor<1x6x6x2xf32>
}

func.func @small(%x: tensor<1x16x16x8xf32>) -> tensor<1x8x8x8xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x16x8xf32> to tensor<1x18x18x8xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x18x18x8xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
