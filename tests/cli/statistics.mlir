// Fusion statistics pinned on a small graph, through jitrun (pass statistics
// from --mlir-pass-statistics are compiled out in this Release build: the
// report is empty, so jitrun's own counts are checked instead).
//
// The graph: matmul (splat weights) + bias add + residual add (named
// linalg.add) + relu, then a row sum of the relu. Before fusion there are
// four elementwise/generic ops (bias, add, relu, sum); elementwise fusion
// makes one generic of bias + add + relu, leaving it and the sum (two). The
// roots are the matmul and the sum. The relu result is returned and summed,
// so it is not fused into the sum: two dispatches, fill + matmul + fused
// generic, and fill + sum.
//
// RUN: %jitrun %s --input=4x16xf32=1 --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %s --input=4x16xf32=1 --fusion=none --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %jitrun %s --input=4x16xf32=1 --reference --output=@%t.0.npy --output=@%t.1.npy
// RUN: %jitrun %s --input=4x16xf32=1 --expected_output=@%t.0.npy --expected_output=@%t.1.npy | FileCheck %s --check-prefix=SAME
//
// Hand-computed: x = 1, W = 0.25, so matmul = 16 * 0.25 = 4; plus bias[j]
// plus the residual 1 gives 5 + j for j < 8 and 5 - j (below zero) for
// j >= 8, which relu clamps to 0; the row sum is 5 + 6 + ... + 12 = 68.
// CHECK: result[0]: 4x16xf32=[5 6 7 8 9 10 11 12 0 0 0 0 0 0 0 0][5 6 7 8 9 10 11 12 0 0 0 0 0 0 0 0][5 6 7 8 9 10 11 12 0 0 0 0 0 0 0 0][5 6 7 8 9 10 11 12 0 0 0 0 0 0 0 0]
// CHECK: result[1]: 4xf32=68 68 68 68
// CHECK: "function":"main","fusion":"default","generic_before":4,"generic_after":2,"root_ops":2,"dispatch_regions":2,"dispatches":2,
//
// mode=none: no elementwise fusion (the named add stays named, so three
// linalg.generic remain), and each of the five non-fill linalg ops is a
// dispatch; the two fills run on the host.
// NONE: result[1]: 4xf32=68 68 68 68
// NONE: "function":"main","fusion":"none","generic_before":4,"generic_after":3,"root_ops":2,"dispatch_regions":5,"dispatches":5,
// NONE-SAME: "fills":2,
//
// SAME: result[0]: matches the expected output
// SAME: result[1]: matches the expected output
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %w = arith.constant dense<0.25> : tensor<16x16xf32>
  %bias = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0]> : tensor<16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %r = linalg.add ins(%a, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x16xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y, %sum : tensor<4x16xf32>, tensor<4xf32>
}
