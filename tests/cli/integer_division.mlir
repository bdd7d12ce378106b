// Integer division and remainder never trap (SIGFPE killed the process):
// x / 0 = 0 and x % 0 = 0, MIN / -1 = MIN and MIN % -1 = 0 (NumPy's
// results); every other pair divides as C does (toward zero). The vector
// path, AVX2, and the scalar reference path all agree.
// RUN: %jitrun %s --input=16xi32=7 --input=16xi32=0 | FileCheck %s --check-prefix=ZERO
// RUN: %jitrun %s --input=16xi32=-2147483648 --input=16xi32=-1 | FileCheck %s --check-prefix=MIN
// RUN: %jitrun %s --input=16xi32=-2147483648 --input=16xi32=-1 --reference | FileCheck %s --check-prefix=MIN
// RUN: %jitrun %s --input=16xi32=7 --input=16xi32=0 --reference | FileCheck %s --check-prefix=ZERO
// RUN: %jitrun %s --input=16xi32=7,-7,7,-7,0,5,100,-100,-2147483648,2147483647,3,4,5,6,7,8 --input=16xi32=2,2,-2,-2,3,0,7,7,-1,-1,1,1,1,1,1,0 | FileCheck %s --check-prefix=MIXED
// RUN: %jitrun %s --input=16xi32=7,-7,7,-7,0,5,100,-100,-2147483648,2147483647,3,4,5,6,7,8 --input=16xi32=2,2,-2,-2,3,0,7,7,-1,-1,1,1,1,1,1,0 --force-avx2 | FileCheck %s --check-prefix=MIXED
// RUN: %jitrun %s --function=unsigned --input=4xi32=7 --input=4xi32=0 | FileCheck %s --check-prefix=UZERO
// RUN: %jitrun %s --function=unsigned --input=4xi32=-1,10,9,7 --input=4xi32=2,0,3,-1 | FileCheck %s --check-prefix=UNSIGNED
// ZERO: result[0]: 16xi32=0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
// ZERO: result[1]: 16xi32=0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
// MIN: result[0]: 16xi32=-2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648
// MIN: result[1]: 16xi32=0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
// MIXED: result[0]: 16xi32=3 -3 -3 3 0 0 14 -14 -2147483648 -2147483647 3 4 5 6 7 0
// MIXED: result[1]: 16xi32=1 -1 1 -1 0 0 2 -2 0 0 0 0 0 0 0 0
// UZERO: result[0]: 4xi32=0 0 0 0
// UZERO: result[1]: 4xi32=0 0 0 0
// UNSIGNED: result[0]: 4xi32=2147483647 0 3 0
// UNSIGNED: result[1]: 4xi32=1 0 0 7
#map = affine_map<(i) -> (i)>
func.func @main(%a: tensor<16xi32>, %b: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>) {
  %e = tensor.empty() : tensor<16xi32>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xi32>, tensor<16xi32>) outs(%e, %e : tensor<16xi32>, tensor<16xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32, %o2: i32):
    %q = arith.divsi %x, %y : i32
    %m = arith.remsi %x, %y : i32
    linalg.yield %q, %m : i32, i32
  } -> (tensor<16xi32>, tensor<16xi32>)
  return %r#0, %r#1 : tensor<16xi32>, tensor<16xi32>
}
func.func @unsigned(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xi32>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e, %e : tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32, %o2: i32):
    %q = arith.divui %x, %y : i32
    %m = arith.remui %x, %y : i32
    linalg.yield %q, %m : i32, i32
  } -> (tensor<4xi32>, tensor<4xi32>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xi32>
}
