// Whole model: the torch-mlir export ../shared/corpus/mobilenet_v2.mlir, de-splatted into
// the build tree, must match jitrun's reference path at 1 and 2 threads and
// with every fusion mode. Registered only when ../shared is present.
// REQUIRES: corpus
// RUN: python3 %shared/corpus/desplat.py %shared/corpus/mobilenet_v2.mlir %t.model.mlir
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --threads=1 --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --threads=2 --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %t.model.mlir --input=1x3x32x32xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS

// CHECK: result[0]: matches the expected output
// STATS: "function":"forward"
// STATS-SAME: "dispatches":{{[1-9][0-9]*}}
// STATS-SAME: "scalar_kernels":0,
