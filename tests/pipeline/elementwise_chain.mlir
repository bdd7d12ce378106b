// The other runs of this input: tests/fusion/elementwise_chain.mlir.
// Chains of elementwise ops without a root: elementwise fusion makes one
// generic of a single-use chain, and that generic is one dispatch.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISP

// Rule: four elementwise ops (two named, two generics), each the single use
// of the previous one, become one generic and one dispatch. The fused op
// reads %a once although two ops of the chain read it.
//
//
// DISP-LABEL: func.func private @chain_dispatch_0(
// DISP:           linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.addf
// DISP-NEXT:        math.exp
// DISP-NEXT:        arith.mulf
// DISP-NEXT:        arith.negf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<16x64xf32>
// DISP-NEXT:      return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @chain(
// DISP-NOT:       linalg.
// DISP:           call @chain_dispatch_0(
// DISP-NOT:       linalg.
// DISP-NOT:       call
// DISP:           return
//
// With max-operands=4 the chain is cut where the fused op would have five
// operands (add+exp has three; fusing it into the mul, which reads %a and
// has an init, would give five): two generics remain.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %0 = linalg.add ins(%a, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = linalg.exp ins(%0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1, %a : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %3 : tensor<16x64xf32>
}

// -----

// Rule: a transpose is elementwise too (a permutation read); it is
// generalized and fused into its single consumer, which then reads the
// untransposed input through (d0, d1) -> (d1, d0). One generic, one dispatch.
//
//
// DISP-LABEL: func.func private @transpose_chain_dispatch_0(
// DISP:           linalg.generic
// DISP-NOT:       linalg.generic
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @transpose_chain(
// DISP-NOT:       linalg.
// DISP:           call @transpose_chain_dispatch_0(
// DISP-NOT:       call
// DISP:           return
func.func @transpose_chain(%a: tensor<64x16xf32>, %b: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %t = linalg.transpose ins(%a : tensor<64x16xf32>) outs(%e : tensor<16x64xf32>) permutation = [1, 0]
  %0 = linalg.add ins(%t, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = linalg.exp ins(%0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}
