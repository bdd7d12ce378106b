// jitrun-codegen-distribute-workgroups: the workgroup forall becomes the
// kernel's grid, ids delinearized in the forall's order except that the dim
// indexing the largest input the kernel only reads goes first. The pool
// gives each thread a contiguous part of the ids, so that dim is the one
// split between the threads.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-distribute-workgroups))' | FileCheck %s

// A convolution's filter (2 panels, 64 KB) is larger than its image rows
// (16 KB): the panel dim first, so that each thread reads its own panels.
// CHECK-LABEL: func.func @filter_first(
// CHECK-SAME:    jitrun.workgroups = 8
// CHECK:         %[[IDS:.+]]:2 = affine.delinearize_index %arg3 into (2, 4)
// CHECK-DAG:     %[[ROW:.+]] = affine.apply #{{.+}}(%[[IDS]]#1)
// CHECK-DAG:     %[[PANEL:.+]] = affine.apply #{{.+}}(%[[IDS]]#0)
// CHECK:         vector.transfer_read %arg0[%[[ROW]], %c0]
// CHECK:         vector.transfer_read %arg1[%[[PANEL]], %c0, %c0]
func.func @filter_first(%image: memref<16x256xf32>, %filter: memref<2x256x32xf32>, %out: memref<16x2x32xf32>, %wg: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%r, %p) = (0, 0) to (16, 2) step (4, 1) {
    %a = vector.transfer_read %image[%r, %c0], %pad {in_bounds = [true]} : memref<16x256xf32>, vector<16xf32>
    %w = vector.transfer_read %filter[%p, %c0, %c0], %pad {in_bounds = [true]} : memref<2x256x32xf32>, vector<32xf32>
    %s = vector.extract_strided_slice %w {offsets = [0], sizes = [16], strides = [1]} : vector<32xf32> to vector<16xf32>
    %y = arith.addf %a, %s : vector<16xf32>
    vector.transfer_write %y, %out[%r, %p, %c0] {in_bounds = [true]} : vector<16xf32>, memref<16x2x32xf32>
  }
  return
}

// -----

// Rows and groups both index the image; the groups also a filter of 192
// bytes: not a quarter more, so the rows stay first (splitting the groups,
// each thread would read half of every pixel).
// CHECK-LABEL: func.func @groups_share_the_image(
// CHECK:         affine.delinearize_index %arg3 into (16, 6)
func.func @groups_share_the_image(%image: memref<64x6x8xf32>, %filter: memref<6x8xf32>, %out: memref<64x6x8xf32>, %wg: index) {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  scf.forall (%r, %g) = (0, 0) to (64, 6) step (4, 1) {
    %a = vector.transfer_read %image[%r, %g, %c0], %pad {in_bounds = [true]} : memref<64x6x8xf32>, vector<8xf32>
    %w = vector.transfer_read %filter[%g, %c0], %pad {in_bounds = [true]} : memref<6x8xf32>, vector<8xf32>
    %y = arith.addf %a, %w : vector<8xf32>
    vector.transfer_write %y, %out[%r, %g, %c0] {in_bounds = [true]} : vector<8xf32>, memref<64x6x8xf32>
  }
  return
}

// -----

// An image larger than the filter keeps the rows first: each thread reads
// the rows the previous dispatch wrote on its core.
// CHECK-LABEL: func.func @rows_first(
// CHECK:         affine.delinearize_index %arg3 into (16, 2)
func.func @rows_first(%image: memref<64x256xf32>, %filter: memref<2x16x32xf32>, %out: memref<64x2x32xf32>, %wg: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%r, %p) = (0, 0) to (64, 2) step (4, 1) {
    %a = vector.transfer_read %image[%r, %c0], %pad {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
    %w = vector.transfer_read %filter[%p, %c0, %c0], %pad {in_bounds = [true]} : memref<2x16x32xf32>, vector<32xf32>
    %s = vector.extract_strided_slice %w {offsets = [0], sizes = [16], strides = [1]} : vector<32xf32> to vector<16xf32>
    %y = arith.addf %a, %s : vector<16xf32>
    vector.transfer_write %y, %out[%r, %p, %c0] {in_bounds = [true]} : vector<16xf32>, memref<64x2x32xf32>
  }
  return
}
