// RUN: %jit-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jitrun-fusion-convolution-layouts))' | FileCheck %s

// FHWC (TOSA's OHWI weights): the filter is transposed to HWCF.
// CHECK-LABEL: func.func @fhwc(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x8x4xf32>, %[[W:[^:]+]]: tensor<16x3x3x4xf32>
// CHECK:         %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<16x3x3x4xf32>) outs(%{{.*}} : tensor<3x3x4x16xf32>) permutation = [1, 2, 3, 0]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}}ins(%[[X]], %[[WT]] : tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>)
// CHECK-NOT:     linalg.conv_2d_nhwc_fhwc
func.func @fhwc(%x: tensor<1x8x8x4xf32>, %w: tensor<16x3x3x4xf32>, %init: tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x8x4xf32>, tensor<16x3x3x4xf32>) outs(%init : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %r : tensor<1x6x6x16xf32>
}

// -----

// The quantized form too, zero points kept.
// CHECK-LABEL: func.func @fhwc_q(
// CHECK:         linalg.transpose {{.*}}permutation = [1, 2, 3, 0]
// CHECK:         linalg.conv_2d_nhwc_hwcf_q {{.*}}ins(%{{.*}}, %{{.*}}, %[[ZX:.*]], %[[ZW:.*]] : tensor<1x8x8x4xi8>, tensor<3x3x4x16xi8>, i32, i32)
func.func @fhwc_q(%x: tensor<1x8x8x4xi8>, %w: tensor<16x3x3x4xi8>, %zx: i32, %zw: i32, %init: tensor<1x6x6x16xi32>) -> tensor<1x6x6x16xi32> {
  %r = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w, %zx, %zw : tensor<1x8x8x4xi8>, tensor<16x3x3x4xi8>, i32, i32) outs(%init : tensor<1x6x6x16xi32>) -> tensor<1x6x6x16xi32>
  return %r : tensor<1x6x6x16xi32>
}

// -----

// HWCM depthwise with multiplier 1: HWC depthwise between reshapes.
// CHECK-LABEL: func.func @hwcm(
// CHECK:         tensor.collapse_shape {{.*}} : tensor<3x3x8x1xf32> into tensor<3x3x8xf32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}}strides = dense<2>
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x4x4x8x1xf32>
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwcm
func.func @hwcm(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x8x1xf32>, %init: tensor<1x4x4x8x1xf32>) -> tensor<1x4x4x8x1xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x1xf32>) outs(%init : tensor<1x4x4x8x1xf32>) -> tensor<1x4x4x8x1xf32>
  return %r : tensor<1x4x4x8x1xf32>
}

// -----

// The quantized depthwise form too.
// CHECK-LABEL: func.func @hwcm_q(
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc_q
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwcm_q
func.func @hwcm_q(%x: tensor<1x9x9x8xi8>, %w: tensor<3x3x8x1xi8>, %zx: i32, %zw: i32, %init: tensor<1x7x7x8x1xi32>) -> tensor<1x7x7x8x1xi32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w, %zx, %zw : tensor<1x9x9x8xi8>, tensor<3x3x8x1xi8>, i32, i32) outs(%init : tensor<1x7x7x8x1xi32>) -> tensor<1x7x7x8x1xi32>
  return %r : tensor<1x7x7x8x1xi32>
}

// -----

// A channel multiplier of 2 has no HWC form: left as it is.
// CHECK-LABEL: func.func @hwcm_multiplier_2(
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwcm
func.func @hwcm_multiplier_2(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x8x2xf32>, %init: tensor<1x7x7x8x2xf32>) -> tensor<1x7x7x8x2xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x2xf32>) outs(%init : tensor<1x7x7x8x2xf32>) -> tensor<1x7x7x8x2xf32>
  return %r : tensor<1x7x7x8x2xf32>
}

// -----

// A quantized FHWC convolution with constant weights and zero points (the
// weights' 0): the plain convolution plus -zx * sum(w) per output channel,
// computed here: zx = -128, filter 0 sums to 1+2+3+4 = 10 and filter 1 to
// -1-1-1-1 = -4, so the correction is [1280, -512].
// CHECK-LABEL: func.func @fhwc_q_constant(
// CHECK-DAG:     %[[CORR:.+]] = arith.constant dense<[1280, -512]> : tensor<2xi32>
// CHECK:         %[[CONV:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}}ins(%{{.*}}, %{{.*}} : tensor<1x3x3x2xi8>, tensor<2x2x2x2xi8>)
// CHECK:         %[[R:.+]] = linalg.generic {{.*}}ins(%[[CONV]], %[[CORR]] : tensor<1x2x2x2xi32>, tensor<2xi32>)
// CHECK:           arith.addi
// CHECK:         return %[[R]]
// CHECK-NOT:     _q
func.func @fhwc_q_constant(%x: tensor<1x3x3x2xi8>, %init: tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32> {
  %w = arith.constant dense<[[[[1, 0], [2, 0]], [[3, 0], [4, 0]]], [[[-1, 0], [-1, 0]], [[-1, 0], [-1, 0]]]]> : tensor<2x2x2x2xi8>
  %zx = arith.constant -128 : i32
  %zw = arith.constant 0 : i32
  %r = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w, %zx, %zw : tensor<1x3x3x2xi8>, tensor<2x2x2x2xi8>, i32, i32) outs(%init : tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32>
  return %r : tensor<1x2x2x2xi32>
}

// -----

// A nonzero weight zero point needs a window sum of the input: left quantized.
// CHECK-LABEL: func.func @fhwc_q_weight_zero_point(
// CHECK:         linalg.conv_2d_nhwc_hwcf_q
func.func @fhwc_q_weight_zero_point(%x: tensor<1x3x3x2xi8>, %init: tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32> {
  %w = arith.constant dense<1> : tensor<2x2x2x2xi8>
  %zx = arith.constant -128 : i32
  %zw = arith.constant 3 : i32
  %r = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w, %zx, %zw : tensor<1x3x3x2xi8>, tensor<2x2x2x2xi8>, i32, i32) outs(%init : tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32>
  return %r : tensor<1x2x2x2xi32>
}
