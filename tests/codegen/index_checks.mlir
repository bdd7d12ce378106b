// jitrun-codegen-safe-arith clamps a gather's data-dependent index and tags
// the clamp with its site, listing the site's message on the function;
// jitrun-codegen-report-index-errors (on the bufferized, vectorized kernel)
// adds the status buffer before the workgroup id and sets it, atomically,
// wherever a tagged clamp changed an index in a lane that is read.
// RUN: %jit-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jitrun-codegen-safe-arith))' | FileCheck %s --check-prefix=SAFE
// RUN: %jit-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jitrun-codegen-report-index-errors))' | FileCheck %s --check-prefix=REPORT

// SAFE-LABEL: func.func private @gather
// SAFE-SAME:    jitrun.index_checks = ["{{.*}}index_checks.mlir:[[# @LINE + 13]]:10: error: index out of range: a 'tensor.extract' (a gather by data) read an index outside dimension 0 of its tensor<50x16xf32> (valid indices 0..49)"]
// SAFE:         %[[J:.*]] = arith.index_cast
// SAFE:         %[[K:.*]] = linalg.index 1
// SAFE:         %[[LOW:.*]] = arith.maxsi %[[J]], %c0
// SAFE:         %[[IDX:.*]] = arith.minsi %[[LOW]], %c49 {jitrun.index_check = 1 : i64}
// SAFE:         tensor.extract %{{.*}}[%[[IDX]], %[[K]]]
func.func private @gather(%t: tensor<50x16xf32>, %idx: tensor<40xi32>) -> tensor<40x16xf32> attributes {jitrun.dispatch} {
  %e = tensor.empty() : tensor<40x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<40xi32>) outs(%e : tensor<40x16xf32>) {
  ^bb0(%i: i32, %o: f32):
    %j = arith.index_cast %i : i32 to index
    %k = linalg.index 1 : index
    %v = tensor.extract %t[%j, %k] : tensor<50x16xf32>
    linalg.yield %v : f32
  } -> tensor<40x16xf32>
  return %r : tensor<40x16xf32>
}

// -----

// A vector clamp feeding a masked gather: only the masked-in lanes count
// (select, so that a poison lane under a false mask is false).
// REPORT-LABEL: func.func private @kernel(
// REPORT-SAME:    %{{.*}}: memref<50x16xf32>, %{{.*}}: memref<40xi32>, %[[STATUS:.*]]: memref<1xi32>, %{{.*}}: index)
// REPORT:         %[[IDX:.*]] = arith.index_cast
// REPORT:         %[[LOW:.*]] = arith.maxsi %[[IDX]]
// REPORT:         %[[CLAMP:.*]] = arith.minsi %[[LOW]], %{{.*}} : vector<1x16xindex>
// REPORT-NOT:     jitrun.index_check =
// REPORT:         %[[MASK:.*]] = vector.create_mask
// REPORT:         %[[CHANGED:.*]] = arith.cmpi ne, %[[CLAMP]], %[[IDX]] : vector<1x16xindex>
// REPORT:         %[[READ:.*]] = arith.select %[[MASK]], %[[CHANGED]], %{{.*}} : vector<1x16xi1>, vector<1x16xi1>
// REPORT:         %[[FLAT:.*]] = vector.shape_cast %[[READ]] : vector<1x16xi1> to vector<16xi1>
// REPORT:         %[[ANY:.*]] = vector.reduction <or>, %[[FLAT]] : vector<16xi1> into i1
// REPORT:         scf.if %[[ANY]] {
// REPORT:           %[[SITE:.*]] = arith.constant 1 : i32
// REPORT:           memref.atomic_rmw maxs %[[SITE]], %[[STATUS]][%{{.*}}] : (i32, memref<1xi32>) -> i32
// REPORT:         vector.mask %[[MASK]] { vector.gather
func.func private @kernel(%t: memref<50x16xf32>, %idx: memref<40xi32>, %wg: index) attributes {jitrun.dispatch, jitrun.index_checks = ["site 1"]} {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %pad = arith.constant 0 : i32
  %zero = arith.constant dense<0> : vector<1x16xindex>
  %last = arith.constant dense<49> : vector<1x16xindex>
  %all = arith.constant dense<true> : vector<1x16xi1>
  %fill = arith.constant dense<0.0> : vector<1x16xf32>
  %raw = vector.transfer_read %idx[%wg], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : memref<40xi32>, vector<1x16xi32>
  %i = arith.index_cast %raw : vector<1x16xi32> to vector<1x16xindex>
  %low = arith.maxsi %i, %zero : vector<1x16xindex>
  %clamped = arith.minsi %low, %last {jitrun.index_check = 1 : i64} : vector<1x16xindex>
  %c1 = arith.constant 1 : index
  %mask = vector.create_mask %c1, %c7 : vector<1x16xi1>
  %g = vector.mask %mask { vector.gather %t[%c0, %c0] [%clamped], %all, %fill : memref<50x16xf32>, vector<1x16xindex>, vector<1x16xi1>, vector<1x16xf32> into vector<1x16xf32> } : vector<1x16xi1> -> vector<1x16xf32>
  return
}

// -----

// No checks listed: the kernel keeps its signature.
// REPORT-LABEL: func.func private @plain(
// REPORT-SAME:    %{{.*}}: memref<4xf32>, %{{.*}}: index)
// REPORT-NOT:     atomic_rmw
func.func private @plain(%a: memref<4xf32>, %wg: index) attributes {jitrun.dispatch} {
  return
}
