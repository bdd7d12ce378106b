// The other runs of this input: tests/pipeline/tosa_import.mlir.
// A small TOSA graph (TOSA 1.0 syntax, as MLIR 22 parses it) through the
// import pipeline: it comes out as linalg on tensors with no tosa op left;
// and the same graph compiled and run by jitrun, against hand-computed
// results.
//
//
// matmul_bias_relu6: a = [[1,2,3],[4,5,6]], b = 0.25 everywhere, so the
// matmul rows are 6*0.25 = 1.5 and 15*0.25 = 3.75. Adding the bias
// [1,-20,3,100] gives [2.5,-18.5,4.5,101.5] and [4.75,-16.25,6.75,103.75];
// clamping to [0,6] gives [2.5,0,4.5,6] and [4.75,0,6,6] (every branch of the
// clamp is taken).
// RUN: %jitrun %s --function=matmul_bias_relu6 --input=1x2x3xf32=1,2,3,4,5,6 \
// RUN:   --input=1x3x4xf32=0.25 --expected_output=1x2x4xf32=2.5,0,4.5,6,4.75,0,6,6 \
// RUN:   | FileCheck %s --check-prefix=EXEC
// A wrong expectation is reported as a mismatch (exit 1).
// RUN: not %jitrun %s --function=matmul_bias_relu6 --input=1x2x3xf32=1,2,3,4,5,6 \
// RUN:   --input=1x3x4xf32=0.25 --expected_output=1x2x4xf32=2.5,0,4.5,6,4.75,0,6,7 \
// RUN:   2>&1 | FileCheck %s --check-prefix=MISMATCH
//
// conv_relu: x = 1 everywhere, w = 1 everywhere, 3x3 window over 2 channels:
// each output is 18, plus the bias [-10,0,10] gives [8,18,28], clamped to
// [0,25] gives [8,18,25] at each of the 2x2 positions.
// RUN: %jitrun %s --function=conv_relu --input=1x4x4x2xf32=1 \
// RUN:   --expected_output=1x2x2x3xf32=8,18,25,8,18,25,8,18,25,8,18,25 \
// RUN:   | FileCheck %s --check-prefix=EXEC
//
// EXEC: result[0]: matches the expected output
// MISMATCH: mismatch at index [0,1,3]: got 6, expected 7

func.func @matmul_bias_relu6(%a: tensor<1x2x3xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x2x4xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x3xf32>, tensor<1x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  %bias = "tosa.const"() <{values = dense<[[[1.0, -20.0, 3.0, 100.0]]]> : tensor<1x1x4xf32>}> : () -> tensor<1x1x4xf32>
  %s = tosa.add %m, %bias : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %c = tosa.clamp %s {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %c : tensor<1x2x4xf32>
}

// -----

// The conv's bias becomes a broadcast generic that initializes the conv's
// accumulator; TOSA's OHWI weights give the FHWC named conv, whose filter is
// transposed to HWCF (jitrun-fusion-convolution-layouts) for codegen.
func.func @conv_relu(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<3x3x3x2xf32>}> : () -> tensor<3x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<[-10.0, 0.0, 10.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x3xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 25.0 : f32} : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %r : tensor<1x2x2x3xf32>
}
