// Zoo model mnist (modelgen mnist --size=test, built into build/zoo): the
// PyTorch example CNN, NCHW 1x1x28x28: (conv + bias + relu, 2x2 max pool) x 2,
// dense + relu, dense (torch-layout weights transposed by generics, as
// torch-mlir emits aten.linear); full size 32/64 channels, 5x5 kernels, 1024
// hidden. jitrun matches its reference path at 1 and 2 threads in every fusion
// mode; the statistics pin the architecture (an accidental change to the model,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --threads=1 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/mnist.mlirbc --input=1x1x28x28xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":12,"generic_after":5,"root_ops":6,"dispatch_regions":6,"dispatches":6,"executables":6,"fills":2,"copies":1,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":12,"generic_after":5,"root_ops":6,"dispatch_regions":6,"dispatches":6,"executables":6,"fills":2,"copies":1,
// AGGR-SAME: "scalar_kernels":0,
