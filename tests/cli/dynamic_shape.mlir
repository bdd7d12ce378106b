// A model with a dynamic batch, written the way torch-mlir emits one
// (tensor.dim, tensor.empty of the dim, shape checks as cf.assert): jitrun
// reads its signature, binds the dims from each run's inputs and compiles
// the model for them; the fused, tiled kernels agree with --reference at
// several batch sizes, including ones that no tile divides.
// RUN: %jitrun %s --print-signature | FileCheck %s --check-prefix=SIG
// SIG: inputs:
// SIG-NEXT: x  ?x16xf32  (dynamic: dim 0 'd0')
// SIG-NEXT: mask  ?x8xf32  (dynamic: dim 0 'd0')
// SIG-NEXT: outputs:
// SIG-NEXT: -  ?x8xf32  (dynamic: dim 0 'd0')
// SIG-NEXT: -  ?xf32  (dynamic: dim 0 'd0')
// RUN: %jitrun %s --print-signature=json | FileCheck %s --check-prefix=JSON
// JSON: "name":"x","shape":[-1,16],"dtype":"f32","dims":["d0",""]
//
// RUN: %jitrun %s --input=1x16xf32 --input=1x8xf32 --reference --output=@%t.r1.npy --output=@%t.s1.npy
// RUN: %jitrun %s --input=1x16xf32 --input=1x8xf32 --expected_output=@%t.r1.npy --expected_output=@%t.s1.npy | FileCheck %s
// RUN: %jitrun %s --input=7x16xf32 --input=7x8xf32 --reference --output=@%t.r7.npy --output=@%t.s7.npy
// RUN: %jitrun %s --input=7x16xf32 --input=7x8xf32 --expected_output=@%t.r7.npy --expected_output=@%t.s7.npy --threads=2 | FileCheck %s
// RUN: %jitrun %s --input=131x16xf32 --input=131x8xf32 --reference --output=@%t.r131.npy --output=@%t.s131.npy
// RUN: %jitrun %s --input=131x16xf32 --input=131x8xf32 --expected_output=@%t.r131.npy --expected_output=@%t.s131.npy --threads=2 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,STATS
// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// The specialization is compiled like a static model: one dispatch for
// matmul + bias + relu + mask, one for the row sum.
// STATS: "dispatches":2
//
// Constant values: 4 ones against 0.5 weights, + 1 bias = 9 per element.
// RUN: %jitrun %s --input=3x16xf32=1 --input=3x8xf32=1 | FileCheck %s --check-prefix=VALUES
// VALUES: result[0]: 3x8xf32=[9 9 9 9 9 9 9 9][9 9 9 9 9 9 9 9][9 9 9 9 9 9 9 9]
// VALUES: result[1]: 3xf32=72 72 72
//
// Inputs that disagree on the batch are refused before any compile, naming
// both (the tie comes from the linalg ops and the cf.assert alike).
// RUN: not %jitrun %s --input=3x16xf32 --input=4x8xf32 2>&1 | FileCheck %s --check-prefix=TIE
// TIE: jitrun: error: input 1 ('mask') dim 0 is 4 but input 0 ('x') dim 0 is 3; the model needs them equal (dynamic dim 'd0')
// RUN: not %jitrun %s --input=3x15xf32 --input=3x8xf32 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: jitrun: error: input 0 ('x'): expected shape ?x16xf32, got 3x15
// RUN: not %jitrun %s --input=3x16x1xf32 --input=3x8xf32 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not %jitrun %s --input=3x16xf32 2>&1 | FileCheck %s --check-prefix=COUNT
// RANK: jitrun: error: input 0 ('x'): expected shape ?x16xf32, got 3x16x1
// COUNT: to run it on seeded random data: --input=1x16xf32 --input=1x8xf32
// Several sets of --input flags run one after the other (tests/zoo/dynamic_runs.mlir);
// three flags for two inputs are no whole number of sets.
// RUN: not %jitrun %s --input=3x16xf32 --input=3x8xf32 --input=2x16xf32 2>&1 | FileCheck %s --check-prefix=SETS
// SETS: jitrun: error: expected 2 inputs (x: ?x16xf32, mask: ?x8xf32), got 3 --input flags (one per input, or a whole set per run)
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<?x16xf32> {jitrun.name = "x"}, %mask: tensor<?x8xf32> {jitrun.name = "mask"}) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x8xf32>
  %b = arith.constant dense<1.0> : tensor<8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %m = tensor.dim %mask, %c0 : tensor<?x8xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "mismatched size for broadcast"
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %mask : tensor<?x8xf32>, tensor<8xf32>, tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %bv: f32, %k: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %gt = arith.cmpf ugt, %s, %zero : f32
    %r = arith.select %gt, %s, %zero : f32
    %t = arith.mulf %r, %k : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %e3 = tensor.empty(%n) : tensor<?xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<?x8xf32>) outs(%f3 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %y, %sum : tensor<?x8xf32>, tensor<?xf32>
}
