// Dispatch formation with mode=none: one dispatch per linalg op, fills
// excepted (they stay in the host function, which runs them as memsets, and
// their result is passed in). No root takes a fill or a consumer.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=none})' \
// RUN:   | FileCheck %s
// RUN: not %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{mode=bogus})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// Rule: matmul, bias generic, named linalg.add, relu generic and the row-sum
// reduction are five dispatches, each holding exactly its one op (the named
// add is not generalized: elementwise fusion does not run in this mode); the
// two fills stay in the host.
//
// CHECK-LABEL: func.func private @main_dispatch_0(
// CHECK-SAME:      %arg0: tensor<4x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT:       linalg.fill
// CHECK:           linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%arg2 : tensor<4x16xf32>)
// CHECK-NEXT:      return
// CHECK-LABEL: func.func private @main_dispatch_1(
// CHECK-NOT:       linalg.fill
// CHECK:           linalg.generic {{.*}}["parallel", "parallel"]
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      } -> tensor<4x16xf32>
// CHECK-NEXT:      return
// CHECK-LABEL: func.func private @main_dispatch_2(
// CHECK:           linalg.add
// CHECK-NEXT:      return
// CHECK-LABEL: func.func private @main_dispatch_3(
// CHECK:           linalg.generic {{.*}}["parallel", "parallel"]
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.maximumf
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      } -> tensor<4x16xf32>
// CHECK-NEXT:      return
// CHECK-LABEL: func.func private @main_dispatch_4(
// CHECK-SAME:      %{{[a-z0-9_]+}}: tensor<4x16xf32>, %{{[a-z0-9_]+}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:       linalg.fill
// CHECK:           linalg.generic {{.*}}["parallel", "reduction"]
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      } -> tensor<4xf32>
// CHECK-NEXT:      return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @main(
// CHECK:           %[[F0:.+]] = linalg.fill
// CHECK-NEXT:      %[[M:.+]] = call @main_dispatch_0(%arg0, %arg1, %[[F0]])
// CHECK-NEXT:      %[[B:.+]] = call @main_dispatch_1(%[[M]], %arg2)
// CHECK-NEXT:      %[[R:.+]] = call @main_dispatch_2(%[[B]], %arg0)
// CHECK-NEXT:      %[[Y:.+]] = call @main_dispatch_3(%[[R]])
// CHECK:           %[[F1:.+]] = linalg.fill
// CHECK-NEXT:      %[[S:.+]] = call @main_dispatch_4(%[[Y]], %[[F1]])
// CHECK-NEXT:      return %[[Y]], %[[S]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %r = linalg.add ins(%a, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x16xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y, %sum : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// Rule: an unknown mode is an error, not a silent fallback to default.
// BAD: error: unknown fusion mode 'bogus'; expected default, aggressive or none
func.func @any(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
