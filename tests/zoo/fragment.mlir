// Zoo model fragment (modelgen fragment --size=test, built into build/zoo): a
// graph fragment, 8 x 32: matmul + bias, residual add, layer norm; full size
// 128 x 768. jitrun matches its reference path at 1 and 2 threads in every
// fusion mode; the statistics pin the architecture (an accidental change to the
// model, to fusion or to dispatch formation shows here; update the counts on
// purpose).
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --threads=1 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/fragment.mlirbc --input=8x32xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":8,"generic_after":7,"root_ops":3,"dispatch_regions":3,"dispatches":3,"executables":3,"fills":0,"copies":0,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":8,"generic_after":7,"root_ops":3,"dispatch_regions":3,"dispatches":3,"executables":3,"fills":0,"copies":0,
// AGGR-SAME: "scalar_kernels":0,
