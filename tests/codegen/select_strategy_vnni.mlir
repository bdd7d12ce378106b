// jitrun-codegen-select-strategy with VNNI: an int8 convolution's register
// tile is up to 16 pixels (14 of a 56-pixel row) by one register of 16 i32
// channels (each interleaved filter register serves that many dot
// products), its input channels reduced 16 at a time (four groups of four
// bytes). A row narrower than 16 pixels
// (ResNet's 7x7 stage) takes more channels instead, up to 16 accumulator
// registers: 7 pixels by 4 registers, 28 dot products per filter row, where
// 7 by 1 left vpdpbusd's latency exposed (3x3 512 -> 512 on 7x7: 5.1 ->
// 1.3 ms at one thread); its input channels go one group of four at a time,
// as 28 accumulators leave no registers for four groups' interleaved filter
// rows (1.35 -> 1.21 ms).
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-select-strategy{vnni=true}))' | FileCheck %s

// CHECK-LABEL: func.func private @wide_rows
// CHECK: linalg.conv_2d_nhwc_hwcf {{{.*}}reduction = array<i64: 0, 0, 0, 0, 1, 1, 16>, scheme = "convolution", vector = array<i64: 1, 1, 14, 16, 0, 0, 0>
func.func private @wide_rows(%arg0: memref<1x58x58x64xi8>, %arg1: memref<3x3x64x64xi8>, %arg2: memref<1x56x56x64xi32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x58x58x64xi8> to tensor<1x58x58x64xi8>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x3x64x64xi8> to tensor<3x3x64x64xi8>
  %zero = arith.constant 0 : i32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x56x56x64xi32> to tensor<1x56x56x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%out : tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x58x58x64xi8>, tensor<3x3x64x64xi8>) outs(%f : tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x56x56x64xi32>, memref<1x56x56x64xi32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func private @narrow_rows
// CHECK: linalg.conv_2d_nhwc_hwcf {{{.*}}reduction = array<i64: 0, 0, 0, 0, 1, 1, 4>, scheme = "convolution", vector = array<i64: 1, 1, 7, 64, 0, 0, 0>
func.func private @narrow_rows(%arg0: memref<1x9x9x512xi8>, %arg1: memref<3x3x512x512xi8>, %arg2: memref<1x7x7x512xi32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x9x9x512xi8> to tensor<1x9x9x512xi8>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x3x512x512xi8> to tensor<3x3x512x512xi8>
  %zero = arith.constant 0 : i32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x7x7x512xi32> to tensor<1x7x7x512xi32>
  %f = linalg.fill ins(%zero : i32) outs(%out : tensor<1x7x7x512xi32>) -> tensor<1x7x7x512xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x9x9x512xi8>, tensor<3x3x512x512xi8>) outs(%f : tensor<1x7x7x512xi32>) -> tensor<1x7x7x512xi32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x7x7x512xi32>, memref<1x7x7x512xi32>) -> ()
  return
}
