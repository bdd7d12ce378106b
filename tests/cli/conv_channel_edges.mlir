// Output channels that 16 does not divide (ShuffleNetV2's 232) keep whole
// AVX-512 registers: 16 lanes and a peeled edge of 8 (232 = 14 x 16 + 8),
// not 29 tiles of 8 lanes in half registers (its 1x1 convolutions ran at
// 35 % of the FMA peak, 65 % with whole registers). When a consumer
// transposes the result to NCHW (ShuffleNetV2's channel shuffle), the
// dispatch's loops are the consumer's and its innermost loop is the image
// width: the lanes stay on the channels, the convolution's own lanes
// (26 -> 45 % of peak). Both agree with the reference path at 1 and 2
// threads and in AVX2 code.
// RUN: %jitrun %s --input=1x7x7x64xf32 --input=1x1x64x232xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x7x7x64xf32 --input=1x1x64x232xf32 --threads=1 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %s --input=1x7x7x64xf32 --input=1x1x64x232xf32 --threads=2 --expected_output=@%t.ref.npy | FileCheck %s
// RUN: %jitrun %s --input=1x7x7x64xf32 --input=1x1x64x232xf32 --force-avx2 --expected_output=@%t.ref.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
// RUN: %jitrun %s --input=1x7x7x64xf32 --input=1x1x64x232xf32 --dump-statistics=json \
// RUN:   --mlir-print-ir-after=jitrun-codegen-select-strategy 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: scheme = "convolution", vector = array<i64: 1, 16, 1, 7>
// TILES: "vector_kernels":1,"scalar_kernels":0,
func.func @main(%x: tensor<1x7x7x64xf32>, %w: tensor<1x1x64x232xf32>) -> tensor<1x232x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x232xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x232xf32>) -> tensor<1x7x7x232xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x7x7x64xf32>, tensor<1x1x64x232xf32>) outs(%f : tensor<1x7x7x232xf32>) -> tensor<1x7x7x232xf32>
  %et = tensor.empty() : tensor<1x232x7x7xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x7x7x232xf32>) outs(%et : tensor<1x232x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x232x7x7xf32>
  return %t : tensor<1x232x7x7xf32>
}
