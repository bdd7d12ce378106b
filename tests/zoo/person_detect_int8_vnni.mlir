// Zoo model person_detect_int8 on an AVX-512 VNNI host: its int8 kernels
// whose reduction comes in groups of four bytes and whose output channels
// fill 16-lane registers (the pointwise 1x1 convolutions of the
// depthwise-separable blocks) compile to vpdpbusd dot products: 9 of the 21
// kernels. The first convolution (one input channel),
// the depthwise ones (no channel reduction) and the 2-class head (2 output
// channels) stay on vector multiplies. The VNNI kernels, the AVX-512 ones
// without VNNI and the AVX2 ones (--force-avx2, 0 VNNI kernels) all match
// the reference path exactly, at 1 and 2 threads.
// REQUIRES: avx512vnni
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %zoo/person_detect_int8.mlirbc --input=1x32x32x1xi8 --threads=2 --force-avx2 \
// RUN:   --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AVX2

// CHECK: result[0]: matches the expected output
// CHECK: "vector_kernels":21,"scalar_kernels":0,"vnni_kernels":9,
// AVX2: result[0]: matches the expected output
// AVX2: "vector_kernels":21,"scalar_kernels":0,"vnni_kernels":0,
