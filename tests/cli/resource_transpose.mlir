// The other runs of this input: tests/pipeline/resource_transpose.mlir.
// A transpose of a weight stored as a dense resource is folded at compile
// time (FoldResourceTranspose, ElementwiseFusion.cpp): the weight arrives in
// the layout its consumer reads, and no kernel transposes it. The fold walks
// the output in order with an incrementally updated source offset; a rank-3
// permutation of f32 and one of i8 values, each added to an input, match the
// reference evaluator (which transposes at run time), and no transpose
// dispatch is left.
//
// RUN: %jitrun %s --input=4x2x3xf32 --input=2x5x3xi8 --reference --output=@%t.0.npy --output=@%t.1.npy
// RUN: %jitrun %s --input=4x2x3xf32 --input=2x5x3xi8 --expected_output=@%t.0.npy --expected_output=@%t.1.npy \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s
// A plain dense constant (the torch-mlir exports' weights) takes the same
// byte-copying fold, not the upstream element-by-element one.
// RUN: %jitrun %s --function=dense --input=3x2xf32 --reference --output=@%t.d.npy
// RUN: %jitrun %s --function=dense --input=3x2xf32 --expected_output=@%t.d.npy | FileCheck %s --check-prefix=DENSE

// DENSE: result[0]: matches the expected output
func.func @dense(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.5, -2.0, 3.25], [4.0, -5.5, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : tensor<3x2xf32>, tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// CHECK: "dispatches":2,
func.func @main(%x: tensor<4x2x3xf32>, %y: tensor<2x5x3xi8>) -> (tensor<4x2x3xf32>, tensor<2x5x3xi8>) {
  %w = arith.constant dense_resource<w3> : tensor<2x3x4xf32>
  %q = arith.constant dense_resource<q3> : tensor<3x5x2xi8>
  %e = tensor.empty() : tensor<4x2x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x2x3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %x : tensor<4x2x3xf32>, tensor<4x2x3xf32>) outs(%e : tensor<4x2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x2x3xf32>
  %ei = tensor.empty() : tensor<2x5x3xi8>
  %ti = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<3x5x2xi8>) outs(%ei : tensor<2x5x3xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  } -> tensor<2x5x3xi8>
  %si = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ti, %y : tensor<2x5x3xi8>, tensor<2x5x3xi8>) outs(%ei : tensor<2x5x3xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %r = arith.addi %a, %b : i8
    linalg.yield %r : i8
  } -> tensor<2x5x3xi8>
  return %s, %si : tensor<4x2x3xf32>, tensor<2x5x3xi8>
}

{-#
  dialect_resources: {
    builtin: {
      w3: "0x04000000666646C052B82EC03D0A17C052B8FEBF295CCFBF0000A0BFAE4761BF5C8F02BF295C0FBE1F856B3E9A99193FEC51783F1F85AB3F48E1DA3FB81E0540CDCC1C40E17A3440F6284C400AD763401F857B409A998940A4709540AE47A140B81EAD40",
      q3: "0x01000000D8DFE6EDF4FB020910171E252C333A41484F565D646B727980878E959CA3"
    }
  }
#-}
