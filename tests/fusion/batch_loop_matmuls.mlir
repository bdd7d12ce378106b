// A recurrence imported step by step (an LSTM's scf.for over the sequence)
// multiplies each step's input row by the same weights: that matmul runs
// for all steps at once before the loop, reading the weights once, and each
// step takes its row (jitrun-fusion-batch-loop-matmuls; the zoo's
// unidirectional_lstm, 32 steps of 256 -> 4 x 256 gates, 1.0 -> 0.33 ms at
// one thread). Not when the weights, the accumulator's value or the row
// change from step to step, nor for a loop that does not start at 0.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-batch-loop-matmuls))' | FileCheck %s

// CHECK-LABEL: func.func @input_projection(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x1x8xf32>, %[[W:[^:]+]]: tensor<8x16xf32>, %[[R:[^:]+]]: tensor<16x16xf32>
// CHECK:         %[[ROWS:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<4x1x8xf32> into tensor<4x8xf32>
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:         %[[XW:.+]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[ACC]] : tensor<4x16xf32>)
// CHECK:         scf.for %[[T:.+]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[ROW:.+]] = tensor.extract_slice %[[XW]][%[[T]], 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<1x16xf32>
// CHECK:           %[[HR:.+]] = linalg.matmul ins(%{{.*}}, %[[R]] : tensor<1x16xf32>, tensor<16x16xf32>)
// CHECK:           linalg.add ins(%[[ROW]], %[[HR]]
func.func @input_projection(%x: tensor<4x1x8xf32>, %w: tensor<8x16xf32>, %r: tensor<16x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
  %h = scf.for %t = %c0 to %c4 step %c1 iter_args(%hp = %h0) -> (tensor<1x16xf32>) {
    %xt = tensor.extract_slice %x[%t, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> to tensor<1x8xf32>
    %e1 = tensor.empty() : tensor<1x16xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %xw = linalg.matmul ins(%xt, %w : tensor<1x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %e2 = tensor.empty() : tensor<1x16xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %hr = linalg.matmul ins(%hp, %r : tensor<1x16xf32>, tensor<16x16xf32>) outs(%f2 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %e3 = tensor.empty() : tensor<1x16xf32>
    %s = linalg.add ins(%xw, %hr : tensor<1x16xf32>, tensor<1x16xf32>) outs(%e3 : tensor<1x16xf32>) -> tensor<1x16xf32>
    scf.yield %s : tensor<1x16xf32>
  }
  return %h : tensor<1x16xf32>
}

// -----

// The weights are the loop's own (carried from step to step): unchanged.
// CHECK-LABEL: func.func @carried_weights(
// CHECK:         scf.for
// CHECK:           tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [1, 1, 8]
// CHECK:           linalg.matmul ins(%{{.*}} : tensor<1x8xf32>, tensor<8x16xf32>)
func.func @carried_weights(%x: tensor<4x1x8xf32>, %w0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %wn = scf.for %t = %c0 to %c4 step %c1 iter_args(%w = %w0) -> (tensor<8x16xf32>) {
    %xt = tensor.extract_slice %x[%t, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> to tensor<1x8xf32>
    %e1 = tensor.empty() : tensor<1x16xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %xw = linalg.matmul ins(%xt, %w : tensor<1x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %b = tensor.collapse_shape %xw [[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %w2 = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e2 : tensor<8x16xf32>) dimensions = [0]
    scf.yield %w2 : tensor<8x16xf32>
  }
  return %wn : tensor<8x16xf32>
}

// -----

// A loop from 1 (its first row never read) and a row that is not the
// step's: unchanged.
// CHECK-LABEL: func.func @not_row_per_step(
// CHECK:         scf.for
// CHECK:           linalg.matmul ins(%{{.*}} : tensor<1x8xf32>, tensor<8x16xf32>)
// CHECK:         scf.for
// CHECK:           linalg.matmul ins(%{{.*}} : tensor<1x8xf32>, tensor<8x16xf32>)
func.func @not_row_per_step(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
  %a = scf.for %t = %c1 to %c4 step %c1 iter_args(%acc = %a0) -> (tensor<1x16xf32>) {
    %xt = tensor.extract_slice %x[%t, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
    %xw = linalg.matmul ins(%xt, %w : tensor<1x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %s = linalg.add ins(%xw, %acc : tensor<1x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
    scf.yield %s : tensor<1x16xf32>
  }
  %b = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %a0) -> (tensor<1x16xf32>) {
    %xt = tensor.extract_slice %x[%c2, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
    %xw = linalg.matmul ins(%xt, %w : tensor<1x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<1x16xf32>) -> tensor<1x16xf32>
    %s = linalg.add ins(%xw, %acc : tensor<1x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
    scf.yield %s : tensor<1x16xf32>
  }
  return %a, %b : tensor<1x16xf32>, tensor<1x16xf32>
}
