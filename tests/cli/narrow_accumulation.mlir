// f16 and bf16 matmuls and convolutions accumulate in f32 and round once,
// as PyTorch and oneDNN compute them: summed in f16, 4096 ones stall at
// 2048 (2048 + 1 rounds to even, 2048) and in bf16 512 ones stall at 256;
// jitrun gives 4096 and 512, on every path (the reference path too). The
// all-f16 matmul runs as an f32 one (its operands widened) and the bf16 one
// on vdpbf16ps where the host has it; tests/e2e/NarrowFloatTest.cpp checks
// random values against oneDNN.
// RUN: %jitrun %s --function=f16_dot --input=1x4096xf16=1 --input=4096x16xf16=1 | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=f16_dot --input=1x4096xf16=1 --input=4096x16xf16=1 --force-avx2 --threads=2 | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=f16_dot --input=1x4096xf16=1 --input=4096x16xf16=1 --reference | FileCheck %s --check-prefix=F16
// F16: result[0]: 1x16xf16=[4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096]
// RUN: %jitrun %s --function=bf16_conv --input=1x3x3x512xbf16=1 --input=1x1x512x32xbf16=1 | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --function=bf16_conv --input=1x3x3x512xbf16=1 --input=1x1x512x32xbf16=1 --force-avx2 | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --function=bf16_conv --input=1x3x3x512xbf16=1 --input=1x1x512x32xbf16=1 --reference | FileCheck %s --check-prefix=BF16
// BF16: result[0]: 1x3x3x32xbf16={{\[\[\[}}512 512 512
// BF16-NOT: 256
// f16 weights are widened at compile time, exactly (a subnormal 2^-20 too).
// RUN: %jitrun %s --function=f16_weights --input=1x4xf16=0,1024,0,0 | FileCheck %s --check-prefix=WEIGHTS
// RUN: %jitrun %s --function=f16_weights --input=1x4xf16=1,1,-1,4 | FileCheck %s --check-prefix=WEIGHTS2
// RUN: %jitrun %s --function=f16_weights --input=1x4xf16=1,1,-1,4 --reference | FileCheck %s --check-prefix=WEIGHTS2
// WEIGHTS: result[0]: 1x2xf16=[512 0.000976562]
// WEIGHTS2: result[0]: 1x2xf16=[-65504 10]
// f32 x f16 (weights stored in f16) failed to compile: the vectorizer made
// a vector.contract of mixed operand types.
// RUN: %jitrun %s --function=mixed --input=4x96xf32=1 --input=96x32xf16=0.5 | FileCheck %s --check-prefix=MIXED
// MIXED: result[0]: 4x32xf32=[48 48 48
// An f16 model's values against its own f32 computation (the same values,
// widened exactly): within one f16 rounding of the result.
// RUN: %jitrun %s --function=f16_dot --input=1x4096xf16 --input=4096x16xf16 --seed=3 --output=@%t.f16.npy
// RUN: %jitrun %s --function=f32_dot --input=1x4096xf16 --input=4096x16xf16 --seed=3 --expected_output=@%t.f16.npy --expected_atol=0.02 --expected_rtol=0.001 | FileCheck %s --check-prefix=CLOSE
// CLOSE: result[0]: matches the expected output
func.func @f16_dot(%a: tensor<1x4096xf16>, %b: tensor<4096x16xf16>) -> tensor<1x16xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x16xf16>) -> tensor<1x16xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x16xf16>) outs(%f : tensor<1x16xf16>) -> tensor<1x16xf16>
  return %r : tensor<1x16xf16>
}

func.func @f32_dot(%a: tensor<1x4096xf16>, %b: tensor<4096x16xf16>) -> tensor<1x16xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x16xf16>) outs(%f : tensor<1x16xf32>) -> tensor<1x16xf32>
  %h = tensor.empty() : tensor<1x16xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%r : tensor<1x16xf32>) outs(%h : tensor<1x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %c = arith.truncf %x : f32 to f16
    linalg.yield %c : f16
  } -> tensor<1x16xf16>
  return %t : tensor<1x16xf16>
}

func.func @bf16_conv(%x: tensor<1x3x3x512xbf16>, %k: tensor<1x1x512x32xbf16>) -> tensor<1x3x3x32xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x3x3x32xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<1x3x3x32xbf16>) -> tensor<1x3x3x32xbf16>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %k : tensor<1x3x3x512xbf16>, tensor<1x1x512x32xbf16>) outs(%f : tensor<1x3x3x32xbf16>) -> tensor<1x3x3x32xbf16>
  return %r : tensor<1x3x3x32xbf16>
}

func.func @mixed(%a: tensor<4x96xf32>, %b: tensor<96x32xf16>) -> tensor<4x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x96xf32>, tensor<96x32xf16>) outs(%f : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

func.func @f16_weights(%a: tensor<1x4xf16>) -> tensor<1x2xf16> {
  %w = arith.constant dense<[[1.0, -2.0], [0.5, 9.5367431640625e-07], [65504.0, 0.0], [-0.25, 3.0]]> : tensor<4x2xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x2xf16>) -> tensor<1x2xf16>
  %r = linalg.matmul ins(%a, %w : tensor<1x4xf16>, tensor<4x2xf16>) outs(%f : tensor<1x2xf16>) -> tensor<1x2xf16>
  return %r : tensor<1x2xf16>
}
