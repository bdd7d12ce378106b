// What should hold: jitrun-codegen-lower-vectors keeps a contraction's
// accumulator in registers across its reduction loop (Passes.td: "Keeps
// accumulators in registers across reduction loops"; LowerVectors.cpp calls
// linalg::hoistRedundantVectorTransfers for it). For a fill + matmul dispatch
// the K loop should therefore carry the 8 x 32 accumulator tile as an
// iter_arg of type vector<8x32xf32> and contain no transfer of it: only the
// reads of A and B and the 8 vector.fma. Checked for 64x96 * 96x80 (N edge
// masked, so every tile of it runs masked code) and 64x96 * 96x64 (no masks).
//
// The accumulator tile is a memref.subview of the output buffer, and
// hoistRedundantVectorTransfers never hoists transfers of a view (condition 4
// in mlir/Dialect/Linalg/Transforms/Hoisting.h) nor masked ones, so the K
// loop used to reload and store all 8 rows every iteration (16 masked zmm
// loads and stores per 16 FMAs on the 80-wide edge, which LLVM cannot
// promote). jitrun-codegen-lower-vectors now folds the subviews into the
// transfers' indices (the tile is then read and written at the same
// loop-invariant indices of the output buffer), lets upstream hoist the
// unmasked pairs and hoists the masked pairs itself.
//
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors -o /dev/null 2>&1 \
// RUN:   | FileCheck %s

// CHECK-LABEL: IR Dump After LowerVectorsPass
// CHECK:       func.func private @matmul_dispatch(
// CHECK:         scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>) {
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %{{.*}} : memref<64x96xf32>, vector<8x1xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %{{.*}} : memref<96x80xf32>, vector<1x32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           scf.yield %{{.*}} : vector<8x32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    vector.transfer_write %{{.*}} : vector<8x32xf32>, memref<64x80xf32>

func.func private @matmul_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}

// -----

// CHECK-LABEL: IR Dump After LowerVectorsPass
// CHECK:       func.func private @matmul_aligned_dispatch(
// CHECK:         scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>) {
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %{{.*}} : memref<64x96xf32>, vector<8x1xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %{{.*}} : memref<96x64xf32>, vector<1x32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           scf.yield %{{.*}} : vector<8x32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    vector.transfer_write %{{.*}} : vector<8x32xf32>, memref<64x64xf32>

func.func private @matmul_aligned_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>) -> tensor<64x64xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
