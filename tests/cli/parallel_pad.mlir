// Large host fills and slice copies (tensor.pad of a 1x128x128x8xf32
// activation: 540 KB padded, above the 256 KB threshold) are split over the
// worker pool. At 2 threads the results are exactly those of 1 thread
// (same kernels, no splitting): the border value 0.5 (a fill of a 4-byte
// pattern), the zero border of the second pad (memset) and the copied
// interior, in a pad returned as is and a pad feeding a 3x3 convolution. The
// profile shows the fills and copies as host commands.
//
// RUN: %jitrun %s --input=1x128x128x8xf32 --input=3x3x8x16xf32 --threads=1 --output=@%t.0.npy --output=@%t.1.npy
// RUN: %jitrun %s --input=1x128x128x8xf32 --input=3x3x8x16xf32 --threads=2 \
// RUN:   --expected_output=@%t.0.npy --expected_output=@%t.1.npy --expected_atol=0 --expected_rtol=0 \
// RUN:   | FileCheck %s
// RUN: %jitrun %s --input=1x128x128x8xf32 --input=3x3x8x16xf32 --threads=2 --profile | FileCheck %s --check-prefix=PROF

// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// PROF-DAG: profile: fill:1x130x130x8xf32
// PROF-DAG: profile: copy:1x128x128x8xf32->1x130x130x8xf32
func.func @main(%x: tensor<1x128x128x8xf32>, %w: tensor<3x3x8x16xf32>) -> (tensor<1x130x130x8xf32>, tensor<1x128x128x16xf32>) {
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %half : f32
  } : tensor<1x128x128x8xf32> to tensor<1x130x130x8xf32>
  %q = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x128x128x8xf32> to tensor<1x130x130x8xf32>
  %e = tensor.empty() : tensor<1x128x128x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x128x16xf32>) -> tensor<1x128x128x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%q, %w : tensor<1x130x130x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x128x128x16xf32>) -> tensor<1x128x128x16xf32>
  return %p, %c : tensor<1x130x130x8xf32>, tensor<1x128x128x16xf32>
}
