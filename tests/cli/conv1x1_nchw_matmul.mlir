// The other runs of this input: tests/fusion/conv1x1_nchw_matmul.mlir, tests/pipeline/conv1x1_nchw_matmul.mlir.
// A 1x1 NCHW convolution of one image at stride 1 is a matmul over the
// flattened image (jitrun-fusion-convolution-layouts): a batch_matmul of one,
// weights 1xFxC by input 1xCx(HW), with a fresh fill as its accumulator; the
// result is expanded back to 1xFxHxW. Reshape propagation then collapses the
// elementwise consumers (bias on (0, c, 0, 0), relu) to 1xFx(HW), so they
// join the matmul's dispatch: one dispatch, no reshape between. A strided 1x1
// convolution (its input is not one flat image) and a 1x1 convolution of an
// image under 32 pixels (too narrow for the matmul's lanes) are computed in
// NHWC instead (conv_nchw_to_nhwc.mlir), and so is every 1x1 convolution of
// a function where some other convolution goes NHWC.
// Numerics: the rewritten model against --reference.
//
// RUN: %jitrun %s --input=1x24x7x9xf32 --input=40x24x1x1xf32 --input=40xf32 --explain-fusion \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: %jitrun %s --input=1x24x7x9xf32 --input=40x24x1x1xf32 --input=40xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x24x7x9xf32 --input=40x24x1x1xf32 --input=40xf32 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --function=next_to_3x3 --input=1x8x10x10xf32 --input=16x8x3x3xf32 --input=24x16x1x1xf32 --reference --output=@%t.next.npy
// RUN: %jitrun %s --function=next_to_3x3 --input=1x8x10x10xf32 --input=16x8x3x3xf32 --input=24x16x1x1xf32 \
// RUN:   --threads=2 --expected_output=@%t.next.npy | FileCheck %s --check-prefix=NEXT

// EXPLAIN-NOT: not fused
// EXPLAIN: "root_ops":1,"dispatch_regions":1,"dispatches":1,
// VALUES: result[0]: matches the expected output
func.func @main(%x: tensor<1x24x7x9xf32>, %w: tensor<40x24x1x1xf32>, %b: tensor<40xf32>) -> tensor<1x40x7x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x7x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x7x9xf32>) -> tensor<1x40x7x9xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x24x7x9xf32>, tensor<40x24x1x1xf32>) outs(%f : tensor<1x40x7x9xf32>) -> tensor<1x40x7x9xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x40x7x9xf32>, tensor<40xf32>) outs(%e : tensor<1x40x7x9xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x40x7x9xf32>
  return %r : tensor<1x40x7x9xf32>
}

// -----

func.func @strided(%x: tensor<1x24x8x8xf32>, %w: tensor<40x24x1x1xf32>) -> tensor<1x40x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x24x8x8xf32>, tensor<40x24x1x1xf32>) outs(%f : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  return %c : tensor<1x40x4x4xf32>
}

// -----

func.func @small_image(%x: tensor<1x24x4x4xf32>, %w: tensor<40x24x1x1xf32>) -> tensor<1x40x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x24x4x4xf32>, tensor<40x24x1x1xf32>) outs(%f : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  return %c : tensor<1x40x4x4xf32>
}

// -----

// A large-image 1x1 convolution next to a 3x3 one: the function goes NHWC
// anyway, so the 1x1 convolution runs NHWC too and the transpose between the
// two convolutions cancels (a matmul there would need one on each side):
// one transpose in, one out, no batch_matmul.
// NEXT: result[0]: matches the expected output
func.func @next_to_3x3(%x: tensor<1x8x10x10xf32>, %w1: tensor<16x8x3x3xf32>, %w2: tensor<24x16x1x1xf32>) -> tensor<1x24x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x16x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w1 : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%f1 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x16x8x8xf32>) outs(%e1 : tensor<1x16x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %e2 = tensor.empty() : tensor<1x24x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%r, %w2 : tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) outs(%f2 : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  return %c2 : tensor<1x24x8x8xf32>
}
