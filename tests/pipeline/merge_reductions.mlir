// The other runs of this input: tests/fusion/merge_reductions.mlir.
// Rule (merge-reductions): a reduction whose input is another reduction's
// only use, possibly through a reshape that only inserts a unit dim, with
// the same combiner and the same fill value, is one reduction over both
// dims. TOSA's mean over an image (squeeze-excite in EfficientNet and
// MobileNetV3) is two keep-dims reduce_sum ops; merged it is one root and one
// dispatch, with no H x C intermediate in memory.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISP

// The mean over H and W of an NHWC image, as TOSA lowers it: sum over H
// (keep-dims through expand_shape), sum over W, times 1/(H*W).
//
//
// DISP-LABEL: func.func private @image_mean_dispatch_0(
// DISP-SAME:      %{{.+}}: tensor<1x4x6x8xf32>) -> tensor<1x8xf32>
// DISP:           linalg.reduce
// DISP-SAME:        dimensions = [1, 2]
// DISP:           linalg.generic
// DISP:             arith.mulf
// DISP-NOT:       linalg.reduce
// DISP:           return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @image_mean(
// DISP-NEXT:       call @image_mean_dispatch_0(%arg0)
// DISP-NEXT:       tensor.expand_shape
// DISP-NEXT:       return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @image_mean(%x: tensor<1x4x6x8xf32>) -> tensor<1x1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0416666679 : f32
  %e1 = tensor.empty() : tensor<1x6x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<1x4x6x8xf32>) outs(%f1 : tensor<1x6x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %k = tensor.expand_shape %r1 [[0, 1], [2], [3]] output_shape [1, 1, 6, 8] : tensor<1x6x8xf32> into tensor<1x1x6x8xf32>
  %e2 = tensor.empty() : tensor<1x1x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  %r2 = linalg.reduce ins(%k : tensor<1x1x6x8xf32>) outs(%f2 : tensor<1x1x8xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %m = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r2 : tensor<1x1x8xf32>) outs(%e2 : tensor<1x1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %scale : f32
    linalg.yield %s : f32
  } -> tensor<1x1x8xf32>
  return %m : tensor<1x1x8xf32>
}

// -----

// A max of sums is not one reduction: both stay.
//
func.func @max_of_sums(%x: tensor<4x6x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<4x6x8xf32>) outs(%f1 : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.reduce ins(%r1 : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r2 : tensor<4xf32>
}

// -----

// The partial sums are also a result: merging would compute them twice.
// Both stay.
//
func.func @partial_used(%x: tensor<4x6x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<4x6x8xf32>) outs(%f1 : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.reduce ins(%r1 : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r1, %r2 : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// Sums started from different values (0 and 1) are not one sum.
//
func.func @different_init(%x: tensor<4x6x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<4x6x8xf32>) outs(%f1 : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.reduce ins(%r1 : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r2 : tensor<4xf32>
}

// -----

// Both sums start at 1: the inner ones add 1 per element of the outer one
// (4 x 8 ones in all, against one for a single sum), so they are not one
// sum. Both stay.
//
func.func @sums_from_one(%x: tensor<4x6x8xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<4x6x8xf32>) outs(%f1 : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.reduce ins(%r1 : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r2 : tensor<4xf32>
}

// -----

// Two maxima from the same start are one maximum, whatever the start: the
// max over 4 x 6 x 8 -> 4 of a max over dim 1.
//
func.func @max_of_max(%x: tensor<4x6x8xf32>) -> tensor<4xf32> {
  %low = arith.constant -1.0e+03 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%low : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.reduce ins(%x : tensor<4x6x8xf32>) outs(%f1 : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%low : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.reduce ins(%r1 : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r2 : tensor<4xf32>
}
