// Functions the entry calls are inlined (a call used to fail with "'helper'
// does not reference a valid function"); a call that cannot be inlined,
// unsigned TOSA arithmetic, complex numbers, an 'index' input and a
// negative or NaN tolerance are each an error that names the problem.
// RUN: %jitrun %s --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=CALL
// RUN: %jitrun %s --input=4xf32=1,2,3,4 --reference | FileCheck %s --check-prefix=CALL
// RUN: not %jitrun %s --function=recursive --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=REC
// RUN: not %jitrun %s --function=external --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=EXT
// RUN: not %jitrun %s --function=unsigned_add --input=4xui8=1 --input=4xui8=2 2>&1 | FileCheck %s --check-prefix=UI8
// RUN: not %jitrun %s --function=complex_abs --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not %jitrun %s --input=4xindex=1 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not %jitrun %s --input=4xf32=1 --expected_output=4xf32=2 --expected_atol=-1 2>&1 | FileCheck %s --check-prefix=ATOL
// RUN: not %jitrun %s --input=4xf32=1 --expected_output=4xf32=2 --expected_rtol=nan 2>&1 | FileCheck %s --check-prefix=RTOL
// CALL: result[0]: 4xf32=3 5 7 9
// REC: calls_and_messages.mlir:{{[0-9]+}}:8: error: the call to @recursive_helper cannot be inlined (a recursive call); jitrun compiles one function with its callees inlined
// EXT: calls_and_messages.mlir:{{[0-9]+}}:8: error: the call to @ext cannot be inlined (an external function)
// UI8: calls_and_messages.mlir:{{[0-9]+}}:8: error: this op computes on unsigned integers (tensor<4xui8>), which the TOSA lowering does not support
// COMPLEX: calls_and_messages.mlir:{{[0-9]+}}:10: error: complex numbers are not supported by jitrun ('complex.create' on complex values)
// INDEX: jitrun: error: --input 0: invalid input spec '4xindex=1': 'index' has no fixed size in memory
// ATOL: jitrun: error: --expected_atol must be a finite number of at least 0, not -1
// RTOL: jitrun: error: --expected_rtol must be a finite number of at least 0, not nan
func.func private @twice_plus(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %x = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y = linalg.add ins(%x, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = call @twice_plus(%a, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @recursive_helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @recursive_helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @recursive(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @recursive_helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @ext(%a: tensor<4xf32>) -> tensor<4xf32>
func.func @external(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @ext(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @unsigned_add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %r = tosa.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %r : tensor<4xui8>
}
#map = affine_map<(i) -> (i)>
func.func @complex_abs(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = complex.create %x, %x : complex<f32>
    %m = complex.abs %c : complex<f32>
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
