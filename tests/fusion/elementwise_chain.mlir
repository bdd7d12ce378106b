// The other runs of this input: tests/pipeline/elementwise_chain.mlir.
// Chains of elementwise ops without a root: elementwise fusion makes one
// generic of a single-use chain, and that generic is one dispatch.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-elementwise))' \
// RUN:   | FileCheck %s --check-prefix=FUSE
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-fusion-elementwise{max-operands=4}))' \
// RUN:   | FileCheck %s --check-prefix=CAP

// Rule: four elementwise ops (two named, two generics), each the single use
// of the previous one, become one generic and one dispatch. The fused op
// reads %a once although two ops of the chain read it.
//
// FUSE-LABEL: func.func @chain(
// FUSE:         linalg.generic
// FUSE-SAME:      ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<16x64xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      arith.mulf
// FUSE-NEXT:      arith.negf
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<16x64xf32>
// FUSE-NEXT:    return
//
//
// With max-operands=4 the chain is cut where the fused op would have five
// operands (add+exp has three; fusing it into the mul, which reads %a and
// has an init, would give five): two generics remain.
// CAP-LABEL: func.func @chain(
// CAP:         linalg.generic
// CAP-NEXT:    ^bb0(
// CAP-NEXT:      arith.addf
// CAP-NEXT:      math.exp
// CAP-NEXT:      linalg.yield
// CAP:         linalg.generic
// CAP-NEXT:    ^bb0(
// CAP-NEXT:      arith.mulf
// CAP-NEXT:      arith.negf
// CAP-NEXT:      linalg.yield
// CAP-NOT:     linalg.generic
// CAP:         return
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
// FUSE-LABEL: func.func @transpose_chain(
// FUSE-NOT:     linalg.transpose
// FUSE:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// FUSE-SAME:      ins(%arg0, %arg1 : tensor<64x16xf32>, tensor<16x64xf32>)
// FUSE-NEXT:    ^bb0(
// FUSE-NEXT:      arith.addf
// FUSE-NEXT:      math.exp
// FUSE-NEXT:      linalg.yield
// FUSE-NEXT:    } -> tensor<16x64xf32>
// FUSE-NEXT:    return
//
func.func @transpose_chain(%a: tensor<64x16xf32>, %b: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %t = linalg.transpose ins(%a : tensor<64x16xf32>) outs(%e : tensor<16x64xf32>) permutation = [1, 0]
  %0 = linalg.add ins(%t, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = linalg.exp ins(%0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}
