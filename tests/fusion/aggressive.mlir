// The other runs of this input: tests/cli/aggressive.mlir.
// Aggressive mode: a producer with several uses fuses into the consumer that
// follows it, and the dispatch returns several results. Default mode keeps
// one result per dispatch and splits there. Both give the reference's
// numbers, and --explain-fusion names the rule that split default mode.
//
// RUN: %jit-opt %s --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=aggressive})' | FileCheck %s --check-prefix=AGG
// RUN: %jit-opt %s --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=default})' | FileCheck %s --check-prefix=DEF

// AGG-LABEL: func.func private @main_dispatch_0(
// AGG-SAME:      -> (tensor<64x80xf32>, tensor<64x80xf32>)
// AGG:           linalg.fill
// AGG-NEXT:      linalg.matmul
// AGG-NEXT:      %[[A:.+]] = linalg.generic
// AGG:           arith.addf
// AGG:           %[[R:.+]] = linalg.generic
// AGG-SAME:      ins(%[[A]] :
// AGG:           arith.maximumf
// AGG:           return %[[A]], %[[R]]
// AGG-NOT:     func.func private
// AGG-LABEL: func.func @main(
// AGG:           %[[C:.+]]:2 = call @main_dispatch_0(
// AGG-NEXT:      return %[[C]]#0, %[[C]]#1

// DEF:       func.func private @main_dispatch_0(
// DEF-SAME:      -> tensor<64x80xf32>
// DEF:       func.func private @main_dispatch_1(
// DEF:         arith.maximumf
// DEF-NOT:   func.func private @main_dispatch_2

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
