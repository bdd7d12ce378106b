// A packed contraction whose rows (20) the row tile (12) does not divide:
// after peeling, the edge's 8 rows are one static 8-row tile that
// vectorizes whole (8 accumulators a step), not 8 one-row tiles of one
// accumulator each (10 % of a 128-row BERT projection's time). Only a
// generic kernel's dynamic edge runs one row at a time.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-prepare-contractions,jitrun-codegen-select-strategy,jitrun-codegen-tile,jitrun-codegen-peel-partial-tiles))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @packed_rows
// CHECK:       scf.forall
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<12x64xf32>, tensor<1x64x32xf32>) outs({{.*}} : tensor<12x1x32xf32>)
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<8x64xf32>, tensor<1x64x32xf32>) outs({{.*}} : tensor<8x1x32xf32>)
// CHECK:         scf.forall.in_parallel
#a = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @packed_rows(%arg0: tensor<20x64xf32>, %arg1: tensor<2x64x32xf32>) -> tensor<20x2x32xf32> attributes {jitrun.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<20x2x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<20x2x32xf32>) -> tensor<20x2x32xf32>
  %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<20x64xf32>, tensor<2x64x32xf32>) outs(%1 : tensor<20x2x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 fastmath<contract> : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<20x2x32xf32>
  return %2 : tensor<20x2x32xf32>
}
