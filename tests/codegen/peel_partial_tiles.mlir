// jitrun-codegen-peel-partial-tiles alone: a tile loop whose step does not
// divide its range (80 columns in tiles of 32) becomes a loop of full tiles
// (0 to 64, static 8x32 tiles: the size a constant) and one partial
// iteration (64 to 80). The workgroup scf.forall is not peeled.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-peel-partial-tiles))' \
// RUN:   | FileCheck %s

// CHECK-DAG:   #[[EDGE:.*]] = affine_map<(d0) -> (-d0 + 80)>
// CHECK-LABEL: func.func private @peel
// CHECK:       scf.forall ({{.*}}) = (0) to (64) step (32)
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:             %[[FULL:.*]] = arith.constant 32 : index
// CHECK:             tensor.extract_slice %{{.*}}[0, %{{.*}}] [96, %[[FULL]]]
// CHECK:             linalg.matmul
// CHECK:           scf.for %[[J:.*]] = %c64 to %c80 step %c32
// CHECK:             affine.apply #[[EDGE]](%[[J]])
// CHECK:             linalg.matmul
#map = affine_map<(d0) -> (-d0 + 80, 32)>
func.func private @peel(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %arg3: index) attributes {jitrun.dispatch} {
  %c8 = arith.constant 8 : index
  %c80 = arith.constant 80 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %2 = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %3 = scf.forall (%arg4) = (0) to (64) step (32) shared_outs(%arg5 = %2) -> (tensor<64x80xf32>) {
    %extracted_slice = tensor.extract_slice %0[%arg4, 0] [32, 96] [1, 1] : tensor<64x96xf32> to tensor<32x96xf32>
    %extracted_slice_0 = tensor.extract_slice %arg5[%arg4, 0] [32, 80] [1, 1] : tensor<64x80xf32> to tensor<32x80xf32>
    %4 = scf.for %arg6 = %c0 to %c32 step %c8 iter_args(%arg7 = %extracted_slice_0) -> (tensor<32x80xf32>) {
      %5 = scf.for %arg8 = %c0 to %c80 step %c32 iter_args(%arg9 = %arg7) -> (tensor<32x80xf32>) {
        %6 = affine.min #map(%arg8)
        %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg6, 0] [8, 96] [1, 1] : tensor<32x96xf32> to tensor<8x96xf32>
        %extracted_slice_2 = tensor.extract_slice %1[0, %arg8] [96, %6] [1, 1] : tensor<96x80xf32> to tensor<96x?xf32>
        %extracted_slice_3 = tensor.extract_slice %arg9[%arg6, %arg8] [8, %6] [1, 1] : tensor<32x80xf32> to tensor<8x?xf32>
        %7 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<8x?xf32>) -> tensor<8x?xf32>
        %8 = linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 8, 32, 0>, workgroup = array<i64: 32, 0, 0>}} ins(%extracted_slice_1, %extracted_slice_2 : tensor<8x96xf32>, tensor<96x?xf32>) outs(%7 : tensor<8x?xf32>) -> tensor<8x?xf32>
        %inserted_slice = tensor.insert_slice %8 into %arg9[%arg6, %arg8] [8, %6] [1, 1] : tensor<8x?xf32> into tensor<32x80xf32>
        scf.yield %inserted_slice : tensor<32x80xf32>
      }
      scf.yield %5 : tensor<32x80xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %4 into %arg5[%arg4, 0] [32, 80] [1, 1] : tensor<32x80xf32> into tensor<64x80xf32>
    }
  }
  bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}
