// A whole tensor's reduction to a scalar runs in two steps (into 64 lanes,
// then the lanes: jitrun-fusion-split-reductions, tests/fusion/
// split_reductions.mlir) and gives the reference path's result: a maximum
// and an integer sum (its initial 7 counted once) exactly, a float sum
// within reassociation. Two dispatches each, both vector code.
// RUN: %jitrun %s --input=128x768xf32 --input=96x640xi32 --reference --output=@%t.max.npy --output=@%t.isum.npy --output=@%t.fsum.npy
// RUN: %jitrun %s --input=128x768xf32 --input=96x640xi32 --threads=2 --dump-statistics=json \
// RUN:   --expected_output=@%t.max.npy --expected_output=@%t.isum.npy --expected_output=@%t.fsum.npy \
// RUN:   --expected_atol=0 --expected_rtol=1e-5 2>&1 | FileCheck %s
// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// CHECK: result[2]: matches the expected output
// CHECK: "dispatches":6,
// CHECK-SAME: "scalar_kernels":0,
func.func @main(%x: tensor<128x768xf32>, %n: tensor<96x640xi32>) -> (tensor<f32>, tensor<i32>, tensor<f32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %seven = arith.constant 7 : i32
  %e = tensor.empty() : tensor<f32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %max = linalg.reduce ins(%x : tensor<128x768xf32>) outs(%fm : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  %ei = tensor.empty() : tensor<i32>
  %fi = linalg.fill ins(%seven : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %isum = linalg.reduce ins(%n : tensor<96x640xi32>) outs(%fi : tensor<i32>) dimensions = [0, 1]
    (%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    }
  %fz = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %fsum = linalg.reduce ins(%x : tensor<128x768xf32>) outs(%fz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %max, %isum, %fsum : tensor<f32>, tensor<i32>, tensor<f32>
}
