// The other runs of this input: tests/cli/bf16_weights_panels.mlir.
// On an AMX host, --weights=bf16 on a matmul of many rows packs the weights
// for AMX tiles (pairs of K interleaved: jitrun.amx_tiles) and the kernel
// multiplies them in tile registers (tdpbf16ps), the tiles carried by its
// K loop; the result is the same as the dot products' within bf16's
// precision. --amx=false keeps the dot products.
// REQUIRES: amx
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --threads=1 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-amx-contractions 2>&1 >/dev/null | FileCheck %s
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<8x16xf32>, !amx.tile<8x16xf32>)
// CHECK-COUNT-4: amx.tile_mulf
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --threads=1 \
// RUN:   --amx=false --mlir-print-ir-after=jitrun-codegen-amx-contractions 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// OFF-NOT: amx.tile
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --amx=false --output=@%t.dot.npy
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --threads=2 \
// RUN:   --expected_output=@%t.dot.npy --expected_atol=1e-4 --expected_rtol=1e-5 | FileCheck %s --check-prefix=SAME
// SAME: result[0]: matches the expected output
// The statistics count the kernels in AMX tiles:
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 \
// RUN:   --dump-statistics=json 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// STATS: "amx_kernels":1,
// RUN: %jitrun %S/bf16_weights_panels.mlir --function=tokens --input=24x64xf32 --weights=bf16 --amx=false \
// RUN:   --dump-statistics=json 2>&1 >/dev/null | FileCheck %s --check-prefix=NOSTATS
// NOSTATS: "amx_kernels":0,
