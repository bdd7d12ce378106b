// Proves that with vnni=true the codegen pipeline turns i8 x i8 -> i32
// register tiles into AVX-512 VNNI dot products (VnniContraction.cpp), and
// that without it (the default, and every AVX2 or non-VNNI host) none appear.
//
// - NHWC 3x3 convolution, 32 input channels: the filter is the unsigned
//   operand too. Each workgroup first sums its input pixels' channels (two
//   lanes of 16 per pixel: 18 sign-extended loads of 16 bytes for 9 of a
//   row's 18 pixels), then those sums over each output pixel's 3x3 window,
//   and starts from init - (sums << 7) on its 16 output pixels. The taps
//   are tiled by 1 and the channels by 16: per step the 16 filter rows get
//   their sign bits flipped, and 16 pixels x 4 groups = 64 vpdpbusd.
// - The same convolution on 12 input channels (groups of four, not lanes of
//   16): the input is the flipped operand, each broadcast word xored with
//   0x80 bytes (16 pixels, one group), and the excess 128 * sum(w) of the
//   group is one more vpdpbusd: 17.
// - matmul 64x128 * 128x96 (shiftInt8RhsForVnni): the right operand is the
//   unsigned one. Each workgroup first sums its 16 rows of the left operand
//   (k split into 8 x 16 lanes, 2 of the 8 per step: 32 sign-extended loads
//   of 16 bytes), then across the 16 lanes (a tree of shuffles), and
//   starts its accumulators from init - (sums << 7). In the k loop the 16
//   rows of w a step reads get their sign bits flipped (16 xors of 16
//   bytes), and register tiles of 16 rows x 16 lanes, k by 16, take 16 x 4
//   = 64 vpdpbusd: no excess, no flip of the left operand (no xor of a
//   broadcast 64-byte word).
// No vector multiply is left in either kernel.
//
// RUN: %jit-opt %s --split-input-file '--jitrun-codegen-pipeline=vnni=true' \
// RUN:   | FileCheck %s --implicit-check-not='{{llvm\.mul .*vector}}'
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline \
// RUN:   | FileCheck %s --check-prefix=PLAIN --implicit-check-not=vpdpbusd

// CHECK-LABEL: llvm.func @conv_i8_dispatch(
// CHECK-COUNT-18: llvm.sext %{{[0-9]+}} : vector<16xi8> to vector<16xi32>
// CHECK-NOT:     llvm.sext
// CHECK:         %[[SHIFTED:[0-9]+]] = llvm.shl %{{[0-9]+}}, %{{[0-9]+}} : vector<16xi32>
// CHECK-NEXT:    llvm.sub %{{[0-9]+}}, %[[SHIFTED]] : vector<16xi32>
// CHECK-COUNT-16: llvm.xor %{{[0-9]+}}, %{{[0-9]+}} : vector<16xi8>
// CHECK-NOT:     llvm.xor {{.*}} : vector<64xi8>
// CHECK-COUNT-64: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     llvm.xor {{.*}} : vector<64xi8>
// CHECK:         llvm.return

// PLAIN-LABEL: llvm.func @conv_i8_dispatch(
// PLAIN:         llvm.mul %{{.*}} : vector<16xi32>

func.func private @conv_i8_dispatch(%x: tensor<1x18x18x32xi8>, %w: tensor<3x3x32x64xi8>) -> tensor<1x16x16x64xi32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x16x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x18x18x32xi8>, tensor<3x3x32x64xi8>) outs(%f : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>
  return %c : tensor<1x16x16x64xi32>
}

// -----

// CHECK-LABEL: llvm.func @conv_i8_12_channels_dispatch(
// CHECK-DAG:     %[[SIGN:[0-9]+]] = llvm.mlir.constant(dense<-128> : vector<64xi8>) : vector<64xi8>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{[0-9]+}}, %[[SIGN]], %{{[0-9]+}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK-COUNT-16: %[[U:[0-9]+]] = llvm.xor %{{[0-9]+}}, %[[SIGN]] : vector<64xi8>
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{[0-9]+}}, %[[U]], %{{[0-9]+}})
// CHECK-NOT:     llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:         llvm.return

// PLAIN-LABEL: llvm.func @conv_i8_12_channels_dispatch(
// PLAIN:         llvm.mul %{{.*}} : vector<16xi32>

func.func private @conv_i8_12_channels_dispatch(%x: tensor<1x18x18x12xi8>, %w: tensor<3x3x12x64xi8>) -> tensor<1x16x16x64xi32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x16x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x18x18x12xi8>, tensor<3x3x12x64xi8>) outs(%f : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>
  return %c : tensor<1x16x16x64xi32>
}

// -----

// CHECK-LABEL: llvm.func @matmul_i8_dispatch(
// CHECK-COUNT-32: llvm.sext %{{[0-9]+}} : vector<16xi8> to vector<16xi32>
// CHECK-NOT:     llvm.sext
// CHECK:         %[[SHIFTED:[0-9]+]] = llvm.shl %{{[0-9]+}}, %{{[0-9]+}} : vector<16xi32>
// CHECK-NEXT:    llvm.sub %{{[0-9]+}}, %[[SHIFTED]] : vector<16xi32>
// CHECK-COUNT-16: llvm.xor %{{[0-9]+}}, %{{[0-9]+}} : vector<16xi8>
// CHECK-NOT:     llvm.xor {{.*}} : vector<64xi8>
// CHECK-COUNT-64: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     llvm.xor {{.*}} : vector<64xi8>
// CHECK:         llvm.return

// PLAIN-LABEL: llvm.func @matmul_i8_dispatch(
// PLAIN:         llvm.mul %{{.*}} : vector<32xi32>

func.func private @matmul_i8_dispatch(%x: tensor<64x128xi8>, %w: tensor<128x96xi8>) -> tensor<64x96xi32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x96xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x96xi32>) -> tensor<64x96xi32>
  %c = linalg.matmul ins(%x, %w : tensor<64x128xi8>, tensor<128x96xi8>) outs(%f : tensor<64x96xi32>) -> tensor<64x96xi32>
  return %c : tensor<64x96xi32>
}
