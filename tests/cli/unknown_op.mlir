// An operation of an unregistered dialect in generic form inside the entry
// function: an error at the op's location.
// RUN: sh -c '%jitrun %s --input=4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: unknown_op.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
  // CHECK-SAME: {{unregistered|unknown|not found}}
  "foo.bar"() : () -> ()
  return %a : tensor<4xf32>
}
