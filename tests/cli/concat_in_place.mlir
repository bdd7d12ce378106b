// A concat as a chain of tensor.insert_slice into one buffer (ONNX Concat,
// torch.cat): every link writes in place once the links before it are
// dead, so four branches cost no copy of the whole buffer, and as their
// dispatches write their boxes in place (dispatch_writes_in_place.mlir),
// no slice copy either. A link whose buffer another live value still holds (a reshape of
// it, read after the insert) copies the buffer first, and that value keeps
// what it had. Values worked out by hand, fused and on the reference path.
// RUN: %jitrun %s --function=concat4 --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CAT,CATSTATS
// RUN: %jitrun %s --function=concat4 --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 --reference \
// RUN:   | FileCheck %s --check-prefix=CAT
// RUN: %jitrun %s --function=alias --input=2x2xf32=1,2,3,4 --input=2xf32=9,9 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=ALIAS,ALIASSTATS
// RUN: %jitrun %s --function=alias --input=2x2xf32=1,2,3,4 --input=2xf32=9,9 --reference \
// RUN:   | FileCheck %s --check-prefix=ALIAS
// RUN: %jitrun %s --function=pads --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=PADS,PADSTATS
// RUN: %jitrun %s --function=pads --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 --reference \
// RUN:   | FileCheck %s --check-prefix=PADS
// RUN: %jitrun %s --function=loop --input=2xf32=1,2 | FileCheck %s --check-prefix=LOOP
// RUN: %jitrun %s --function=loop --input=2xf32=1,2 --reference | FileCheck %s --check-prefix=LOOP

// [a+1, b+1, a+2, b+2] along dim 1.
// CAT: result[0]: 2x8xf32=[2 3 6 7 3 4 7 8][4 5 8 9 5 6 9 10]
// CATSTATS: "copies":0,
func.func @concat4(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x8xf32> {
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %two = arith.constant dense<2.0> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %a1 = linalg.add ins(%a, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b1 = linalg.add ins(%b, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %a2 = linalg.add ins(%a, %two : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b2 = linalg.add ins(%b, %two : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %dst = tensor.empty() : tensor<2x8xf32>
  %0 = tensor.insert_slice %a1 into %dst[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  %1 = tensor.insert_slice %b1 into %0[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  %2 = tensor.insert_slice %a2 into %1[0, 4] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  %3 = tensor.insert_slice %b2 into %2[0, 6] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}

// %s holds 2 * x; %flat is its reshape, which shares its buffer. Writing %v
// into %flat must not change %s, returned after.
// ALIAS: result[0]: 4xf32=9 9 6 8
// ALIAS: result[1]: 2x2xf32=[2 4][6 8]
// ALIASSTATS: "copies":2,
func.func @alias(%x: tensor<2x2xf32>, %v: tensor<2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %e = tensor.empty() : tensor<2x2xf32>
  %s = linalg.add ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %flat = tensor.collapse_shape %s [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %w = tensor.insert_slice %v into %flat[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %w, %s : tensor<4xf32>, tensor<2x2xf32>
}

// Two pads of the same shape and value share one fill (as CSE leaves
// them): each fills a buffer of its own, only its border, and copies its
// box in; the shared fill is not copied whole.
// PADS: result[0]: 2x4xf32=[0 1 2 0][0 3 4 0]
// PADS: result[1]: 2x4xf32=[0 5 6 0][0 7 8 0]
// PADSTATS: "fills":1,"copies":2,
func.func @pads(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %p1 = tensor.insert_slice %a into %f[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %p2 = tensor.insert_slice %b into %f[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  return %p1, %p2 : tensor<2x4xf32>, tensor<2x4xf32>
}

// An insert inside a loop into a fill from outside it: every iteration
// reads the fill again, so none writes it in place. Iteration 0 gives
// [1 2 0 0] and keeps [1 2]; iteration 1 gives [0 1 2 0] and keeps [0 1]
// (in place, it would have given [1 1 2 0]).
// LOOP: result[0]: 2xf32=0 1
func.func @loop(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %a) -> tensor<2xf32> {
    %p = tensor.insert_slice %acc into %f[%i] [2] [1] : tensor<2xf32> into tensor<4xf32>
    %s = tensor.extract_slice %p[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
    scf.yield %s : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
