// The other runs of this input: tests/cli/aggressive_elementwise.mlir.
// Aggressive mode without a root: an elementwise op that elementwise fusion
// left on its own because it has two uses (an LSTM step's cell state c,
// read by the hidden state h = o * tanh(c) and returned) takes its consumer
// like a root does, and the dispatch returns both c and h. Default mode
// keeps one result per dispatch: two dispatches. Both match the reference
// evaluator at 2 threads.
//
// RUN: %jit-opt %s --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=aggressive})' | FileCheck %s --check-prefix=AGG
// RUN: %jit-opt %s --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=default})' | FileCheck %s --check-prefix=DEF

// AGG-LABEL: func.func private @main_dispatch_0(
// AGG-SAME:      -> (tensor<3x40xf32>, tensor<3x40xf32>)
// AGG:           %[[C:.+]] = linalg.generic
// AGG:             arith.mulf
// AGG:             arith.addf
// AGG:           %[[H:.+]] = linalg.generic
// AGG-SAME:        %[[C]]
// AGG:             math.tanh
// AGG:           return %[[C]], %[[H]]
// AGG-NOT:     func.func private
// AGG-LABEL: func.func @main(
// AGG:           %[[R:.+]]:2 = call @main_dispatch_0(
// AGG-NEXT:      return %[[R]]#1, %[[R]]#0

// DEF:       func.func private @main_dispatch_0(
// DEF-SAME:      -> tensor<3x40xf32>
// DEF:       func.func private @main_dispatch_1(
// DEF:         math.tanh

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%f: tensor<3x40xf32>, %cprev: tensor<3x40xf32>, %o: tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xf32>) {
  %e = tensor.empty() : tensor<3x40xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %cprev : tensor<3x40xf32>, tensor<3x40xf32>) outs(%e : tensor<3x40xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<3x40xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o, %c : tensor<3x40xf32>, tensor<3x40xf32>) outs(%e : tensor<3x40xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = math.tanh %b : f32
    %m = arith.mulf %a, %t : f32
    linalg.yield %m : f32
  } -> tensor<3x40xf32>
  return %h, %c : tensor<3x40xf32>, tensor<3x40xf32>
}
