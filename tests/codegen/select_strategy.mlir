// jitrun-codegen-select-strategy alone: the tile strategy of each dispatch,
// written on its root (the op stored into the first output buffer) as
// `jitrun.lowering_config`, for AVX-512 and for AVX2; a config already there
// is an override and stays as written.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-select-strategy))' | FileCheck %s
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-select-strategy{vector-bits=256}))' \
// RUN:   | FileCheck %s --check-prefix=AVX2

// A 64x96 * 96x80 matmul: workgroups and vector tiles of 8 rows by 32
// columns on AVX-512 (two registers of 16 lanes); on AVX2 the same
// workgroups hold two vector tiles of 8 by 16. K is tiled by 1 (one rank-1
// update of the register tile per step). The fill is not the root.
// CHECK-LABEL: func.func private @matmul
// CHECK:       linalg.fill ins
// CHECK-NOT:   lowering_config
// CHECK:       linalg.matmul {jitrun.lowering_config = {cache = array<i64>, reduction = array<i64: 0, 0, 1>, scheme = "contraction", vector = array<i64: 8, 32, 0>, workgroup = array<i64: 8, 32, 0>}}
// AVX2-LABEL:  func.func private @matmul
// AVX2:        linalg.matmul {jitrun.lowering_config = {cache = array<i64>, reduction = array<i64: 0, 0, 1>, scheme = "contraction", vector = array<i64: 8, 16, 0>, workgroup = array<i64: 8, 32, 0>}}
func.func private @matmul(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

// A 3x3 convolution over 28x28 pixels of 64 -> 128 channels: workgroups of
// 14 output columns, vector tiles of 14 pixels by 32 channels (28
// accumulators: stride 1); taps and input channels reduced one at a time.
// CHECK-LABEL: func.func private @conv
// CHECK:       linalg.conv_2d_nhwc_hwcf {{{.*}}jitrun.lowering_config = {cache = array<i64: 0, 0, 0, 0, 0, 0, 0>, reduction = array<i64: 0, 0, 0, 0, 1, 1, 1>, scheme = "convolution", vector = array<i64: 1, 1, 14, 32, 0, 0, 0>, workgroup = array<i64: 0, 1, 14, 0, 0, 0, 0>}
func.func private @conv(%arg0: memref<1x30x30x64xf32>, %arg1: memref<3x3x64x128xf32>, %arg2: memref<1x28x28x128xf32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x30x30x64xf32> to tensor<1x30x30x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x3x64x128xf32> to tensor<3x3x64x128xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x28x28x128xf32> to tensor<1x28x28x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x30x30x64xf32>, tensor<3x3x64x128xf32>) outs(%f : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x28x28x128xf32>, memref<1x28x28x128xf32>) -> ()
  return
}

// -----

// The same at stride 2 (57x57 -> 28x28): its input pixels lie twice as far
// apart, and tiles of 14 ran ResNet-50's 30x30 -> 14x14 one 1.3x slower;
// it keeps tiles of up to 8 pixels (7, which divides 28).
// CHECK-LABEL: func.func private @conv_stride2
// CHECK:       linalg.conv_2d_nhwc_hwcf {{{.*}}scheme = "convolution", vector = array<i64: 1, 1, 7, 32, 0, 0, 0>
func.func private @conv_stride2(%arg0: memref<1x57x57x64xf32>, %arg1: memref<3x3x64x128xf32>, %arg2: memref<1x28x28x128xf32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x57x57x64xf32> to tensor<1x57x57x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x3x64x128xf32> to tensor<3x3x64x128xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x28x28x128xf32> to tensor<1x28x28x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %w : tensor<1x57x57x64xf32>, tensor<3x3x64x128xf32>) outs(%f : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x28x28x128xf32>, memref<1x28x28x128xf32>) -> ()
  return
}

// -----

// A 1x7 convolution over 17x17 pixels of 64 -> 64 channels (Inception v3's
// maps): 17 has no divisor but 1, and 8-pixel tiles would leave an edge of
// one pixel per row; with two registers of channels the vector tile takes
// 12 pixels (12 + 5: of the up to 14 a stride-1 tile takes, the most that
// leave an edge of 5 or more). On AVX2, one register of channels: 8
// pixels, peeled.
// CHECK-LABEL: func.func private @conv_prime_width
// CHECK:       linalg.conv_2d_nhwc_hwcf {{{.*}}scheme = "convolution", vector = array<i64: 1, 1, 12, 32, 0, 0, 0>
// AVX2-LABEL:  func.func private @conv_prime_width
// AVX2:        linalg.conv_2d_nhwc_hwcf {{{.*}}scheme = "convolution", vector = array<i64: 1, 1, 8, 8, 0, 0, 0>
func.func private @conv_prime_width(%arg0: memref<1x17x23x64xf32>, %arg1: memref<1x7x64x64xf32>, %arg2: memref<1x17x17x64xf32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x17x23x64xf32> to tensor<1x17x23x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<1x7x64x64xf32> to tensor<1x7x64x64xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x17x17x64xf32> to tensor<1x17x17x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x17x17x64xf32>) -> tensor<1x17x17x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x17x23x64xf32>, tensor<1x7x64x64xf32>) outs(%f : tensor<1x17x17x64xf32>) -> tensor<1x17x17x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x17x17x64xf32>, memref<1x17x17x64xf32>) -> ()
  return
}

// -----

// The same 1x7 convolution with 160 -> 160 channels: its filter is over
// twice its input, so output channels split first, into 5 workgroups of 32
// (an odd count); then the 17 rows, which no tile divides, into workgroups
// of 3 (5 x 3 + 2), the last one shorter: 30 workgroups.
// CHECK-LABEL: func.func private @conv_prime_height
// CHECK:       linalg.conv_2d_nhwc_hwcf {{{.*}}vector = array<i64: 1, 1, 12, 32, 0, 0, 0>, workgroup = array<i64: 0, 3, 0, 32, 0, 0, 0>
func.func private @conv_prime_height(%arg0: memref<1x17x23x160xf32>, %arg1: memref<1x7x160x160xf32>, %arg2: memref<1x17x17x160xf32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x17x23x160xf32> to tensor<1x17x23x160xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<1x7x160x160xf32> to tensor<1x7x160x160xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x17x17x160xf32> to tensor<1x17x17x160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x17x17x160xf32>) -> tensor<1x17x17x160xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x17x23x160xf32>, tensor<1x7x160x160xf32>) outs(%f : tensor<1x17x17x160xf32>) -> tensor<1x17x17x160xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x17x17x160xf32>, memref<1x17x17x160xf32>) -> ()
  return
}

// -----

// A 1x1 convolution to 232 channels (ShuffleNetV2), which 16 does not
// divide: whole registers of 16 lanes and a peeled edge of 8 on AVX-512,
// not 8 lanes in half registers; 8 lanes, whole registers, on AVX2.
// CHECK-LABEL: func.func private @conv_ragged_channels
// CHECK:       linalg.conv_2d_nhwc_hwcf {{{.*}}scheme = "convolution", vector = array<i64: 1, 1, 7, 16, 0, 0, 0>
// AVX2-LABEL:  func.func private @conv_ragged_channels
// AVX2:        linalg.conv_2d_nhwc_hwcf {{{.*}}scheme = "convolution", vector = array<i64: 1, 1, 7, 8, 0, 0, 0>
func.func private @conv_ragged_channels(%arg0: memref<1x7x7x64xf32>, %arg1: memref<1x1x64x232xf32>, %arg2: memref<1x7x7x232xf32>, %wg: index) attributes {jitrun.dispatch} {
  %i = bufferization.to_tensor %arg0 restrict : memref<1x7x7x64xf32> to tensor<1x7x7x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<1x1x64x232xf32> to tensor<1x1x64x232xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x7x7x232xf32> to tensor<1x7x7x232xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x7x7x232xf32>) -> tensor<1x7x7x232xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %w : tensor<1x7x7x64xf32>, tensor<1x1x64x232xf32>) outs(%f : tensor<1x7x7x232xf32>) -> tensor<1x7x7x232xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x7x7x232xf32>, memref<1x7x7x232xf32>) -> ()
  return
}

// -----

// A row sum: the 16 rows in one vector tile, the 1000 columns reduced two
// registers at a time (32 lanes, 16 on AVX2); too little work for workgroups.
// CHECK-LABEL: func.func private @row_sum
// CHECK:       linalg.reduce {{.*}} {jitrun.lowering_config = {cache = array<i64: 0, 0>, reduction = array<i64: 0, 32>, scheme = "reduction", vector = array<i64: 16, 0>, workgroup = array<i64: 0, 0>}}
// AVX2-LABEL:  func.func private @row_sum
// AVX2:        linalg.reduce {{.*}} {jitrun.lowering_config = {cache = array<i64: 0, 0>, reduction = array<i64: 0, 16>, scheme = "reduction", vector = array<i64: 16, 0>, workgroup = array<i64: 0, 0>}}
func.func private @row_sum(%arg0: memref<16x1000xf32>, %arg1: memref<16xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<16x1000xf32> to tensor<16x1000xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg1 restrict writable : memref<16xf32> to tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.reduce ins(%a : tensor<16x1000xf32>) outs(%f : tensor<16xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }
  bufferization.materialize_in_destination %s in restrict writable %arg1 : (tensor<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

// An override: kept as written, on AVX-512 and AVX2 alike.
// CHECK-LABEL: func.func private @overridden
// CHECK:       linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 4, 16, 0>, workgroup = array<i64: 16, 0, 0>}}
// AVX2-LABEL:  func.func private @overridden
// AVX2:        linalg.matmul {jitrun.lowering_config = {cache = array<i64>, vector = array<i64: 4, 16, 0>, workgroup = array<i64: 16, 0, 0>}}
func.func private @overridden(%arg0: memref<64x96xf32>, %arg1: memref<96x80xf32>, %arg2: memref<64x80xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %b = bufferization.to_tensor %arg1 restrict : memref<96x80xf32> to tensor<96x80xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<64x80xf32> to tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul {jitrun.lowering_config = {workgroup = array<i64: 16, 0, 0>, cache = array<i64>, vector = array<i64: 4, 16, 0>}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  bufferization.materialize_in_destination %m in restrict writable %arg2 : (tensor<64x80xf32>, memref<64x80xf32>) -> ()
  return
}

// -----

// A matmul's rows over packed panels of 32 columns (two AVX-512 registers):
// 12 rows per register tile (24 accumulators), the 128 rows as 10 tiles and
// an edge of 8; workgroups split the 3 panels. AVX2's panels of four
// registers keep 4 rows.
// CHECK-LABEL: func.func private @panel_rows
// CHECK:       linalg.generic {{.*}} {jitrun.lowering_config = {cache = array<i64>, reduction = array<i64: 0, 0, 0, 1>, scheme = "contraction", vector = array<i64: 12, 1, 32, 0>, workgroup = array<i64: 0, 1, 0, 0>}, jitrun.packed_panels}
// AVX2-LABEL:  func.func private @panel_rows
// AVX2:        vector = array<i64: 4, 1, 32, 0>
func.func private @panel_rows(%arg0: memref<128x16xf32>, %arg1: memref<3x16x32xf32>, %arg2: memref<128x3x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<128x16xf32> to tensor<128x16xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x16x32xf32> to tensor<3x16x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<128x3x32xf32> to tensor<128x3x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<128x3x32xf32>) -> tensor<128x3x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, p, t, k) -> (m, k)>, affine_map<(m, p, t, k) -> (p, k, t)>, affine_map<(m, p, t, k) -> (m, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<128x16xf32>, tensor<3x16x32xf32>) outs(%f : tensor<128x3x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<128x3x32xf32>, memref<128x3x32xf32>) -> ()
  return
}

// -----

// A 1x1 convolution over packed panels, 28x28 pixels of 256 -> 512
// channels: 14 pixels per register tile (28 accumulators). With a short
// reduction (56x56, 64 -> 256) or few output channels (256 -> 64) it keeps
// 8, whose tiles load and store less per FMA.
// CHECK-LABEL: func.func private @pointwise_wide
// CHECK:       linalg.generic {{.*}}scheme = "contraction", vector = array<i64: 1, 1, 14, 1, 32, 0>
// AVX2-LABEL:  func.func private @pointwise_wide
// AVX2:        vector = array<i64: 1, 1, 4, 1, 32, 0>
func.func private @pointwise_wide(%arg0: memref<1x28x28x256xf32>, %arg1: memref<16x256x32xf32>, %arg2: memref<1x28x28x16x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<1x28x28x256xf32> to tensor<1x28x28x256xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<16x256x32xf32> to tensor<16x256x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x28x28x16x32xf32> to tensor<1x28x28x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x28x28x16x32xf32>) -> tensor<1x28x28x16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, y, x, p, t, k) -> (n, y, x, k)>, affine_map<(n, y, x, p, t, k) -> (p, k, t)>, affine_map<(n, y, x, p, t, k) -> (n, y, x, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x28x28x256xf32>, tensor<16x256x32xf32>) outs(%f : tensor<1x28x28x16x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x28x28x16x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<1x28x28x16x32xf32>, memref<1x28x28x16x32xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @pointwise_short
// CHECK:       linalg.generic {{.*}}scheme = "contraction", vector = array<i64: 1, 1, 8, 1, 32, 0>
func.func private @pointwise_short(%arg0: memref<1x56x56x64xf32>, %arg1: memref<8x64x32xf32>, %arg2: memref<1x56x56x8x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<1x56x56x64xf32> to tensor<1x56x56x64xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<8x64x32xf32> to tensor<8x64x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x56x56x8x32xf32> to tensor<1x56x56x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x56x56x8x32xf32>) -> tensor<1x56x56x8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, y, x, p, t, k) -> (n, y, x, k)>, affine_map<(n, y, x, p, t, k) -> (p, k, t)>, affine_map<(n, y, x, p, t, k) -> (n, y, x, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x56x56x64xf32>, tensor<8x64x32xf32>) outs(%f : tensor<1x56x56x8x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x56x56x8x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<1x56x56x8x32xf32>, memref<1x56x56x8x32xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @pointwise_narrow
// CHECK:       linalg.generic {{.*}}scheme = "contraction", vector = array<i64: 1, 1, 8, 1, 32, 0>
func.func private @pointwise_narrow(%arg0: memref<1x56x56x256xf32>, %arg1: memref<2x256x32xf32>, %arg2: memref<1x56x56x2x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<1x56x56x256xf32> to tensor<1x56x56x256xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<2x256x32xf32> to tensor<2x256x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<1x56x56x2x32xf32> to tensor<1x56x56x2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<1x56x56x2x32xf32>) -> tensor<1x56x56x2x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, y, x, p, t, k) -> (n, y, x, k)>, affine_map<(n, y, x, p, t, k) -> (p, k, t)>, affine_map<(n, y, x, p, t, k) -> (n, y, x, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x56x56x256xf32>, tensor<2x256x32xf32>) outs(%f : tensor<1x56x56x2x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x56x56x2x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<1x56x56x2x32xf32>, memref<1x56x56x2x32xf32>) -> ()
  return
}

// -----

// 16 rows would leave an edge tile of 4 (12 + 4), too few to keep the FMA
// units busy: two tiles of 8.
// CHECK-LABEL: func.func private @panel_rows_short
// CHECK:       vector = array<i64: 8, 1, 32, 0>
func.func private @panel_rows_short(%arg0: memref<16x16xf32>, %arg1: memref<3x16x32xf32>, %arg2: memref<16x3x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<16x16xf32> to tensor<16x16xf32>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x16x32xf32> to tensor<3x16x32xf32>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<16x3x32xf32> to tensor<16x3x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<16x3x32xf32>) -> tensor<16x3x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, p, t, k) -> (m, k)>, affine_map<(m, p, t, k) -> (p, k, t)>, affine_map<(m, p, t, k) -> (m, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<16x16xf32>, tensor<3x16x32xf32>) outs(%f : tensor<16x3x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x3x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<16x3x32xf32>, memref<16x3x32xf32>) -> ()
  return
}

// -----

// A bf16 contraction over VNNI panels for AMX tiles (jitrun.amx_tiles,
// jitrun-fusion-pack-weights with amx-panels): a tile of 32 rows (two AMX
// tiles) by the panel's 32 columns, all of K, no reduction tiles
// (jitrun-codegen-amx-contractions takes K in one loop of its own).
// CHECK-LABEL: func.func private @amx_tiles
// CHECK:       vector = array<i64: 32, 1, 32, 0, 0>
// CHECK-NOT:   reduction =
func.func private @amx_tiles(%arg0: memref<128x32x2xbf16>, %arg1: memref<3x32x32x2xbf16>, %arg2: memref<128x3x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<128x32x2xbf16> to tensor<128x32x2xbf16>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x32x32x2xbf16> to tensor<3x32x32x2xbf16>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<128x3x32xf32> to tensor<128x3x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<128x3x32xf32>) -> tensor<128x3x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, p, t, k, v) -> (m, k, v)>, affine_map<(m, p, t, k, v) -> (p, k, t, v)>, affine_map<(m, p, t, k, v) -> (m, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %w : tensor<128x32x2xbf16>, tensor<3x32x32x2xbf16>) outs(%f : tensor<128x3x32xf32>) attrs = {jitrun.amx_tiles, jitrun.packed_panels} {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<128x3x32xf32>, memref<128x3x32xf32>) -> ()
  return
}

// -----

// The same matmul in bf16 (f32 accumulators) keeps tiles of 8 rows: tiles of
// 12 ran 12 % slower as vdpbf16ps dot products on an Intel host.
// CHECK-LABEL: func.func private @panel_rows_bf16
// CHECK:       vector = array<i64: 8, 1, 32, 0>
func.func private @panel_rows_bf16(%arg0: memref<128x16xbf16>, %arg1: memref<3x16x32xbf16>, %arg2: memref<128x3x32xf32>, %wg: index) attributes {jitrun.dispatch} {
  %a = bufferization.to_tensor %arg0 restrict : memref<128x16xbf16> to tensor<128x16xbf16>
  %w = bufferization.to_tensor %arg1 restrict : memref<3x16x32xbf16> to tensor<3x16x32xbf16>
  %zero = arith.constant 0.0 : f32
  %out = bufferization.to_tensor %arg2 restrict writable : memref<128x3x32xf32> to tensor<128x3x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<128x3x32xf32>) -> tensor<128x3x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, p, t, k) -> (m, k)>, affine_map<(m, p, t, k) -> (p, k, t)>, affine_map<(m, p, t, k) -> (m, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<128x16xbf16>, tensor<3x16x32xbf16>) outs(%f : tensor<128x3x32xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<128x3x32xf32>, memref<128x3x32xf32>) -> ()
  return
}

// -----

// A softmax's max and exp over 12 heads of 128x128 (the max a row reduction
// computed whole per workgroup, the exp its broadcast epilogue): 12 heads by
// rows in workgroups of 64 that divide the 128 rows; 3 of 43 (the grid's
// target of 32) left masked tiles throughout the kernel.
// CHECK-LABEL: func.func private @softmax_rows
// CHECK:       linalg.generic {{{.*}}jitrun.lowering_config = {anchor_at_workgroup_level, cache = array<i64: 0, 0, 0>, scheme = "reduction", vector = array<i64: 1, 1, 32>, workgroup = array<i64: 1, 64, 0>}
func.func private @softmax_rows(%arg0: memref<12x128x128xf32>, %arg1: memref<12x128x128xf32>, %wg: index) attributes {jitrun.dispatch} {
  %x = bufferization.to_tensor %arg0 restrict : memref<12x128x128xf32> to tensor<12x128x128xf32>
  %out = bufferization.to_tensor %arg1 restrict writable : memref<12x128x128xf32> to tensor<12x128x128xf32>
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<12x128xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<12x128xf32>) -> tensor<12x128xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<12x128x128xf32>) outs(%init : tensor<12x128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max : tensor<12x128x128xf32>, tensor<12x128xf32>) outs(%out : tensor<12x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<12x128x128xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg1 : (tensor<12x128x128xf32>, memref<12x128x128xf32>) -> ()
  return
}
