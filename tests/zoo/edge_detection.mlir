// Zoo model edge_detection (modelgen edge_detection --size=test, built into build/zoo, TOSA form):
// A Sobel edge detector in TOSA form: the fixed 3x3 Sobel kernels as one
// tosa.conv2d with two output channels (d/dx, d/dy), squared (tosa.mul),
// summed over the channels (reduce_sum) and square-rooted as TFLite's SQRT
// legalizes (reciprocal(rsqrt(x))). Test size 1x64x64x1; full size
// 1x256x256x1.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/edge_detection.mlirbc --input=1x64x64x1xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":5,"generic_after":2,"root_ops":2,"dispatch_regions":2,"dispatches":2,"executables":2,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":5,"generic_after":2,"root_ops":2,"dispatch_regions":2,"dispatches":2,"executables":2,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":2,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":2,"scalar_kernels":0,
