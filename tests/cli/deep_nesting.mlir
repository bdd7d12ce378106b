// Input nested deeper than the text parser can recurse is refused with its
// position instead of overflowing the stack (SIGSEGV): a dense literal 20000
// levels deep, a tuple type 100000 deep, a million '(', scf.execute_region
// and scf.for nested 5000 deep; also through the C API (api tests). Nesting
// within the bound still runs, from text and from bytecode, on the 1 GiB
// stack the compiler gets.
// RUN: python3 %S/Inputs/deep_nesting.py %t
// RUN: not %jitrun %t.dense.mlir 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not %jitrun %t.tuple.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not %jitrun %t.paren.mlir 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not %jitrun %t.region.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not %jitrun %t.for.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: %jitrun %t.ok.mlir --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=OK
// RUN: mlir-opt %t.ok.mlir --emit-bytecode -o %t.ok.mlirbc
// RUN: %jitrun %t.ok.mlirbc --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=OK
// DENSE: jitrun: error: {{.*}}.dense.mlir:2:{{[0-9]+}}: nesting deeper than 1000 levels
// PAREN: jitrun: error: {{.*}}.paren.mlir:1:1001: nesting deeper than 1000 levels
// DEEP: jitrun: error: {{.*}}: nesting deeper than 1000 levels
// OK: result[0]: 4xf32=1 2 3 4
