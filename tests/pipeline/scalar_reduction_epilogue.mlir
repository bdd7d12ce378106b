// A reduction to a scalar whose consumer broadcasts it (x / sum(x)) maps
// no loop of the consumer, and is still an anchor computed once per
// workgroup (selectTileSizes): the sum's loop comes first, the divide's
// loop after it reads the one scalar; no reduction inside the divide loop.
//
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg.

// CHECK-LABEL: func.func private @main_dispatch_0(
// CHECK:         scf.for %{{.+}} = %c0 to %c1000 step %c32
// CHECK:           vector.multi_reduction <add>
// CHECK:         scf.for %{{.+}} = %c0 to %c992 step %c32
// CHECK-NOT:       vector.multi_reduction
// CHECK:           arith.divf {{.*}} : vector<32xf32>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
module {
  func.func private @main_dispatch_0(%arg0: tensor<1000xf32>) -> tensor<1000xf32> attributes {jitrun.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<f32>
    %1 = tensor.empty() : tensor<1000xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%0 : tensor<f32>) -> tensor<f32>
    %reduced = linalg.reduce ins(%arg0 : tensor<1000xf32>) outs(%2 : tensor<f32>) dimensions = [0] 
      (%in: f32, %init: f32) {
        %4 = arith.addf %in, %init : f32
        linalg.yield %4 : f32
      }
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%arg0, %reduced : tensor<1000xf32>, tensor<f32>) outs(%1 : tensor<1000xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.divf %in, %in_0 : f32
      linalg.yield %4 : f32
    } -> tensor<1000xf32>
    return %3 : tensor<1000xf32>
  }

}

