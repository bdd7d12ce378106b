// jitrun-codegen-prefetch-weights, with a 1 KB threshold: the packed filter
// of a convolution step (a 2x2x8x32 panel buffer read one 32-float row per
// channel) gets a prefetch of both cache lines of the row 256 bytes (64
// floats) ahead, clamped to the buffer's last element, on a flat view of
// the buffer made once. The input's strided read and a buffer under the
// threshold (a 512-byte bias) get none; with the default 4 MB threshold
// nothing is prefetched.
// RUN: %jit-opt %s --mlir-print-local-scope --pass-pipeline='builtin.module(func.func(jitrun-codegen-prefetch-weights{min-bytes=1024 distance=256}))' \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-prefetch-weights))' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=memref.prefetch

// CHECK-LABEL: func.func @panels(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x4x8xf32>, %[[W:[^:]+]]: memref<2x2x8x32xf32>, %[[B:[^:]+]]: memref<8x16xf32>
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2, 3]] : memref<2x2x8x32xf32> into memref<1024xf32>
// CHECK:         scf.for %[[C:.+]] = %c0 to %c8 step %c1
// CHECK:           %[[AT:.+]] = affine.linearize_index disjoint [%{{.+}}, %{{.+}}, %[[C]], %c0] by (2, 2, 8, 32)
// CHECK:           %[[A0:.+]] = affine.min affine_map<(d0) -> (d0 + 64, 1023)>(%[[AT]])
// CHECK:           memref.prefetch %[[FLAT]][%[[A0]]], read, locality<2>, data : memref<1024xf32>
// CHECK:           %[[A1:.+]] = affine.min affine_map<(d0) -> (d0 + 80, 1023)>(%[[AT]])
// CHECK:           memref.prefetch %[[FLAT]][%[[A1]]], read, locality<2>, data : memref<1024xf32>
// CHECK:           vector.transfer_read %[[W]]
// CHECK-NOT:       memref.prefetch
// CHECK:         return
// DEFAULT-LABEL: func.func @panels(
func.func @panels(%x: memref<1x4x8xf32>, %w: memref<2x2x8x32xf32>, %bias: memref<8x16xf32>, %wg: index) -> vector<32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %r = scf.for %c = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %in = vector.transfer_read %x[%c0, %wg, %c], %pad {in_bounds = [true]} : memref<1x4x8xf32>, vector<1xf32>
    %f = vector.transfer_read %w[%wg, %c1, %c, %c0], %pad {in_bounds = [true]} : memref<2x2x8x32xf32>, vector<32xf32>
    %b = vector.transfer_read %bias[%c, %c0], %pad {in_bounds = [true]} : memref<8x16xf32>, vector<16xf32>
    %e = vector.extract %in[0] : f32 from vector<1xf32>
    %s = vector.broadcast %e : f32 to vector<32xf32>
    %m = arith.mulf %s, %f : vector<32xf32>
    %bb = vector.insert_strided_slice %b, %zero {offsets = [0], strides = [1]} : vector<16xf32> into vector<32xf32>
    %n = arith.addf %m, %bb : vector<32xf32>
    %a = arith.addf %acc, %n : vector<32xf32>
    scf.yield %a : vector<32xf32>
  }
  return %r : vector<32xf32>
}
