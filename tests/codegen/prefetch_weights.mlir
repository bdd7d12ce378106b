// jitrun-codegen-prefetch-weights, with a 1 KB threshold: the packed filter
// of a convolution step (a 2x2x8x32 panel buffer read one 32-float row per
// channel) gets a prefetch of both cache lines of the row 256 bytes (64
// floats) ahead, clamped to the buffer's last element, on a flat view of
// the buffer made once. The input's strided read and a buffer under the
// threshold (a 512-byte bias) get none; with the default 4 MB threshold
// nothing is prefetched.
//
// @passes: a workgroup's two panels (1024 floats) read again for each of
// three tiles of rows (a loop that does not index the weights): with a
// 1 KB region threshold, each of the 32 steps of a pass prefetches a line
// 11 floats (32 / 3, rounded up) further into the next workgroup's region
// (its indices at workgroup id + 1), pass p from 352 * p on, so that the
// three passes fetch it all; from a base clamped (992) so that the last
// workgroup's stay in the buffer. @halves: two workgroups per panel
// (delinearized ids), each reading its panel for half of the rows: every
// other next workgroup reads the next panel, which is prefetched. Under the
// default 256 KB region threshold (and with min-bytes alone) it gets the
// line-ahead prefetch or nothing. @rows_split: the same loops, but the
// workgroups split the rows and all read the same panels: the next
// workgroup's region is this one, so no region prefetch.
// RUN: %jit-opt %s --mlir-print-local-scope --pass-pipeline='builtin.module(func.func(jitrun-codegen-prefetch-weights{min-bytes=1024 distance=256}))' \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --pass-pipeline='builtin.module(func.func(jitrun-codegen-prefetch-weights))' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=memref.prefetch
// RUN: %jit-opt %s --mlir-print-local-scope --pass-pipeline='builtin.module(func.func(jitrun-codegen-prefetch-weights{region-min-bytes=1024}))' \
// RUN:   | FileCheck %s --check-prefix=REGION

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
// REGION-LABEL: func.func @panels(
// REGION-NOT:   memref.prefetch
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

// CHECK-LABEL: func.func @passes(
// CHECK:         affine.min affine_map<(d0) -> (d0 + 64, 2047)>
// CHECK:         memref.prefetch
// DEFAULT-LABEL: func.func @passes(
// REGION-LABEL: func.func @passes(
// REGION-SAME:    %{{[^:]+}}: memref<36x16xf32>, %[[W:[^:]+]]: memref<4x16x32xf32>, %{{[^:]+}}: memref<36x4x32xf32>, %[[WG:[^:]+]]: index
// REGION:         %[[FLAT:.+]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2]] : memref<4x16x32xf32> into memref<2048xf32>
// REGION:         scf.for %[[R:[^ ]+]] = %c0 to %c36 step %c12
// REGION:           scf.for %[[P:[^ ]+]] = %c0 to %c2 step %c1
// REGION:             scf.for %[[K:[^ ]+]] = %c0 to %c16 step %c1
// REGION:               %[[NEXT:.+]] = affine.apply affine_map<(d0) -> (d0 + 1)>(%[[WG]])
// REGION:               %[[PANEL:.+]] = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%[[NEXT]], %c0)
// REGION:               %[[START:.+]] = affine.linearize_index disjoint [%[[PANEL]], %c0, %c0] by (4, 16, 32)
// REGION:               %[[BASE:.+]] = affine.min affine_map<(d0) -> (d0, 992)>(%[[START]])
// REGION:               %[[STEP:.+]] = affine.linearize_index disjoint [%[[P]], %[[K]]] by (2, 16)
// REGION:               %[[PASS:.+]] = affine.apply affine_map<(d0) -> (d0 floordiv 12)>(%[[R]])
// REGION:               %[[IDX:.+]] = affine.apply affine_map<(d0, d1, d2) -> (d0 + d1 * 352 + d2 * 11)>(%[[BASE]], %[[PASS]], %[[STEP]])
// REGION:               memref.prefetch %[[FLAT]][%[[IDX]]], read, locality<2>, data : memref<2048xf32>
// REGION-NOT:           memref.prefetch
// REGION:               vector.transfer_read %[[W]]
// REGION-NOT:         memref.prefetch
// REGION:         return
func.func @passes(%x: memref<36x16xf32>, %w: memref<4x16x32xf32>, %y: memref<36x4x32xf32>, %wg: index)
    attributes {jitrun.workgroups = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c36 = arith.constant 36 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c36 step %c12 {
    scf.for %p = %c0 to %c2 step %c1 {
      %panel = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%wg, %p)
      %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (vector<32xf32>) {
        %in = vector.transfer_read %x[%r, %k], %pad {in_bounds = [true]} : memref<36x16xf32>, vector<1xf32>
        %f = vector.transfer_read %w[%panel, %k, %c0], %pad {in_bounds = [true]} : memref<4x16x32xf32>, vector<32xf32>
        %e = vector.extract %in[0] : f32 from vector<1xf32>
        %s = vector.broadcast %e : f32 to vector<32xf32>
        %n = vector.fma %s, %f, %a : vector<32xf32>
        scf.yield %n : vector<32xf32>
      }
      vector.transfer_write %acc, %y[%r, %panel, %c0] {in_bounds = [true]} : vector<32xf32>, memref<36x4x32xf32>
    }
  }
  return
}

// REGION-LABEL: func.func @rows_split(
// REGION-NOT:   memref.prefetch
// REGION:       return
func.func @rows_split(%x: memref<72x16xf32>, %w: memref<2x16x32xf32>, %y: memref<72x2x32xf32>, %wg: index)
    attributes {jitrun.workgroups = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c36 = arith.constant 36 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c36 step %c12 {
    %row = affine.apply affine_map<(d0, d1) -> (d0 * 36 + d1)>(%wg, %r)
    scf.for %p = %c0 to %c2 step %c1 {
      %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (vector<32xf32>) {
        %in = vector.transfer_read %x[%row, %k], %pad {in_bounds = [true]} : memref<72x16xf32>, vector<1xf32>
        %f = vector.transfer_read %w[%p, %k, %c0], %pad {in_bounds = [true]} : memref<2x16x32xf32>, vector<32xf32>
        %e = vector.extract %in[0] : f32 from vector<1xf32>
        %s = vector.broadcast %e : f32 to vector<32xf32>
        %n = vector.fma %s, %f, %a : vector<32xf32>
        scf.yield %n : vector<32xf32>
      }
      vector.transfer_write %acc, %y[%row, %p, %c0] {in_bounds = [true]} : vector<32xf32>, memref<72x2x32xf32>
    }
  }
  return
}

// REGION-LABEL: func.func @halves(
// REGION:         affine.delinearize_index %{{.+}} into (2, 2)
// REGION:         scf.for
// REGION:           scf.for
// REGION:             %[[N:.+]] = affine.apply affine_map<(d0) -> (d0 + 1)>
// REGION:             %[[S:.+]]:2 = affine.delinearize_index %[[N]] into (2, 2)
// REGION:             affine.linearize_index disjoint [%[[S]]#0, %c0, %c0] by (2, 16, 32)
// REGION:             memref.prefetch
// REGION:             vector.transfer_read %{{.+}}[%{{.+}}#0, %{{.+}}, %c0]
func.func @halves(%x: memref<72x16xf32>, %w: memref<2x16x32xf32>, %y: memref<72x2x32xf32>, %wg: index)
    attributes {jitrun.workgroups = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c36 = arith.constant 36 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %split:2 = affine.delinearize_index %wg into (2, 2) : index, index
  scf.for %r = %c0 to %c36 step %c12 {
    %row = affine.apply affine_map<(d0, d1) -> (d0 * 36 + d1)>(%split#1, %r)
    %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (vector<32xf32>) {
      %in = vector.transfer_read %x[%row, %k], %pad {in_bounds = [true]} : memref<72x16xf32>, vector<1xf32>
      %f = vector.transfer_read %w[%split#0, %k, %c0], %pad {in_bounds = [true]} : memref<2x16x32xf32>, vector<32xf32>
      %e = vector.extract %in[0] : f32 from vector<1xf32>
      %s = vector.broadcast %e : f32 to vector<32xf32>
      %n = vector.fma %s, %f, %a : vector<32xf32>
      scf.yield %n : vector<32xf32>
    }
    vector.transfer_write %acc, %y[%row, %split#0, %c0] {in_bounds = [true]} : vector<32xf32>, memref<72x2x32xf32>
  }
  return
}
