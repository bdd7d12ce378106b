// Zoo model fullyconnected (modelgen fullyconnected --size=test, built into
// build/zoo): an MLP, 2 x 64 -> 32 -> 32 -> 10: three matmuls, each with its
// bias (and relu) fused in; full size 1 x 784 -> 512 -> 256 -> 10. jitrun
// matches its reference path at 1 and 2 threads in every fusion mode; the
// statistics pin the architecture (an accidental change to the model, to fusion
// or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --threads=1 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/fullyconnected.mlirbc --input=2x64xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":5,"generic_after":3,"root_ops":3,"dispatch_regions":3,"dispatches":3,"executables":3,"fills":0,"copies":0,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":5,"generic_after":3,"root_ops":3,"dispatch_regions":3,"dispatches":3,"executables":3,"fills":0,"copies":0,
// AGGR-SAME: "scalar_kernels":0,
