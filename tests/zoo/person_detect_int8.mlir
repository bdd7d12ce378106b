// Zoo model person_detect_int8 (modelgen person_detect_int8 --size=test, built into build/zoo, TOSA form):
// The TFLite-micro person detection model in quantized TOSA form: an int8
// MobileNetV1 0.25 (int8 image and activations with zero point -128, int8
// weights with zero point 0, i32 bias and accumulation in tosa.conv2d /
// tosa.depthwise_conv2d, per-channel tosa.rescale back to int8 (double
// rounding), the fused relu6 as an int8 clamp), an int8 avg_pool2d, a 1x1
// conv to 2 classes and a reshape to 1x2xi8 (the int8 softmax is left out).
// Test size: 1x32x32x1, one of the five repeated 128-channel blocks; full
// size 96x96x1. The reference path and the compiled kernels must agree
// exactly here (integer arithmetic).
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":72,"generic_after":32,"root_ops":21,"dispatch_regions":21,"dispatches":21,"executables":21,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":72,"generic_after":32,"root_ops":21,"dispatch_regions":21,"dispatches":21,"executables":21,"fills":1,"copies":1,
// All vector code: each quantized convolution (constant i8 weights with
// zero point 0, input zero point -128) becomes the plain i8 x i8 -> i32
// convolution plus -zx * sum(w) per output channel, computed at compile time
// (jitrun-fusion-convolution-layouts), so the statistics pin
// "scalar_kernels": 0. On a VNNI host the pointwise convolutions run on
// vpdpbusd: person_detect_int8_vnni.mlir.
// STATS-SAME: "vector_kernels":21,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":21,"scalar_kernels":0,
