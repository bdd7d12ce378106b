// Zoo model posenet (modelgen posenet --size=test, built into build/zoo, TOSA form):
// PoseNet (the TFLite MobileNetV1 PoseNet) in TOSA form: a MobileNetV1
// backbone (3x3 stride-2 stem, depthwise-separable blocks with relu6, output
// stride 32) and four 1x1 conv heads: 17 keypoint heatmaps, 34 offsets, 32
// forward and 32 backward displacements (four results). Test size: 1x33x33x3,
// widths / 4, one of the five repeated 512-channel blocks; full size
// 257x257 (9x9 heads).
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --reference --output=@%t.ref0.npy --output=@%t.ref1.npy --output=@%t.ref2.npy --output=@%t.ref3.npy
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy --expected_output=@%t.ref2.npy --expected_output=@%t.ref3.npy | FileCheck %s
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy --expected_output=@%t.ref2.npy --expected_output=@%t.ref3.npy | FileCheck %s
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref0.npy --expected_output=@%t.ref1.npy --expected_output=@%t.ref2.npy --expected_output=@%t.ref3.npy | FileCheck %s
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/posenet.mlirbc --input=1x33x33x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// CHECK: result[2]: matches the expected output
// CHECK: result[3]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":56,"generic_after":39,"root_ops":23,"dispatch_regions":23,"dispatches":23,"executables":22,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":56,"generic_after":39,"root_ops":23,"dispatch_regions":23,"dispatches":23,"executables":22,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":22,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":22,"scalar_kernels":0,
