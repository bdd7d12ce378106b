// bf16 x bf16 -> f32 matmuls against --reference: on an AVX512_BF16 host
// the register tiles are vdpbf16ps dot products (k in pairs, n in lanes of
// 16); an odd K, columns that are no multiple of 16 (masked edge tiles)
// and the AVX2 path keep multiplies and adds on widened values. Every
// result agrees with the reference's f32 sums.
// RUN: %jitrun %s --function=even --input=24x64xbf16 --input=64x48xbf16 --reference --output=@%t.even.npy
// RUN: %jitrun %s --function=even --input=24x64xbf16 --input=64x48xbf16 --threads=2 --expected_output=@%t.even.npy | FileCheck %s
// RUN: %jitrun %s --function=even --input=24x64xbf16 --input=64x48xbf16 --force-avx2 --expected_output=@%t.even.npy | FileCheck %s
// RUN: %jitrun %s --function=odd_k --input=20x63xbf16 --input=63x40xbf16 --reference --output=@%t.odd.npy
// RUN: %jitrun %s --function=odd_k --input=20x63xbf16 --input=63x40xbf16 --threads=2 --expected_output=@%t.odd.npy | FileCheck %s
// RUN: %jitrun %s --function=bias_relu --input=37x96xbf16 --input=96x72xbf16 --input=72xf32 --reference --output=@%t.bias.npy
// RUN: %jitrun %s --function=bias_relu --input=37x96xbf16 --input=96x72xbf16 --input=72xf32 --threads=2 --expected_output=@%t.bias.npy | FileCheck %s
// Hand-worked: 1.5 * 2 summed over 64 = 192 in every element.
// RUN: %jitrun %s --function=even --input=24x64xbf16=1.5 --input=64x48xbf16=2 | FileCheck %s --check-prefix=CONST
// CHECK: result[0]: matches the expected output
// CONST: result[0]: 24x48xf32=[192 192
func.func @even(%a: tensor<24x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<24x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x48xf32>) -> tensor<24x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x64xbf16>, tensor<64x48xbf16>) outs(%f : tensor<24x48xf32>) -> tensor<24x48xf32>
  return %r : tensor<24x48xf32>
}
func.func @odd_k(%a: tensor<20x63xbf16>, %b: tensor<63x40xbf16>) -> tensor<20x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20x40xf32>) -> tensor<20x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<20x63xbf16>, tensor<63x40xbf16>) outs(%f : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %r : tensor<20x40xf32>
}
func.func @bias_relu(%a: tensor<37x96xbf16>, %b: tensor<96x72xbf16>, %bias: tensor<72xf32>) -> tensor<37x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x72xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x72xf32>) -> tensor<37x72xf32>
  %m = linalg.matmul ins(%a, %b : tensor<37x96xbf16>, tensor<96x72xbf16>) outs(%f : tensor<37x72xf32>) -> tensor<37x72xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<37x72xf32>, tensor<72xf32>) outs(%e : tensor<37x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %c = arith.maximumf %s, %zero : f32
    linalg.yield %c : f32
  } -> tensor<37x72xf32>
  return %r : tensor<37x72xf32>
}
