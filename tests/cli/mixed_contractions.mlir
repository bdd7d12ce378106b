// Contractions whose operands are narrower than their result (found by the
// differential fuzzer): an i8 x i8 -> i32 batch_matmul, which every int8
// tosa.matmul becomes, and i16 -> i32 and f16 -> f32 ones failed with
// "failed to translate a kernel module to LLVM IR" outside --reference.
// Values: a row of 7 (or 8) products, worked out by hand; -128 * -128 shows
// the operands are read signed and widened before they are multiplied.
// RUN: %jitrun %s --function=tosa_i8 --input=1x1x7xi8=-128,1,2,3,4,5,6 --input=1x7x1xi8=-128,1,1,1,1,1,1 | FileCheck %s --check-prefix=TOSA
// RUN: %jitrun %s --function=tosa_i8 --input=1x1x7xi8=-128,1,2,3,4,5,6 --input=1x7x1xi8=-128,1,1,1,1,1,1 --force-avx2 | FileCheck %s --check-prefix=TOSA
// RUN: %jitrun %s --function=tosa_i8 --input=1x1x7xi8=-128,1,2,3,4,5,6 --input=1x7x1xi8=-128,1,1,1,1,1,1 --reference | FileCheck %s --check-prefix=TOSA
// RUN: %jitrun %s --function=bmm_i8 --input=2x3x8xi8=-3 --input=2x8x4xi8=5 --threads=2 | FileCheck %s --check-prefix=I8
// RUN: %jitrun %s --function=bmm_i8 --input=2x3x8xi8=-3 --input=2x8x4xi8=5 --fusion=aggressive --force-avx2 | FileCheck %s --check-prefix=I8
// RUN: %jitrun %s --function=bmm_i16 --input=1x3x8xi16=-300 --input=1x8x4xi16=1000 | FileCheck %s --check-prefix=I16
// RUN: %jitrun %s --function=bmm_f16 --input=1x3x8xf16=0.5 --input=1x8x4xf16=-1.5 | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=bmm_f16 --input=1x3x8xf16=0.5 --input=1x8x4xf16=-1.5 --force-avx2 | FileCheck %s --check-prefix=F16
// 16384 + 1 + 2 + 3 + 4 + 5 + 6:
// TOSA: result[0]: 1x1x1xi32={{\[+}}16405{{\]+}}
// 8 x (-3 x 5):
// I8: result[0]: 2x3x4xi32={{\[+}}-120 -120 -120 -120]
// 8 x (-300 x 1000), past i16:
// I16: result[0]: 1x3x4xi32={{\[+}}-2400000 -2400000 -2400000 -2400000]
// F16: result[0]: 1x3x4xf32={{\[+}}-6 -6 -6 -6]
func.func @tosa_i8(%a: tensor<1x1x7xi8>, %b: tensor<1x7x1xi8>) -> tensor<1x1x1xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.matmul %a, %b, %zp, %zp : (tensor<1x1x7xi8>, tensor<1x7x1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1xi32>
  return %r : tensor<1x1x1xi32>
}
func.func @bmm_i8(%a: tensor<2x3x8xi8>, %b: tensor<2x8x4xi8>) -> tensor<2x3x4xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x3x4xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x8xi8>, tensor<2x8x4xi8>) outs(%f : tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  return %r : tensor<2x3x4xi32>
}
func.func @bmm_i16(%a: tensor<1x3x8xi16>, %b: tensor<1x8x4xi16>) -> tensor<1x3x4xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x3x4xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x3x4xi32>) -> tensor<1x3x4xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x3x8xi16>, tensor<1x8x4xi16>) outs(%f : tensor<1x3x4xi32>) -> tensor<1x3x4xi32>
  return %r : tensor<1x3x4xi32>
}
func.func @bmm_f16(%a: tensor<1x3x8xf16>, %b: tensor<1x8x4xf16>) -> tensor<1x3x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x3x8xf16>, tensor<1x8x4xf16>) outs(%f : tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}
