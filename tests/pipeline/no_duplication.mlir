// The other runs of this input: tests/fusion/no_duplication.mlir.
// A producer whose result has several uses is not duplicated into its
// consumers unless it is cheap to recompute (it reads only scalars or splats),
// and keeping it separate does not split the matmul's dispatch.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope --jitrun-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DISP

// Rule: a low-rank producer (bias * 2 on tensor<32>) read by two higher-rank
// consumers through (d0, d1) -> (d1) is neither single-use nor cheap, so it is
// not fused into either: it stays one generic, counted once (three generics
// in, two out: the two consumers fuse with each other). The matmul's dispatch
// is not split: fill + matmul + the fused consumer chain are one dispatch,
// and the bias generic is a dispatch of its own whose result is passed in.
//
//
// DISP-LABEL: func.func private @shared_bias_chain_dispatch_0(
// DISP-SAME:      %{{[a-z0-9_]+}}: tensor<32xf32>) -> tensor<32xf32>
// DISP-NOT:       linalg.matmul
// DISP:           linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.mulf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<32xf32>
// DISP-NEXT:      return
// DISP-LABEL: func.func private @shared_bias_chain_dispatch_1(
// DISP-SAME:      %{{[a-z0-9_]+}}: tensor<8x16xf32>, %{{[a-z0-9_]+}}: tensor<16x32xf32>, %{{[a-z0-9_]+}}: tensor<32xf32>) -> tensor<8x32xf32>
// DISP:           linalg.fill
// DISP-NEXT:      linalg.matmul
// DISP-NEXT:      linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.addf
// DISP-NEXT:        arith.mulf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<8x32xf32>
// DISP-NEXT:      return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @shared_bias_chain(
// DISP-NOT:       linalg.
// DISP:           %[[BIAS2:.+]] = call @shared_bias_chain_dispatch_0(
// DISP-NOT:       linalg.
// DISP:           call @shared_bias_chain_dispatch_1(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[BIAS2]])
// DISP-NOT:       linalg.
// DISP-NOT:       call
// DISP:           return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @shared_bias_chain(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %bias2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %two : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias2 : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %c2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c1, %bias2 : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %c2 : tensor<8x32xf32>
}

// -----

// Rule: the same shared bias producer feeding the epilogues of two different
// matmuls is computed once, and each matmul keeps its own epilogue in its own
// dispatch. (Where the fill lives is not checked here: CSE merges the two
// identical fills, and dispatch formation may clone a shared fill.)
//
//
// DISP-LABEL: func.func private @shared_bias_two_matmuls_dispatch_0(
// DISP-SAME:      %{{[a-z0-9_]+}}: tensor<32xf32>) -> tensor<32xf32>
// DISP:           linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.mulf
// DISP-LABEL: func.func private @shared_bias_two_matmuls_dispatch_1(
// DISP:           linalg.matmul
// DISP-NEXT:      linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.addf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<8x32xf32>
// DISP-NEXT:      return
// DISP-LABEL: func.func private @shared_bias_two_matmuls_dispatch_2(
// DISP:           linalg.matmul
// DISP-NEXT:      linalg.generic
// DISP-NEXT:      ^bb0(
// DISP-NEXT:        arith.addf
// DISP-NEXT:        linalg.yield
// DISP-NEXT:      } -> tensor<8x32xf32>
// DISP-NEXT:      return
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @shared_bias_two_matmuls(
// DISP-NOT:       linalg.generic
// DISP:           %[[BIAS2:.+]] = call @shared_bias_two_matmuls_dispatch_0(
// DISP-NOT:       linalg.generic
// DISP:           call @shared_bias_two_matmuls_dispatch_1({{.*}}%[[BIAS2]]
// DISP-NOT:       linalg.generic
// DISP:           call @shared_bias_two_matmuls_dispatch_2({{.*}}%[[BIAS2]]
// DISP-NOT:       linalg.generic
// DISP-NOT:       call
// DISP:           return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @shared_bias_two_matmuls(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<16x32xf32>, %bias: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %bias2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %two : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %bias2 : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2, %bias2 : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %c1, %c2 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Rule (negative): an elementwise producer with two elementwise users is not
// duplicated into them; all three generics stay, one dispatch each.
//
//
// DISP-LABEL: func.func private @two_users_dispatch_0(
// DISP:           arith.addf
// DISP-NOT:       math.exp
// DISP-LABEL: func.func private @two_users_dispatch_1(
// DISP:           math.exp
// DISP-NOT:       arith.addf
// DISP-LABEL: func.func private @two_users_dispatch_2(
// DISP:           arith.negf
// DISP-NOT:       arith.addf
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @two_users(
func.func @two_users(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %e = tensor.empty() : tensor<16x64xf32>
  %0 = linalg.add ins(%a, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = linalg.exp ins(%0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %2 = linalg.negf ins(%0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %1, %2 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Rule (positive contrast): a producer that reads only a scalar (tensor<f32>)
// is cheap to recompute, so it is fused into both of its users even though
// it has two: no generic reading the broadcast tensor<8x32xf32> remains, and
// each user recomputes the exp of the scalar.
//
//
// DISP-LABEL: func.func private @cheap_scalar_broadcast_dispatch_0(
// DISP:           math.exp
// DISP-NEXT:      arith.addf
// DISP-LABEL: func.func private @cheap_scalar_broadcast_dispatch_1(
// DISP:           math.exp
// DISP-NEXT:      arith.mulf
// DISP-NOT:     func.func private
// DISP-LABEL: func.func @cheap_scalar_broadcast(
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @cheap_scalar_broadcast(%s: tensor<f32>, %a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %bc = linalg.generic {indexing_maps = [#sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %bc : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}
