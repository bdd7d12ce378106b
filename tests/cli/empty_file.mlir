// An empty model file parses as an empty module; there is no function to run.
// RUN: rm -f %t.mlir
// RUN: touch %t.mlir
// RUN: sh -c '%jitrun %t.mlir 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// CHECK: jitrun: error: '{{.*}}.mlir' is empty
