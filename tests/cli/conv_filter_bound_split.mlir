// A convolution whose filter is larger than L2 and at least twice its input
// (late layers of ResNet and Inception: 3x3 512 -> 512 on 7x7, 448 -> 384
// on 8x8) splits its output channels into workgroups before its image:
// split by rows, each workgroup streamed a whole slab of the filter for a
// few pixels (Inception v3's 8x8 blocks read 50 MB of filters per run
// from memory); split by channels, each reads its share once and the small
// image from cache. ResNet-18: 19.5-20.0 -> 18.7 ms at 1 thread. A larger
// image keeps splitting rows first (@big_image).
// RUN: %jitrun %s --function=small_map --input=1x9x9x64xf32 --input=3x3x64x256xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --function=small_map --input=1x9x9x64xf32 --input=3x3x64x256xf32 --threads=2 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %s --function=small_map --input=1x9x9x64xf32 --input=3x3x64x256xf32 --force-avx2 --expected_output=@%t.ref.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
// RUN: %jitrun %s --function=small_map --input=1x9x9x64xf32 --input=3x3x64x256xf32 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: scheme = "convolution", vector = array<i64: 1, 1, 7, 32, 0, 0, 0>, workgroup = array<i64: 0, 0, 0, 32, 0, 0, 0>
// RUN: %jitrun %s --function=big_image --input=1x58x58x64xf32 --input=3x3x64x256xf32 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: scheme = "convolution", vector = array<i64: 1, 1, 14, 32, 0, 0, 0>, workgroup = array<i64: 0, 2, 28, 0, 0, 0, 0>
func.func @small_map(%x: tensor<1x9x9x64xf32>, %w: tensor<3x3x64x256xf32>) -> tensor<1x7x7x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x64xf32>, tensor<3x3x64x256xf32>) outs(%f : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %c : tensor<1x7x7x256xf32>
}

func.func @big_image(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x256xf32>) -> tensor<1x56x56x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x256xf32>) outs(%f : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %c : tensor<1x56x56x256xf32>
}
