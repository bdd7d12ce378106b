// A lowering config (tests/codegen/lowering_config.mlir) that does not fit
// its op is an error naming it, not a crash or a silent default.
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))'
func.func private @malformed(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{jitrun.lowering_config: 'vector' must be an array<i64> of 3 tile sizes of at least 0 (0: untiled), or empty}}
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 16, 0, 0>, cache = array<i64>, vector = array<i64: 4, 16>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}

// -----

func.func private @bad_reduction(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{jitrun.lowering_config: 'reduction' must be an array<i64> of 3 tile sizes of at least 0 (0: untiled)}}
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 8, 32, 0>, cache = array<i64>, vector = array<i64: 8, 32, 0>, reduction = array<i64: 0, -1, 4>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}
