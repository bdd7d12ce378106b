// A convolution whose output channels have no divisor that fills whole
// registers (RegNet's 104 and 208, EfficientNet's 40: 13, 26 and 10
// lanes) keeps 16 lanes and a static peeled edge (104 = 6 x 16 + 8);
// odd-width vectors ran RegNet's convolutions at a quarter of peak
// (RegNet-Y 400MF: 6.5 -> 5.2 ms at 1 thread).
// RUN: %jitrun %s --input=1x14x14x104xf32 --input=1x1x104x104xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x14x14x104xf32 --input=1x1x104x104xf32 --threads=2 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %s --input=1x14x14x104xf32 --input=1x1x104x104xf32 --force-avx2 --expected_output=@%t.ref.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
// RUN: %jitrun %s --input=1x14x14x104xf32 --input=1x1x104x104xf32 --dump-statistics=json \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: scheme = "convolution", vector = array<i64: 1, 1, 7, 16, 0, 0, 0>
// TILES: "vector_kernels":1,"scalar_kernels":0,
func.func @main(%x: tensor<1x14x14x104xf32>, %w: tensor<1x1x104x104xf32>) -> tensor<1x14x14x104xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x104xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x104xf32>) -> tensor<1x14x14x104xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x14x14x104xf32>, tensor<1x1x104x104xf32>) outs(%f : tensor<1x14x14x104xf32>) -> tensor<1x14x14x104xf32>
  return %c : tensor<1x14x14x104xf32>
}
