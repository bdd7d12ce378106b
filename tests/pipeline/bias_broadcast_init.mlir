// The other runs of this input: tests/fusion/bias_broadcast_init.mlir.
// Rule (root-takes-its-initializer): a root takes the op that initializes
// its accumulator, a linalg.fill or, as TOSA's conv2d and fully_connected
// lower, a linalg.generic that only broadcasts a lower-rank bias into the
// result (its body yields an input). It writes each accumulator element once
// and reads only the bias, so taking it adds no work and saves a dispatch
// and a round trip of the whole output through memory. On the TOSA zoo
// models this took mobilenet_v2 (test size) from 72 to 47 dispatches for 41
// roots and deeplab_v3 from 80 to 49 for 44.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s

// A conv whose init is the broadcast bias, then a relu: one dispatch with
// the broadcast, the conv and the relu; the host only calls it. The relu's
// tensor.empty comes after the conv (as TOSA's lowering leaves it, and the
// EXPLAIN run forms dispatches without CSE first): it is cloned into the
// dispatch, so it does not stop the relu from joining.
//
// CHECK-LABEL: func.func private @conv_bias_relu_dispatch_0(
// CHECK-SAME:      attributes {jitrun.dispatch}
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:           linalg.conv_2d_nhwc_hwcf
// CHECK:           linalg.generic
// CHECK:             arith.maximumf
// CHECK:           return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-NOT:       linalg.
// CHECK:           call @conv_bias_relu_dispatch_0(
// CHECK-NOT:       linalg.
// CHECK:           return
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_bias_relu(%x: tensor<1x16x16x8xf32>, %w: tensor<3x3x8x16xf32>, %bias: tensor<16xf32>) -> tensor<1x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x16xf32>
  %b = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<16xf32>) outs(%e : tensor<1x14x14x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x14x14x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) outs(%b : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  %e2 = tensor.empty() : tensor<1x14x14x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x14x14x16xf32>) outs(%e2 : tensor<1x14x14x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x14x14x16xf32>
  return %r : tensor<1x14x14x16xf32>
}

// -----

// One bias broadcast initializing two matmuls: each takes its own copy (a
// broadcast is cheaper to recompute than to read back), so there are two
// dispatches and no third one for the broadcast.
//
// CHECK-LABEL: func.func private @shared_bias_dispatch_0(
// CHECK:           linalg.generic
// CHECK:           linalg.matmul
// CHECK:           return
// CHECK-LABEL: func.func private @shared_bias_dispatch_1(
// CHECK:           linalg.generic
// CHECK:           linalg.matmul
// CHECK:           return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @shared_bias(
// CHECK-NOT:       linalg.
// CHECK-COUNT-2:   call @shared_bias_dispatch_
// CHECK-NOT:       linalg.
// CHECK:           return
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_bias(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<16x32xf32>, %bias: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %bb = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x32xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%bb : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<8x16xf32>, tensor<16x32xf32>) outs(%bb : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m1, %m2 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Negative: a generic that computes (an add of two full-size tensors) is not
// an initializer the root takes; it stays a dispatch of its own, and the
// explanation names the rule.
//
// CHECK-LABEL: func.func private @computed_init_dispatch_0(
// CHECK:           linalg.generic
// CHECK-NOT:       linalg.matmul
// CHECK:           return
// CHECK-LABEL: func.func private @computed_init_dispatch_1(
// CHECK-NOT:       linalg.generic
// CHECK:           linalg.matmul
// CHECK:           return
#sum = affine_map<(d0, d1) -> (d0, d1)>
func.func @computed_init(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %s = linalg.generic {indexing_maps = [#sum, #sum, #sum], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%s : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// -----

// A convolution with a single output channel (a squeeze-excite reduction of
// a narrow block): TOSA broadcasts its one-element bias at index 0,
// (d0, d1, d2, d3) -> (0). That is a broadcast too, and the conv takes it:
// one dispatch.
//
// CHECK-LABEL: func.func private @one_channel_bias_dispatch_0(
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:           linalg.conv_2d_nhwc_hwcf
// CHECK:           return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @one_channel_bias(
// CHECK-NOT:       linalg.
// CHECK:           call @one_channel_bias_dispatch_0(
// CHECK-NOT:       call
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#zero = affine_map<(d0, d1, d2, d3) -> (0)>
func.func @one_channel_bias(%x: tensor<1x1x1x24xf32>, %w: tensor<1x1x24x1xf32>, %bias: tensor<1xf32>) -> tensor<1x1x1x1xf32> {
  %e = tensor.empty() : tensor<1x1x1x1xf32>
  %b = linalg.generic {indexing_maps = [#zero, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<1xf32>) outs(%e : tensor<1x1x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x1x1xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x1x24xf32>, tensor<1x1x24x1xf32>) outs(%b : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %c : tensor<1x1x1x1xf32>
}

// -----

// A zero bias, as TOSA's conv2d leaves it once the broadcast of the splat
// constant is folded: a generic that reads nothing and yields a constant.
// It is a fill (ConstantGenericToFill), so the conv takes it: one dispatch,
// and no kernel that only writes zeros.
//
// CHECK-LABEL: func.func private @zero_bias_dispatch_0(
// CHECK:           linalg.fill
// CHECK-NEXT:      linalg.conv_2d_nhwc_hwcf
// CHECK-NEXT:      return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @zero_bias(
// CHECK-NOT:       linalg.
// CHECK:           call @zero_bias_dispatch_0(
// CHECK-NOT:       call
// Dispatch formation alone (the EXPLAIN run, no elementwise phase) still
// sees a generic producer:
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @zero_bias(%x: tensor<1x10x10x1xf32>, %w: tensor<3x3x1x2xf32>) -> tensor<1x8x8x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x2xf32>
  %b = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x8x8x2xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<1x8x8x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x1xf32>, tensor<3x3x1x2xf32>) outs(%b : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  return %c : tensor<1x8x8x2xf32>
}
