// A whole squeeze-excite block as TOSA lowers it (EfficientNet's): the mean
// of x over H and W as two keep-dims sums and a scale, a 1x1 convolution
// 40 -> 10 with bias and swish, a 1x1 convolution 10 -> 40 with bias and
// sigmoid, and the gate x * s broadcast over H x W. It is three roots in
// three dispatches: the merged mean (jitrun-fusion-merge-reductions), the
// first convolution, and the second with the gate as its broadcast
// epilogue (cheap-root-broadcast). Values match the reference evaluator on
// both ISA paths, at 1 and 2 threads, in every fusion mode. 13 x 11 x 40: no
// dimension a multiple of the vector tiles.
//
// RUN: %jitrun %s --input=1x13x11x40xf32 --input=1x1x40x10xf32 --input=10xf32 --input=1x1x10x40xf32 --input=40xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x13x11x40xf32 --input=1x1x40x10xf32 --input=10xf32 --input=1x1x10x40xf32 --input=40xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %s --input=1x13x11x40xf32 --input=1x1x40x10xf32 --input=10xf32 --input=1x1x10x40xf32 --input=40xf32 --threads=2 --force-avx2 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=1x13x11x40xf32 --input=1x1x40x10xf32 --input=10xf32 --input=1x1x10x40xf32 --input=40xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=1x13x11x40xf32 --input=1x1x40x10xf32 --input=10xf32 --input=1x1x10x40xf32 --input=40xf32 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES

// CHECK: result[0]: matches the expected output
// CHECK: "root_ops":3,"dispatch_regions":3,"dispatches":3,
// CHECK-SAME: "scalar_kernels":0,
// VALUES: result[0]: matches the expected output
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%x: tensor<1x13x11x40xf32>, %w1: tensor<1x1x40x10xf32>, %b1: tensor<10xf32>,
                %w2: tensor<1x1x10x40xf32>, %b2: tensor<40xf32>) -> tensor<1x13x11x40xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.00699300691 : f32
  // The mean over H and W.
  %eh = tensor.empty() : tensor<1x11x40xf32>
  %fh = linalg.fill ins(%zero : f32) outs(%eh : tensor<1x11x40xf32>) -> tensor<1x11x40xf32>
  %sh = linalg.reduce ins(%x : tensor<1x13x11x40xf32>) outs(%fh : tensor<1x11x40xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %kh = tensor.expand_shape %sh [[0, 1], [2], [3]] output_shape [1, 1, 11, 40] : tensor<1x11x40xf32> into tensor<1x1x11x40xf32>
  %ew = tensor.empty() : tensor<1x1x40xf32>
  %fw = linalg.fill ins(%zero : f32) outs(%ew : tensor<1x1x40xf32>) -> tensor<1x1x40xf32>
  %sw = linalg.reduce ins(%kh : tensor<1x1x11x40xf32>) outs(%fw : tensor<1x1x40xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sw : tensor<1x1x40xf32>) outs(%ew : tensor<1x1x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<1x1x40xf32>
  %pooled = tensor.expand_shape %mean [[0], [1, 2], [3]] output_shape [1, 1, 1, 40] : tensor<1x1x40xf32> into tensor<1x1x1x40xf32>
  // Reduce: 40 -> 10, bias, swish.
  %e1 = tensor.empty() : tensor<1x1x1x10xf32>
  %i1 = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b1 : tensor<10xf32>) outs(%e1 : tensor<1x1x1x10xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x1x1x10xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pooled, %w1 : tensor<1x1x1x40xf32>, tensor<1x1x40x10xf32>) outs(%i1 : tensor<1x1x1x10xf32>) -> tensor<1x1x1x10xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x1x1x10xf32>) outs(%e1 : tensor<1x1x1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %a, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x10xf32>
  // Expand: 10 -> 40, bias, sigmoid.
  %e2 = tensor.empty() : tensor<1x1x1x40xf32>
  %i2 = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b2 : tensor<40xf32>) outs(%e2 : tensor<1x1x1x40xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x1x1x40xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s1, %w2 : tensor<1x1x1x10xf32>, tensor<1x1x10x40xf32>) outs(%i2 : tensor<1x1x1x40xf32>) -> tensor<1x1x1x40xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2 : tensor<1x1x1x40xf32>) outs(%e2 : tensor<1x1x1x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x40xf32>
  // The gate.
  %eg = tensor.empty() : tensor<1x13x11x40xf32>
  %g = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s2 : tensor<1x13x11x40xf32>, tensor<1x1x1x40xf32>) outs(%eg : tensor<1x13x11x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x13x11x40xf32>
  return %g : tensor<1x13x11x40xf32>
}
