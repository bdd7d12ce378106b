// The other runs of this input: tests/cli/squeeze_excite_torch.mlir, tests/fusion/squeeze_excite_torch.mlir.
// Squeeze-excite as torch-mlir writes it (torchvision's MobileNetV3 and
// EfficientNet): the SE gate is a 1xCx1x1 tensor read through
// (0, d1, 0, 0) into the 1xCxHxW activation, and its hard-sigmoid clamps
// against 0-d tensors (a linalg.fill of a 0-d i64, sitofp to a 0-d f32, read
// through (d0, d1, d2, d3) -> ()) with arith.cmpf ugt/ult + select.
// SinkTransposeBackToNchw (jitrun-fusion-convolution-layouts) took the
// gate's transpose back to NCHW as one it reads elementwise, since its
// constant 0s index dimensions of size 1, and read the 1x1x1xC NHWC gate at
// the identity in a 1xHxWxC loop nest: "'linalg.generic' op inferred
// input/output operand #1 has shape's dimension ... to be 1, but found 8".
// A constant 0 reads elementwise only over a loop of extent 1; over a longer
// loop it is a broadcast, and the operand is read through its map composed
// with the inverse permutation.
//
// RUN: %jit-opt %s --jitrun-import-pipeline --jitrun-fusion-pipeline | FileCheck %s --check-prefix=DISPATCH

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map2 = affine_map<() -> ()>
#map3 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> ()>
#map5 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>

// conv 3x3/2 + bias -> hardswish -> SE (sum pool / 64, 1x1 conv + bias +
// relu, 1x1 conv + bias, hard-sigmoid) -> gate -> conv 3x3. Every op runs in
// NHWC; the gate multiply reads the activation at its loop indices and the
// 1xCx1x1 gate at (0, c, 0, 0) of the NHWC loops (0, d3, 0, 0); one
// transpose back, of the result, remains.
// The whole pipeline compiles it, every convolution in NHWC.
// DISPATCH-NOT:   linalg.conv_2d_nchw_fchw
// DISPATCH-LABEL: func.func @se_block(
// DISPATCH:         call @se_block_dispatch_
// DISPATCH:         return
func.func @se_block(%arg0: tensor<1x3x16x16xf32>, %w1: tensor<16x3x3x3xf32>, %b1: tensor<16xf32>,
                    %w2: tensor<4x16x1x1xf32>, %b2: tensor<4xf32>, %w3: tensor<16x4x1x1xf32>,
                    %b3: tensor<16xf32>, %w4: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c3_i64 = arith.constant 3 : i64
  %c6_i64 = arith.constant 6 : i64
  %c64_i64 = arith.constant 64 : i64
  %e64 = tensor.empty() : tensor<i64>
  %ef = tensor.empty() : tensor<f32>
  %z64 = linalg.fill ins(%c0_i64 : i64) outs(%e64 : tensor<i64>) -> tensor<i64>
  %zero = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = []} ins(%z64 : tensor<i64>) outs(%ef : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %s64 = linalg.fill ins(%c6_i64 : i64) outs(%e64 : tensor<i64>) -> tensor<i64>
  %six = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = []} ins(%s64 : tensor<i64>) outs(%ef : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %cst : f32
  } : tensor<1x3x16x16xf32> to tensor<1x3x18x18xf32>
  %ea = tensor.empty() : tensor<1x16x8x8xf32>
  %binit1 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<16xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %w1 : tensor<1x3x18x18xf32>, tensor<16x3x3x3xf32>) outs(%binit1 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  // hardswish: x * clamp(x + 3, 0, 6) / 6
  %hs1 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x16x8x8xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.sitofp %c3_i64 : i64 to f32
    %v = arith.addf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  %hs2 = linalg.generic {indexing_maps = [#map3, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hs1, %zero : tensor<1x16x8x8xf32>, tensor<f32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %in_1 : f32
    %v = arith.select %p, %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  %hs3 = linalg.generic {indexing_maps = [#map4, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%six, %hs2 : tensor<f32>, tensor<1x16x8x8xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %p = arith.cmpf ult, %in, %in_1 : f32
    %v = arith.select %p, %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  %hs4 = linalg.generic {indexing_maps = [#map3, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %hs3 : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %v = arith.mulf %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  %hs5 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hs4 : tensor<1x16x8x8xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.sitofp %c6_i64 : i64 to f32
    %v = arith.divf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  // squeeze: adaptive average pool to 1x1, a sum pool then a division
  %eg = tensor.empty() : tensor<1x16x1x1xf32>
  %fg = linalg.fill ins(%cst : f32) outs(%eg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %win = tensor.empty() : tensor<8x8xf32>
  %sum = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%hs5, %win : tensor<1x16x8x8xf32>, tensor<8x8xf32>) outs(%fg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %avg = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x16x1x1xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.sitofp %c64_i64 : i64 to f32
    %v = arith.divf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<1x16x1x1xf32>
  // excite: 1x1 conv + bias + relu, 1x1 conv + bias
  %er = tensor.empty() : tensor<1x4x1x1xf32>
  %binit2 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<4xf32>) outs(%er : tensor<1x4x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x1x1xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%avg, %w2 : tensor<1x16x1x1xf32>, tensor<4x16x1x1xf32>) outs(%binit2 : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %relu = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<1x4x1x1xf32>) outs(%er : tensor<1x4x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %cst : f32
    %v = arith.select %p, %in, %cst : f32
    linalg.yield %v : f32
  } -> tensor<1x4x1x1xf32>
  %binit3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b3 : tensor<16xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x1x1xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%relu, %w3 : tensor<1x4x1x1xf32>, tensor<16x4x1x1xf32>) outs(%binit3 : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  // hard-sigmoid: clamp(x + 3, 0, 6) / 6, against the 0-d tensors
  %hg1 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3 : tensor<1x16x1x1xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.sitofp %c3_i64 : i64 to f32
    %v = arith.addf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<1x16x1x1xf32>
  %hg2 = linalg.generic {indexing_maps = [#map5, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hg1, %zero : tensor<1x16x1x1xf32>, tensor<f32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %in_1 : f32
    %v = arith.select %p, %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x1x1xf32>
  %hg3 = linalg.generic {indexing_maps = [#map4, #map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%six, %hg2 : tensor<f32>, tensor<1x16x1x1xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %p = arith.cmpf ult, %in, %in_1 : f32
    %v = arith.select %p, %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x1x1xf32>
  %hg4 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hg3 : tensor<1x16x1x1xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.sitofp %c6_i64 : i64 to f32
    %v = arith.divf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<1x16x1x1xf32>
  // the gate
  %gated = linalg.generic {indexing_maps = [#map3, #map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%hs5, %hg4 : tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) outs(%ea : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %v = arith.mulf %in, %in_1 : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  %padded_1 = tensor.pad %gated low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %cst : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %fa = linalg.fill ins(%cst : f32) outs(%ea : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_1, %w4 : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%fa : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %c4 : tensor<1x16x8x8xf32>
}

// The reduced case: only the gate comes back from NHWC, and it is a
// broadcast, so nothing sinks; the multiply stays NCHW (the gate's unit-dim
// transpose is a reshape).
func.func @gate_only(%x: tensor<1x16x8x8xf32>, %s: tensor<1x4x1x1xf32>, %w: tensor<16x4x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %eg = tensor.empty() : tensor<1x16x1x1xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%s, %w : tensor<1x4x1x1xf32>, tensor<16x4x1x1xf32>) outs(%fg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %m = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %g : tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  return %m : tensor<1x16x8x8xf32>
}

// The broadcast gate first, a 0-d operand, and the activation (a 1x1
// convolution's result, read through torch-mlir's (0, d1, d2, d3)) last:
// the op sinks through the activation only and runs in NHWC.
func.func @gate_first(%x: tensor<1x8x8x8xf32>, %wx: tensor<16x8x1x1xf32>, %s: tensor<1x4x1x1xf32>, %w: tensor<16x4x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c1_i64 = arith.constant 1 : i64
  %e64 = tensor.empty() : tensor<i64>
  %ef = tensor.empty() : tensor<f32>
  %one64 = linalg.fill ins(%c1_i64 : i64) outs(%e64 : tensor<i64>) -> tensor<i64>
  %one = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = []} ins(%one64 : tensor<i64>) outs(%ef : tensor<f32>) {
  ^bb0(%in: i64, %out: f32):
    %v = arith.sitofp %in : i64 to f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %fx = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %wx : tensor<1x8x8x8xf32>, tensor<16x8x1x1xf32>) outs(%fx : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %eg = tensor.empty() : tensor<1x16x1x1xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%s, %w : tensor<1x4x1x1xf32>, tensor<16x4x1x1xf32>) outs(%fg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %m = linalg.generic {indexing_maps = [#map5, #map4, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g, %one, %a : tensor<1x16x1x1xf32>, tensor<f32>, tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%gv: f32, %o1: f32, %av: f32, %o: f32):
    %p = arith.addf %gv, %o1 : f32
    %v = arith.mulf %av, %p : f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  return %m : tensor<1x16x8x8xf32>
}
