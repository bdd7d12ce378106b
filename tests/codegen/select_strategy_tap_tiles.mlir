// A 3x3 convolution over packed filter panels (out[n, h, w, p, t], loops
// over the taps around the input channels) on rows of 14 pixels: one
// register tile of 14 pixels by the panel's 32 channels (28 accumulators);
// at most 12 (max-tap-tile-pixels, what an AMD Zen host compiles with,
// since LLVM's Zen scheduling models spill 28) the row takes two of 7, the
// largest tile that divides it. A named convolution keeps 14 either way.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-select-strategy))' | FileCheck %s
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-select-strategy{max-tap-tile-pixels=12}))' \
// RUN:   | FileCheck %s --check-prefix=ZEN

// CHECK-LABEL: func.func private @taps_over_panels
// CHECK:       linalg.generic {{.*}}scheme = "convolution", vector = array<i64: 1, 1, 14, 1, 32, 0, 0, 0>
// ZEN-LABEL:   func.func private @taps_over_panels
// ZEN:         linalg.generic {{.*}}scheme = "convolution", vector = array<i64: 1, 1, 7, 1, 32, 0, 0, 0>
func.func private @taps_over_panels(%arg0: memref<1x16x16x256xf32>, %arg1: memref<8x3x3x256x32xf32>, %arg2: memref<1x14x14x8x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<1x16x16x256xf32> to tensor<1x16x16x256xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<8x3x3x256x32xf32> to tensor<8x3x3x256x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x14x14x8x32xf32> to tensor<1x14x14x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x14x14x8x32xf32>) -> tensor<1x14x14x8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, y, x, p, t, kh, kw, c) -> (n, y + kh, x + kw, c)>, affine_map<(n, y, x, p, t, kh, kw, c) -> (p, kh, kw, c, t)>, affine_map<(n, y, x, p, t, kh, kw, c) -> (n, y, x, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %w : tensor<1x16x16x256xf32>, tensor<8x3x3x256x32xf32>) outs(%f : tensor<1x14x14x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x8x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<1x14x14x8x32xf32>, memref<1x14x14x8x32xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func private @named
// CHECK:       linalg.conv_2d_nhwc_hwcf {{.*}}vector = array<i64: 1, 1, 14, 32, 0, 0, 0>
// ZEN-LABEL:   func.func private @named
// ZEN:         linalg.conv_2d_nhwc_hwcf {{.*}}vector = array<i64: 1, 1, 14, 32, 0, 0, 0>
func.func private @named(%arg0: memref<1x16x16x64xf32>, %arg1: memref<3x3x64x64xf32>, %arg2: memref<1x14x14x64xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<1x16x16x64xf32> to tensor<1x16x16x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x3x64x64xf32> to tensor<3x3x64x64xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x14x14x64xf32> to tensor<1x14x14x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<1x16x16x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<1x14x14x64xf32>, memref<1x14x14x64xf32>) -> ()
  return
}
