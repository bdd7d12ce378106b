// Math ops with an integer operand or result on 2-D vector tiles (a
// convolution's rows x channels): upstream's LLVM lowering takes 1-D vectors
// only, and the kernel failed with "failed to translate a kernel module to
// LLVM IR" (found by the differential fuzzer: abs of an int8 convolution).
// They now run on the tile flattened; each function matches the reference
// path (scalar loops) exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %jitrun %s --function=abs_of_conv --input=2x9x7x1xi8 --input=3x3x1x5xi8 --reference --output=@%t/abs.npy
// RUN: %jitrun %s --function=abs_of_conv --input=2x9x7x1xi8 --input=3x3x1x5xi8 --expected_output=@%t/abs.npy | FileCheck %s
// RUN: %jitrun %s --function=abs_of_conv --input=2x9x7x1xi8 --input=3x3x1x5xi8 --force-avx2 --expected_output=@%t/abs.npy | FileCheck %s
// RUN: %jitrun %s --function=ctlz_of_conv --input=2x9x7x1xi8 --input=3x3x1x5xi8 --reference --output=@%t/ctlz.npy
// RUN: %jitrun %s --function=ctlz_of_conv --input=2x9x7x1xi8 --input=3x3x1x5xi8 --expected_output=@%t/ctlz.npy | FileCheck %s
// RUN: %jitrun %s --function=nan_of_conv --input=1x8x8x3xf32 --input=3x3x3x16xf32 --reference --output=@%t/nan.npy
// RUN: %jitrun %s --function=nan_of_conv --input=1x8x8x3xf32 --input=3x3x3x16xf32 --expected_output=@%t/nan.npy | FileCheck %s
// CHECK: result[0]: matches the expected output

func.func @abs_of_conv(%x: tensor<2x9x7x1xi8>, %w: tensor<3x3x1x5xi8>) -> tensor<2x7x3x5xi32> {
  %e = tensor.empty() : tensor<2x7x3x5xi32>
  %zero = arith.constant 0 : i32
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2x7x3x5xi32>) -> tensor<2x7x3x5xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<2x9x7x1xi8>, tensor<3x3x1x5xi8>) outs(%f : tensor<2x7x3x5xi32>) -> tensor<2x7x3x5xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x7x3x5xi32>) outs(%e : tensor<2x7x3x5xi32>) {
  ^bb0(%v: i32, %o: i32):
    %a = math.absi %v : i32
    linalg.yield %a : i32
  } -> tensor<2x7x3x5xi32>
  return %r : tensor<2x7x3x5xi32>
}

func.func @ctlz_of_conv(%x: tensor<2x9x7x1xi8>, %w: tensor<3x3x1x5xi8>) -> tensor<2x7x3x5xi32> {
  %e = tensor.empty() : tensor<2x7x3x5xi32>
  %zero = arith.constant 0 : i32
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2x7x3x5xi32>) -> tensor<2x7x3x5xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<2x9x7x1xi8>, tensor<3x3x1x5xi8>) outs(%f : tensor<2x7x3x5xi32>) -> tensor<2x7x3x5xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x7x3x5xi32>) outs(%e : tensor<2x7x3x5xi32>) {
  ^bb0(%v: i32, %o: i32):
    %a = math.ctlz %v : i32
    %t = math.cttz %v : i32
    %s = arith.addi %a, %t : i32
    linalg.yield %s : i32
  } -> tensor<2x7x3x5xi32>
  return %r : tensor<2x7x3x5xi32>
}

// isnan's result is i1: 1 where the convolution (of a log, NaN for the
// negative half of the random inputs) is NaN, else 0.
func.func @nan_of_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xi32> {
  %e = tensor.empty() : tensor<1x6x6x16xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %ex = tensor.empty() : tensor<1x8x8x3xf32>
  %lx = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x3xf32>) outs(%ex : tensor<1x8x8x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %l = math.log %v : f32
    linalg.yield %l : f32
  } -> tensor<1x8x8x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%lx, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) outs(%f : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %ei = tensor.empty() : tensor<1x6x6x16xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x6x6x16xf32>) outs(%ei : tensor<1x6x6x16xi32>) {
  ^bb0(%v: f32, %o: i32):
    %n = math.isnan %v : f32
    %i = arith.extui %n : i1 to i32
    linalg.yield %i : i32
  } -> tensor<1x6x6x16xi32>
  return %r : tensor<1x6x6x16xi32>
}
