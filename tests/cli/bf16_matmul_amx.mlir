// On an AMX host, a bf16 x bf16 -> f32 matmul of many rows whose right
// operand is an input is packed at run time into AMX's VNNI panels (a
// transpose, its own dispatch) and multiplied in tile registers; the result
// is the dot products' (--amx=false) within f32 summation order, and the
// statistics count one kernel in AMX tiles. A batch matmul (a bf16
// transformer's attention) likewise, each batch packed on its own.
// REQUIRES: amx
// RUN: %jitrun %s --input=24x64xbf16 --input=64x48xbf16 --threads=1 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-amx-contractions 2>&1 >/dev/null | FileCheck %s
// CHECK-COUNT-2: amx.tile_mulf
// RUN: %jitrun %s --input=24x64xbf16 --input=64x48xbf16 --amx=false --output=@%t.dot.npy
// RUN: %jitrun %s --input=24x64xbf16 --input=64x48xbf16 --threads=2 --dump-statistics=json \
// RUN:   --expected_output=@%t.dot.npy --expected_atol=1e-4 --expected_rtol=1e-5 2>%t.stats | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// SAME: result[0]: matches the expected output
// STATS: "dispatches":2
// STATS-SAME: "amx_kernels":1,
func.func @main(%a: tensor<24x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<24x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x48xf32>) -> tensor<24x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x64xbf16>, tensor<64x48xbf16>) outs(%f : tensor<24x48xf32>) -> tensor<24x48xf32>
  return %r : tensor<24x48xf32>
}

// RUN: %jitrun %s --function=batched --input=3x24x64xbf16 --input=3x64x48xbf16 --amx=false --output=@%t.bdot.npy
// RUN: %jitrun %s --function=batched --input=3x24x64xbf16 --input=3x64x48xbf16 --threads=2 --dump-statistics=json \
// RUN:   --expected_output=@%t.bdot.npy --expected_atol=1e-4 --expected_rtol=1e-5 2>%t.bstats | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=STATS < %t.bstats
func.func @batched(%a: tensor<3x24x64xbf16>, %b: tensor<3x64x48xbf16>) -> tensor<3x24x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x24x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x24x48xf32>) -> tensor<3x24x48xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x24x64xbf16>, tensor<3x64x48xbf16>) outs(%f : tensor<3x24x48xf32>) -> tensor<3x24x48xf32>
  return %r : tensor<3x24x48xf32>
}
