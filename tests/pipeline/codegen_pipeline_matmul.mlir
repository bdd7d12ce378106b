// Proves that the whole registered jitrun-codegen-pipeline (AVX-512 tile
// sizes) lowers a fill + matmul dispatch to LLVM dialect vector code: the
// inner K loop is 8 llvm.intr.fmuladd on vector<32xf32> (8 rows of the
// register tile, each row 2 x 16 f32 lanes: one FMA per row with the row's A
// element broadcast), fed by a vector load of a row of B, with the 8
// accumulator rows carried in registers (loaded before the loop, stored
// after it: matmul_accumulator_hoisting.mlir);
// the fill is vector stores of zeros. There is no scalar f32 load, multiply or add anywhere, and
// the kernel needs no stack (jitrun.stack_bytes = 0: the tiles are computed in
// the output buffer). 64x96 * 96x80 has an edge tile (80 = 32 + 32 + 16):
// the tile loop is peeled, so full tiles run the plain loads and stores of
// the aligned case and only the edge tile is lowered to
// llvm.intr.masked.load/store; 64x96 * 96x64 has no edge and no mask.
//
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline \
// RUN:   | FileCheck %s --implicit-check-not=llvm.fmul --implicit-check-not=llvm.fadd \
// RUN:       --implicit-check-not='!llvm.ptr -> f32' --implicit-check-not=llvm.alloca \
// RUN:       --implicit-check-not=llvm.intr.fmuladd

// CHECK-LABEL: llvm.func @matmul_dispatch(
// CHECK-SAME:      %{{[a-z0-9]+}}: !llvm.ptr{{[^,]*}}, %{{[a-z0-9]+}}: !llvm.ptr{{[^,]*}}, %{{[a-z0-9]+}}: !llvm.ptr{{[^,]*}}, %{{[a-z0-9]+}}: i64)
// CHECK-SAME:      jitrun.stack_bytes = 0 : i64
// CHECK-SAME:      jitrun.workgroups = 24 : i64
// CHECK:         %[[ZERO:[0-9]+]] = llvm.mlir.constant(dense<0.000000e+00> : vector<32xf32>) : vector<32xf32>
// Full tiles first: the fill is 8 plain stores of a zero vector, one per
// row of the tile, and the accumulator rows are loaded once, before the K
// loop, which carries them in registers.
// CHECK-NOT:     llvm.intr.masked
// CHECK-COUNT-8: llvm.store %[[ZERO]], %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// CHECK-NOT:     llvm.intr.masked
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-NOT:     llvm.intr.masked
// CHECK:       ^bb[[HEAD:[0-9]+]](%{{[0-9]+}}: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// CHECK-NEXT:    llvm.icmp "slt"
// CHECK-NEXT:    llvm.cond_br %{{[0-9]+}}, ^bb[[BODY:[0-9]+]], ^bb[[EXIT:[0-9]+]]
// CHECK-NEXT:  ^bb[[BODY]]:{{.*}}
// One element of A per row, a full row of B, one FMA per row.
// CHECK-NOT:     {{llvm.intr.masked|llvm.store}}
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK:         llvm.br ^bb[[HEAD]](
// CHECK-NEXT:  ^bb[[EXIT]]:
// CHECK-COUNT-8: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// CHECK-NOT:     llvm.intr.masked.load
// Then the edge tile, the loop's peeled last iteration: the same steps,
// masked. 8 masked stores of zeros and 8 masked loads of the accumulators...
// CHECK-COUNT-8: llvm.intr.masked.store %[[ZERO]], %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i32} : vector<32xf32>, vector<32xi1> into !llvm.ptr
// CHECK-COUNT-8: llvm.intr.masked.load %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// CHECK:         llvm.br ^bb[[EHEAD:[0-9]+]](%{{[0-9]+}}, %{{[0-9]+}} : i64, !llvm.array<8 x vector<32xf32>>)
// CHECK:       ^bb[[EHEAD]](%[[K:[0-9]+]]: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %{{[0-9]+}} : i64
// CHECK-NEXT:    llvm.cond_br %{{[0-9]+}}, ^bb[[EBODY:[0-9]+]], ^bb[[EEXIT:[0-9]+]]
// CHECK:       ^bb[[EBODY]]:{{.*}}
// ... in the K loop, a row of B masked at the N edge and one FMA per row on
// the full 32-lane row; no accumulator is stored in the loop ...
// CHECK-NOT:     {{\^bb|llvm.intr.masked.store}}
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
// CHECK-NOT:     {{\^bb|llvm.intr.masked.store}}
// CHECK:         llvm.intr.masked.load %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     {{\^bb|llvm.intr.masked.store}}
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     {{\^bb|llvm.intr.masked}}
// CHECK:         llvm.br ^bb[[EHEAD]](
// ... and the rows are stored to C once, after the loop.
// CHECK-NEXT:  ^bb[[EEXIT]]:
// CHECK-COUNT-8: llvm.intr.masked.store %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i32} : vector<32xf32>, vector<32xi1> into !llvm.ptr
// CHECK:         llvm.return

func.func private @matmul_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}

// -----

// CHECK-LABEL: llvm.func @matmul_aligned_dispatch(
// CHECK-SAME:      jitrun.stack_bytes = 0 : i64
// CHECK-SAME:      jitrun.workgroups = 16 : i64
// CHECK-NOT:     llvm.intr.masked
// CHECK:         %[[ZERO:[0-9]+]] = llvm.mlir.constant(dense<0.000000e+00> : vector<32xf32>) : vector<32xf32>
// CHECK-NOT:     llvm.intr.masked
// CHECK-COUNT-8: llvm.store %[[ZERO]], %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-NOT:     llvm.intr.masked
// CHECK:       ^bb[[HEAD:[0-9]+]](%{{[0-9]+}}: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// CHECK-NEXT:    llvm.icmp "slt"
// CHECK-NEXT:    llvm.cond_br %{{[0-9]+}}, ^bb[[BODY:[0-9]+]], ^bb[[EXIT:[0-9]+]]
// CHECK-NEXT:  ^bb[[BODY]]:{{.*}}
// CHECK-NOT:     {{llvm.intr.masked|llvm.store}}
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     {{llvm.intr.masked|llvm.store|\^bb}}
// CHECK:         llvm.br ^bb[[HEAD]](
// CHECK-NEXT:  ^bb[[EXIT]]:
// CHECK-COUNT-8: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// CHECK-NOT:     llvm.intr.masked
// CHECK:         llvm.return

func.func private @matmul_aligned_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>) -> tensor<64x64xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
