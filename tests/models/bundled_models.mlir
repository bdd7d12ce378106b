// The bundled models, read as bytecode (.mlirbc, written by jit-opt at build
// time), match the reference path at 1 and 2 threads and in every fusion mode.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.cnn.npy
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --threads=1 --expected_output=@%t.cnn.npy | FileCheck %s
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=aggressive --expected_output=@%t.cnn.npy | FileCheck %s
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --threads=2 --fusion=none --expected_output=@%t.cnn.npy | FileCheck %s
// RUN: %jitrun %models/mlp.mlirbc --input=4x64xf32 --reference --output=@%t.mlp.npy
// RUN: %jitrun %models/mlp.mlirbc --input=4x64xf32 --threads=2 --expected_output=@%t.mlp.npy | FileCheck %s
// RUN: %jitrun %models/mlp.mlirbc --input=4x64xf32=1 --force-avx2 | FileCheck %s --check-prefix=MLP
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %models/mlp.mlirbc --input=4x64xf32 --force-avx2 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS

// CHECK: result[0]: matches the expected output
// Hand-computed: relu(64 * 0.05 + b1) summed over 32 = 102.4; times -0.03 = -3.072; plus b2.
// MLP: result[0]: 4x10xf32=[-3.072 -2.972 -2.872 -2.772 -2.672 -2.572 -2.472 -2.372 -2.272 -2.172]
// Every kernel's inner loops are vector code.
// STATS: "vector_kernels":{{[1-9][0-9]*}},"scalar_kernels":0,
