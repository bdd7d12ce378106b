// The other runs of this input: tests/fusion/aggressive.mlir.
// Aggressive mode: a producer with several uses fuses into the consumer that
// follows it, and the dispatch returns several results. Default mode keeps
// one result per dispatch and splits there. Both give the reference's
// numbers, and --explain-fusion names the rule that split default mode.
//
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --reference --output=@%t.0.npy --output=@%t.1.npy
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --fusion=aggressive --threads=2 --expected_output=@%t.0.npy --expected_output=@%t.1.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=RUN-AGG
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --threads=2 --expected_output=@%t.0.npy --expected_output=@%t.1.npy --dump-statistics=json --explain-fusion 2>&1 | FileCheck %s --check-prefix=RUN-DEF

// RUN-AGG: result[0]: matches the expected output
// RUN-AGG: result[1]: matches the expected output
// RUN-AGG: "dispatch_regions":1,"dispatches":1,"executables":1,
// RUN-AGG-SAME: "scalar_kernels":0,

// RUN-DEF: aggressive.mlir:[[CONSUMER:[0-9]+]]:8: remark: not fused: {{.*}}aggressive.mlir:{{[0-9]+}}:8 linalg.generic -> {{.*}}aggressive.mlir:[[CONSUMER]]:8 linalg.generic: producer-has-other-uses
// RUN-DEF: result[0]: matches the expected output
// RUN-DEF: result[1]: matches the expected output
// RUN-DEF: "dispatch_regions":2,"dispatches":2,

func.func @main(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>, %b: tensor<80xf32>) -> (tensor<64x80xf32>, tensor<64x80xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %z : f32
    linalg.yield %s : f32
  } -> tensor<64x80xf32>
  return %a, %r : tensor<64x80xf32>, tensor<64x80xf32>
}
