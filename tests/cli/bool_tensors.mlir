// Booleans take one byte each in memory (NumPy's bool) wherever a tensor
// lives: results, inputs, and buffers between dispatches. Vector stores of
// i1 used to pack 8 results into one byte: tosa.equal of [1,0,1,3] and
// [5,0,1,8] returned [1,0,0,0].
// RUN: %jitrun %s --function=equal --input=4xi32=1,0,1,3 --input=4xi32=5,0,1,8 | FileCheck %s --check-prefix=EQ
// RUN: %jitrun %s --function=equal --input=4xi32=1,0,1,3 --input=4xi32=5,0,1,8 --reference | FileCheck %s --check-prefix=EQ
// RUN: %jitrun %s --function=equal --input=4xi32=1,0,1,3 --input=4xi32=5,0,1,8 --force-avx2 | FileCheck %s --check-prefix=EQ
// An odd length (a masked edge), the comparison feeding a select in another
// dispatch (--fusion=none) and in the same one.
// RUN: %jitrun %s --function=less_select --input=19xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18 | FileCheck %s --check-prefix=SEL
// RUN: %jitrun %s --function=less_select --fusion=none --input=19xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18 | FileCheck %s --check-prefix=SEL
// A bool input read by a select, and a bool constant.
// RUN: %jitrun %s --function=select_input --input=5xi1=1,0,0,1,1 --input=5xf32=1,2,3,4,5 | FileCheck %s --check-prefix=IN
// RUN: %jitrun %s --function=select_input --input=5xi1=1,0,0,1,1 --input=5xf32=1,2,3,4,5 --reference | FileCheck %s --check-prefix=IN
// EQ: result[0]: 4xi1=0 1 1 0
// SEL: result[0]: 19xi1=1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0
// SEL: result[1]: 19xf32=0 1 2 3 4 5 6 7 8 9 -1 -1 -1 -1 -1 -1 -1 -1 -1
// IN: result[0]: 5xf32=1 -2 -3 4 5
// IN: result[1]: 5xi1=0 1 1 0 0
func.func @equal(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  %r = tosa.equal %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}
func.func @less_select(%a: tensor<19xf32>) -> (tensor<19xi1>, tensor<19xf32>) {
  %ten = arith.constant dense<10.0> : tensor<19xf32>
  %m1 = arith.constant dense<-1.0> : tensor<19xf32>
  %lt = tosa.greater %ten, %a : (tensor<19xf32>, tensor<19xf32>) -> tensor<19xi1>
  %s = tosa.select %lt, %a, %m1 : (tensor<19xi1>, tensor<19xf32>, tensor<19xf32>) -> tensor<19xf32>
  return %lt, %s : tensor<19xi1>, tensor<19xf32>
}
func.func @select_input(%p: tensor<5xi1>, %a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi1>) {
  %z = arith.constant dense<0.0> : tensor<5xf32>
  %n = tosa.sub %z, %a : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %s = tosa.select %p, %a, %n : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %t = arith.constant dense<true> : tensor<5xi1>
  %x = tosa.logical_xor %p, %t : (tensor<5xi1>, tensor<5xi1>) -> tensor<5xi1>
  return %s, %x : tensor<5xf32>, tensor<5xi1>
}
