// The other runs of this input: tests/pipeline/reshape_consumer.mlir.
// A consumer reached only through a reshape: a transformer's Q projection,
// bias add, split into heads (tensor.expand_shape) and per-head transpose.
// Reshape sinking cannot help (the transpose interleaves the split
// dimensions), so dispatch formation follows the chain through the
// expand_shape (consumerThroughExpand): ONE dispatch, returning the
// transposed heads, and nothing left to explain. Codegen then propagates
// the reshape into the contraction (tests/pipeline/expand_into_contraction).
// Not through a reshape with another use, nor into a consumer that reads
// it through a broadcast, nor after a root that is not a contraction.
//
// RUN: %jit-opt %s --split-input-file --pass-pipeline='builtin.module(jitrun-fusion-form-dispatches{explain=true})' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN-NOT: @heads{{.*}}not fused
func.func @heads(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %h = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %te = tensor.empty() : tensor<2x8x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<8x2x16xf32>) outs(%te : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16xf32>
  return %t : tensor<2x8x16xf32>
}

// -----

// The heads are also returned as they are: the reshape has two uses, the
// transpose stays a dispatch of its own.
// EXPLAIN: remark: not fused: {{.*}}linalg.generic -> {{.*}}linalg.generic: reshape-between
func.func @two_uses(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>) -> (tensor<2x8x16xf32>, tensor<8x2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %h = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %te = tensor.empty() : tensor<2x8x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<8x2x16xf32>) outs(%te : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16xf32>
  return %t, %h : tensor<2x8x16xf32>, tensor<8x2x16xf32>
}

// -----

// A row reduction is not a contraction: its consumer through a reshape
// stays apart.
func.func @after_reduction(%x: tensor<8x32x4xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.reduce ins(%x : tensor<8x32x4xf32>) outs(%f : tensor<8x32xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %h = tensor.expand_shape %r [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %te = tensor.empty() : tensor<2x8x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<8x2x16xf32>) outs(%te : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x16xf32>
  return %t : tensor<2x8x16xf32>
}
