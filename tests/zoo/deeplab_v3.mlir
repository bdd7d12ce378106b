// Zoo model deeplab_v3 (modelgen deeplab_v3 --size=test, built into build/zoo, TOSA form):
// DeepLabV3 in TOSA form: an atrous MobileNetV2 backbone (output stride 16:
// the last stages' strides become dilated depthwise convolutions) and ASPP (a
// 1x1 branch, three dilated 3x3 conv2d branches, image pooling: avg_pool2d,
// 1x1 conv, tosa.resize bilinear back to the feature size), concat, a 1x1
// projection, 21-class logits and a bilinear tosa.resize (align_corners) to
// the input size. Test size: 1x33x33x3 (3x3 features), widths / 4, at most 2
// blocks per stage, rates 2/4/6; full size 513x513, rates 6/12/18.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/deeplab_v3.mlirbc --input=1x33x33x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":112,"generic_after":82,"root_ops":44,"dispatch_regions":46,"dispatches":46,"executables":36,"fills":2,"copies":2,
// AGGR: "function":"main","fusion":"aggressive","generic_before":112,"generic_after":82,"root_ops":44,"dispatch_regions":46,"dispatches":46,"executables":36,"fills":2,"copies":2,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":36,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":36,"scalar_kernels":0,
