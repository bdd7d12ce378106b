// Proves the broadcast epilogue of a cheap root (Strategy.cpp,
// Tile.cpp): the squeeze-excite gate x * sigmoid(conv1x1(se))
// of one dispatch (fusion's cheap-root-broadcast rule) splits into
// workgroups along C only, the dims the gate shares with the convolution
// (240 / 8 = 30 channels each); each workgroup runs the 10 -> 30 channel
// convolution and the sigmoid ONCE, before its loops over H and W, into a
// stack buffer of 30 floats, and the gate's loops read that buffer through
// the broadcast. No convolution or exp inside the H x W loops.
//
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg.
// RUN: %jit-opt %s --jitrun-codegen-pipeline | FileCheck %s --check-prefix=STACK

// CHECK-LABEL: func.func private @se_gate_dispatch_0(
// CHECK:         scf.forall (%[[C:.+]]) = (0) to (240) step (30)
// CHECK:           scf.for %{{.+}} = %c0 to %c10 step %c1
// CHECK:             vector.contract
// CHECK:           math.exp {{.*}} : vector<1x1x1x30xf32>
// CHECK-NOT:       math.exp
// CHECK:           scf.for %{{.+}} = %c0 to %c28 step %c1
// CHECK-NEXT:        scf.for %{{.+}} = %c0 to %c28 step %c1
// CHECK-NOT:           vector.contract
// CHECK-NOT:           math.exp
// CHECK:               arith.mulf {{.*}} : vector<1x1x1x30xf32>
// CHECK:         scf.forall.in_parallel
// STACK: jitrun.stack_bytes = 120
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
module {
  func.func private @se_gate_dispatch_0(%arg0: tensor<1x1x1x10xf32>, %arg1: tensor<1x1x10x240xf32>, %arg2: tensor<1x28x28x240xf32>) -> tensor<1x28x28x240xf32> attributes {jitrun.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x1x1x240xf32>
    %cst_0 = arith.constant 1.000000e+00 : f32
    %1 = tensor.empty() : tensor<1x28x28x240xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x1x240xf32>) -> tensor<1x1x1x240xf32>
    %3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x1x1x10xf32>, tensor<1x1x10x240xf32>) outs(%2 : tensor<1x1x1x240xf32>) -> tensor<1x1x1x240xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x1x1x240xf32>) outs(%0 : tensor<1x1x1x240xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.negf %in : f32
      %7 = math.exp %6 : f32
      %8 = arith.addf %7, %cst_0 : f32
      %9 = arith.divf %cst_0, %8 : f32
      linalg.yield %9 : f32
    } -> tensor<1x1x1x240xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2, %4 : tensor<1x28x28x240xf32>, tensor<1x1x1x240xf32>) outs(%1 : tensor<1x28x28x240xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %6 = arith.mulf %in, %in_1 : f32
      linalg.yield %6 : f32
    } -> tensor<1x28x28x240xf32>
    return %5 : tensor<1x28x28x240xf32>
  }

}

