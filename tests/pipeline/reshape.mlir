// A reshape between a root and its elementwise epilogue.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s

// A tensor.expand_shape of the matmul result sits between the matmul and its
// bias add. Reshape propagation (jitrun-fusion-propagate-reshapes, the
// sinking step) collapses the add to the matmul's 8x32 shape, so the add
// reads the matmul directly: ONE dispatch with fill + matmul + add, and the
// expand_shape applied on the host to the dispatch's result (no copy).
//
// CHECK-LABEL: func.func private @matmul_expand_bias_dispatch_0(
// CHECK-SAME:      -> tensor<8x32xf32>
// CHECK:           linalg.fill
// CHECK-NEXT:      linalg.matmul
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      } -> tensor<8x32xf32>
// CHECK-NEXT:      return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @matmul_expand_bias(
// CHECK:           %[[M:.+]] = call @matmul_expand_bias_dispatch_0(%arg0, %arg1, %arg2)
// CHECK-NEXT:      %[[R:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 32]
// CHECK-NOT:       call
// CHECK:           return %[[R]]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ch = affine_map<(d0, d1, d2) -> (d2)>
func.func @matmul_expand_bias(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<2x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 32] : tensor<8x32xf32> into tensor<2x4x32xf32>
  %e3 = tensor.empty() : tensor<2x4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<2x4x32xf32>, tensor<32xf32>) outs(%e3 : tensor<2x4x32xf32>) {
  ^bb0(%x: f32, %y0: f32, %o: f32):
    %s = arith.addf %x, %y0 : f32
    linalg.yield %s : f32
  } -> tensor<2x4x32xf32>
  return %y : tensor<2x4x32xf32>
}

// -----

// A keep-dims reduction (TOSA's reduce_max in a softmax): the max over the
// row reaches its consumer through a tensor.expand_shape that only inserts a
// unit dim, read at the constant index 0, (d0, d1) -> (d0, 0). Neither
// expansion nor sinking moves it (the unit dim is no loop of the consumer);
// the sinking step folds it into the consumer's indexing map instead,
// (d0, d1) -> (d0) on the reduction's own result, so the row reduction takes
// its broadcast consumer: ONE dispatch, no reshape left.
//
// CHECK-LABEL: func.func private @keepdims_max_dispatch_0(
// CHECK-SAME:      %{{[a-z0-9_]+}}: tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK:           linalg.fill
// CHECK-NEXT:      linalg.reduce
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.subf
// CHECK-NEXT:        math.exp
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      } -> tensor<4x10xf32>
// CHECK-NEXT:      return
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @keepdims_max(
// CHECK-NOT:       tensor.expand_shape
// CHECK:           call @keepdims_max_dispatch_0(%arg0)
// CHECK-NOT:       call
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row0 = affine_map<(d0, d1) -> (d0, 0)>
func.func @keepdims_max(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.reduce ins(%x : tensor<4x10xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %k = tensor.expand_shape %m [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %e2 = tensor.empty() : tensor<4x10xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row0, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %k : tensor<4x10xf32>, tensor<4x1xf32>) outs(%e2 : tensor<4x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}
