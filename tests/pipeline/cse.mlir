// Upstream CSE on linalg ops. In MLIR 22, CSE compares ops with regions
// structurally (operands, attributes and the region body), and linalg ops on
// tensors have no memory effects, so identical ones merge; the fusion
// pipeline runs CSE before dispatch formation, so the merged op is one
// dispatch.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --cse \
// RUN:   | FileCheck %s --check-prefix=CSE
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISP

// Rule: two structurally identical generics on the same operands become one,
// and both results are its result. Each has its own tensor.empty init; those
// merge first (tensor.empty is pure), which makes the generics identical.
//
// CSE-LABEL: func.func @twins(
// CSE:         tensor.empty
// CSE-NOT:     tensor.empty
// CSE:         %[[G:.+]] = linalg.generic
// CSE-NOT:     linalg.generic
// CSE:         return %[[G]], %[[G]]
//
// DISP-LABEL: func.func private @twins_dispatch_0(
// DISP:           linalg.generic
// DISP-NOT:       linalg.generic
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @twins(
// DISP:           %[[C:.+]] = call @twins_dispatch_0(
// DISP-NOT:       call
// DISP:           return %[[C]], %[[C]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @twins(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e0 = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e0 : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Rule (negative): same operands and maps but different bodies (addf vs
// mulf): not merged, two generics, two dispatches.
//
// CSE-LABEL: func.func @different_bodies(
// CSE:         linalg.generic
// CSE-NEXT:    ^bb0(
// CSE-NEXT:      arith.addf
// CSE:         linalg.generic
// CSE-NEXT:    ^bb0(
// CSE-NEXT:      arith.mulf
// CSE:         return
//
// DISP-LABEL: func.func private @different_bodies_dispatch_0(
// DISP:           arith.addf
// DISP-LABEL: func.func private @different_bodies_dispatch_1(
// DISP:           arith.mulf
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @different_bodies(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @different_bodies(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Rule (negative): identical bodies, but the operands are swapped: not
// merged (CSE does not know addf commutes at the linalg level).
//
// CSE-LABEL: func.func @swapped_operands(
// CSE:         linalg.generic {{.*}} ins(%arg0, %arg1 :
// CSE:         linalg.generic {{.*}} ins(%arg1, %arg0 :
// CSE:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @swapped_operands(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %a : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Rule: the same holds for named ops with regions: two identical fills merge,
// then the two identical matmuls reading them merge: one matmul, one
// dispatch.
//
// CSE-LABEL: func.func @matmul_twins(
// CSE:         linalg.fill
// CSE-NOT:     linalg.fill
// CSE:         %[[M:.+]] = linalg.matmul
// CSE-NOT:     linalg.matmul
// CSE:         return %[[M]], %[[M]]
//
// DISP-LABEL: func.func private @matmul_twins_dispatch_0(
// DISP:           linalg.fill
// DISP-NEXT:      linalg.matmul
// DISP-NEXT:      return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @matmul_twins(
// DISP:           %[[C:.+]] = call @matmul_twins_dispatch_0(
// DISP-NOT:       call
// DISP:           return %[[C]], %[[C]]
func.func @matmul_twins(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m0, %m1 : tensor<8x32xf32>, tensor<8x32xf32>
}
