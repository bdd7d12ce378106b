// jitrun compiles static shapes only: a dynamic argument is rejected with a
// message that says so (at the function's location, or as jitrun: error:).
// RUN: sh -c '%jitrun %s --input=2x4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// CHECK: error:
// CHECK-SAME: dynamic
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
