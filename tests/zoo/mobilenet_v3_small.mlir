// Zoo model mobilenet_v3_small (modelgen mobilenet_v3_small --size=test, built into build/zoo, TOSA form):
// MobileNetV3-Small in TOSA form (TFLite legalization): hard-swish as
// x * clamp(x + 3, 0, 6) * 1/6, squeeze-excite (mean as two reduce_sums and a
// multiply, 1x1 conv + relu, 1x1 conv + hard-sigmoid, multiply), 3x3 and 5x5
// depthwise convolutions, relu and hard-swish blocks, residual adds, a 1x1
// conv head, avg_pool2d, 1x1 conv classifier, reshape and softmax. Test size:
// 1x32x32x3, widths / 4, 8 of the 11 blocks (one of each kind), 10 classes;
// full size 224x224, 1000 classes.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/mobilenet_v3_small.mlirbc --input=1x32x32x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":168,"generic_after":78,"root_ops":46,"dispatch_regions":46,"dispatches":46,"executables":43,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":168,"generic_after":78,"root_ops":46,"dispatch_regions":46,"dispatches":46,"executables":43,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":43,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":43,"scalar_kernels":0,
