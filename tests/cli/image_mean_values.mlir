// The mean over an image as TOSA writes it (keep-dims sum over H, sum over
// W, times 1/(H*W)) is one reduction over H and W in one dispatch
// (jitrun-fusion-merge-reductions), and its values match the reference
// evaluator (two separate sums) on both ISA paths, at 1 and 2 threads, in
// every fusion mode. 29 x 23 x 40: no dimension a multiple of the vector tiles.
//
// RUN: %jitrun %s --input=1x29x23x40xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x29x23x40xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %s --input=1x29x23x40xf32 --threads=2 --force-avx2 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=1x29x23x40xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=1x29x23x40xf32 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: result[0]: matches the expected output
// CHECK: "root_ops":1,"dispatch_regions":1,"dispatches":1,
// CHECK-SAME: "scalar_kernels":0,
// VALUES: result[0]: matches the expected output
// NONE: result[0]: matches the expected output
// NONE: "root_ops":2,"dispatch_regions":3,"dispatches":3,
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%x: tensor<1x29x23x40xf32>) -> tensor<1x1x40xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.00149925037 : f32
  %e1 = tensor.empty() : tensor<1x23x40xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x23x40xf32>) -> tensor<1x23x40xf32>
  %r1 = linalg.reduce ins(%x : tensor<1x29x23x40xf32>) outs(%f1 : tensor<1x23x40xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %k = tensor.expand_shape %r1 [[0, 1], [2], [3]] output_shape [1, 1, 23, 40] : tensor<1x23x40xf32> into tensor<1x1x23x40xf32>
  %e2 = tensor.empty() : tensor<1x1x40xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x40xf32>) -> tensor<1x1x40xf32>
  %r2 = linalg.reduce ins(%k : tensor<1x1x23x40xf32>) outs(%f2 : tensor<1x1x40xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %m = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r2 : tensor<1x1x40xf32>) outs(%e2 : tensor<1x1x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %scale : f32
    linalg.yield %s : f32
  } -> tensor<1x1x40xf32>
  return %m : tensor<1x1x40xf32>
}
