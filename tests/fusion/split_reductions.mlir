// jitrun-fusion-split-reductions: a whole tensor's reduction to a scalar
// (4096 elements or more) becomes two: the innermost dim split into
// [d / L, L] (L = 64 here), every loop but the lanes reduced into L partial
// results from the combiner's neutral element (-inf for a maximum, 0 for a
// sum), then the lanes reduced onto the original initial value. A
// linalg.reduce of every dim is generalized and split the same way. Not
// split: a reduction that keeps a dim (it has a parallel loop), fewer than
// 4096 elements, an innermost dim that is no multiple of 16, a body that is
// not one combiner.
// RUN: %jit-opt %s --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-split-reductions))' | FileCheck %s

// CHECK-LABEL: func.func @whole_max
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[INIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[INIT]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf32> into tensor<128x12x64xf32>
// CHECK: %[[LANES:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>], iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[X]] : tensor<128x12x64xf32>) outs(%[[LANES]] : tensor<64xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[P]] : tensor<64xf32>) outs(%[[F]] : tensor<f32>)
// CHECK:   arith.maximumf
// CHECK: return %[[R]]
func.func @whole_max(%x: tensor<128x768xf32>) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<128x768xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %b, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// An integer sum over a linalg.reduce of both dims: lanes of 16 (48 is no
// multiple of 64 or 32), from 0; the original 7 added once, at the end.
// CHECK-LABEL: func.func @whole_sum
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [100, 3, 16] : tensor<100x48xi32> into tensor<100x3x16xi32>
// CHECK: linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<16xi32>)
// CHECK: iterator_types = ["reduction", "reduction", "parallel"]
// CHECK:   arith.addi
// CHECK: iterator_types = ["reduction"]
// CHECK:   arith.addi
func.func @whole_sum(%x: tensor<100x48xi32>) -> tensor<i32> {
  %seven = arith.constant 7 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%seven : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.reduce ins(%x : tensor<100x48xi32>) outs(%f : tensor<i32>) dimensions = [0, 1]
    (%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    }
  return %r : tensor<i32>
}

// CHECK-LABEL: func.func @not_split
// CHECK-NOT: tensor.expand_shape
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
func.func @not_split(%x: tensor<128x768xf32>, %small: tensor<32x64xf32>, %odd: tensor<1024x7xf32>)
    -> (tensor<128xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<128x768xf32>) outs(%f1 : tensor<128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%small : tensor<32x64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%odd : tensor<1024x7xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // Sum of squares: no single combiner.
  %s3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<128x768xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %q = arith.mulf %a, %a : f32
    %s = arith.addf %q, %b : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %rows, %s1, %s2, %s3 : tensor<128xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}
