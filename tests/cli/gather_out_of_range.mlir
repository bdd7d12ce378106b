// A gather by data (tensor.extract with an index read from an input) whose
// index falls outside its table fails the run with the gather's location,
// exit 1, on the fast path, the reference path, with AVX2 and with threads;
// the read itself is clamped into the table, so nothing outside it is ever
// touched. Before, such indices returned garbage with exit 0, or crashed the
// process. In-range indices read what they name.
// RUN: not %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=8,9,-1,100 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=2000000000,-2000000000,0,0 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=0,0,0,-1 --reference 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=0,8,0,0 --force-avx2 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=3,1,7,0 | FileCheck %s --check-prefix=IN
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=3,1,7,0 --reference | FileCheck %s --check-prefix=IN
// ERR: gather_out_of_range.mlir:[[# @LINE + 22]]:10: error: index out of range: a 'tensor.extract' (a gather by data) read an index outside dimension 0 of its tensor<8xf32> (valid indices 0..7)
// ERR-NOT: result
// IN: result[0]: 4xf32=3 1 7 0
//
// TOSA's gather (an embedding lookup), 40 rows of 19 from a 50-row table,
// vectorized in 32-lane tiles with a 5-lane tail; the bad index is the last
// one, in the tail, and in one run the first.
// DEFINE: %{ids}=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38
// RUN: not %jitrun %s --function=embed --input=1x50x19xf32=1 --input=1x40xi32=%{ids},50 2>&1 | FileCheck %s --check-prefix=TOSA
// RUN: not %jitrun %s --function=embed --input=1x50x19xf32=1 --input=1x40xi32=-7,%{ids} --threads=2 2>&1 | FileCheck %s --check-prefix=TOSA
// RUN: %jitrun %s --function=embed --input=1x50x19xf32=2 --input=1x40xi32=%{ids},49 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=EMBED
// TOSA: gather_out_of_range.mlir:[[# @LINE + 18]]:8: error: index out of range: {{.*}} dimension 1 of its tensor<1x50x19xf32> (valid indices 0..49)
// EMBED: result[0]: 1x40x19xf32={{\[\[}}2 2 2
// EMBED: "dispatches":1

#map = affine_map<(i) -> (i)>
func.func @main(%t: tensor<8xf32>, %idx: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%idx : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %j = arith.index_cast %i : i32 to index
    %v = tensor.extract %t[%j] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @embed(%t: tensor<1x50x19xf32>, %idx: tensor<1x40xi32>) -> tensor<1x40x19xf32> {
  %r = tosa.gather %t, %idx : (tensor<1x50x19xf32>, tensor<1x40xi32>) -> tensor<1x40x19xf32>
  return %r : tensor<1x40x19xf32>
}
