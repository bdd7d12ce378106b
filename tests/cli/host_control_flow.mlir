// The host program runs scf.for and scf.while with dispatches inside, scalar
// arith on the host, tensor.extract, and slices at dynamic offsets. Values
// are worked out by hand, in every fusion mode and on the reference path.
// RUN: %jitrun %s --function=fib --input=2xf32=1 --input=2xf32=1 | FileCheck %s --check-prefix=FIB
// RUN: %jitrun %s --function=fib --input=2xf32=1 --input=2xf32=1 --reference | FileCheck %s --check-prefix=FIB
// RUN: %jitrun %s --function=reverse --input=4xf32=1,2,3,4 --fusion=aggressive --threads=2 | FileCheck %s --check-prefix=REV
// RUN: %jitrun %s --function=reverse --input=4xf32=1,2,3,4 --fusion=none | FileCheck %s --check-prefix=REV
// RUN: %jitrun %s --function=double_until --input=2xf32=1,2 | FileCheck %s --check-prefix=WHILE
// RUN: %jitrun %s --function=double_until --input=2xf32=1,2 --reference | FileCheck %s --check-prefix=WHILE
// RUN: sh -c '%jitrun %s --function=overrun --input=4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=BOUNDS < %t.err

// Fibonacci on tensors: (a, b) -> (b, a + b) three times, from (1, 1): the
// yield swaps a loop-carried value into another's place.
// FIB: result[0]: 2xf32=3 3
// FIB: result[1]: 2xf32=5 5
func.func @fib(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (tensor<2xf32>, tensor<2xf32>) {
    %e = tensor.empty() : tensor<2xf32>
    %s = linalg.add ins(%x, %y : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    scf.yield %y, %s : tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}

// out[3 - i] = 2 * in[i]: slices at the induction variable and at host
// arithmetic on it.
// REV: result[0]: 4xf32=8 6 4 2
func.func @reverse(%in: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%out = %init) -> tensor<4xf32> {
    %x = tensor.extract_slice %in[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    %e = tensor.empty() : tensor<1xf32>
    %d = linalg.add ins(%x, %x : tensor<1xf32>, tensor<1xf32>) outs(%e : tensor<1xf32>) -> tensor<1xf32>
    %j = arith.subi %c3, %i : index
    %o = tensor.insert_slice %d into %out[%j] [1] [1] : tensor<1xf32> into tensor<4xf32>
    scf.yield %o : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Doubles t while sum(t) < 100: sums 3, 6, ..., 96, 192, so t ends at 64 128.
// WHILE: result[0]: 2xf32=64 128
#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @double_until(%t0: tensor<2xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %limit = arith.constant 100.0 : f32
  %r = scf.while (%t = %t0) : (tensor<2xf32>) -> tensor<2xf32> {
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
        ins(%t : tensor<2xf32>) outs(%f : tensor<f32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    } -> tensor<f32>
    %v = tensor.extract %s[] : tensor<f32>
    %go = arith.cmpf olt, %v, %limit : f32
    scf.condition(%go) %t : tensor<2xf32>
  } do {
  ^bb0(%t: tensor<2xf32>):
    %e = tensor.empty() : tensor<2xf32>
    %d = linalg.add ins(%t, %t : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    scf.yield %d : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// A slice at i = 4 of a 4-element tensor: a run-time error, not a write
// past the buffer.
// BOUNDS: jitrun: error: slice offset 4 out of bounds for dimension 0 of size 4
func.func @overrun(%in: tensor<4xf32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %init) -> tensor<1xf32> {
    %x = tensor.extract_slice %in[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    %e1 = tensor.empty() : tensor<1xf32>
    %s = linalg.add ins(%acc, %x : tensor<1xf32>, tensor<1xf32>) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
    scf.yield %s : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}
