// jitrun on a model path that does not exist: exit 1, a message naming the file.
// (This file itself is never read as a model.)
// RUN: rm -f %t.does-not-exist.mlir
// RUN: sh -c '%jitrun %t.does-not-exist.mlir 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// CHECK: jitrun: error: cannot open model '{{.*}}does-not-exist.mlir': No such file or directory
