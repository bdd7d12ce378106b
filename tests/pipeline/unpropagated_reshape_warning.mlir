// expandReshapesIntoContraction (jitrun-codegen-prepare-contractions) propagates a
// reshape after a dispatch's linalg op into that op with upstream's
// fold-by-expansion, which needs every indexing map of the op to be a
// projected permutation. A convolution reads its input at oh + kh: a reshape
// of its result (here the 32 output channels split 2 x 16 before an
// elementwise consumer) stays, and the convolution cannot be tiled with the
// consumer. Codegen says so with a warning on the convolution instead of
// leaving the dispatch silently untiled as one.
//
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s

// CHECK: warning: the reshape after this op could not be propagated into it; the dispatch is not tiled as one
// CHECK-NEXT: linalg.conv_2d_nhwc_hwcf
func.func private @conv_split_dispatch_0(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x32xf32>) -> tensor<1x8x8x2x16xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %s = tensor.expand_shape %c [[0], [1], [2], [3, 4]] output_shape [1, 8, 8, 2, 16] : tensor<1x8x8x32xf32> into tensor<1x8x8x2x16xf32>
  %e2 = tensor.empty() : tensor<1x8x8x2x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x8x2x16xf32>) outs(%e2 : tensor<1x8x8x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x2x16xf32>
  return %y : tensor<1x8x8x2x16xf32>
}
