// AMX tile code (jitrun-codegen-amx-contractions on
// tests/codegen/amx_contractions.mlir) lowered by jitrun-codegen-amx-to-llvm:
// every tile op becomes LLVM's AMX intrinsic (4 tdpbf16ps in the K loop of
// a 32 x 32 tile), no amx op is left. (The loop's branches, which carry the
// tiles, are lowered with them in the kernel pipeline: the CLI runs of
// tests/cli/bf16_weights_amx.mlir.)
// RUN: %jit-opt %S/../codegen/amx_contractions.mlir --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-amx-contractions),jitrun-codegen-amx-to-llvm)' \
// RUN:   | FileCheck %s
// CHECK-LABEL: func.func @tile_32x32
// CHECK-NOT: amx.tile_
// CHECK-COUNT-4: "llvm.x86.tdpbf16ps.internal"
// CHECK-NOT: amx.tile_
// CHECK-LABEL: func.func @edge_rows
// CHECK: "llvm.x86.tdpbf16ps.internal"
