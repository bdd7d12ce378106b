// The other runs of this input: tests/fusion/matmul_epilogue.mlir.
// Matmul epilogues: a broadcast bias add and a residual add after a matmul.
// FUSE checks elementwise fusion alone, DISP the whole fusion pipeline
// (elementwise fusion, canonicalize, CSE, dispatch formation).
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISP

// Rule: elementwise ops with a single use fuse into one generic, even when one
// of them reads a lower-rank operand through a broadcast (the bias, tensor<32>
// read through (d0, d1) -> (d1)); the named linalg.add is generalized first.
// The matmul root then takes its fill and that one generic: one dispatch.
//
//
// DISP-LABEL: func.func private @matmul_bias_residual_dispatch_0(
// DISP-SAME:      %{{[a-z0-9_]+}}: tensor<8x16xf32>, %{{[a-z0-9_]+}}: tensor<16x32xf32>, %{{[a-z0-9_]+}}: tensor<32xf32>, %{{[a-z0-9_]+}}: tensor<8x32xf32>) -> tensor<8x32xf32>
// DISP-SAME:      attributes {jitrun.dispatch}
// DISP:           linalg.fill
// DISP-NEXT:      linalg.matmul
// DISP-NEXT:      linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.addf
// DISP-NEXT:        arith.addf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<8x32xf32>
// DISP-NEXT:      return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @matmul_bias_residual(
// DISP-NOT:       linalg.
// DISP:           call @matmul_bias_residual_dispatch_0(
// DISP-NOT:       linalg.
// DISP-NOT:       call
// DISP:           return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_residual(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>, %res: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %add = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %r = linalg.add ins(%add, %res : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Rule (negative): the matmul's result has a second use (it is returned), so
// no consumer joins the matmul's dispatch in default mode, and the bias add
// is a dispatch of its own. Elementwise fusion has nothing to fuse (the only
// generic reads the matmul, which is not a generic).
//
//
// DISP-LABEL: func.func private @matmul_result_escapes_dispatch_0(
// DISP:           linalg.fill
// DISP-NEXT:      linalg.matmul
// DISP-NEXT:      return
// DISP-LABEL: func.func private @matmul_result_escapes_dispatch_1(
// DISP-NOT:       linalg.matmul
// DISP:           linalg.generic
// DISP:           return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @matmul_result_escapes(
// DISP:           call @matmul_result_escapes_dispatch_0(
// DISP-NEXT:      call @matmul_result_escapes_dispatch_1(
// DISP-NOT:       call
// DISP:           return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_result_escapes(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %add = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %m, %add : tensor<8x32xf32>, tensor<8x32xf32>
}
