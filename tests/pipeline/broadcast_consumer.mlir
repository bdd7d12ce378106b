// The other runs of this input: tests/fusion/broadcast_consumer.mlir.
// Rule (cheap-root-broadcast): a root whose result an elementwise consumer
// reads through a broadcast takes that consumer when the root has at most
// 4x as much work as the consumer has elements. The squeeze-excite gate of
// EfficientNet and MobileNetV3, x * sigmoid(conv1x1(se)) over H x W x C, is
// then one dispatch with its 1x1 convolution on the pooled vector: codegen
// splits the gate along C (the dims it shares with the convolution) and runs
// the convolution once per workgroup, whole. A root with more work (a matmul
// with reuse) keeps its own dispatch and its own tiling.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s

// The gate: 16 x 32 conv multiply-adds, 8 x 8 x 32 gate elements.
//
// CHECK-LABEL: func.func private @se_gate_dispatch_0(
// CHECK-SAME:      -> tensor<1x8x8x32xf32>
// CHECK:           linalg.conv_2d_nhwc_hwcf
// CHECK:           linalg.generic
// CHECK:             math.exp
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:             arith.mulf
// CHECK:           return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @se_gate(
// CHECK:           call @se_gate_dispatch_0(
// CHECK-NOT:       call
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
func.func @se_gate(%x: tensor<1x8x8x32xf32>, %se: tensor<1x1x1x16xf32>, %w: tensor<1x1x16x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<1x1x1x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x1x1x32xf32>) -> tensor<1x1x1x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%se, %w : tensor<1x1x1x16xf32>, tensor<1x1x16x32xf32>) outs(%f : tensor<1x1x1x32xf32>) -> tensor<1x1x1x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x1x1x32xf32>) outs(%e1 : tensor<1x1x1x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x32xf32>
  %e2 = tensor.empty() : tensor<1x8x8x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) outs(%e2 : tensor<1x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x32xf32>
  return %g : tensor<1x8x8x32xf32>
}

// -----

// A matmul (16 x 64 x 256 multiply-adds) broadcast over 4: its consumer has
// 16 x 64 x 4 elements, a sixteenth of the matmul's work. Two dispatches: the
// matmul keeps its register-blocked tiling.
//
// CHECK-LABEL: func.func private @matmul_broadcast_dispatch_0(
// CHECK:           linalg.matmul
// CHECK-NEXT:      return
// CHECK-LABEL: func.func private @matmul_broadcast_dispatch_1(
// CHECK:           linalg.generic
// CHECK:             arith.mulf
// CHECK-LABEL: func.func @matmul_broadcast(
// CHECK:           call @matmul_broadcast_dispatch_0(
// CHECK:           call @matmul_broadcast_dispatch_1(
// The gate's dispatch leaves nothing to explain; the matmul's does.
func.func @matmul_broadcast(%a: tensor<16x256xf32>, %b: tensor<256x64xf32>, %y: tensor<16x64x4xf32>) -> tensor<16x64x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x256xf32>, tensor<256x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x64x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %m : tensor<16x64x4xf32>, tensor<16x64xf32>) outs(%e2 : tensor<16x64x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<16x64x4xf32>
  return %g : tensor<16x64x4xf32>
}
