// On an AVX512_BF16 host a bf16 x bf16 -> f32 matmul's register tiles are
// vdpbf16ps dot products: k in pairs, the right operand's rows zipped in
// registers, a pair of the left operand broadcast as one 32-bit word. (An
// AMX host packs the right operand for AMX tiles instead unless --amx=false:
// bf16_matmul_amx.mlir.)
// REQUIRES: avx512bf16
// RUN: %jitrun %s --input=24x64xbf16 --input=64x48xbf16 --threads=1 --amx=false \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors 2>&1 >/dev/null | FileCheck %s
// CHECK: vector.shuffle {{.*}} : vector<16xi16>, vector<16xi16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// RUN: %jitrun %s --input=24x64xbf16 --input=64x48xbf16 --force-avx2 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors 2>&1 >/dev/null | FileCheck %s --check-prefix=AVX2
// AVX2-NOT: dpbf16ps
func.func @main(%a: tensor<24x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<24x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x48xf32>) -> tensor<24x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x64xbf16>, tensor<64x48xbf16>) outs(%f : tensor<24x48xf32>) -> tensor<24x48xf32>
  return %r : tensor<24x48xf32>
}
