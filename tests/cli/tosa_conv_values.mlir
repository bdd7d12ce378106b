// A TOSA conv2d (OHWI weights, lowered to the FHWC named conv, whose filter
// jitrun transposes to HWCF) with values worked out by hand: every output
// channel reads its own filter, so a wrong transpose shows. w[f,h,w,c] =
// f + 10c, x[...,c] = c + 1, bias (-10, 0, 10):
// out[f] = 9 (f + 2 (f + 10)) + bias[f] = 170, 207, 244 at every position.
// RUN: %jitrun %s --input=1x4x4x2xf32=1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2 | FileCheck %s
// RUN: %jitrun %s --input=1x4x4x2xf32=1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2 --reference | FileCheck %s
// RUN: %jitrun %s --input=1x4x4x2xf32=1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2 --fusion=none --force-avx2 | FileCheck %s
// CHECK: result[0]: 1x2x2x3xf32={{\[\[\[}}170 207 244{{\]\[}}170 207 244{{\]\]\[\[}}170 207 244{{\]\[}}170 207 244{{\]\]\]}}
func.func @main(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  %w = "tosa.const"() <{values = dense<[[[[0.0,10.0],[0.0,10.0],[0.0,10.0]],[[0.0,10.0],[0.0,10.0],[0.0,10.0]],[[0.0,10.0],[0.0,10.0],[0.0,10.0]]],[[[1.0,11.0],[1.0,11.0],[1.0,11.0]],[[1.0,11.0],[1.0,11.0],[1.0,11.0]],[[1.0,11.0],[1.0,11.0],[1.0,11.0]]],[[[2.0,12.0],[2.0,12.0],[2.0,12.0]],[[2.0,12.0],[2.0,12.0],[2.0,12.0]],[[2.0,12.0],[2.0,12.0],[2.0,12.0]]]]> : tensor<3x3x3x2xf32>}> : () -> tensor<3x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<[-10.0, 0.0, 10.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x3xf32>
  return %c : tensor<1x2x2x3xf32>
}
