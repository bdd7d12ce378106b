// Proves the reduction tiles of convolutions with input channels
// (Strategy.cpp selectReductionTileSizes): every filter tap and every input
// channel is tiled by 1, so each step of the innermost reduction loop is
// one outer product of the vector tile (8 pixels x 32 channels in NHWC on
// AVX-512 when the channels come in 32s, 16 pixels x 8 channels in NCHW), the matmul's register kernel; except
// when the lanes run along a strided image dimension (NCHW, stride 2),
// where one tap's inputs would be a strided gather: there the last filter
// loop stays whole and the 1-D convolution vectorizer reads a contiguous
// slab of the input row.
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg.

// NCHW, stride 1: input channels, filter rows, filter columns, one at a time;
// 16 contiguous pixels of one input row against 8 output channels' taps.
// Workgroups split the output image (16 rows x 2 halves of a row), not the
// channels, which each workgroup loops over by 8.
// CHECK-LABEL: func.func private @nchw_s1_dispatch(
// CHECK:         scf.forall
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:             scf.for %[[IC:[a-z0-9]+]] = %c0 to %c8 step %c1
// CHECK:               scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:                 scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:                   vector.transfer_read %{{.*}}[%c0, %[[IC]], %{{.*}}, %{{.*}}], %{{.*}} : tensor<1x8x18x34xf32>, vector<1x1x16xf32>
// CHECK:                   vector.contract {{.*}} : vector<1x16x1xf32>, vector<1x8xf32> into vector<1x16x8xf32>
// CHECK-NOT:               vector.contract
// CHECK:           scf.forall.in_parallel
func.func private @nchw_s1_dispatch(%x: tensor<1x8x18x34xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x16x32xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x8x18x34xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %c : tensor<1x16x16x32xf32>
}

// -----

// NCHW, stride 2: only the filter rows are a loop; each step reads a slab
// of 33 input columns for 8 channels and all 3 filter columns.
// CHECK-LABEL: func.func private @nchw_s2_dispatch(
// CHECK:         scf.forall
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:             scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK-NOT:           scf.for
// CHECK:               vector.transfer_read {{.*}} : tensor<1x8x33x65xf32>, vector<1x8x33xf32>
// CHECK:               vector.transfer_read {{.*}} : tensor<16x8x3x3xf32>, vector<8x8x3xf32>
// CHECK-COUNT-48:      vector.contract
// CHECK:           scf.forall.in_parallel
func.func private @nchw_s2_dispatch(%x: tensor<1x8x33x65xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x16x32xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x8x33x65xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %c : tensor<1x16x16x32xf32>
}

// -----

// NHWC, stride 2: channels carry the lanes; filter rows, filter columns and
// input channels one at a time, each step 8 pixels (read as a window of 15
// with stride 2) by one row of all 32 output channels (two registers).
// CHECK-LABEL: func.func private @nhwc_s2_dispatch(
// CHECK:         scf.forall
// CHECK-NOT:       scf.for %{{.*}} = %c0 to %c32
// CHECK:             scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:               scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:                 scf.for %[[IC:[a-z0-9]+]] = %c0 to %c16 step %c1
// CHECK:                   vector.transfer_read %{{.*}}[%c0, %{{.*}}, %{{.*}}, %[[IC]]], %{{.*}} : tensor<1x33x33x16xf32>, vector<1x15x1xf32>
// CHECK-COUNT-8:           vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x32xf32> into vector<1x1x32xf32>
// CHECK-NOT:               vector.contract
// CHECK:           scf.forall.in_parallel
func.func private @nhwc_s2_dispatch(%x: tensor<1x33x33x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x16x16x32xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x33x33x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %c : tensor<1x16x16x32xf32>
}
