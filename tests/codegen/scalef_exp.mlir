// jitrun-codegen-lower-vectors{avx512=true} takes exp of f32 vectors of
// whole 16-lane registers through vscalefps (codegen/ScalefExp.cpp): the
// argument clamped to [-104, 89] by compares that pass a NaN through, k =
// roundeven(x / ln 2), the reduced argument by two FMAs, then one
// llvm.x86.avx512.mask.scalef.ps.512 per register. Other shapes, and
// AVX2 (no avx512 option), keep the general polynomial approximation.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors{avx512=true}))' \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors))' \
// RUN:   | FileCheck %s --check-prefix=AVX2

// CHECK-LABEL: func.func @two_registers(
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:         math.roundeven
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// CHECK-NOT:     llvm.call_intrinsic
// CHECK-NOT:     math.exp
// CHECK:         return
// AVX2-LABEL:  func.func @two_registers(
// AVX2-NOT:      scalef
// AVX2:          return
func.func @two_registers(%x: vector<2x16xf32>) -> vector<2x16xf32> {
  %e = math.exp %x : vector<2x16xf32>
  return %e : vector<2x16xf32>
}

// Half a register: the general approximation (no math.exp left either).
// CHECK-LABEL: func.func @half_register(
// CHECK-NOT:     scalef
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @half_register(%x: vector<8xf32>) -> vector<8xf32> {
  %e = math.exp %x : vector<8xf32>
  return %e : vector<8xf32>
}

// f64: the general approximation.
// CHECK-LABEL: func.func @f64(
// CHECK-NOT:     scalef
// CHECK:         return
func.func @f64(%x: vector<16xf64>) -> vector<16xf64> {
  %e = math.exp %x : vector<16xf64>
  return %e : vector<16xf64>
}
