// A projection split into heads and transposed per head (13 tokens, 3 heads
// of 20, K = 24: no dimension a multiple of the vector tiles) is one
// dispatch (the reshape is propagated into the contraction), and its values
// match the reference evaluator on both ISA paths, at 1 and 2 threads, in
// every fusion mode.
//
// RUN: %jitrun %s --input=13x24xf32 --input=24x60xf32 --input=60xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=13x24xf32 --input=24x60xf32 --input=60xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %s --input=13x24xf32 --input=24x60xf32 --input=60xf32 --threads=2 --force-avx2 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=13x24xf32 --input=24x60xf32 --input=60xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES
// RUN: %jitrun %s --input=13x24xf32 --input=24x60xf32 --input=60xf32 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=VALUES

// CHECK: result[0]: matches the expected output
// CHECK: "root_ops":1,"dispatch_regions":1,"dispatches":1,
// VALUES: result[0]: matches the expected output
func.func @main(%x: tensor<13x24xf32>, %w: tensor<24x60xf32>, %b: tensor<60xf32>) -> tensor<3x13x20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x60xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<13x60xf32>) -> tensor<13x60xf32>
  %m = linalg.matmul ins(%x, %w : tensor<13x24xf32>, tensor<24x60xf32>) outs(%f : tensor<13x60xf32>) -> tensor<13x60xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<13x60xf32>, tensor<60xf32>) outs(%e : tensor<13x60xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<13x60xf32>
  %h = tensor.expand_shape %a [[0], [1, 2]] output_shape [13, 3, 20] : tensor<13x60xf32> into tensor<13x3x20xf32>
  %te = tensor.empty() : tensor<3x13x20xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<13x3x20xf32>) outs(%te : tensor<3x13x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x13x20xf32>
  return %t : tensor<3x13x20xf32>
}
