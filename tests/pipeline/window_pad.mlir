// The padding of a depthwise convolution or pooling joins its dispatch
// (isFusedWindowPad; codegen then reads the interior in place and pads only
// border tiles): the host keeps no fill and copy for it. A pad in front of
// a convolution with input channels, a pad with two users and any pad with
// --fusion=none stay host fills and slice copies.
//
// RUN: %jit-opt %s --split-input-file --jitrun-import-pipeline --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-decompose-host-ops{keep-window-pads=true}),jitrun-fusion-form-dispatches{mode=none},func.func(jitrun-fusion-decompose-host-ops))' \
// RUN:   | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func private @depthwise_dispatch_0(
// CHECK-SAME:      %[[X:.*]]: tensor<1x8x8x16xf32>
// CHECK:         %[[P:.*]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]],
// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     tensor.insert_slice
// CHECK:         call @depthwise_dispatch_0(%arg0, %arg1)
// NONE-LABEL: func.func private @depthwise_dispatch_0(
// NONE-NOT:      tensor.pad
// NONE:          linalg.depthwise_conv_2d_nhwc_hwc
// NONE-LABEL: func.func @depthwise(
// NONE:          linalg.fill
// NONE:          tensor.insert_slice {{.*}} into {{.*}}[0, 1, 1, 0] [1, 8, 8, 16]
// NONE:          call @depthwise_dispatch_0(
func.func @depthwise(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}

// -----

// Max pooling pads with its own identity, -inf: the pad joins too.
// CHECK-LABEL: func.func private @maxpool_dispatch_0(
// CHECK:         tensor.pad
// CHECK:           tensor.yield %cst
// CHECK:         linalg.pooling_nhwc_max
// CHECK-LABEL: func.func @maxpool(
// CHECK-NOT:     tensor.insert_slice
// CHECK:         call @maxpool_dispatch_0(%arg0)
// NONE-LABEL: func.func @maxpool(
// NONE:          linalg.fill
// NONE:          tensor.insert_slice
func.func @maxpool(%x: tensor<1x9x9x8xf32>) -> tensor<1x5x5x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x9x9x8xf32> to tensor<1x11x11x8xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x5x5x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %k : tensor<1x11x11x8xf32>, tensor<3x3xf32>) outs(%f : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  return %r : tensor<1x5x5x8xf32>
}

// -----

// A convolution with input channels: one tile's padded input would hold
// every input channel; the pad stays a host fill and copy.
// CHECK-LABEL: func.func private @conv_dispatch_0(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @conv(
// CHECK:         linalg.fill
// CHECK:         tensor.insert_slice
// CHECK:         call @conv_dispatch_0(
func.func @conv(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// One pad read by two depthwise convolutions: neither takes it (it would be
// computed twice); it stays on the host.
// CHECK-LABEL: func.func private @shared_dispatch_0(
// CHECK-NOT:     tensor.pad
// CHECK-LABEL: func.func @shared(
// CHECK:         linalg.fill
// CHECK:         tensor.insert_slice
// CHECK:         call @shared_dispatch_0(
// CHECK:         call @shared_dispatch_1(
func.func @shared(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16xf32>, %v: tensor<3x3x16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %s = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %v : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r, %s : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>
}
