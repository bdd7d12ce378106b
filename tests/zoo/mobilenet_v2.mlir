// Zoo model mobilenet_v2 (modelgen mobilenet_v2 --size=test, built into build/zoo, TOSA form):
// MobileNetV2 as a TFLite model reaches a compiler through the TFLite-to-TOSA
// legalization (NHWC, tosa.const OHWI/HWCM weights with batchnorm folded in,
// TFLite SAME padding): a stride-2 3x3 stem, inverted residual blocks (1x1
// expansion x6 + relu6, 3x3 depthwise + relu6, linear 1x1 projection, residual
// add when the shape is kept), a 1x1 conv + relu6 head, avg_pool2d, a fully
// connected layer as tosa.matmul, and softmax. Test size: 1x32x32x3, widths / 4,
// at most 2 blocks per stage (12 blocks, residual and stride-2 ones included),
// 10 classes; full size 224x224, the 17 blocks, 1280 head, 1000 classes.
// jitrun imports it through the upstream tosa-to-linalg passes and matches
// its reference path at 1 and 2 threads in every fusion mode; the statistics
// pin the architecture (an accidental change to the model, to the TOSA import,
// to fusion or to dispatch formation shows here; update the counts on purpose).
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=none \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
//
// The dynamic variant (modelgen --dynamic: the batch open, `?`): at the
// static shape its specialization is the static model's program
// (bit-identical results, as many dispatches); at another batch it
// matches its own reference path.
// RUN: %jitrun %zoo/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --output=@%t.static.npy
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --expected_output=@%t.static.npy --expected_atol=0 --expected_rtol=0 | FileCheck %s
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=DYNSTATS
// DYNSTATS: "dispatches":41,
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --input=5x32x32x3xf32 --reference --output=@%t.other.npy
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --input=5x32x32x3xf32 --threads=2 --expected_output=@%t.other.npy --expected_atol=1e-4 --expected_rtol=1e-4 | FileCheck %s

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":97,"generic_after":68,"root_ops":41,"dispatch_regions":41,"dispatches":41,"executables":34,"fills":1,"copies":1,
// AGGR: "function":"main","fusion":"aggressive","generic_before":97,"generic_after":68,"root_ops":41,"dispatch_regions":41,"dispatches":41,"executables":34,"fills":1,"copies":1,
// All vector code: the FHWC convolutions get HWCF filters and the HWCM
// depthwise convolutions become HWC (jitrun-fusion-convolution-layouts), so
// the statistics pin "scalar_kernels": 0.
// STATS-SAME: "vector_kernels":34,"scalar_kernels":0,
// AGGR-SAME: "vector_kernels":34,"scalar_kernels":0,
