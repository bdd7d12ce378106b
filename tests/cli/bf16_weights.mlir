// --weights=bf16: a matmul of f32 against constant f32 weights reads them
// rounded to bf16 (a bf16 constant: half the bytes) and its input rounded
// to bf16, accumulating in f32. 1 + 2^-8 lies halfway between the bf16
// values 1 and 1 + 2^-7 and rounds to even, 1: over K = 32 the sum is 32
// with bf16 weights and 32.125 in f32. A bad value is refused.
// RUN: %jitrun %s --input=2x32xf32=1.00390625 | FileCheck %s --check-prefix=F32
// RUN: %jitrun %s --input=2x32xf32=1.00390625 --weights=bf16 | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --input=2x32xf32=1.00390625 --weights=bf16 --force-avx2 | FileCheck %s --check-prefix=BF16
// F32: result[0]: 2x16xf32=[32.125 32.125
// BF16: result[0]: 2x16xf32=[32 32 32
// RUN: %jitrun %s --input=2x32xf32 --weights=bf16 --mlir-print-ir-after=jitrun-fusion-bf16-weights 2>&1 >/dev/null | FileCheck %s --check-prefix=IR
// IR: arith.constant dense<1.000000e+00> : tensor<32x16xbf16>
// IR: arith.truncf %{{.*}} : f32 to bf16
// IR: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x32xbf16>, tensor<32x16xbf16>) outs(%{{.*}} : tensor<2x16xf32>)
// RUN: not %jitrun %s --input=2x32xf32 --weights=f16 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: jitrun: error: --weights must be f32 or bf16, not 'f16'
// Random values against the f32 reference, within bf16's precision.
// RUN: %jitrun %s --input=2x32xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=2x32xf32 --weights=bf16 --expected_output=@%t.ref.npy --expected_atol=0.05 --expected_rtol=0.02 | FileCheck %s --check-prefix=CLOSE
// CLOSE: result[0]: matches the expected output
func.func @main(%x: tensor<2x32xf32>) -> tensor<2x16xf32> {
  %w = arith.constant dense<1.0> : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  %r = linalg.matmul ins(%x, %w : tensor<2x32xf32>, tensor<32x16xf32>) outs(%f : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}
