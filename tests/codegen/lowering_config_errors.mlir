// jitrun-codegen-tile alone: a lowering config that does not fit its op, or
// none on the root, is an error naming it, not a crash or a silent default.
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-tile))'
func.func private @malformed(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{jitrun.lowering_config: 'vector' must be an array<i64> of 3 tile sizes of at least 0 (0: untiled), or empty}}
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 16, 0, 0>, cache = array<i64>, vector = array<i64: 4, 16>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

func.func private @bad_reduction(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{jitrun.lowering_config: 'reduction' must be an array<i64> of 3 tile sizes of at least 0 (0: untiled)}}
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 8, 32, 0>, cache = array<i64>, vector = array<i64: 8, 32, 0>, reduction = array<i64: 0, -1, 4>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

func.func private @bad_scheme(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{jitrun.lowering_config: 'scheme' must be a string}}
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 8, 32, 0>, cache = array<i64>, vector = array<i64: 8, 32, 0>, scheme = 3}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

func.func private @no_config(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  // expected-error @below {{no jitrun.lowering_config on the dispatch's root (jitrun-codegen-select-strategy writes one)}}
  %m = linalg.matmul 
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}
