// The other runs of this input: tests/cli/conv_nchw_to_nhwc.mlir, tests/fusion/conv_nchw_to_nhwc.mlir.
// NCHW convolutions (torch-mlir's layout) are computed in NHWC
// (jitrun-fusion-convolution-layouts, ConvNchwToNhwc): the image is
// transposed to NHWC (its constant pad moved after the transpose), the
// filter to HWCF, and the result back to NCHW through a transpose marked
// jitrun.back_to_nchw. That transpose sinks below the elementwise ops that
// read it (bias, relu, a residual add), which then run in NHWC, until it
// meets the next convolution's transpose to NHWC and both fold away. NCHW
// pooling of a convolution's result pools in NHWC; a depthwise convolution
// becomes an NHWC one; a transpose that only moves unit dimensions (a
// one-channel image) is a reshape.
//
// Checked: the layout pass alone (prefix LAYOUT); import and fusion (DISPATCH), where a chain
// of two convolutions keeps one transpose in (its own dispatch) and one
// transpose back (joined to the last convolution's dispatch); and (VALUES) each
// function against --reference.
//
// RUN: %jit-opt %s --jitrun-import-pipeline --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISPATCH

// The bias and relu run in NHWC, the bias read along the channels.

// The filters are arguments here, so their transposes to HWCF are
// dispatches of their own (dispatch_1 and dispatch_3); constant filters are
// transposed at compile time (resource_transpose.mlir).
// DISPATCH-LABEL: func.func private @chain_dispatch_0(
// DISPATCH:         linalg.generic
// DISPATCH-NOT:     linalg.conv
// DISPATCH:         return {{.*}} : tensor<1x9x7x8xf32>
// DISPATCH-LABEL: func.func private @chain_dispatch_2(
// DISPATCH:         linalg.conv_2d_nhwc_hwcf
// DISPATCH:         linalg.generic
// DISPATCH-NOT:     linalg.generic
// DISPATCH:         return {{.*}} : tensor<1x9x7x16xf32>
// DISPATCH-LABEL: func.func private @chain_dispatch_4(
// DISPATCH:         linalg.conv_2d_nhwc_hwcf
// DISPATCH:         linalg.generic
// DISPATCH:         return {{.*}} : tensor<1x16x9x7xf32>
// DISPATCH-LABEL: func.func @chain(
// DISPATCH-COUNT-5: call @chain_dispatch_
// DISPATCH:         return
func.func @chain(%x: tensor<1x8x9x7xf32>, %w1: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x9x7xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x9x7xf32> to tensor<1x8x11x9xf32>
  %e = tensor.empty() : tensor<1x16x9x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x9x7xf32>) -> tensor<1x16x9x7xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%xp, %w1 : tensor<1x8x11x9xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x9x7xf32>) -> tensor<1x16x9x7xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b : tensor<1x16x9x7xf32>, tensor<16xf32>) outs(%e : tensor<1x16x9x7xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x16x9x7xf32>
  // torch-mlir reads the unit batch through a constant 0.
  %relu = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (0, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<1x16x9x7xf32>) outs(%e : tensor<1x16x9x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x9x7xf32>
  %rp = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x9x7xf32> to tensor<1x16x11x9xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%rp, %w2 : tensor<1x16x11x9xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<1x16x9x7xf32>) -> tensor<1x16x9x7xf32>
  return %c2 : tensor<1x16x9x7xf32>
}

// A residual add of the block's NCHW input reads it through a permuted map
// in NHWC; max pooling of the sum (its -inf pad included) pools in NHWC and
// only the pooled result goes back to NCHW.
func.func @residual_pool(%x: tensor<1x16x10x10xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x10x10xf32> to tensor<1x16x12x12xf32>
  %e = tensor.empty() : tensor<1x16x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%xp, %w : tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %x : tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>) outs(%e : tensor<1x16x10x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x16x10x10xf32>
  %sp = tensor.pad %sum low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x10x10xf32> to tensor<1x16x12x12xf32>
  %pe = tensor.empty() : tensor<1x16x5x5xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x16x5x5xf32>) -> tensor<1x16x5x5xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%sp, %win : tensor<1x16x12x12xf32>, tensor<3x3xf32>) outs(%pf : tensor<1x16x5x5xf32>) -> tensor<1x16x5x5xf32>
  return %p : tensor<1x16x5x5xf32>
}

func.func @depthwise(%x: tensor<1x24x13x11xf32>, %w: tensor<24x3x3xf32>) -> tensor<1x24x7x6xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x24x13x11xf32> to tensor<1x24x15x13xf32>
  %e = tensor.empty() : tensor<1x24x7x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x24x7x6xf32>) -> tensor<1x24x7x6xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%xp, %w : tensor<1x24x15x13xf32>, tensor<24x3x3xf32>) outs(%f : tensor<1x24x7x6xf32>) -> tensor<1x24x7x6xf32>
  return %c : tensor<1x24x7x6xf32>
}

// One channel: NCHW to NHWC moves a unit dimension only, a reshape.
func.func @one_channel(%x: tensor<1x1x12x12xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x1x12x12xf32>, tensor<8x1x3x3xf32>) outs(%f : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  return %c : tensor<1x8x10x10xf32>
}

func.func @concat_pool(%x: tensor<1x8x9x7xf32>, %w1: tensor<16x8x1x1xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<1x24x9x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x16x9x7xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x9x7xf32>) -> tensor<1x16x9x7xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w1 : tensor<1x8x9x7xf32>, tensor<16x8x1x1xf32>) outs(%f1 : tensor<1x16x9x7xf32>) -> tensor<1x16x9x7xf32>
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x9x7xf32> to tensor<1x8x11x9xf32>
  %e2 = tensor.empty() : tensor<1x8x9x7xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x9x7xf32>) -> tensor<1x8x9x7xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%xp, %w2 : tensor<1x8x11x9xf32>, tensor<8x8x3x3xf32>) outs(%f2 : tensor<1x8x9x7xf32>) -> tensor<1x8x9x7xf32>
  %cat = tensor.concat dim(1) %c1, %c2 : (tensor<1x16x9x7xf32>, tensor<1x8x9x7xf32>) -> tensor<1x24x9x7xf32>
  %cp = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x24x9x7xf32> to tensor<1x24x11x9xf32>
  %pe = tensor.empty() : tensor<1x24x9x7xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x24x9x7xf32>) -> tensor<1x24x9x7xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%cp, %win : tensor<1x24x11x9xf32>, tensor<3x3xf32>) outs(%pf : tensor<1x24x9x7xf32>) -> tensor<1x24x9x7xf32>
  return %p : tensor<1x24x9x7xf32>
}
