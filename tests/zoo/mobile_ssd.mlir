// Zoo model mobile_ssd (modelgen mobile_ssd --size=test, built into build/zoo, TOSA form):
// SSD MobileNetV1 in TOSA form: the MobileNetV1 backbone (relu6), extra
// feature layers (1x1 conv, 3x3 stride-2 conv), and per feature map 1x1 conv
// box (anchors x 4) and class (anchors x classes) heads, reshaped to
// [1, boxes, 4] / [1, boxes, classes] and concatenated; the class scores
// through a sigmoid (two results). Test size: 1x48x48x3, widths / 4, 3 feature
// maps (3x3, 2x2, 1x1; 57 boxes), 11 classes; full size 300x300, 6 feature
// maps (19x19 .. 1x1; 1917 boxes), 91 classes.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --reference --output=@%t.ref0.npy --output=@%t.ref1.npy
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy | FileCheck %s
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy | FileCheck %s
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy | FileCheck %s
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/mobile_ssd.mlirbc --input=1x48x48x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":67,"generic_after":46,"root_ops":27,"dispatch_regions":28,"dispatches":28,"executables":28,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":67,"generic_after":46,"root_ops":27,"dispatch_regions":28,"dispatches":28,"executables":28,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":28,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":28,"scalar_kernels":0,
