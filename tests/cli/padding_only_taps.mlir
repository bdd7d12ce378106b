// The other runs of this input: tests/fusion/padding_only_taps.mlir, tests/pipeline/padding_only_taps.mlir.
// Filter taps that read only the zero padding for every output are dropped
// (jitrun-fusion-convolution-layouts, DropPaddingOnlyTaps): the convolution
// keeps the taps that read the image, over the part of the padded image they
// read. A 3x3 filter over a 1x1 image padded by 1 keeps its centre, a 1x1
// convolution of the unpadded image (resnet18's last stage on 32x32 images,
// which read a 9.4 MB filter for 1 MB of it); stride 2 over a 2x2 image
// drops the first row and column of taps and the padding. A constant
// filter's kept taps are folded into a constant at compile time
// (FoldConstantSlice), not copied on every run. Values: oneDNN checks these
// shapes in tests/e2e/ConvTest.cpp ("padding-only taps"); here, the
// reference path.
//
// RUN: %jitrun %s --function=centre --input=1x1x1x2xf32 --reference --output=@%t.c.npy
// RUN: %jitrun %s --function=centre --input=1x1x1x2xf32 --expected_output=@%t.c.npy | FileCheck %s --check-prefix=VALUES
// VALUES: result[0]: matches the expected output

func.func @centre(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x4xf32> {
  %w = arith.constant dense<[[[[0.25, 0.48, 0.59, 0.88], [0.48, 0.84, -0.94, -0.07]], [[0.89, 0.30, 0.80, -0.77], [-0.06, -0.51, 0.09, 0.15]], [[-0.97, -0.57, -0.44, 0.83], [0.53, -0.68, 0.59, -0.72]]], [[[0.23, -0.75, -1.00, 0.74], [-0.58, -0.57, 0.96, 0.74]], [[-0.42, 0.92, 0.08, 0.36], [-0.59, 0.88, 0.38, 0.93]], [[0.79, -0.40, -0.28, -0.67], [-0.71, -0.87, -0.40, 0.21]]], [[[-0.99, 0.36, -0.32, -0.38], [0.64, -0.04, -0.37, -0.04]], [[0.41, -0.89, 0.95, -0.95], [0.50, 0.69, -0.96, 0.58]], [[-0.27, 0.16, -0.98, -0.91], [-0.64, 0.91, -0.61, 0.51]]]]> : tensor<3x3x2x4xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x1x2xf32> to tensor<1x3x3x2xf32>
  %e = tensor.empty() : tensor<1x1x1x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%p, %w : tensor<1x3x3x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  return %c : tensor<1x1x1x4xf32>
}

// A filter that is an argument is sliced on the host (a copy per run).
func.func @strided(%x: tensor<1x2x2x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x1x1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x2x8xf32> to tensor<1x4x4x8xf32>
  %e = tensor.empty() : tensor<1x1x1x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%p, %w : tensor<1x4x4x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  return %c : tensor<1x1x1x16xf32>
}

// A pad value other than zero keeps every tap.
func.func @nonzero_pad(%x: tensor<1x1x1x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x1x1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x1x1x2xf32> to tensor<1x3x3x2xf32>
  %e = tensor.empty() : tensor<1x1x1x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%p, %w : tensor<1x3x3x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  return %c : tensor<1x1x1x4xf32>
}
