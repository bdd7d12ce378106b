// The other runs of this input: tests/pipeline/reductions.mlir.
// Reductions as roots, and what elementwise fusion may put into them: a
// producer is never fused into a reduction through a broadcasting
// (non-permutation) map, since the fused op would recompute it once per
// element of the broadcast dimension; through a permutation it may be.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-elementwise))' \
// RUN:   | FileCheck %s --check-prefix=FUSE

// Rule: a row softmax (max reduction; sub + exp; sum reduction; div) is two
// dispatches, one per reduction. Elementwise fusion puts nothing into a
// reduction: the max reads only the input, and the exp has a second use (the
// div), so it is not duplicated into the sum. Dispatch formation then lets a
// row reduction take the elementwise consumer that reads its result through
// a broadcast, (d0, d1) -> (d0): a workgroup computes whole rows, so the
// reduction runs once per row and is not recomputed per tile.
//
// FUSE-LABEL: func.func @softmax(
// FUSE:         linalg.fill
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.maximumf
// FUSE-NEXT:      linalg.yield
// FUSE:         %[[EXP:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.subf
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      linalg.yield
// FUSE:         linalg.fill
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<8x128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE:         linalg.generic {{.*}} ins(%[[EXP]], %{{[a-z0-9_]+}} : tensor<8x128xf32>, tensor<8xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.divf
// FUSE-NEXT:      linalg.yield
// FUSE-NOT:     linalg.generic
// FUSE:         return
//
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x128xf32>) outs(%fm : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %ex = linalg.generic {indexing_maps = [#id, #r, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<8x128xf32>, tensor<8xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %s = arith.subf %a, %m : f32
    %v = math.exp %s : f32
    linalg.yield %v : f32
  } -> tensor<8x128xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<8x128xf32>) outs(%fs : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #r, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<8x128xf32>, tensor<8xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// Rule (negative): a single-use producer on tensor<128> read by a row
// reduction through (d0, d1) -> (d1) is a broadcast over the 8 rows; fusing
// would compute each exp 8 times instead of once. The producer stays a
// generic of its own (its own dispatch), and the reduction still reads it
// through (d1).
//
// FUSE-LABEL: func.func @producer_broadcast_read(
// FUSE:         %[[P:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      linalg.yield
// FUSE:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// FUSE-SAME:      ins(%arg1, %[[P]] : tensor<8x128xf32>, tensor<128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.mulf
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE-NOT:     linalg.generic
// FUSE:         return
//
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @producer_broadcast_read(%v: tensor<128xf32>, %x: tensor<8x128xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v : tensor<128xf32>) outs(%e0 : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #c, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x, %p : tensor<8x128xf32>, tensor<128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %m = arith.mulf %a, %w : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Rule (negative): a single-use producer on tensor<8> read by a row reduction
// through (d0, d1) -> (d0), i.e. broadcast along the reduced dimension: fusing
// would recompute it once per reduced element (128 times). Not fused.
//
// FUSE-LABEL: func.func @producer_read_along_reduced(
// FUSE:         %[[P:.+]] = linalg.generic {{.*}}iterator_types = ["parallel"]}
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      math.exp
// FUSE:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// FUSE-SAME:      ins(%arg1, %[[P]] : tensor<8x128xf32>, tensor<8xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.subf
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE-NOT:     linalg.generic
// FUSE:         return
//
func.func @producer_read_along_reduced(%v: tensor<8xf32>, %x: tensor<8x128xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %p : tensor<8x128xf32>, tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %m = arith.subf %a, %w : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Rule (negative): the reduction check comes before the cheapness exception.
// A producer that reads only a scalar would be duplicated into elementwise
// consumers (see no_duplication.mlir), but not into a reduction that reads it
// through a broadcasting map.
//
// FUSE-LABEL: func.func @cheap_producer_into_reduction(
// FUSE:         %[[P:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// FUSE:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]}
// FUSE-SAME:      ins(%arg1, %[[P]] : tensor<8x128xf32>, tensor<128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.mulf
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE-NOT:     linalg.generic
// FUSE:         return
func.func @cheap_producer_into_reduction(%s: tensor<f32>, %x: tensor<8x128xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%s : tensor<f32>) outs(%e0 : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %p : tensor<8x128xf32>, tensor<128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %m = arith.mulf %a, %w : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Rule (positive): a single-use elementwise producer read by a reduction
// through the identity is fused into it: one generic (exp then add), one
// dispatch with the fill.
//
// FUSE-LABEL: func.func @producer_identity_read(
// FUSE-NOT:     linalg.exp
// FUSE:         linalg.fill
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<8xf32>
// FUSE-NEXT:    return
//
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @producer_identity_read(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %p = linalg.exp ins(%x : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Rule (positive; the issue listed this shape as a negative case): a
// producer that broadcasts tensor<128> to tensor<8x128> while computing exp,
// read by the row sum through the identity. The reduction reads the producer
// through a permutation, so the no-broadcast-into-reduction rule does not
// apply: the producer already evaluates exp 8 x 128 times and the fused
// reduction evaluates it exactly as often, so nothing is recomputed, and the
// 8x128 intermediate disappears. It is fused; the fused reduction reads the
// producer's own input through the producer's (d1).
//
// FUSE-LABEL: func.func @broadcasting_producer_identity_read(
// FUSE:         linalg.fill
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<128xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<8xf32>
// FUSE-NEXT:    return
//
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @broadcasting_producer_identity_read(%v: tensor<128xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#c, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = math.exp %a : f32
    linalg.yield %x : f32
  } -> tensor<8x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<8x128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %x = arith.addf %a, %acc : f32
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
