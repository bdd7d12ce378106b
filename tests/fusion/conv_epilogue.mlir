// The other runs of this input: tests/pipeline/conv_epilogue.mlir.
// Convolution epilogues: per-channel batch-norm scale/shift, bias, relu and
// relu6 after NHWC and NCHW convolutions, including torch-mlir's habit of
// reading size-1 dimensions through a constant 0.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-elementwise))' \
// RUN:   | FileCheck %s --check-prefix=FUSE

// Rule: NHWC conv + batch-norm scale and shift (tensor<16> per-channel
// operands read through (d3)) + relu6 (maximumf 0, minimumf 6): the three
// single-use elementwise ops fuse into one generic that reads the conv result
// through the identity, and the conv takes its fill and that generic: one
// dispatch.
//
// FUSE-LABEL: func.func @conv_nhwc_bn_relu6(
// FUSE:         linalg.fill
// FUSE-NEXT:    linalg.conv_2d_nhwc_hwcf
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// FUSE-SAME:      ins(%{{[a-z0-9_]+}}, %arg2, %arg3 : tensor<1x14x14x16xf32>, tensor<16xf32>, tensor<16xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.mulf
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      arith.maximumf
// FUSE-NEXT:      arith.minimumf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<1x14x14x16xf32>
// FUSE-NEXT:    return
//
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_nhwc_bn_relu6(%x: tensor<1x16x16x8xf32>, %w: tensor<3x3x8x16xf32>, %scale: tensor<16xf32>, %shift: tensor<16xf32>) -> tensor<1x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<1x14x14x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %scale : tensor<1x14x14x16xf32>, tensor<16xf32>) outs(%e : tensor<1x14x14x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x14x14x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %shift : tensor<1x14x14x16xf32>, tensor<16xf32>) outs(%e : tensor<1x14x14x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x14x14x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<1x14x14x16xf32>) outs(%e : tensor<1x14x14x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.maximumf %a, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x14x14x16xf32>
  return %y : tensor<1x14x14x16xf32>
}

// -----

// Rule: NCHW conv + a 1x16x1x1 bias read through (0, d1, 0, 0) + relu: one
// dispatch. The bias read stays a broadcast over H and W, but its leading 0
// sits on a size-1 loop and becomes d0 ((d0, d1, 0, 0)); the conv result is
// read through the identity.
//
// FUSE-LABEL: func.func @conv_nchw_bias_relu(
// FUSE:         linalg.conv_2d_nchw_fchw
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      arith.maximumf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<1x16x14x14xf32>
// FUSE-NEXT:    return
//
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
func.func @conv_nchw_bias_relu(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %b = linalg.generic {indexing_maps = [#id, #ch4, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %r = arith.addf %a, %bb : f32
    linalg.yield %r : f32
  } -> tensor<1x16x14x14xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<1x16x14x14xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x14x14xf32>
  return %y : tensor<1x16x14x14xf32>
}

// -----

// Rule: torch-mlir style unit-dim reads. The bias add reads the conv result,
// and the relu reads the bias add, through (0, d1, d2, d3) on 1x16x14x14
// tensors: the same element as the identity, since d0 has extent 1.
// NormalizeUnitDimReads rewrites the 0 to d0, so the relu fuses into the bias
// add and the conv's dispatch takes the fused generic: one dispatch, no
// constant-0 read left.
//
// FUSE-LABEL: func.func @conv_nchw_torch_unit_reads(
// FUSE:         linalg.conv_2d_nchw_fchw
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      arith.maximumf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<1x16x14x14xf32>
// FUSE-NEXT:    return
//
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#unit0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv_nchw_torch_unit_reads(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %b = linalg.generic {indexing_maps = [#unit0, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x16x14x14xf32>, tensor<16xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %r = arith.addf %a, %bb : f32
    linalg.yield %r : f32
  } -> tensor<1x16x14x14xf32>
  %y = linalg.generic {indexing_maps = [#unit0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<1x16x14x14xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x14x14xf32>
  return %y : tensor<1x16x14x14xf32>
}

// -----

// Rule (negative): a constant 0 on a size-1 tensor dimension whose loop is
// NOT size 1 (the batch of 1 broadcast to 4) is a real broadcast. It is kept,
// and the broadcasting consumer does not join the conv's dispatch: two
// dispatches, the second reading the conv result.
//
// FUSE-LABEL: func.func @conv_nchw_batch_broadcast(
// FUSE:         linalg.conv_2d_nchw_fchw
// FUSE-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
//
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#unit0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
func.func @conv_nchw_batch_broadcast(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<4x16x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x14x14xf32>
  %e4 = tensor.empty() : tensor<4x16x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %y = linalg.generic {indexing_maps = [#unit0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x16x14x14xf32>) outs(%e4 : tensor<4x16x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16x14x14xf32>
  return %y : tensor<4x16x14x14xf32>
}
