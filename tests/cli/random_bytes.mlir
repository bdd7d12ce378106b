// Random binary bytes given as a model, as text (.mlir) and as bytecode
// (.mlirbc, also with a valid bytecode magic followed by garbage).
// RUN: cp %S/Inputs/random.bin %t.mlir
// RUN: sh -c '%jitrun %t.mlir 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=TEXT < %t.err
// RUN: cp %S/Inputs/random.bin %t.mlirbc
// RUN: sh -c '%jitrun %t.mlirbc 2>%t.bc.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=TEXT < %t.bc.err
// RUN: printf 'ML\357R\001\002\003garbage\377\376' > %t.magic.mlirbc
// RUN: sh -c '%jitrun %t.magic.mlirbc 2>%t.magic.err; test $? -eq 1'
// RUN: FileCheck %s --check-prefix=MAGIC < %t.magic.err
// Without the bytecode magic, .mlirbc bytes are parsed as text.
// TEXT: .mlir{{(bc)?}}:1:1: error: unexpected character
// MAGIC: .magic.mlirbc:0:0: error: malformed null-terminated string, no null character found
