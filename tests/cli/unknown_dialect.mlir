// A custom-syntax op of a dialect nobody registered.
// RUN: sh -c '%jitrun %s --input=4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: unknown_dialect.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
  // CHECK-SAME: mystery
  %r = mystery.transmogrify %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
