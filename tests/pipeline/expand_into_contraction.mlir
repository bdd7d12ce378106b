// Proves expandReshapesIntoContraction (jitrun-codegen-prepare-contractions): a dispatch
// of matmul + bias + split into heads (tensor.expand_shape) + per-head
// transpose (fusion's consumerThroughExpand) tiles as one. The reshape is
// propagated up into the contraction (generalized), so the transpose's
// tiles (one head, 8 rows, 32 columns) fuse the bias and the contraction;
// the weights and bias are read at linearized indices of their own 2-D
// buffers (no expand_shape view left), each K step is one vector.contract
// of 8 rows by 32 columns (8 FMA lines after lowering, like a matmul's
// register tile), and the result is written transposed. Stack: one 8x1x32
// accumulator tile, 1024 bytes.
//
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not=tensor.expand_shape
// RUN: %jit-opt %s --jitrun-codegen-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @heads_dispatch(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<16x64xf32>{{.*}}, %[[W:[a-z0-9]+]]: memref<64x64xf32>{{.*}}, %[[B:[a-z0-9]+]]: memref<64xf32>
// CHECK-DAG:     %[[XT:.*]] = bufferization.to_tensor %[[X]]
// CHECK-DAG:     %[[WT:.*]] = bufferization.to_tensor %[[W]]
// CHECK-DAG:     %[[BT:.*]] = bufferization.to_tensor %[[B]]
// CHECK:         scf.forall (%[[H:.*]], %[[S:.*]]) = (0, 0) to (2, 16) step (1, 8)
// CHECK:           scf.for %[[K:.*]] = %c0 to %c64 step %c1
// CHECK:             vector.transfer_read %[[XT]][%[[S]], %[[K]]]{{.*}} : tensor<16x64xf32>, vector<8x1xf32>
// CHECK:             vector.transfer_read %[[WT]][%[[K]], %{{.*}}]{{.*}} : tensor<64x64xf32>, vector<32xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<8x1x32xf32> into vector<8x32xf32>
// CHECK:           vector.transfer_read %[[BT]]{{.*}} : tensor<64xf32>, vector<32xf32>
// CHECK:           arith.addf {{.*}} : vector<8x1x32xf32>
// CHECK:           vector.transpose %{{.*}}, [1, 0, 2] : vector<8x1x32xf32> to vector<1x8x32xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     scf.forall (

// LLVM: llvm.func @heads_dispatch({{.*}}jitrun.stack_bytes = 1024 : i64
// LLVM-COUNT-8: llvm.intr.fmuladd
// LLVM-NOT: llvm.intr.fmuladd
func.func private @heads_dispatch(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<2x16x32xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %te = tensor.empty() : tensor<2x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %h = tensor.expand_shape %a [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<16x2x32xf32>) outs(%te : tensor<2x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x32xf32>
  return %t : tensor<2x16x32xf32>
}
