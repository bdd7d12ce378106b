// jitrun-codegen-legalize-memory-types: bf16 buffers are stored as i16,
// loads bitcast back; a prefetch of a bf16 buffer (jitrun-codegen-
// prefetch-weights on bf16 weight panels) follows its buffer to i16 instead
// of failing the kernel's compile as an illegal op.
// RUN: %jit-opt %s --jitrun-codegen-legalize-memory-types | FileCheck %s

// CHECK-LABEL: func.func @prefetch_bf16(
// CHECK-SAME:    %[[W:[^:]+]]: memref<4x32xi16>, %[[I:[^:]+]]: index) -> vector<32xbf16>
// CHECK:         memref.prefetch %[[W]][%[[I]], %{{.+}}], read, locality<2>, data : memref<4x32xi16>
// CHECK:         %[[V:.+]] = vector.load %[[W]][%[[I]], %{{.+}}] : memref<4x32xi16>, vector<32xi16>
// CHECK:         %[[B:.+]] = arith.bitcast %[[V]] : vector<32xi16> to vector<32xbf16>
// CHECK:         return %[[B]]
func.func @prefetch_bf16(%w: memref<4x32xbf16>, %i: index) -> vector<32xbf16> {
  %c0 = arith.constant 0 : index
  memref.prefetch %w[%i, %c0], read, locality<2>, data : memref<4x32xbf16>
  %v = vector.load %w[%i, %c0] : memref<4x32xbf16>, vector<32xbf16>
  return %v : vector<32xbf16>
}
