// jitrun-codegen-prepare-contractions alone.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-prepare-contractions))' | FileCheck %s
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-prepare-contractions{vnni=true}))' \
// RUN:   | FileCheck %s --check-prefix=VNNI

// A projection split into two heads: the reshape after the bias add is
// propagated into the matmul, generalized to (m, head, n, k) over the weights
// viewed as 64x2x32, and the function is marked for tile and vectorize.
// CHECK-LABEL: func.func private @heads_dispatch
// CHECK-SAME:    attributes {jitrun.dispatch, jitrun.expanded_reshapes}
// CHECK:       %[[W:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 2, 32] : tensor<64x64xf32> into tensor<64x2x32xf32>
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[W]] : tensor<16x64xf32>, tensor<64x2x32xf32>)
// CHECK-NOT:   linalg.matmul
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @heads_dispatch(%arg0: memref<16x64xf32> {llvm.noalias}, %arg1: memref<64x64xf32> {llvm.noalias}, %arg2: memref<64xf32> {llvm.noalias}, %arg3: memref<2x16x32xf32> {llvm.noalias}, %arg4: index) attributes {jitrun.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<16x64xf32> to tensor<16x64xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<64x64xf32> to tensor<64x64xf32>
  %2 = bufferization.to_tensor %arg2 restrict : memref<64xf32> to tensor<64xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %3 = tensor.empty() : tensor<16x64xf32>
  %4 = tensor.empty() : tensor<2x16x32xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%3 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %6 = linalg.matmul ins(%0, %1 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%5 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %2 : tensor<16x64xf32>, tensor<64xf32>) outs(%3 : tensor<16x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %10 = arith.addf %in, %in_0 : f32
    linalg.yield %10 : f32
  } -> tensor<16x64xf32>
  %expanded = tensor.expand_shape %7 [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %8 = bufferization.to_tensor %arg3 restrict writable : memref<2x16x32xf32> to tensor<2x16x32xf32>
  %9 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<16x2x32xf32>) outs(%8 : tensor<2x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x32xf32>
  bufferization.materialize_in_destination %9 in restrict writable %arg3 : (tensor<2x16x32xf32>, memref<2x16x32xf32>) -> ()
  return
}

// -----

// An i8 x i8 -> i32 matmul: untouched without VNNI; with it, the right
// operand's sign bits are flipped (fused into the reduction loop), the init
// starts at minus 128 times the left operand's row sums (kept at the
// workgroup level), and the contraction multiplies signed by unsigned.
// CHECK-LABEL: func.func private @matmul_i8_dispatch
// CHECK-SAME:    attributes {jitrun.dispatch} {
// CHECK:       linalg.matmul
// VNNI-LABEL:  func.func private @matmul_i8_dispatch
// VNNI-SAME:     attributes {jitrun.dispatch, jitrun.vnni_shifted}
// VNNI:        linalg.generic {{.*}} attrs =  {jitrun.fuse_into_reduction}
// VNNI:          arith.xori %{{.*}}, %c-128_i8 : i8
// VNNI:        linalg.generic {{.*}} attrs =  {jitrun.workgroup_level}
// VNNI:        linalg.generic {{.*}} attrs =  {jitrun.workgroup_level}
// VNNI:          arith.shli %{{.*}}, %c7_i32 : i32
// VNNI:          arith.subi
// VNNI:        linalg.generic
// VNNI:          arith.extsi %{{.*}} : i8 to i32
// VNNI:          arith.extui %{{.*}} : i8 to i32
// VNNI-NOT:    linalg.matmul

func.func private @matmul_i8_dispatch(%arg0: memref<64x128xi8> {llvm.noalias}, %arg1: memref<128x96xi8> {llvm.noalias}, %arg2: memref<64x96xi32> {llvm.noalias}, %arg3: index) attributes {jitrun.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<64x128xi8> to tensor<64x128xi8>
  %1 = bufferization.to_tensor %arg1 restrict : memref<128x96xi8> to tensor<128x96xi8>
  %c0_i32 = arith.constant 0 : i32
  %2 = tensor.empty() : tensor<64x96xi32>
  %3 = bufferization.to_tensor %arg2 restrict writable : memref<64x96xi32> to tensor<64x96xi32>
  %4 = linalg.fill ins(%c0_i32 : i32) outs(%3 : tensor<64x96xi32>) -> tensor<64x96xi32>
  %5 = linalg.matmul ins(%0, %1 : tensor<64x128xi8>, tensor<128x96xi8>) outs(%4 : tensor<64x96xi32>) -> tensor<64x96xi32>
  bufferization.materialize_in_destination %5 in restrict writable %arg2 : (tensor<64x96xi32>, memref<64x96xi32>) -> ()
  return
}
