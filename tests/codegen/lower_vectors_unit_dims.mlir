// jitrun-codegen-lower-vectors reads a per-channel constant stored with
// trailing unit dims (ONNX's batch norm scale of an NCHW model, 448x1x1)
// across the channels of an NHWC tile as one contiguous load: the unit dims
// are collapsed into the channel dim first. Without that, the read counted
// as a transposed one and became 32 scalar loads and inserts.
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-vectors))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @channel_scale(
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<448x1x1xf32> into memref<448xf32>
// CHECK:         vector.{{load|transfer_read}} %[[FLAT]][%arg1]{{.*}} vector<32xf32>
// CHECK-NOT:     memref.load
// CHECK-NOT:     : f32 into vector
// CHECK:         return
func.func @channel_scale(%scale: memref<448x1x1xf32>, %c: index) -> vector<1x1x1x32xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %scale[%c, %c0, %c0], %pad
      {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1, d2) -> (0, 0, 0, d0)>}
      : memref<448x1x1xf32>, vector<1x1x1x32xf32>
  return %v : vector<1x1x1x32xf32>
}

// A dim that is not a unit after the read one: a real transposed read, left
// to the permutation lowering.
// CHECK-LABEL: func.func @not_unit(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         return
func.func @not_unit(%scale: memref<448x2x1xf32>, %c: index) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %scale[%c, %c0, %c0], %pad
      {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (0, d0)>}
      : memref<448x2x1xf32>, vector<1x32xf32>
  return %v : vector<1x32xf32>
}
