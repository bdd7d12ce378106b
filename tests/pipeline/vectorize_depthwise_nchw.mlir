// Proves that jitrun-codegen-tile-and-vectorize vectorizes an NCHW depthwise
// convolution with stride 2 (linalg.depthwise_conv_2d_nchw_chw, which has no
// 1-D convolution vectorizer): every filter tap is tiled to 1, the unit-window
// convolution is rewritten to a generic over a stride-2 slice of the input
// (unitWindowConvToGeneric), and that generic is vectorized: one arith.mulf
// and one vector.multi_reduction <add> per tap on a row of output pixels, with
// the lanes on the output width. Nothing is left as a linalg op or as a scalar
// tensor.extract.
//
// Lanes: the output width carries them, capped at the extent. 1x32x17x17 with
// a 3x3 filter and stride 2 has an 8-wide output, so its vectors have 8 lanes
// (half an AVX-512 register); 1x32x33x33 has a 16-wide output and gets the
// full 16 lanes.
//
// This checks the vector IR of tile-and-vectorize only. What the LLVM
// lowering makes of these vectors is checked by
// depthwise_nchw_llvm_vectors.mlir (an expected failure for now: the arithmetic comes out
// one lane at a time).
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not='{{tensor\.extract[^_]}}'

// CHECK-LABEL: func.func private @depthwise_s2_out8(
// CHECK-SAME:      memref<1x32x17x17xf32>{{[^,]*}}, %{{[a-z0-9]+}}: memref<32x3x3xf32>{{[^,]*}}, %{{[a-z0-9]+}}: memref<1x32x8x8xf32>{{[^,]*}}, %{{[a-z0-9]+}}: index)
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x8xf32>
// Output rows and channels, one row of 8 pixels at a time.
// CHECK:         scf.for %{{[a-z0-9]+}} = %c0 to %c8 step %c1
// CHECK:           scf.for %[[C:[a-z0-9]+]] = %c0 to %c32 step %c1
// The fill: one vector store of zeros.
// CHECK:             vector.transfer_write %[[ZERO]], %{{.*}} : vector<1x1x1x8xf32>, tensor<1x1x1x8xf32>
// The 3 x 3 taps.
// CHECK:             scf.for %[[KH:[a-z0-9]+]] = %c0 to %c3 step %c1
// CHECK:               scf.for %[[KW:[a-z0-9]+]] = %c0 to %c3 step %c1
// This tap's input pixels, every second one.
// CHECK:                 %[[ROW:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 2, 2] : tensor<1x1x1x15xf32> to tensor<1x1x1x8xf32>
// CHECK:                 %[[X:.*]] = vector.transfer_read %[[ROW]][{{.*}} : tensor<1x1x1x8xf32>, vector<1x1x8x1x1x1xf32>
// CHECK:                 %[[W:.*]] = vector.transfer_read %{{.*}}[%[[C]], %[[KH]], %[[KW]]], {{.*}} : tensor<32x3x3xf32>, vector<1x1x8x1x1x1xf32>
// CHECK:                 %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<1x1x1x8xf32>, vector<1x1x8x1xf32>
// CHECK:                 %[[P:.*]] = arith.mulf %[[X]], %[[W]] : vector<1x1x8x1x1x1xf32>
// CHECK:                 %[[S:.*]] = vector.multi_reduction <add>, %[[P]], %[[ACC]] [4, 5] : vector<1x1x8x1x1x1xf32> to vector<1x1x8x1xf32>
// CHECK:                 vector.transfer_write %[[S]], %{{.*}} : vector<1x1x8x1xf32>, tensor<1x1x1x8xf32>
// CHECK:         bufferization.materialize_in_destination
// CHECK:         return

func.func private @depthwise_s2_out8(%x: tensor<1x32x17x17xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x8x8xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x32x17x17xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %c : tensor<1x32x8x8xf32>
}

// -----

// CHECK-LABEL: func.func private @depthwise_s2_out16(
// CHECK-SAME:      memref<1x32x33x33xf32>{{[^,]*}}, %{{[a-z0-9]+}}: memref<32x3x3xf32>{{[^,]*}}, %{{[a-z0-9]+}}: memref<1x32x16x16xf32>{{[^,]*}}, %{{[a-z0-9]+}}: index)
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x16xf32>
// Large enough for workgroups: one output row x 16 channels each.
// CHECK:         scf.forall (%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) = (0, 0) to (16, 32) step (1, 16)
// CHECK:           scf.for %{{[a-z0-9]+}} = %c0 to %c16 step %c1
// CHECK:             vector.transfer_write %[[ZERO]], %{{.*}} : vector<1x1x1x16xf32>, tensor<1x1x1x16xf32>
// CHECK:             scf.for %{{[a-z0-9]+}} = %c0 to %c3 step %c1
// CHECK:               scf.for %{{[a-z0-9]+}} = %c0 to %c3 step %c1
// CHECK:                 %[[ROW:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 1, 16] [1, 1, 2, 2] : tensor<1x1x1x31xf32> to tensor<1x1x1x16xf32>
// CHECK:                 %[[X:.*]] = vector.transfer_read %[[ROW]][{{.*}} : tensor<1x1x1x16xf32>, vector<1x1x16x1x1x1xf32>
// CHECK:                 %[[W:.*]] = vector.transfer_read {{.*}} : tensor<32x3x3xf32>, vector<1x1x16x1x1x1xf32>
// CHECK:                 %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<1x1x1x16xf32>, vector<1x1x16x1xf32>
// CHECK:                 %[[P:.*]] = arith.mulf %[[X]], %[[W]] : vector<1x1x16x1x1x1xf32>
// CHECK:                 %[[S:.*]] = vector.multi_reduction <add>, %[[P]], %[[ACC]] [4, 5] : vector<1x1x16x1x1x1xf32> to vector<1x1x16x1xf32>
// CHECK:                 vector.transfer_write %[[S]], %{{.*}} : vector<1x1x16x1xf32>, tensor<1x1x1x16xf32>
// CHECK:           scf.forall.in_parallel
// CHECK:         bufferization.materialize_in_destination
// CHECK:         return

func.func private @depthwise_s2_out16(%x: tensor<1x32x33x33xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x16x16xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x32x33x33xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %c : tensor<1x32x16x16xf32>
}
