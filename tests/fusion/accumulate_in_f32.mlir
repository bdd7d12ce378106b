// f16 and bf16 contractions accumulate in f32 (jitrun-fusion-accumulate-in-f32):
// a narrow accumulator becomes an f32 one (a zero fill an f32 fill), the
// result is rounded back once by an elementwise generic; f16 operands are
// widened (a constant at compile time), bf16 operands stay bf16; a named op
// keeps its name, its body rebuilt for the new types. Left alone: f32
// contractions, bf16 x bf16 -> f32 (already f32), and a max-pooling body.
//
// RUN: %jit-opt %s --mlir-print-local-scope --pass-pipeline='builtin.module(func.func(jitrun-fusion-accumulate-in-f32))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @f16_matmul(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x8xf16>
// CHECK:         %[[AW:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[W:.+]] = arith.constant dense<5.000000e-01> : tensor<8x16xf32>
// CHECK:         %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:         %[[M:.+]] = linalg.matmul ins(%[[AW]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[F]] : tensor<4x16xf32>)
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4x16xf32>) outs(%{{.*}} : tensor<4x16xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[R]]
func.func @f16_matmul(%a: tensor<4x8xf16>) -> tensor<4x16xf16> {
  %w = arith.constant dense<0.5> : tensor<8x16xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x16xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4x16xf16>) -> tensor<4x16xf16>
  %r = linalg.matmul ins(%a, %w : tensor<4x8xf16>, tensor<8x16xf16>) outs(%f : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %r : tensor<4x16xf16>
}

// A bias in the accumulator is widened; bf16 operands stay.
// CHECK-LABEL: func.func @bf16_conv_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x6x6x4xbf16>, %[[K:[^:]+]]: tensor<3x3x4x8xbf16>, %[[B:[^:]+]]: tensor<1x4x4x8xbf16>
// CHECK:         %[[BW:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<1x4x4x8xbf16>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:         %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[K]] : tensor<1x6x6x4xbf16>, tensor<3x3x4x8xbf16>) outs(%[[BW]] : tensor<1x4x4x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x8xf32>) outs(%{{.*}} : tensor<1x4x4x8xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_conv_bias(%x: tensor<1x6x6x4xbf16>, %k: tensor<3x3x4x8xbf16>, %b: tensor<1x4x4x8xbf16>) -> tensor<1x4x4x8xbf16> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %k : tensor<1x6x6x4xbf16>, tensor<3x3x4x8xbf16>) outs(%b : tensor<1x4x4x8xbf16>) -> tensor<1x4x4x8xbf16>
  return %r : tensor<1x4x4x8xbf16>
}

// A generic contraction stays a generic, with an f32 body whose multiply
// codegen fuses with the add into an FMA (fastmath<contract>).
// CHECK-LABEL: func.func @f16_generic(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<5xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf %{{[^ ]*}}, %{{[^ ]*}} fastmath<contract> : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @f16_generic(%m: tensor<3x5xf16>, %v: tensor<5xf16>, %acc: tensor<3xf16>) -> tensor<3xf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
    ins(%m, %v : tensor<3x5xf16>, tensor<5xf16>) outs(%acc : tensor<3xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %o, %p : f16
    linalg.yield %s : f16
  } -> tensor<3xf16>
  return %r : tensor<3xf16>
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:         linalg.pooling_nhwc_max {{.*}} -> tensor<1x2x2x4xf16>
// CHECK:         return
func.func @untouched(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x8xbf16>, %d: tensor<8x16xbf16>,
                     %acc: tensor<4x16xf32>, %x: tensor<1x4x4x4xf16>, %win: tensor<3x3xf16>, %pacc: tensor<1x2x2x4xf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x2x4xf16>) {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.matmul ins(%c, %d : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %win : tensor<1x4x4x4xf16>, tensor<3x3xf16>) outs(%pacc : tensor<1x2x2x4xf16>) -> tensor<1x2x2x4xf16>
  return %r, %s, %p : tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x2x2x4xf16>
}
