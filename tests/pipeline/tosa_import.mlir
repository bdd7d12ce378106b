// The other runs of this input: tests/cli/tosa_import.mlir.
// A small TOSA graph (TOSA 1.0 syntax, as MLIR 22 parses it) through the
// import pipeline: it comes out as linalg on tensors with no tosa op left;
// and the same graph compiled and run by jitrun, against hand-computed
// results.
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(jitrun-import-pipeline)' | FileCheck %s
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(jitrun-import-pipeline)' | FileCheck %s --check-prefix=NOTOSA
// NOTOSA-NOT: tosa.
//
// matmul_bias_relu6: a = [[1,2,3],[4,5,6]], b = 0.25 everywhere, so the
// matmul rows are 6*0.25 = 1.5 and 15*0.25 = 3.75. Adding the bias
// [1,-20,3,100] gives [2.5,-18.5,4.5,101.5] and [4.75,-16.25,6.75,103.75];
// clamping to [0,6] gives [2.5,0,4.5,6] and [4.75,0,6,6] (every branch of the
// clamp is taken).
// A wrong expectation is reported as a mismatch (exit 1).
//
// conv_relu: x = 1 everywhere, w = 1 everywhere, 3x3 window over 2 channels:
// each output is 18, plus the bias [-10,0,10] gives [8,18,28], clamped to
// [0,25] gives [8,18,25] at each of the 2x2 positions.
//

// CHECK-LABEL: func.func @matmul_bias_relu6(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<1x2x3xf32>, %[[B:[^:]+]]: tensor<1x3x4xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG:     %[[BIAS:.+]] = arith.constant dense<{{.*}}> : tensor<1x1x4xf32>
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<1x2x4xf32>)
// CHECK:         %[[MM:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[FILL]] : tensor<1x2x4xf32>)
// CHECK:         %[[ADD:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[MM]], %[[BIAS]] : tensor<1x2x4xf32>, tensor<1x1x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[CLAMP:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[ADD]] : tensor<1x2x4xf32>)
// CHECK:           %[[LO:.+]] = arith.minimumf %{{.+}}, %[[SIX]] : f32
// CHECK:           arith.maximumf %[[LO]], %[[ZERO]] : f32
// CHECK:         return %[[CLAMP]] : tensor<1x2x4xf32>
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
// CHECK-LABEL: func.func @conv_relu(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x4x4x2xf32>
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<1.000000e+00> : tensor<3x3x3x2xf32>
// CHECK-DAG:     %[[B:.+]] = arith.constant dense<[-1.000000e+01, 0.000000e+00, 1.000000e+01]> : tensor<3xf32>
// CHECK:         %[[INIT:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[B]] : tensor<3xf32>)
// CHECK:         %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<3x3x3x2xf32>) outs(%{{.*}} : tensor<3x3x2x3xf32>) permutation = [1, 2, 3, 0]
// CHECK:         %[[CONV:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:      ins(%[[X]], %[[WT]] : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) outs(%[[INIT]] : tensor<1x2x2x3xf32>)
// CHECK:         %[[CLAMP:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[CONV]] : tensor<1x2x2x3xf32>)
// CHECK:           arith.minimumf
// CHECK:           arith.maximumf
// CHECK:         return %[[CLAMP]] : tensor<1x2x2x3xf32>
func.func @conv_relu(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<3x3x3x2xf32>}> : () -> tensor<3x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<[-10.0, 0.0, 10.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x3xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 25.0 : f32} : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %r : tensor<1x2x2x3xf32>
}
