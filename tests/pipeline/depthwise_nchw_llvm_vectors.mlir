// What should hold: after the whole jitrun-codegen-pipeline, an NCHW
// depthwise convolution (linalg.depthwise_conv_2d_nchw_chw, 3x3 filter, a
// 16-wide output) multiplies and accumulates whole rows of 16 output pixels,
// i.e. its arithmetic is on vector<16xf32> (llvm.fmul + llvm.fadd or
// llvm.intr.fmuladd), and none of it is done one lane at a time on
// vector<1xf32>. Checked for stride 2 and for stride 1.
//
// The generic that unitWindowConvToGeneric builds keeps the named op's loop
// order (n, oh, ow, c, kh, kw), so its vectors are vector<1x1x16x1x1x1xf32>;
// jitrun-codegen-lower-vectors drops the unit dimensions with shape casts so
// the arithmetic runs on whole 16-lane registers.
//
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline \
// RUN:   | FileCheck %s --implicit-check-not='{{llvm\.(fmul|fadd|intr\.fmuladd).*vector<1xf32>}}'

// CHECK-LABEL: llvm.func @depthwise_s2_out16(
// CHECK:         {{llvm\.fmul|llvm\.intr\.fmuladd}}{{.*}}vector<16xf32>
// CHECK:         llvm.return

func.func private @depthwise_s2_out16(%x: tensor<1x32x33x33xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x16x16xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x32x33x33xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %c : tensor<1x32x16x16xf32>
}

// -----

// CHECK-LABEL: llvm.func @depthwise_s1_out16(
// CHECK:         {{llvm\.fmul|llvm\.intr\.fmuladd}}{{.*}}vector<16xf32>
// CHECK:         llvm.return

func.func private @depthwise_s1_out16(%x: tensor<1x32x18x18xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x16x16xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x32x18x18xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %c : tensor<1x32x16x16xf32>
}
