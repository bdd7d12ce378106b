// jitrun-codegen-amx-contractions: a bf16 contraction over VNNI panels
// (jitrun.amx_tiles), on buffers after bufferization, becomes AMX tile
// code: its accumulator tiles loaded from C (2 x 2 tiles of 16 x 16 f32
// for 32 rows by 32 columns), one loop over K in steps of 16 pairs (32 bf16)
// carrying them, two tiles of A (16 rows x 32 bf16, rows K apart) and two
// of B (16 pair rows x 32 bf16, the panel's 64-element rows) loaded per
// step, four tdpbf16ps, and the tiles stored back to C. LLVM is told not to
// unroll the loop: straight-line steps let its scheduler load later steps'
// tiles early, and the tile registers ran out. An edge tile of
// rows takes tiles of fewer rows (5 here). A contraction whose tile does
// not fit (64 columns: 4 tiles of columns), or whose body is not a
// multiply-accumulate, stays for the scalar loops,
// with a remark.
// RUN: %jit-opt %s --split-input-file --verify-diagnostics --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-amx-contractions))' | FileCheck %s
// (Lowered to LLVM: tests/pipeline/amx_to_llvm.mlir.)

#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @tile_32x32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C384:.*]] = arith.constant 384 : index
// CHECK-DAG: %[[C768:.*]] = arith.constant 768 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C96:.*]] = arith.constant 96 : index
// CHECK: %[[ACC0:.*]] = amx.tile_load %arg2[%[[C0]], %[[C0]], %[[C0]]], %[[C96]] : memref<32x1x32xf32, strided<[96, 32, 1], offset: ?>> into !amx.tile<16x16xf32>
// CHECK: amx.tile_load %arg2[%[[C0]], %[[C0]], %[[C16]]], %[[C96]]
// CHECK: amx.tile_load %arg2[%[[C16]], %[[C0]], %[[C0]]], %[[C96]]
// CHECK: amx.tile_load %arg2[%[[C16]], %[[C0]], %[[C16]]], %[[C96]]
// CHECK: %[[R:.*]]:4 = scf.for %[[K:.*]] = %[[C0]] to %[[C384]] step %[[C16]] iter_args(%[[X0:.*]] = %[[ACC0]], %[[X1:.*]] = %{{.*}}, %[[X2:.*]] = %{{.*}}, %[[X3:.*]] = %{{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK:   %[[A0:.*]] = amx.tile_load %arg0[%[[C0]], %[[K]], %[[C0]]], %[[C768]] : memref<32x384x2xbf16, strided<[768, 2, 1], offset: ?>> into !amx.tile<16x32xbf16>
// CHECK:   %[[A1:.*]] = amx.tile_load %arg0[%[[C16]], %[[K]], %[[C0]]], %[[C768]]
// CHECK:   %[[B0:.*]] = amx.tile_load %arg1[%[[C0]], %[[K]], %[[C0]], %[[C0]]], %[[C64]] : memref<1x384x32x2xbf16, strided<[24576, 64, 2, 1], offset: ?>> into !amx.tile<16x32xbf16>
// CHECK:   %[[B1:.*]] = amx.tile_load %arg1[%[[C0]], %[[K]], %[[C16]], %[[C0]]], %[[C64]]
// CHECK:   %[[M0:.*]] = amx.tile_mulf %[[A0]], %[[B0]], %[[X0]]
// CHECK:   %[[M1:.*]] = amx.tile_mulf %[[A0]], %[[B1]], %[[X1]]
// CHECK:   %[[M2:.*]] = amx.tile_mulf %[[A1]], %[[B0]], %[[X2]]
// CHECK:   %[[M3:.*]] = amx.tile_mulf %[[A1]], %[[B1]], %[[X3]]
// CHECK:   scf.yield %[[M0]], %[[M1]], %[[M2]], %[[M3]]
// CHECK: } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
// CHECK: amx.tile_store %arg2[%[[C0]], %[[C0]], %[[C0]]], %[[R]]#0, %[[C96]]
// CHECK: amx.tile_store %arg2[%[[C0]], %[[C0]], %[[C16]]], %[[R]]#1, %[[C96]]
// CHECK: amx.tile_store %arg2[%[[C16]], %[[C0]], %[[C0]]], %[[R]]#2, %[[C96]]
// CHECK: amx.tile_store %arg2[%[[C16]], %[[C0]], %[[C16]]], %[[R]]#3, %[[C96]]
// CHECK-NOT: linalg.generic
func.func @tile_32x32(%a: memref<32x384x2xbf16, strided<[768, 2, 1], offset: ?>>,
                      %b: memref<1x384x32x2xbf16, strided<[24576, 64, 2, 1], offset: ?>>,
                      %c: memref<32x1x32xf32, strided<[96, 32, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<32x384x2xbf16, strided<[768, 2, 1], offset: ?>>, memref<1x384x32x2xbf16, strided<[24576, 64, 2, 1], offset: ?>>)
      outs(%c : memref<32x1x32xf32, strided<[96, 32, 1], offset: ?>>) attrs = {jitrun.amx_tiles} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf fastmath<contract> : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// int8 x int8 -> i32 over panels of quads: tiles of 16 rows x 64 int8 of A
// and 16 quad rows x 64 int8 of B per step of 64 (16 quads), i32
// accumulators, tdpbssd (signed x signed: no zext).
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @int8_32x32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK: amx.tile_load %arg2{{.*}} into !amx.tile<16x16xi32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C128]] step %[[C16]] iter_args
// CHECK:   amx.tile_load %arg0{{.*}}, %[[C512]] : memref<32x128x4xi8, strided<[512, 4, 1], offset: ?>> into !amx.tile<16x64xi8>
// CHECK:   amx.tile_load %arg1{{.*}}, %[[C128]] : memref<1x128x32x4xi8, strided<[16384, 128, 4, 1], offset: ?>> into !amx.tile<16x64xi8>
// CHECK-COUNT-4: amx.tile_muli %{{[^>]*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK-NOT: zext
// CHECK: amx.tile_store %arg2
// CHECK-NOT: linalg.generic
func.func @int8_32x32(%a: memref<32x128x4xi8, strided<[512, 4, 1], offset: ?>>,
                      %b: memref<1x128x32x4xi8, strided<[16384, 128, 4, 1], offset: ?>>,
                      %c: memref<32x1x32xi32, strided<[96, 32, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<32x128x4xi8, strided<[512, 4, 1], offset: ?>>, memref<1x128x32x4xi8, strided<[16384, 128, 4, 1], offset: ?>>)
      outs(%c : memref<32x1x32xi32, strided<[96, 32, 1], offset: ?>>) attrs = {jitrun.amx_tiles} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @edge_rows
// CHECK: amx.tile_load %arg2{{.*}} into !amx.tile<5x16xf32>
// CHECK: scf.for
// CHECK:   amx.tile_load %arg0{{.*}} into !amx.tile<5x32xbf16>
// CHECK:   amx.tile_load %arg1{{.*}} into !amx.tile<16x32xbf16>
// CHECK:   amx.tile_mulf {{.*}} : !amx.tile<5x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<5x16xf32>
// CHECK: amx.tile_store %arg2
func.func @edge_rows(%a: memref<5x32x2xbf16>, %b: memref<1x32x16x2xbf16>, %c: memref<5x1x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<5x32x2xbf16>, memref<1x32x16x2xbf16>) outs(%c : memref<5x1x16xf32>) attrs = {jitrun.amx_tiles} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf fastmath<contract> : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @too_wide
// CHECK-NOT: amx.
// CHECK: linalg.generic
func.func @too_wide(%a: memref<16x16x2xbf16>, %b: memref<1x16x64x2xbf16>, %c: memref<16x1x64xf32>) {
  // expected-remark @below {{bf16 or int8 contraction left to scalar loops: its shape, layout or body does not fit AMX tiles}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<16x16x2xbf16>, memref<1x16x64x2xbf16>) outs(%c : memref<16x1x64xf32>) attrs = {jitrun.amx_tiles} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf fastmath<contract> : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// A body that is not a multiply-accumulate is not what tdpbf16ps computes.
// CHECK-LABEL: func.func @not_a_contraction
// CHECK-NOT: amx.
// CHECK: linalg.generic
func.func @not_a_contraction(%a: memref<16x16x2xbf16>, %b: memref<1x16x16x2xbf16>, %c: memref<16x1x16xf32>) {
  // expected-remark @below {{bf16 or int8 contraction left to scalar loops: its shape, layout or body does not fit AMX tiles}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<16x16x2xbf16>, memref<1x16x16x2xbf16>) outs(%c : memref<16x1x16xf32>) attrs = {jitrun.amx_tiles} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.subf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
