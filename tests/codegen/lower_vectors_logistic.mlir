// jitrun-codegen-lower-vectors lets LLVM divide by the logistic function's
// denominator, c / (1 + exp(y)) in f32, with a reciprocal estimate and a
// Newton step (the division marked arcp and ninf) instead of vdivps: exp's
// argument is capped at 88 first, so that the denominator is finite (cap <
// y ? cap : y, one vminps, which passes a NaN through: the quotient is then
// NaN, as the exact division's). A
// numerator that is not a constant (it may be infinite), a denominator that
// is not 1 + exp, and other element types keep an exact division.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @sigmoid(
// CHECK-DAG:     %[[CAP:.+]] = arith.constant dense<8.800000e+01> : vector<16xf32>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK:         %[[NEG:.+]] = arith.negf
// CHECK:         %[[LT:.+]] = arith.cmpf olt, %[[CAP]], %[[NEG]] : vector<16xf32>
// CHECK:         arith.select %[[LT]], %[[CAP]], %[[NEG]] : vector<16xi1>, vector<16xf32>
// CHECK:         arith.divf %[[ONE]], %{{.+}} fastmath<ninf,arcp,contract> : vector<16xf32>
// CHECK-NOT:     arith.divf
func.func @sigmoid(%x: vector<16xf32>) -> vector<16xf32> {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %n = arith.negf %x : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  %d = arith.addf %one, %e : vector<16xf32>
  %r = arith.divf %one, %d : vector<16xf32>
  return %r : vector<16xf32>
}

// The 1 on either side of the add; a scalar.
// CHECK-LABEL: func.func @scalar(
// CHECK:         arith.cmpf olt, %{{.+}} : f32
// CHECK:         arith.divf %{{.+}} fastmath<ninf,arcp,contract> : f32
func.func @scalar(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %e = math.exp %x : f32
  %d = arith.addf %e, %one : f32
  %r = arith.divf %one, %d : f32
  return %r : f32
}

// CHECK-LABEL: func.func @numerator(
// CHECK-NOT:     8.800000e+01
// CHECK:         arith.divf %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf32>
func.func @numerator(%x: vector<16xf32>) -> vector<16xf32> {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %e = math.exp %x : vector<16xf32>
  %d = arith.addf %one, %e : vector<16xf32>
  %r = arith.divf %x, %d : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @two_plus_exp(
// CHECK-NOT:     8.800000e+01
// CHECK:         arith.divf %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf32>
func.func @two_plus_exp(%x: vector<16xf32>) -> vector<16xf32> {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %two = arith.constant dense<2.0> : vector<16xf32>
  %e = math.exp %x : vector<16xf32>
  %d = arith.addf %two, %e : vector<16xf32>
  %r = arith.divf %one, %d : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @f16(
// CHECK-NOT:     8.800000e+01
// CHECK:         arith.divf %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf16>
func.func @f16(%x: vector<16xf16>) -> vector<16xf16> {
  %one = arith.constant dense<1.0> : vector<16xf16>
  %e = math.exp %x : vector<16xf16>
  %d = arith.addf %one, %e : vector<16xf16>
  %r = arith.divf %one, %d : vector<16xf16>
  return %r : vector<16xf16>
}
