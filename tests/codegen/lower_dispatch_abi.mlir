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

// -----

// A generic kernel (jitrun.generic_dim): buffers come as bare pointers
// (rank-0 memrefs) viewed at the dim, which follows them and is taken as at
// least 1; a dynamic dim makes the row-major strides outside it dynamic,
// given strides stay as they are.
// CHECK-LABEL: func.func private @generic(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<f32> {llvm.noalias},
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<f32> {llvm.noalias},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<f32> {llvm.noalias},
// CHECK-SAME:    %[[DIM:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index)
// CHECK:         %[[D:.+]] = affine.max #{{.+}}(%[[DIM]])
// CHECK:         %[[AV:.+]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [3, %[[D]]], strides: [%[[D]], 1]
// CHECK-SAME:      memref<f32> to memref<3x?xf32, strided<[?, 1]>>
// CHECK:         memref.reinterpret_cast %[[B]] to offset: [0], sizes: [3, %[[D]]], strides: [64, 1]
// CHECK-SAME:      memref<f32> to memref<3x?xf32, strided<[64, 1]>>
// CHECK:         %[[OV:.+]] = memref.reinterpret_cast %[[OUT]]
// CHECK:         tensor.empty(%[[D]]) : tensor<3x?xf32>
// CHECK:         bufferization.materialize_in_destination %{{.+}} in restrict writable %[[OV]]
func.func private @generic(%a: tensor<3x?xf32>, %b: tensor<3x?xf32>, %d: index) -> tensor<3x?xf32>
    attributes {jitrun.dispatch, jitrun.generic_dim = 40 : i64,
                jitrun.arg_strides = [array<i64>, array<i64: 64, 1>]} {
  %e = tensor.empty(%d) : tensor<3x?xf32>
  %s = linalg.add ins(%a, %b : tensor<3x?xf32>, tensor<3x?xf32>) outs(%e : tensor<3x?xf32>) -> tensor<3x?xf32>
  return %s : tensor<3x?xf32>
}

// -----

// expected-error @+1 {{is a generic kernel without a trailing index argument}}
func.func private @generic_no_dim(%a: tensor<?xf32>) -> tensor<?xf32>
    attributes {jitrun.dispatch, jitrun.generic_dim = 4 : i64} {
  return %a : tensor<?xf32>
}

// -----

// expected-error @+1 {{dispatch operand of type 'tensor<?xf32>' is not a statically shaped tensor}}
func.func private @dynamic_not_generic(%a: tensor<?xf32>) -> tensor<?xf32>
    attributes {jitrun.dispatch} {
  return %a : tensor<?xf32>
}
