// The other runs of this input: tests/fusion/aggressive_elementwise.mlir.
// Aggressive mode without a root: an elementwise op that elementwise fusion
// left on its own because it has two uses (an LSTM step's cell state c,
// read by the hidden state h = o * tanh(c) and returned) takes its consumer
// like a root does, and the dispatch returns both c and h. Default mode
// keeps one result per dispatch: two dispatches. Both match the reference
// evaluator at 2 threads.
//
// RUN: %jitrun %s --input=3x40xf32 --input=3x40xf32 --input=3x40xf32 --reference --output=@%t.0.npy --output=@%t.1.npy
// RUN: %jitrun %s --input=3x40xf32 --input=3x40xf32 --input=3x40xf32 --fusion=aggressive --threads=2 \
// RUN:   --expected_output=@%t.0.npy --expected_output=@%t.1.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=RUN-AGG
// RUN: %jitrun %s --input=3x40xf32 --input=3x40xf32 --input=3x40xf32 --threads=2 \
// RUN:   --expected_output=@%t.0.npy --expected_output=@%t.1.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=RUN-DEF

// RUN-AGG: result[0]: matches the expected output
// RUN-AGG: result[1]: matches the expected output
// RUN-AGG: "root_ops":0,"dispatch_regions":1,"dispatches":1,
// RUN-DEF: result[0]: matches the expected output
// RUN-DEF: result[1]: matches the expected output
// RUN-DEF: "root_ops":0,"dispatch_regions":2,"dispatches":2,
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
