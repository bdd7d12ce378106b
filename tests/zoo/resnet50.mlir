// Zoo model resnet50 (modelgen resnet50 --size=test, built into build/zoo):
// ResNet-50 v1.5 as torch-mlir exports it (NCHW convolutions on tensor.pad,
// batch norm generics, bottleneck blocks with projections, global average pool,
// fc), at 1x3x32x32 with widths / 4 and one block per stage; full size 224x224,
// blocks [3,4,6,3]. jitrun matches its reference path at 1 and 2 threads in
// every fusion mode; the statistics pin the architecture (an accidental change
// to the model, to fusion or to dispatch formation shows here; update the
// counts on purpose).
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --threads=1 --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
//
// The dynamic variant (modelgen --dynamic: the batch open, `?`): at the
// static shape its specialization is the static model's program
// (bit-identical results, as many dispatches); at another batch it
// matches its own reference path.
// RUN: %jitrun %zoo/resnet50.mlirbc --input=1x3x32x32xf32 --output=@%t.static.npy
// RUN: %jitrun %zoo/dynamic/resnet50.mlirbc --input=1x3x32x32xf32 --expected_output=@%t.static.npy --expected_atol=0 --expected_rtol=0 | FileCheck %s
// RUN: %jitrun %zoo/dynamic/resnet50.mlirbc --input=1x3x32x32xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=DYNSTATS
// DYNSTATS: "dispatches":22,
// RUN: %jitrun %zoo/dynamic/resnet50.mlirbc --input=3x3x32x32xf32 --reference --output=@%t.other.npy
// RUN: %jitrun %zoo/dynamic/resnet50.mlirbc --input=3x3x32x32xf32 --threads=2 --expected_output=@%t.other.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":59,"generic_after":26,"root_ops":20,"dispatch_regions":22,"dispatches":22,"executables":22,"fills":4,"copies":4,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":59,"generic_after":26,"root_ops":20,"dispatch_regions":22,"dispatches":22,"executables":22,"fills":4,"copies":4,
// AGGR-SAME: "scalar_kernels":0,
