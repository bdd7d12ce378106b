// The other runs of this input: tests/cli/bf16_weights_panels.mlir.
// On an AVX512_BF16 host, --weights=bf16 over packed panels and over a head
// split are vdpbf16ps dot products, not bf16 widened element by element.
// REQUIRES: avx512bf16
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --amx=false --threads=1 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors 2>&1 >/dev/null | FileCheck %s
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=heads --input=24x64xf32 --weights=bf16 --amx=false --threads=1 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors 2>&1 >/dev/null | FileCheck %s
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
