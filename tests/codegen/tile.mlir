// jitrun-codegen-tile alone: the root is tiled at the three levels of its
// lowering config (an scf.forall of workgroups, then scf.for cache tiles,
// then vector tiles), with its producer (the fill) fused into every level.
// Reduction loops and vectorization are left to the passes after it.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-tile))' | FileCheck %s

// Workgroups of 32 rows by all 80 columns, cache tiles of 16 rows, vector
// tiles of 4 by 16.
// CHECK-LABEL: func.func private @three_levels
// CHECK:       scf.forall (%[[WG:.*]]) = (0) to (64) step (32)
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK:             scf.for %{{.*}} = %c0 to %c80 step %c16
// CHECK:               linalg.fill {{.*}} -> tensor<4x16xf32>
// CHECK:               linalg.matmul {jitrun.lowering_config = {{.*}}} ins({{.*}} : tensor<4x96xf32>, tensor<96x16xf32>) outs({{.*}} : tensor<4x16xf32>)
// CHECK-NOT:   vector.
func.func private @three_levels(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 32, 0, 0>, cache = array<i64: 16, 0, 0>, vector = array<i64: 4, 16, 0>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

// Empty levels are skipped: only workgroups of 8 x 32. Tiles of 32 do not
// divide 80 columns: the column extent is an affine.min, dynamic
// (jitrun-codegen-peel-partial-tiles splits the edge off scf.for loops).
// CHECK-LABEL: func.func private @workgroups_only
// CHECK:       scf.forall ({{.*}}) = (0, 0) to (64, 80) step (8, 32)
// CHECK-NOT:     scf.for
// CHECK:         affine.min
// CHECK:         linalg.matmul {{.*}} outs({{.*}} : tensor<8x?xf32>)
func.func private @workgroups_only(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 8, 32, 0>, cache = array<i64>, vector = array<i64>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}
