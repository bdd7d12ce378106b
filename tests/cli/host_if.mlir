// scf.if (and tosa.cond_if, lowered to it) runs in the host program: the
// condition is a host scalar, each branch's dispatches run only when taken,
// and the yielded tensors land in the if's result buffers. Also inside a
// loop, where the branch taken changes per iteration.
// RUN: %jitrun %s --function=choose --input=i1=1 --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=THEN
// RUN: %jitrun %s --function=choose --input=i1=0 --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=ELSE
// RUN: %jitrun %s --function=choose --input=i1=1 --input=4xf32=1,2,3,4 --reference | FileCheck %s --check-prefix=THEN
// RUN: %jitrun %s --function=tosa_if --input=i1=1 --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=THEN
// RUN: %jitrun %s --function=tosa_if --input=i1=0 --input=4xf32=1,2,3,4 --fusion=aggressive | FileCheck %s --check-prefix=ZERO
// RUN: %jitrun %s --function=alternate --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=ALT
// RUN: %jitrun %s --function=alternate --input=4xf32=1,2,3,4 --fusion=none | FileCheck %s --check-prefix=ALT
// Host integer division has the kernels' semantics: x / 0 = 0 (the loop
// runs x / y + 5 times).
// RUN: %jitrun %s --function=host_div --input=i32=7 --input=i32=0 | FileCheck %s --check-prefix=DIV0
// RUN: %jitrun %s --function=host_div --input=i32=-7 --input=i32=2 | FileCheck %s --check-prefix=DIV
// THEN: result[0]: 4xf32=2 4 6 8
// ELSE: result[0]: 4xf32=1 2 3 4
// ZERO: result[0]: 4xf32=0 0 0 0
// Iterations 0..3: even ones double, odd ones add 1: ((((x*2)+1)*2)+1).
// ALT: result[0]: 4xf32=7 11 15 19
// DIV0: result[0]: 4xf32=5 5 5 5
// DIV: result[0]: 4xf32=2 2 2 2
func.func @choose(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %x = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @tosa_if(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.cond_if %p (%x = %a) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %y = tosa.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %y : tensor<4xf32>
  } else {
  ^bb0(%x: tensor<4xf32>):
    %y = tosa.sub %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @alternate(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> tensor<4xf32> {
    %m = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %m, %c0 : index
    %y = scf.if %even -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %d = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      scf.yield %d : tensor<4xf32>
    } else {
      %e = tensor.empty() : tensor<4xf32>
      %d = linalg.add ins(%x, %one : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      scf.yield %d : tensor<4xf32>
    }
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @host_div(%a: tensor<i32>, %b: tensor<i32>) -> tensor<4xf32> {
  %x = tensor.extract %a[] : tensor<i32>
  %y = tensor.extract %b[] : tensor<i32>
  %q = arith.divsi %x, %y : i32
  %c5 = arith.constant 5 : i32
  %n = arith.addi %q, %c5 : i32
  %ub = arith.index_cast %n : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %zero) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%acc, %one : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
