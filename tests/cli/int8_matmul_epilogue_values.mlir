// An int8 matmul with an epilogue (bias add, to f32, scale): on an AVX-512
// VNNI host the dispatch's matmul reads its right operand unsigned and
// starts from the row sums of its left operand (shiftInt8RhsForVnni), the
// epilogue reads the matmul through its own tiles, and the values match the
// reference evaluator exactly, at 1 and 2 threads and in aggressive mode.
// M = 40 is no multiple of the 16-row register tile; k = 96 splits into 6 x 16
// lanes for the row sums.
//
// REQUIRES: avx512vnni
// RUN: %jitrun %s --input=40x96xi8 --input=96x64xi8 --input=64xi32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=40x96xi8 --input=96x64xi8 --input=64xi32 --threads=1 \
// RUN:   --expected_output=@%t.ref.npy --expected_atol=0 --expected_rtol=0 --dump-statistics=json 2>&1 | FileCheck %s
// RUN: %jitrun %s --input=40x96xi8 --input=96x64xi8 --input=64xi32 --threads=2 --fusion=aggressive \
// RUN:   --expected_output=@%t.ref.npy --expected_atol=0 --expected_rtol=0 --dump-statistics=json 2>&1 | FileCheck %s

// CHECK: result[0]: matches the expected output
// CHECK: "dispatches":1,
// CHECK: "vnni_kernels":1,

func.func @main(%a: tensor<40x96xi8>, %b: tensor<96x64xi8>, %bias: tensor<64xi32>) -> tensor<40x64xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x64xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<40x64xi32>) -> tensor<40x64xi32>
  %r = linalg.matmul ins(%a, %b : tensor<40x96xi8>, tensor<96x64xi8>) outs(%init : tensor<40x64xi32>) -> tensor<40x64xi32>
  %o = tensor.empty() : tensor<40x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<40x64xi32>, tensor<64xi32>) outs(%o : tensor<40x64xf32>) {
  ^bb0(%x: i32, %y: i32, %out: f32):
    %t = arith.addi %x, %y : i32
    %f = arith.sitofp %t : i32 to f32
    %h = arith.constant 0.5 : f32
    %m = arith.mulf %f, %h : f32
    linalg.yield %m : f32
  } -> tensor<40x64xf32>
  return %s : tensor<40x64xf32>
}
