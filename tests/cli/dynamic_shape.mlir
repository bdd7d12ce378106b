// jitrun compiles static shapes only: a dynamic argument is rejected with a
// message that says so (at the function's location, or as jitrun: error:).
// RUN: sh -c '%jitrun %s --input=2x4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// CHECK: dynamic_shape.mlir:[[@LINE+1]]:1: error: argument 0 has a dynamic shape; jitrun runs static shapes only
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
