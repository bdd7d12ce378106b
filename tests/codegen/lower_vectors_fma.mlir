// jitrun-codegen-lower-vectors fuses a multiply marked fastmath<contract>
// (the body fusion gives a packed or grouped convolution, contract/Dispatch.h)
// with the one add it feeds into an FMA, on vectors (a 7x32 register tile of
// a convolution whose taps and channels step by one) and on scalars. A
// multiply without the flag (a model's own x * a + b) stays a multiply and an
// add, and so does a flagged one with a second use.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @tile(
// CHECK-SAME:    %[[A:[^:]+]]: vector<7x32xf32>, %[[B:[^:]+]]: vector<7x32xf32>, %[[C:[^:]+]]: vector<7x32xf32>
// CHECK-NOT:     arith.mulf
// CHECK-NOT:     arith.addf
// CHECK:         math.fma %[[A]], %[[B]], %[[C]] : vector<7x32xf32>
func.func @tile(%a: vector<7x32xf32>, %b: vector<7x32xf32>, %acc: vector<7x32xf32>) -> vector<7x32xf32> {
  %p = arith.mulf %a, %b fastmath<contract> : vector<7x32xf32>
  %s = arith.addf %acc, %p : vector<7x32xf32>
  return %s : vector<7x32xf32>
}

// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32, %[[C:[^:]+]]: f32
// CHECK:         %[[R:.+]] = math.fma %[[A]], %[[B]], %[[C]] : f32
// CHECK:         return %[[R]]
func.func @scalar(%a: f32, %b: f32, %acc: f32) -> f32 {
  %p = arith.mulf %a, %b fastmath<contract> : f32
  %s = arith.addf %p, %acc : f32
  return %s : f32
}

// CHECK-LABEL: func.func @unmarked(
// CHECK-NOT:     math.fma
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @unmarked(%a: vector<16xf32>, %b: vector<16xf32>, %acc: vector<16xf32>) -> vector<16xf32> {
  %p = arith.mulf %a, %b : vector<16xf32>
  %s = arith.addf %acc, %p : vector<16xf32>
  return %s : vector<16xf32>
}

// CHECK-LABEL: func.func @two_uses(
// CHECK-NOT:     math.fma
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @two_uses(%a: vector<16xf32>, %b: vector<16xf32>, %acc: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %p = arith.mulf %a, %b fastmath<contract> : vector<16xf32>
  %s = arith.addf %acc, %p : vector<16xf32>
  return %s, %p : vector<16xf32>, vector<16xf32>
}
