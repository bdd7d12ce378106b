// Proves jitrun-codegen-read-padding-in-place in its pipeline: a depthwise convolution
// whose input padding joined its dispatch reads each vector tile of the
// padded input straight from the unpadded input when the tile lies inside
// it (no copy, no stack buffer), and only the tiles that touch the border
// are padded on the stack. The tensor.pad itself is gone; the kernel's one
// stack buffer is the padded tile, not the whole padded input.
// - NHWC (channels innermost, never padded): the 3x10 rows of 16 channels
//   are unrolled, each one vector read under a mask that is all on when the
//   row lies inside the input and all off otherwise (the lanes take the
//   padding value), at a row index clamped into the input; no fill, no loop.
//   Stack: 3 * 10 * 16 * 4 = 1920 bytes.
// - NCHW (the padded width is innermost): the tile is filled with the
//   padding value, then the rows inside the input are copied, one masked
//   vector each, at their offset in the tile. Stack: 3 * 14 * 4 = 168 bytes.
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=tensor.pad --implicit-check-not=linalg.
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline | FileCheck %s --check-prefix=STACK

// CHECK-LABEL: func.func private @dw_dispatch(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x20x24x16xf32>
// CHECK:         %[[PADVAL:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[IN:.*]] = bufferization.to_tensor %[[X]]
// CHECK:         scf.forall
// CHECK:           scf.for
// Inside: the tile's rows 1 <= oh and oh + 3 <= 21, columns 1 <= ow and
// ow + 10 <= 25 of the padded input.
// CHECK:             arith.cmpi sge, %{{.*}}, %c1
// CHECK:             arith.cmpi sle, %{{.*}}, %c21
// CHECK:             arith.cmpi sge, %{{.*}}, %c1
// CHECK:             arith.cmpi sle, %{{.*}}, %c25
// CHECK:             %[[INSIDE:.*]] = arith.andi
// CHECK-NEXT:        scf.if %[[INSIDE]]
// CHECK:               scf.for
// CHECK:                 vector.transfer_read %[[IN]][{{.*}}], {{.*}} : tensor<1x20x24x16xf32>, vector<1x10x16xf32>
// CHECK:                 vector.fma
// CHECK:             } else {
// CHECK:               %[[TILE:.*]] = tensor.empty() : tensor<1x3x10x16xf32>
// CHECK-NOT:           scf.for
// CHECK:               %[[M0:.*]] = vector.broadcast %{{.*}} : i1 to vector<16xi1>
// CHECK:               %[[R0:.*]] = vector.transfer_read %[[IN]][{{.*}}], %[[PADVAL]], %[[M0]] {{.*}} : tensor<1x20x24x16xf32>, vector<16xf32>
// CHECK:               %[[T0:.*]] = vector.transfer_write %[[R0]], %[[TILE]][%c0, %c0, %c0, %c0] {{.*}} : vector<16xf32>, tensor<1x3x10x16xf32>
// CHECK:               vector.transfer_read %[[IN]]
// CHECK:               vector.transfer_write %{{.*}}, %[[T0]][%c0, %c0, %c1, %c0]
// CHECK-COUNT-28:      vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x3x10x16xf32>
// CHECK-NOT:           vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x3x10x16xf32>
// CHECK:               scf.for
// CHECK:                 vector.transfer_read %{{.*}}, {{.*}} : tensor<1x3x10x16xf32>, vector<1x10x16xf32>
// CHECK:                 vector.fma

// STACK: llvm.func @dw_dispatch({{.*}}jitrun.stack_bytes = 1920 : i64
// STACK: llvm.func @dw_nchw_dispatch({{.*}}jitrun.stack_bytes = 168 : i64
func.func private @dw_dispatch(%x: tensor<1x20x24x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x20x24x16xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x20x24x16xf32> to tensor<1x22x26x16xf32>
  %e = tensor.empty() : tensor<1x20x24x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20x24x16xf32>) -> tensor<1x20x24x16xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x22x26x16xf32>, tensor<3x3x16xf32>) outs(%f : tensor<1x20x24x16xf32>) -> tensor<1x20x24x16xf32>
  return %r : tensor<1x20x24x16xf32>
}

// -----

// CHECK-LABEL: func.func private @dw_nchw_dispatch(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x16x20x24xf32>
// CHECK:         %[[PADVAL:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[IN:.*]] = bufferization.to_tensor %[[X]]
// CHECK:         scf.if
// CHECK:           vector.transfer_read %[[IN]]{{.*}} : tensor<1x16x20x24xf32>, vector<1x1x12x1x1x1xf32>
// CHECK:         } else {
// CHECK:           %[[TILE:.*]] = tensor.empty() : tensor<1x1x3x14xf32>
// CHECK:           %[[FILLED:.*]] = vector.transfer_write %{{.*}}, %[[TILE]]{{.*}} : vector<1x1x3x14xf32>, tensor<1x1x3x14xf32>
// CHECK:           %[[ROWS:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[FILLED]])
// CHECK:             scf.for
// CHECK:               %[[ROW:.*]] = vector.transfer_read %[[IN]][{{.*}}], %[[PADVAL]], %{{.*}} {{.*}} : tensor<1x16x20x24xf32>, vector<14xf32>
// CHECK:               vector.transfer_write %[[ROW]], {{.*}} : vector<14xf32>, tensor<1x1x3x14xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read %[[ROWS]]{{.*}} : tensor<1x1x3x14xf32>, vector<1x1x12x1x1x1xf32>
func.func private @dw_nchw_dispatch(%x: tensor<1x16x20x24xf32>, %w: tensor<16x3x3xf32>) -> tensor<1x16x20x24xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x16x20x24xf32> to tensor<1x16x22x26xf32>
  %e = tensor.empty() : tensor<1x16x20x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x20x24xf32>) -> tensor<1x16x20x24xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x16x22x26xf32>, tensor<16x3x3xf32>) outs(%f : tensor<1x16x20x24xf32>) -> tensor<1x16x20x24xf32>
  return %r : tensor<1x16x20x24xf32>
}
