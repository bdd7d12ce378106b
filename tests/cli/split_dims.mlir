// --print-split-dims: which dynamic dims a model computes index by index
// (compiler/IndependentDims.cpp), the condition for the tiered and split
// shape policies to run a new size as pieces of compiled ones. One case per
// function; the analysis runs on an import with the dim at 2.
//
// RUN: %jitrun %s --function=rows --print-split-dims | FileCheck %s --check-prefix=ROWS
// ROWS: 'd0': index by index (results' dims 0 0)
// RUN: %jitrun %s --function=batch_sum --print-split-dims | FileCheck %s --check-prefix=SUM
// SUM: 'd0': mixed (a new size compiles)
// RUN: %jitrun %s --function=middle --print-split-dims | FileCheck %s --check-prefix=MIDDLE
// MIDDLE: 'd0': index by index (results' dims 0)
// RUN: %jitrun %s --function=row_zero --print-split-dims | FileCheck %s --check-prefix=ROWZERO
// ROWZERO: 'd0': mixed (a new size compiles)
// RUN: %jitrun %s --function=index --print-split-dims | FileCheck %s --check-prefix=INDEX
// INDEX: 'd0': mixed (a new size compiles)
// RUN: %jitrun %s --function=per_row_constant --print-split-dims | FileCheck %s --check-prefix=CONST
// CONST: 'd0': mixed (a new size compiles)
// RUN: %jitrun %s --function=gram --print-split-dims | FileCheck %s --check-prefix=GRAM
// GRAM: 'd0': mixed (a new size compiles)
// RUN: not %jitrun %s --function=static --print-split-dims 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: jitrun: error: '{{.*}}split_dims.mlir' has no dynamic dims

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Matmul + bias + a mask sharing the batch: every row on its own; the bias
// reaches the matmul as its init, broadcast over the batch.
func.func @rows(%x: tensor<?x16xf32>, %mask: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %w = arith.constant dense<0.5> : tensor<16x8xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %bias = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%bias : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %mask : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %k: f32, %o: f32):
    %r = arith.mulf %v, %k : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %y, %mm : tensor<?x8xf32>, tensor<?x8xf32>
}

// Column sums over the batch: every row depends on every other.
func.func @batch_sum(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// The batch moved to the middle (sequence-first attention layouts), merged
// with the sequence into the rows of a matmul, and back: still row by row.
func.func @middle(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.25> : tensor<8x8xf32>
  %e = tensor.empty(%n) : tensor<4x?x8xf32>
  %t = linalg.transpose ins(%x : tensor<?x4x8xf32>) outs(%e : tensor<4x?x8xf32>) permutation = [1, 0, 2]
  %rows = tensor.collapse_shape %t [[0, 1], [2]] : tensor<4x?x8xf32> into tensor<?x8xf32>
  %m = tensor.dim %rows, %c0 : tensor<?x8xf32>
  %e2 = tensor.empty(%m) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%rows, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %back = tensor.expand_shape %mm [[0, 1], [2]] output_shape [4, %n, 8] : tensor<?x8xf32> into tensor<4x?x8xf32>
  %e3 = tensor.empty(%n) : tensor<?x4x8xf32>
  %y = linalg.transpose ins(%back : tensor<4x?x8xf32>) outs(%e3 : tensor<?x4x8xf32>) permutation = [1, 0, 2]
  return %y : tensor<?x4x8xf32>
}

// Every row reads row 0.
func.func @row_zero(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%v: f32, %first: f32, %o: f32):
    %r = arith.subf %v, %first : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// A row's result depends on its index.
func.func @index(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %r = arith.addf %v, %f : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// A constant that differs from row to row (no splat) added along the batch:
// a piece at other rows would read other values.
func.func @per_row_constant(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %cast = tensor.cast %c : tensor<2x2xf32> to tensor<?x2xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2xf32>
  %e = tensor.empty(%n) : tensor<?x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %cast : tensor<?x2xf32>, tensor<?x2xf32>) outs(%e : tensor<?x2xf32>) {
  ^bb0(%v: f32, %k: f32, %o: f32):
    %r = arith.addf %v, %k : f32
    linalg.yield %r : f32
  } -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// x x^T over the batch (attention scores over a sequence).
func.func @gram(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %x : tensor<?x4xf32>, tensor<?x4xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

func.func @static(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  return %x : tensor<2x4xf32>
}
