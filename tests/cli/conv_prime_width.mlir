// A convolution whose output width is prime (Inception v3's 71x71 and
// 17x17 maps) has no pixel tile that divides it but 1: it keeps a tile of
// 8 pixels (AVX2), or of 12 where two registers of channels keep the FMA
// units busy with up to 14 (AVX-512: 17 = 12 + 5 rather than an edge of
// one pixel; a 1x7 convolution 128 -> 192 of Inception's 17x17 maps 10 %
// faster than in tiles of 6), the full tiles run unmasked and the peeled
// edge tile is static too. One-pixel tiles ran Inception's convolutions
// at a quarter of peak (the model: 137 -> 76 ms at 1 thread, 80 -> 44 ms
// at 2). Depthwise convolutions keep dividing tiles. So does a 1x1
// convolution over packed weight panels (@packed: 17-pixel rows of
// Inception's 768 -> 192 convolutions ran at 1 pixel x 32 channels, 2 FMAs
// per weight row loaded; the model went from 69 to 55 ms at 1 thread and
// from 42 to 35 ms at 2), and takes 6-pixel tiles as well.
// RUN: %jitrun %s --function=main --input=1x19x19x16xf32 --input=3x3x16x32xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --function=main --input=1x19x19x16xf32 --input=3x3x16x32xf32 --threads=2 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %s --function=main --input=1x19x19x16xf32 --input=3x3x16x32xf32 --force-avx2 --expected_output=@%t.ref.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
// RUN: %jitrun %s --function=main --input=1x19x19x16xf32 --input=3x3x16x32xf32 --dump-statistics=json \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: scheme = "convolution", vector = array<i64: 1, 1, 12, 32, 0, 0, 0>
// TILES: "vector_kernels":1,"scalar_kernels":0,
// RUN: %jitrun %s --function=packed --input=1x17x17x4xf32 --reference --output=@%t.pref.npy
// RUN: %jitrun %s --function=packed --input=1x17x17x4xf32 --threads=2 --expected_output=@%t.pref.npy | FileCheck %s
// RUN: %jitrun %s --function=packed --input=1x17x17x4xf32 --force-avx2 --expected_output=@%t.pref.npy | FileCheck %s
// RUN: %jitrun %s --function=packed --input=1x17x17x4xf32 --dump-statistics=json \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=PACKED
// PACKED: scheme = "contraction", vector = array<i64: 1, 1, 6, 1, 32, 0>{{.*}}jitrun.packed_panels
// PACKED: "vector_kernels":1,"scalar_kernels":0,
func.func @packed(%x: tensor<1x17x17x4xf32>) -> tensor<1x17x17x64xf32> {
  %w = arith.constant dense<"0x000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE000000000000803E0000003F0000403F000040BF000000BF000080BE00000000"> : tensor<1x1x4x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x17x17x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x17x17x64xf32>) -> tensor<1x17x17x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x17x17x4xf32>, tensor<1x1x4x64xf32>) outs(%f : tensor<1x17x17x64xf32>) -> tensor<1x17x17x64xf32>
  return %c : tensor<1x17x17x64xf32>
}

func.func @main(%x: tensor<1x19x19x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x17x17x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x17x17x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x17x17x32xf32>) -> tensor<1x17x17x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x19x19x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x17x17x32xf32>) -> tensor<1x17x17x32xf32>
  return %c : tensor<1x17x17x32xf32>
}
