// Proves that an NHWC convolution (linalg.conv_2d_nhwc_hwcf, 1x18x18x32 input,
// 3x3x32x64 filter) and an elementwise generic (a * b + bias, relu; 64x80) are
// vectorized by jitrun-codegen-tile-and-vectorize with the default AVX-512
// width, and stay vector code through the whole jitrun-codegen-pipeline:
//
// - the convolution: filter rows, filter columns and input channels are
//   tiled to 1 (the op decomposes to 1-D convolutions of one tap), each step
//   a vector.contract of 8 output pixels x 1 input channel by 1 input channel
//   x 32 output channels (two AVX-512 registers): an outer product, the
//   register kernel of a matmul. In LLVM dialect each step of the innermost
//   loop is 8 llvm.intr.fmuladd on vector<32xf32> (one per pixel, its input
//   broadcast) fed by one vector load of the filter, with the 8 accumulators
//   carried in registers through the three reduction loops;
// - the elementwise op: rows of 32 elements (2 x 16 lanes) and, the column
//   loop being peeled, a static 16-lane edge (80 = 2 x 32 + 16), no masks;
//   arith ops on vector<1x32xf32>, then llvm.fmul, llvm.fadd,
//   llvm.intr.maximum on vector<32xf32> (and vector<16xf32> at the edge)
//   between plain loads and stores.
//
// No linalg op or scalar tensor.extract is left after vectorization, and no
// scalar f32 load or f32 / vector<1xf32> arithmetic in the LLVM dialect.
//
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not='{{tensor\.extract[^_]}}'
// RUN: %jit-opt %s --split-input-file --jitrun-codegen-pipeline \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not='!llvm.ptr -> f32' \
// RUN:       --implicit-check-not='{{llvm\.f(mul|add) .*: f32}}' \
// RUN:       --implicit-check-not='{{llvm\.(fmul|fadd|intr\.fmuladd).*vector<1xf32>}}' \
// RUN:       --implicit-check-not='{{llvm\.intr\.fmuladd.*\(f32}}' --implicit-check-not=llvm.alloca

// CHECK-LABEL: func.func private @conv_nhwc_dispatch(
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x8x32xf32>
// Workgroups: one output row x 8 output pixels.
// CHECK:         scf.forall (%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) = (0, 0) to (16, 16) step (1, 8)
// 32 output channels at a time.
// CHECK:           scf.for %[[OC:[a-z0-9]+]] = %c0 to %c64 step %c32
// CHECK:             vector.transfer_write %[[ZERO]], %{{.*}} : vector<1x1x8x32xf32>, tensor<1x1x8x32xf32>
// Filter rows, filter columns, input channels, one at a time.
// CHECK:             scf.for %[[KH:[a-z0-9]+]] = %c0 to %c3 step %c1
// CHECK:               scf.for %[[KW:[a-z0-9]+]] = %c0 to %c3 step %c1
// CHECK:                 scf.for %[[IC:[a-z0-9]+]] = %c0 to %c32 step %c1
// 8 input pixels of one channel, one filter row of 32 output channels.
// CHECK:                   %[[X:.*]] = vector.transfer_read %{{.*}}[%c0, %{{.*}}, %{{.*}}, %[[IC]]], %{{.*}} : tensor<1x18x18x32xf32>, vector<1x8x1xf32>
// CHECK:                   %[[W:.*]] = vector.transfer_read %{{.*}}[%[[KH]], %[[KW]], %[[IC]], %[[OC]]], %{{.*}} : tensor<3x3x32x64xf32>, vector<1x1x32xf32>
// CHECK:                   vector.transfer_read %{{.*}} : tensor<1x1x8x32xf32>, vector<1x8x32xf32>
// CHECK:                   %[[W1:.*]] = vector.extract %[[W]][0] : vector<1x32xf32> from vector<1x1x32xf32>
// CHECK:                   vector.contract {{.*}} %[[X]], %[[W1]], %{{.*}} : vector<1x8x1xf32>, vector<1x32xf32> into vector<1x8x32xf32>
// CHECK:                   vector.transfer_write %{{.*}} : vector<1x8x32xf32>, tensor<1x1x8x32xf32>
// CHECK:           scf.forall.in_parallel
// CHECK:         return

// LLVM-LABEL: llvm.func @conv_nhwc_dispatch(
// LLVM-SAME:      jitrun.stack_bytes = 0 : i64
// LLVM-SAME:      jitrun.workgroups = 32 : i64
// The fill: 8 rows of 32 output channels.
// LLVM-COUNT-8:  llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// The accumulators: 8 rows of 32 channels, loaded once and carried in
// registers through the filter-row, filter-column and input-channel loops.
// LLVM-COUNT-8:  llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// LLVM:        ^bb{{[0-9]+}}(%{{[0-9]+}}: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// LLVM:        ^bb{{[0-9]+}}(%{{[0-9]+}}: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// LLVM:        ^bb[[HEAD:[0-9]+]](%{{[0-9]+}}: i64, %{{[0-9]+}}: !llvm.array<8 x vector<32xf32>>):
// LLVM-NEXT:     llvm.icmp "slt"
// LLVM-NEXT:     llvm.cond_br %{{[0-9]+}}, ^bb[[BODY:[0-9]+]], ^bb{{[0-9]+}}
// LLVM:        ^bb[[BODY]]:
// 8 input pixels of one channel and one filter row of 32 channels; no
// accumulator traffic in the loop.
// LLVM-COUNT-8:  llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
// LLVM-NOT:      {{llvm.store|\^bb}}
// LLVM:          llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// LLVM-NOT:      {{llvm.store|llvm.load|\^bb}}
// LLVM-COUNT-8:  llvm.intr.fmuladd(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// LLVM-NOT:      {{llvm.store|llvm.load|\^bb}}
// LLVM:          llvm.br ^bb[[HEAD]](
// The accumulators are stored once, after the three loops.
// LLVM-COUNT-8:  llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// LLVM:          llvm.return

func.func private @conv_nhwc_dispatch(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x16x16x64xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %c : tensor<1x16x16x64xf32>
}

// -----

// CHECK-LABEL: func.func private @mul_bias_relu_dispatch(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<64x80xf32>{{[^,]*}}, %[[B:[a-z0-9]+]]: memref<64x80xf32>{{[^,]*}}, %[[BIAS:[a-z0-9]+]]: memref<80xf32>{{[^,]*}}, %{{[a-z0-9]+}}: memref<64x80xf32>{{[^,]*}}, %{{[a-z0-9]+}}: index)
// 80 = 2 x 32 + 16: the column loop is peeled, full tiles of 32 lanes and
// a static 16-lane edge, neither masked.
// CHECK:         %[[ZERO16:.*]] = arith.constant dense<0.000000e+00> : vector<1x16xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x32xf32>
// CHECK:         %[[TA:.*]] = bufferization.to_tensor %[[A]]
// CHECK:         %[[TB:.*]] = bufferization.to_tensor %[[B]]
// CHECK:         %[[TBIAS:.*]] = bufferization.to_tensor %[[BIAS]]
// CHECK:         scf.for %[[I:[a-z0-9]+]] = %c0 to %c64 step %c1
// CHECK:           scf.for %[[J:[a-z0-9]+]] = %c0 to %c64 step %c32
// CHECK-NOT:         vector.mask
// CHECK:             %[[X:.*]] = vector.transfer_read %[[TA]][%[[I]], %[[J]]], %{{.*}} : tensor<64x80xf32>, vector<1x32xf32>
// CHECK:             %[[Y:.*]] = vector.transfer_read %[[TB]][%[[I]], %[[J]]], %{{.*}} : tensor<64x80xf32>, vector<1x32xf32>
// CHECK:             %[[Z:.*]] = vector.transfer_read %[[TBIAS]][%[[J]]], %{{.*}} : tensor<80xf32>, vector<1x32xf32>
// CHECK:             %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : vector<1x32xf32>
// CHECK:             %[[S:.*]] = arith.addf %[[P]], %[[Z]] : vector<1x32xf32>
// CHECK:             %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : vector<1x32xf32>
// CHECK:             vector.transfer_write %[[R]], %{{.*}} : vector<1x32xf32>, tensor<1x32xf32>
// CHECK-NOT:         vector.mask
// CHECK:           %[[X16:.*]] = vector.transfer_read %[[TA]][%[[I]], %c64], %{{.*}} : tensor<64x80xf32>, vector<1x16xf32>
// CHECK:           %[[Y16:.*]] = vector.transfer_read %[[TB]][%[[I]], %c64], %{{.*}} : tensor<64x80xf32>, vector<1x16xf32>
// CHECK:           %[[Z16:.*]] = vector.transfer_read %[[TBIAS]][%c64], %{{.*}} : tensor<80xf32>, vector<1x16xf32>
// CHECK:           %[[P16:.*]] = arith.mulf %[[X16]], %[[Y16]] : vector<1x16xf32>
// CHECK:           %[[S16:.*]] = arith.addf %[[P16]], %[[Z16]] : vector<1x16xf32>
// CHECK:           %[[R16:.*]] = arith.maximumf %[[S16]], %[[ZERO16]] : vector<1x16xf32>
// CHECK:           vector.transfer_write %[[R16]], %{{.*}} : vector<1x16xf32>, tensor<1x16xf32>
// CHECK-NOT:     vector.mask
// CHECK:         return

// LLVM-LABEL: llvm.func @mul_bias_relu_dispatch(
// LLVM-SAME:      jitrun.stack_bytes = 0 : i64
// LLVM-NOT:      llvm.intr.masked
// LLVM:          %[[X:[0-9]+]] = llvm.load %{{.*}} -> vector<32xf32>
// LLVM:          %[[Y:[0-9]+]] = llvm.load %{{.*}} -> vector<32xf32>
// LLVM:          %[[Z:[0-9]+]] = llvm.load %{{.*}} -> vector<32xf32>
// LLVM:          %[[P:[0-9]+]] = llvm.fmul %[[X]], %[[Y]] : vector<32xf32>
// LLVM:          %[[S:[0-9]+]] = llvm.fadd %[[P]], %[[Z]] : vector<32xf32>
// LLVM:          %[[R:[0-9]+]] = llvm.intr.maximum(%[[S]], %{{[0-9]+}}) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// LLVM:          llvm.store %[[R]], %{{[0-9]+}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// LLVM:          %[[X16:[0-9]+]] = llvm.load %{{.*}} -> vector<16xf32>
// LLVM:          %[[Y16:[0-9]+]] = llvm.load %{{.*}} -> vector<16xf32>
// LLVM:          %[[P16:[0-9]+]] = llvm.fmul %[[X16]], %[[Y16]] : vector<16xf32>
// The edge's bias columns do not depend on the row: loaded before the loop.
// LLVM:          %[[S16:[0-9]+]] = llvm.fadd %[[P16]], %{{[0-9]+}} : vector<16xf32>
// LLVM:          %[[R16:[0-9]+]] = llvm.intr.maximum(%[[S16]], %{{[0-9]+}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// LLVM:          llvm.store %[[R16]], %{{[0-9]+}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// LLVM-NOT:      llvm.intr.masked
// LLVM:          llvm.return

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @mul_bias_relu_dispatch(%a: tensor<64x80xf32>, %b: tensor<64x80xf32>, %bias: tensor<80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %bias : tensor<64x80xf32>, tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %z : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}
