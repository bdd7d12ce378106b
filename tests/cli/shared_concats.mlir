// Concats that are prefixes of a larger one from the same parts (DenseNet's
// layer inputs) share its buffer (compiler/SharedConcats.cpp): each part is
// written once, the dispatches write theirs in place, and each concat is
// read as a box of the shared buffer. Values worked out by hand, fused and
// on the reference path.
// RUN: %jitrun %s --function=dense --input=2x1xf32=1,2 --dump-statistics=json 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=DENSE,DENSESTATS
// RUN: %jitrun %s --function=dense --input=2x1xf32=1,2 --reference | FileCheck %s --check-prefix=DENSE
// RUN: %jitrun %s --function=overlapping --input=2x2xf32=1,2,3,4 --input=2x1xf32=7,8 \
// RUN:   --input=2x1xf32=9,9 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=OVER,OVERSTATS
// RUN: %jitrun %s --function=overlapping --input=2x2xf32=1,2,3,4 --input=2x1xf32=7,8 \
// RUN:   --input=2x1xf32=9,9 --reference | FileCheck %s --check-prefix=OVER

// x = [1; 2], y1 = 2x = [2; 4], c1 = [x y1]; y2 = row sums of c1 = [3; 6],
// c2 = [x y1 y2]; y3 = row sums of c2 * c2 = [14; 56], c3 = [x y1 y2 y3];
// the result is c3 + 1. Only x, an argument, is copied (once); the three
// concats are one buffer.
// DENSE: result[0]: 2x4xf32=[2 3 4 15][3 5 7 57]
// DENSESTATS: "copies":1,
func.func @dense(%x: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x1xf32>
  %y1 = linalg.add ins(%x, %x : tensor<2x1xf32>, tensor<2x1xf32>) outs(%e1 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %c1e = tensor.empty() : tensor<2x2xf32>
  %c1a = tensor.insert_slice %x into %c1e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %c1 = tensor.insert_slice %y1 into %c1a[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %y2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%c1 : tensor<2x2xf32>) outs(%z2 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x1xf32>
  %c2e = tensor.empty() : tensor<2x3xf32>
  %c2a = tensor.insert_slice %x into %c2e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
  %c2b = tensor.insert_slice %y1 into %c2a[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
  %c2 = tensor.insert_slice %y2 into %c2b[0, 2] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
  %y3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%c2 : tensor<2x3xf32>) outs(%z2 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x1xf32>
  %c3e = tensor.empty() : tensor<2x4xf32>
  %c3a = tensor.insert_slice %x into %c3e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %c3b = tensor.insert_slice %y1 into %c3a[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %c3c = tensor.insert_slice %y2 into %c3b[0, 2] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %c3 = tensor.insert_slice %y3 into %c3c[0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %one = arith.constant dense<1.0> : tensor<2x4xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %r = linalg.add ins(%c3, %one : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// The larger concat holds the smaller one's parts, but x and y overlap and
// it writes them in another order: x then y gives [1 7; 3 8] in the first
// two columns, y then x gives x's. Sharing one buffer, the first order
// would win: not shared.
// OVER: result[0]: 2x3xf32=[2 14 18][6 16 18]
// OVER: result[1]: 2x4xf32=[2 4 18 18][6 8 18 18]
// OVERSTATS: "copies":7,
func.func @overlapping(%x: tensor<2x2xf32>, %y: tensor<2x1xf32>, %z: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>) {
  %ae = tensor.empty() : tensor<2x3xf32>
  %a0 = tensor.insert_slice %x into %ae[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x3xf32>
  %a1 = tensor.insert_slice %y into %a0[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
  %a = tensor.insert_slice %z into %a1[0, 2] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
  %oa = tensor.empty() : tensor<2x3xf32>
  %ra = linalg.add ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%oa : tensor<2x3xf32>) -> tensor<2x3xf32>
  %be = tensor.empty() : tensor<2x4xf32>
  %b0 = tensor.insert_slice %y into %be[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %b1 = tensor.insert_slice %x into %b0[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %b2 = tensor.insert_slice %z into %b1[0, 2] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %b = tensor.insert_slice %z into %b2[0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %ob = tensor.empty() : tensor<2x4xf32>
  %rb = linalg.add ins(%b, %b : tensor<2x4xf32>, tensor<2x4xf32>) outs(%ob : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %ra, %rb : tensor<2x3xf32>, tensor<2x4xf32>
}
