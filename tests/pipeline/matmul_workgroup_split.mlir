// jitrun-codegen-tile-and-vectorize's workgroup split for matmuls (Strategy.cpp):
//
// - a transformer FFN matmul, 128 x 768 * 768 x 3072 (N >= 4 M), is split
//   along N only: 32 workgroups of all 128 rows x 96 columns, so each reads
//   its 768 x 96 slab of B once (295 KB, in L2) for every row of A. Split
//   along M first it would give 16 x 2 workgroups of 8 rows x 1536 columns,
//   each streaming half of B (4.7 MB) for 8 rows: half the speed in the BERT
//   encoder's profile (FFN matmuls 18.8 -> 8.1 ms and 15.2 -> 9.8 ms);
// - a matmul with N < 4 M (384 x 768 * 768 x 768) keeps the outer-first
//   split: 24 x 2 workgroups of 16 rows x 384 columns.
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func private @ffn_dispatch(
// CHECK:         scf.forall (%{{[a-z0-9]+}}) = (0) to (3072) step (96)
// CHECK:           scf.for %{{[a-z0-9]+}} = %c0 to %c128 step %c64
// CHECK:             scf.for %{{[a-z0-9]+}} = %c0 to %c64 step %c8
// CHECK:               scf.for %{{[a-z0-9]+}} = %c0 to %c96 step %c32

// CHECK-LABEL: func.func private @square_dispatch(
// CHECK:         scf.forall (%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) = (0, 0) to (384, 768) step (16, 384)

func.func private @ffn_dispatch(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%f : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %m : tensor<128x3072xf32>
}
func.func private @square_dispatch(%a: tensor<384x768xf32>, %b: tensor<768x768xf32>) -> tensor<384x768xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384x768xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<384x768xf32>) -> tensor<384x768xf32>
  %m = linalg.matmul ins(%a, %b : tensor<384x768xf32>, tensor<768x768xf32>) outs(%f : tensor<384x768xf32>) -> tensor<384x768xf32>
  return %m : tensor<384x768xf32>
}
