// The tile strategy as IR: jitrun-codegen-tile-and-vectorize writes the
// root's tile sizes as its `jitrun.lowering_config` before tiling, so
// `strategy-only` prints the strategy (here for AVX-512 and AVX2), and a
// root that already carries a config is tiled as the config says.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize{strategy-only=true}))' \
// RUN:   | FileCheck %s --check-prefix=STRATEGY
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize{strategy-only=true vector-bits=256}))' \
// RUN:   | FileCheck %s --check-prefix=AVX2
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --check-prefix=TILED

// A 64x96 * 96x80 matmul: workgroups and vector tiles of 8 rows by 32
// columns on AVX-512 (two registers of 16 lanes); on AVX2 the same
// workgroups hold two vector tiles of 8 by 16. K stays whole.
// STRATEGY-LABEL: func.func private @matmul_dispatch
// STRATEGY:       linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 8, 32, 0>, workgroup = array<i64: 8, 32, 0>}}
// AVX2-LABEL:     func.func private @matmul_dispatch
// AVX2:           linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 8, 16, 0>, workgroup = array<i64: 8, 32, 0>}}
// TILED-LABEL:    func.func private @matmul_dispatch
// TILED:          scf.forall ({{.*}}) = (0, 0) to (64, 80) step (8, 32)
func.func private @matmul_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}

// -----

// An override: workgroups of 16 rows by all 80 columns, vector tiles of 4 by
// 16. Strategy-only leaves it as written; tiling follows it.
// STRATEGY-LABEL: func.func private @overridden
// STRATEGY:       linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 4, 16, 0>, workgroup = array<i64: 16, 0, 0>}}
// TILED-LABEL:    func.func private @overridden
// TILED:          scf.forall ({{.*}}) = (0) to (64) step (16)
// TILED:            scf.for {{.*}} = %c0 to %c16 step %c4
// TILED:              scf.for {{.*}} = %c0 to %c80 step %c16
// TILED:                scf.for {{.*}} = %c0 to %c96 step %c1
// TILED:                  vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func private @overridden(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 16, 0, 0>, cache = array<i64>, vector = array<i64: 4, 16, 0>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}


// -----

// Reduction tiles in the config: K by 4 instead of 1, so each step of the
// K loop is a 4-deep contraction of the 8 x 32 register tile.
// TILED-LABEL:    func.func private @reduction_override
// TILED:          scf.for {{.*}} = %c0 to %c96 step %c4
// TILED:            vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
func.func private @reduction_override(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 8, 32, 0>, cache = array<i64>, vector = array<i64: 8, 32, 0>, reduction = array<i64: 0, 0, 4>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}
