// Zoo model efficientnet_b0 (modelgen efficientnet_b0 --size=test, built into build/zoo, TOSA form):
// EfficientNet-B0 in TOSA form (TFLite legalization): MBConv blocks (1x1
// expansion + swish as x * sigmoid(x), 3x3/5x5 depthwise + swish,
// squeeze-excite with a swish squeeze and a sigmoid gate, linear projection,
// residual adds), a 1x1 conv + swish head, mean, fully connected (tosa.matmul)
// and softmax. Test size: 1x32x32x3, widths / 4, at most 2 blocks per stage,
// 10 classes; full size 224x224, the 16 blocks, 1280 head, 1000 classes.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/efficientnet_b0.mlirbc --input=1x32x32x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":221,"generic_after":132,"root_ops":73,"dispatch_regions":73,"dispatches":73,"executables":58,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":221,"generic_after":132,"root_ops":73,"dispatch_regions":73,"dispatches":73,"executables":58,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":58,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":58,"scalar_kernels":0,
