// jitrun-codegen-vectorize alone, on a matmul tiled to 8x32 register tiles
// with its edge tile peeled and K tiled by 1: the full tiles' slices
// canonicalize to static shapes and every linalg op becomes vector code, the
// matmul steps vector.contract of 8x1 by 1x32 (16 columns at the edge), the
// fill a constant vector write. No masks: the edge tile is static too.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not=vector.mask

// CHECK-LABEL: func.func private @peel
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:         vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c96 step %c1
// CHECK:           vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:       vector.transfer_write %{{.*}} : vector<8x16xf32>, tensor<8x16xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c96 step %c1
// CHECK:         vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
#map = affine_map<() -> (32)>
#map1 = affine_map<(d0) -> (-d0 + 80)>
#map2 = affine_map<(d0) -> (-d0 + 79)>
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
      %c64 = arith.constant 64 : index
      %5 = scf.for %arg8 = %c0 to %c64 step %c32 iter_args(%arg9 = %arg7) -> (tensor<32x80xf32>) {
        %7 = affine.apply #map()
        %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg6, 0] [8, 96] [1, 1] : tensor<32x96xf32> to tensor<8x96xf32>
        %extracted_slice_2 = tensor.extract_slice %1[0, %arg8] [96, %7] [1, 1] : tensor<96x80xf32> to tensor<96x?xf32>
        %extracted_slice_3 = tensor.extract_slice %arg9[%arg6, %arg8] [8, %7] [1, 1] : tensor<32x80xf32> to tensor<8x?xf32>
        %8 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<8x?xf32>) -> tensor<8x?xf32>
        %c1 = arith.constant 1 : index
        %c1_4 = arith.constant 1 : index
        %dim = tensor.dim %8, %c1_4 : tensor<8x?xf32>
        %c0_5 = arith.constant 0 : index
        %c96 = arith.constant 96 : index
        %c1_6 = arith.constant 1 : index
        %9 = scf.for %arg10 = %c0_5 to %c96 step %c1_6 iter_args(%arg11 = %8) -> (tensor<8x?xf32>) {
          %extracted_slice_7 = tensor.extract_slice %extracted_slice_1[0, %arg10] [8, 1] [1, 1] : tensor<8x96xf32> to tensor<8x1xf32>
          %extracted_slice_8 = tensor.extract_slice %extracted_slice_2[%arg10, 0] [1, 32] [1, 1] : tensor<96x?xf32> to tensor<1x32xf32>
          %extracted_slice_9 = tensor.extract_slice %arg11[0, 0] [8, 32] [1, 1] : tensor<8x?xf32> to tensor<8x32xf32>
          %10 = linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 8, 32, 0>, workgroup = array<i64: 32, 0, 0>}} ins(%extracted_slice_7, %extracted_slice_8 : tensor<8x1xf32>, tensor<1x32xf32>) outs(%extracted_slice_9 : tensor<8x32xf32>) -> tensor<8x32xf32>
          %inserted_slice_10 = tensor.insert_slice %10 into %arg11[0, 0] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<8x?xf32>
          scf.yield %inserted_slice_10 : tensor<8x?xf32>
        }
        %inserted_slice = tensor.insert_slice %9 into %arg9[%arg6, %arg8] [8, %7] [1, 1] : tensor<8x?xf32> into tensor<32x80xf32>
        scf.yield %inserted_slice : tensor<32x80xf32>
      }
      %6 = scf.for %arg8 = %c64 to %c80 step %c32 iter_args(%arg9 = %5) -> (tensor<32x80xf32>) {
        %7 = affine.apply #map1(%arg8)
        %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg6, 0] [8, 96] [1, 1] : tensor<32x96xf32> to tensor<8x96xf32>
        %extracted_slice_2 = tensor.extract_slice %1[0, %arg8] [96, %7] [1, 1] : tensor<96x80xf32> to tensor<96x?xf32>
        %extracted_slice_3 = tensor.extract_slice %arg9[%arg6, %arg8] [8, %7] [1, 1] : tensor<32x80xf32> to tensor<8x?xf32>
        %8 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<8x?xf32>) -> tensor<8x?xf32>
        %c1 = arith.constant 1 : index
        %c1_4 = arith.constant 1 : index
        %dim = tensor.dim %8, %c1_4 : tensor<8x?xf32>
        %9 = affine.apply #map1(%arg8)
        %c0_5 = arith.constant 0 : index
        %c96 = arith.constant 96 : index
        %c1_6 = arith.constant 1 : index
        %10 = scf.for %arg10 = %c0_5 to %c96 step %c1_6 iter_args(%arg11 = %8) -> (tensor<8x?xf32>) {
          %11 = affine.apply #map2(%arg8)
          %12 = affine.apply #map2(%arg8)
          %13 = affine.apply #map1(%arg8)
          %14 = affine.apply #map2(%arg8)
          %15 = affine.apply #map1(%arg8)
          %extracted_slice_7 = tensor.extract_slice %extracted_slice_1[0, %arg10] [8, 1] [1, 1] : tensor<8x96xf32> to tensor<8x1xf32>
          %extracted_slice_8 = tensor.extract_slice %extracted_slice_2[%arg10, 0] [1, %13] [1, 1] : tensor<96x?xf32> to tensor<1x?xf32>
          %extracted_slice_9 = tensor.extract_slice %arg11[0, 0] [8, %15] [1, 1] : tensor<8x?xf32> to tensor<8x?xf32>
          %16 = linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 8, 32, 0>, workgroup = array<i64: 32, 0, 0>}} ins(%extracted_slice_7, %extracted_slice_8 : tensor<8x1xf32>, tensor<1x?xf32>) outs(%extracted_slice_9 : tensor<8x?xf32>) -> tensor<8x?xf32>
          %17 = affine.apply #map2(%arg8)
          %18 = affine.apply #map2(%arg8)
          %19 = affine.apply #map1(%arg8)
          %inserted_slice_10 = tensor.insert_slice %16 into %arg11[0, 0] [8, %19] [1, 1] : tensor<8x?xf32> into tensor<8x?xf32>
          scf.yield %inserted_slice_10 : tensor<8x?xf32>
        }
        %inserted_slice = tensor.insert_slice %10 into %arg9[%arg6, %arg8] [8, %7] [1, 1] : tensor<8x?xf32> into tensor<32x80xf32>
        scf.yield %inserted_slice : tensor<32x80xf32>
      }
      scf.yield %6 : tensor<32x80xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %4 into %arg5[%arg4, 0] [32, 80] [1, 1] : tensor<32x80xf32> into tensor<64x80xf32>
    }
  }
  bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}
