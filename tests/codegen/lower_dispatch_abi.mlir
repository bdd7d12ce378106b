// jitrun-codegen-lower-dispatch-abi: a result that the host program binds
// to a box of a larger buffer (jitrun.result_strides, set per compile by
// the host lowering) becomes a strided buffer argument, so the kernel
// writes the box in place; a result without strides keeps its own
// row-major buffer. Arguments read from a box (jitrun.arg_strides: a
// concat sharing a larger one's buffer) likewise.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi))' \
// RUN:   --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func private @box(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<2x2xf32> {llvm.noalias},
// CHECK-SAME:    %[[BOX:[a-z0-9]+]]: memref<2x2xf32, strided<[8, 1]>> {llvm.noalias},
// CHECK-SAME:    %[[OWN:[a-z0-9]+]]: memref<2x2xf32> {llvm.noalias}, %{{[a-z0-9]+}}: index)
// CHECK:         bufferization.to_tensor %[[BOX]] restrict writable
// CHECK:         bufferization.materialize_in_destination %{{.+}} in restrict writable %[[BOX]]
// CHECK:         bufferization.materialize_in_destination %{{.+}} in restrict writable %[[OWN]]
func.func private @box(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    attributes {jitrun.dispatch, jitrun.result_strides = [array<i64: 8, 1>, array<i64>]} {
  %e = tensor.empty() : tensor<2x2xf32>
  %s = linalg.add ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %m = linalg.mul ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s, %m : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func private @read_box(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<2x3xf32, strided<[4, 1]>> {llvm.noalias},
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<2x3xf32> {llvm.noalias}, %{{[a-z0-9]+}}: index)
// CHECK:         bufferization.to_tensor %[[IN]] restrict :
func.func private @read_box(%a: tensor<2x3xf32>) -> tensor<2x3xf32>
    attributes {jitrun.dispatch, jitrun.arg_strides = [array<i64: 4, 1>]} {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{has 2 argument strides for 1 arguments}}
func.func private @arg_count(%a: tensor<2xf32>) -> tensor<2xf32>
    attributes {jitrun.dispatch, jitrun.arg_strides = [array<i64: 1>, array<i64: 1>]} {
  return %a : tensor<2xf32>
}

// -----

// expected-error @+1 {{has 2 result strides for 1 results}}
func.func private @count(%a: tensor<2xf32>) -> tensor<2xf32>
    attributes {jitrun.dispatch, jitrun.result_strides = [array<i64: 1>, array<i64: 1>]} {
  return %a : tensor<2xf32>
}

// -----

// expected-error @+1 {{has 1 strides for an operand of type 'tensor<2x2xf32>'}}
func.func private @rank(%a: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {jitrun.dispatch, jitrun.result_strides = [array<i64: 1>]} {
  return %a : tensor<2x2xf32>
}
