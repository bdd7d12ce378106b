// Zoo model collatz (modelgen collatz --size=test, built into build/zoo): the
// number of Collatz steps (n -> n/2 if even, else 3n+1) until 1 of each of 4
// start values max(1, trunc(|x|)), as an scf.while over tensor<4xi32> state
// (values and step counts). The condition is a reduction generic counting the
// active elements into a tensor<i32>, read with tensor.extract; an element
// stops at 1 or after 1000 steps. Full size: 1024 start values.
//
// The host program runs the scf.while: the condition's reduction is a
// dispatch, tensor.extract and arith.cmpi are host scalars, the carried
// values live in buffers of their own. The model was checked with upstream
// mlir-opt (one-shot-bufferize, loops, LLVM) and mlir-runner:
// --input=4xf32=27,7,1,97 gives 111 16 0 118 steps, which jitrun must give
// too; random inputs match the reference path at 1 and 2 threads in every
// fusion mode, and the statistics pin the structure.
//
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=27,7,1,97 | FileCheck %s --check-prefix=STEPS
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=27,7,1,97 --fusion=aggressive --threads=2 | FileCheck %s --check-prefix=STEPS
// Start values whose loops run long (871: 178 steps, 77031: 350; -9.7 is 9):
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=871,6171,77031,-9.7 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=871,6171,77031,-9.7 --reference | FileCheck %s --check-prefix=LONG
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=871,6171,77031,-9.7 --threads=1 --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=871,6171,77031,-9.7 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32=871,6171,77031,-9.7 --threads=2 --fusion=none --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/collatz.mlirbc --input=4xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
// STEPS: result[0]: 4xi32=111 16 0 118
// LONG: result[0]: 4xi32=178 261 350 19
// MATCH: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":4,"generic_after":4,"root_ops":1,"dispatch_regions":4,"dispatches":4,"executables":4,"fills":1,"copies":4,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":4,"generic_after":4,"root_ops":1,"dispatch_regions":4,"dispatches":4,"executables":4,"fills":1,"copies":4,
// RUN: %jit-opt %zoo/collatz.mlirbc | FileCheck %s
// RUN: %jit-opt %zoo/collatz.mlirbc | grep -c linalg.generic | FileCheck %s --check-prefix=GENERICS
// RUN: %jit-opt %zoo/collatz.mlirbc --jitrun-import-pipeline | FileCheck %s --check-prefix=IMPORT

// CHECK-LABEL: func.func @main(%{{.*}}: tensor<4xf32>) -> tensor<4xi32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: math.absf
// CHECK: arith.fptosi
// CHECK: linalg.fill {{.*}}tensor<4xi32>
// CHECK: %[[LOOP:.*]]:2 = scf.while
// CHECK: linalg.fill {{.*}}tensor<i32>
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK: tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: scf.condition
// CHECK: } do {
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: linalg.generic
// CHECK: scf.yield
// CHECK: return %[[LOOP]]#1 : tensor<4xi32>
// GENERICS: {{^}}4{{$}}
// IMPORT: scf.while
// IMPORT: scf.condition
