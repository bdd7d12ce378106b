// jitrun-codegen-lower-vectors drops a float's trip through an 8-bit
// integer and back where the float is already an integer inside the 8-bit
// range (a QDQ model's quantize-dequantize pair, fused into one body:
// clamp(roundeven(x / s) + zp, 0, 255), to uint8 and back to f32): the trip
// returns it unchanged, four instructions a register. A signed range adds
// +0.0 (the trip turns -0.0 into +0.0). Not where the value may be a
// fraction (no roundeven), or the clamp leaves the range.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @unsigned(
// CHECK:         %[[R:.+]] = math.roundeven
// CHECK:         %[[Z:.+]] = arith.addf %[[R]]
// CHECK:         %[[LO:.+]] = arith.maximumf %[[Z]]
// CHECK:         %[[HI:.+]] = arith.minimumf %[[LO]]
// CHECK-NOT:     arith.fptosi
// CHECK-NOT:     arith.uitofp
// CHECK:         arith.subf %[[HI]]
func.func @unsigned(%x: vector<16xf32>) -> vector<16xf32> {
  %s = arith.constant dense<0.25> : vector<16xf32>
  %zp = arith.constant dense<3.0> : vector<16xf32>
  %lo = arith.constant dense<0.0> : vector<16xf32>
  %hi = arith.constant dense<255.0> : vector<16xf32>
  %d = arith.divf %x, %s : vector<16xf32>
  %r = math.roundeven %d : vector<16xf32>
  %z = arith.addf %r, %zp : vector<16xf32>
  %a = arith.maximumf %z, %lo : vector<16xf32>
  %b = arith.minimumf %a, %hi : vector<16xf32>
  %i = arith.fptosi %b : vector<16xf32> to vector<16xi32>
  %t = arith.trunci %i : vector<16xi32> to vector<16xi8>
  %f = arith.uitofp %t : vector<16xi8> to vector<16xf32>
  %m = arith.subf %f, %zp : vector<16xf32>
  %y = arith.mulf %m, %s : vector<16xf32>
  return %y : vector<16xf32>
}

// int8, the clamp in the other order: the value plus +0.0.
// CHECK-LABEL: func.func @signed(
// CHECK:         %[[HI:.+]] = arith.minimumf
// CHECK:         %[[LO:.+]] = arith.maximumf %[[HI]]
// CHECK-NOT:     arith.fptosi
// CHECK-NOT:     arith.sitofp
// CHECK:         arith.addf %[[LO]], %{{.+}} : vector<16xf32>
func.func @signed(%x: vector<16xf32>) -> vector<16xf32> {
  %lo = arith.constant dense<-128.0> : vector<16xf32>
  %hi = arith.constant dense<127.0> : vector<16xf32>
  %r = math.roundeven %x : vector<16xf32>
  %a = arith.minimumf %r, %hi : vector<16xf32>
  %b = arith.maximumf %a, %lo : vector<16xf32>
  %i = arith.fptosi %b : vector<16xf32> to vector<16xi32>
  %t = arith.trunci %i : vector<16xi32> to vector<16xi8>
  %f = arith.sitofp %t : vector<16xi8> to vector<16xf32>
  return %f : vector<16xf32>
}

// The unsigned range read as signed: 200 does not survive.
// CHECK-LABEL: func.func @outside(
// CHECK:         arith.fptosi
// CHECK:         arith.sitofp
func.func @outside(%x: vector<16xf32>) -> vector<16xf32> {
  %lo = arith.constant dense<0.0> : vector<16xf32>
  %hi = arith.constant dense<255.0> : vector<16xf32>
  %r = math.roundeven %x : vector<16xf32>
  %a = arith.maximumf %r, %lo : vector<16xf32>
  %b = arith.minimumf %a, %hi : vector<16xf32>
  %i = arith.fptosi %b : vector<16xf32> to vector<16xi32>
  %t = arith.trunci %i : vector<16xi32> to vector<16xi8>
  %f = arith.sitofp %t : vector<16xi8> to vector<16xf32>
  return %f : vector<16xf32>
}

// No rounding: a fraction would be truncated by the trip.
// CHECK-LABEL: func.func @fraction(
// CHECK:         arith.fptosi
// CHECK:         arith.uitofp
func.func @fraction(%x: vector<16xf32>) -> vector<16xf32> {
  %lo = arith.constant dense<0.0> : vector<16xf32>
  %hi = arith.constant dense<255.0> : vector<16xf32>
  %a = arith.maximumf %x, %lo : vector<16xf32>
  %b = arith.minimumf %a, %hi : vector<16xf32>
  %i = arith.fptosi %b : vector<16xf32> to vector<16xi32>
  %t = arith.trunci %i : vector<16xi32> to vector<16xi8>
  %f = arith.uitofp %t : vector<16xi8> to vector<16xf32>
  return %f : vector<16xf32>
}

// A zero point that is not an integer: the sum may be a fraction.
// CHECK-LABEL: func.func @fractional_zero_point(
// CHECK:         arith.fptosi
// CHECK:         arith.uitofp
func.func @fractional_zero_point(%x: vector<16xf32>) -> vector<16xf32> {
  %zp = arith.constant dense<0.5> : vector<16xf32>
  %lo = arith.constant dense<0.0> : vector<16xf32>
  %hi = arith.constant dense<255.0> : vector<16xf32>
  %r = math.roundeven %x : vector<16xf32>
  %z = arith.addf %r, %zp : vector<16xf32>
  %a = arith.maximumf %z, %lo : vector<16xf32>
  %b = arith.minimumf %a, %hi : vector<16xf32>
  %i = arith.fptosi %b : vector<16xf32> to vector<16xi32>
  %t = arith.trunci %i : vector<16xi32> to vector<16xi8>
  %f = arith.uitofp %t : vector<16xi8> to vector<16xf32>
  return %f : vector<16xf32>
}
