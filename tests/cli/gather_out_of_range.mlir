// A gather by data (tensor.extract with an index read from an input) never
// reads outside its table: each index is clamped into the table's bounds,
// so -1 reads element 0 and 8, 9, 100 or 2000000000 read element 7. Before,
// such indices returned garbage with exit 0, or crashed the process.
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=8,9,-1,100 | FileCheck %s --check-prefix=OUT
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=2000000000,-2000000000,0,0 | FileCheck %s --check-prefix=HUGE
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=2000000000,-2000000000,0,0 --reference | FileCheck %s --check-prefix=HUGE
// RUN: %jitrun %s --input=8xf32=0,1,2,3,4,5,6,7 --input=4xi32=3,1,7,0 | FileCheck %s --check-prefix=IN
// OUT: result[0]: 4xf32=7 7 0 7
// HUGE: result[0]: 4xf32=7 0 0 0
// IN: result[0]: 4xf32=3 1 7 0
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
