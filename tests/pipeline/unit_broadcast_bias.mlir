// A bias broadcast as the ONNX importer and torch-mlir write it: the bias is
// 64x1x1 and read at (d3, 0, 0). In front of a 1x1 convolution whose filter
// is packed into panels (its accumulator expanded to 1x9x9x2x32), the
// broadcast's constant-0 map results used to stop the reshape from folding
// into it, and the broadcast was a dispatch of its own: a whole tensor
// written and read back as the accumulator (torchvision's ResNet-50, 93
// dispatches; MobileNetV2, 83). Packing rebuilds it in panels, reading the
// bias as 2x32x1x1 at (d3, d4, 0, 0), and it joins the convolution's
// dispatch as its accumulator (ResNet-50: 57; MobileNetV2: 55; 1 thread:
// 41.6 -> 37.4 ms and 4.0 -> 3.15 ms).
// RUN: %jit-opt %s --jitrun-import-pipeline --jitrun-fusion-pipeline --mlir-print-local-scope | FileCheck %s
// CHECK-LABEL: func.func private @main_dispatch_0(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d3, d4, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>]{{.*}} ins(%{{.*}} : tensor<2x32x1x1xf32>)
// CHECK:         linalg.generic {{.*}} attrs = {jitrun.packed_panels}
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @main(
// CHECK:         call @main_dispatch_0(
// CHECK-NOT:     call
// RUN: %jitrun %s --input=1x9x9x4xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=1x9x9x4xf32 --threads=2 --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=VALUES
// VALUES: result[0]: matches the expected output
// VALUES: "dispatches":1,
func.func @main(%x: tensor<1x9x9x4xf32>) -> tensor<1x9x9x64xf32> {
  %w = arith.constant dense<[[[[0.1, 0.43, 0.21, 0.09, -0.15, 0.29, -0.12, 0.78, 0.93, -0.23, 0.58, 0.06, 0.14, 0.85, -0.86, -0.83, -0.96, 0.67, 0.56, 0.74, 0.96, 0.6, -0.08, 0.56, -0.76, 0.28, -0.71, 0.89, 0.04, -0.17, -0.47, 0.55, -0.09, 0.14, -0.96, 0.24, 0.22, 0.23, 0.89, 0.36, -0.28, -0.13, 0.4, -0.88, 0.33, 0.34, -0.58, -0.74, -0.37, -0.27, 0.14, -0.12, 0.98, -0.8, -0.58, -0.68, 0.31, -0.49, -0.07, -0.51, -0.68, -0.78, 0.31, -0.72], [-0.61, -0.26, 0.64, -0.81, 0.68, -0.81, 0.95, -0.06, 0.95, 0.21, 0.48, -0.92, -0.43, -0.76, -0.41, -0.76, -0.36, -0.17, -0.87, 0.38, 0.13, -0.47, 0.05, -0.81, 0.15, 0.86, -0.36, 0.33, -0.74, 0.43, -0.42, -0.63, 0.17, -0.96, 0.66, -0.99, 0.36, -0.46, 0.47, 0.92, -0.5, 0.15, 0.18, 0.14, -0.55, 0.91, -0.11, 0.69, 0.4, -0.41, 0.63, -0.21, 0.76, 0.16, 0.76, 0.39, 0.45, 0.0, 0.91, 0.29, -0.15, 0.21, -0.96, -0.4], [0.32, -0.42, 0.24, -0.14, -0.73, -0.4, 0.14, 0.18, 0.15, 0.31, 0.3, -0.14, 0.79, -0.26, -0.13, 0.78, 0.61, 0.41, -0.8, 0.84, 0.43, 1.0, -0.7, 0.74, -0.68, 0.23, -0.75, 0.7, 0.61, 0.14, -0.19, -0.86, 0.39, -0.09, 0.44, 0.73, 0.95, 0.71, -0.98, -0.28, 0.46, -0.66, 0.04, -0.89, -0.6, -0.96, 0.59, -0.55, -0.31, 0.86, 0.41, -0.94, -0.67, 0.24, 0.15, -0.52, 0.87, 0.23, 0.07, 0.18, 0.46, -0.38, -0.2, -0.58], [-0.63, 0.89, 0.48, -0.02, -0.55, -0.49, -0.88, -0.13, -0.38, 0.39, -0.24, -0.64, -0.95, -0.87, 0.36, -0.09, 0.07, 0.79, 0.98, -0.57, 0.33, -0.47, -0.96, 0.52, -0.36, -0.23, 0.18, 0.66, 0.26, 0.75, -0.45, 0.6, -0.63, 0.91, 0.37, -0.57, 0.89, 0.46, -0.49, -0.57, 0.04, -0.95, -0.59, -0.15, -0.25, -0.07, -0.44, 0.17, 0.73, -0.76, 0.03, -0.74, 0.43, -0.21, 0.13, -0.63, -0.71, -0.02, -0.29, 0.88, 0.53, 0.5, 0.81, -0.83]]]]> : tensor<1x1x4x64xf32>
  %bias = arith.constant dense<[[[0.1]], [[0.17]], [[0.92]], [[-0.42]], [[-0.52]], [[-0.8]], [[-0.97]], [[0.86]], [[0.34]], [[0.57]], [[-0.44]], [[0.17]], [[-0.87]], [[-0.03]], [[0.95]], [[0.75]], [[-0.32]], [[0.92]], [[-0.54]], [[0.9]], [[0.88]], [[0.6]], [[0.26]], [[0.75]], [[-0.41]], [[0.7]], [[0.24]], [[-0.97]], [[-0.31]], [[-0.7]], [[0.96]], [[-0.04]], [[-0.01]], [[0.28]], [[-0.26]], [[-0.73]], [[0.64]], [[-0.62]], [[0.02]], [[-0.55]], [[-0.8]], [[0.72]], [[0.95]], [[0.92]], [[0.81]], [[0.55]], [[-0.33]], [[-0.84]], [[-0.19]], [[-0.54]], [[-0.74]], [[-0.89]], [[0.45]], [[-0.98]], [[0.54]], [[-0.71]], [[-0.84]], [[-0.82]], [[0.34]], [[-0.51]], [[-0.16]], [[0.11]], [[0.72]], [[0.45]]]> : tensor<64x1x1xf32>
  %e = tensor.empty() : tensor<1x9x9x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<64x1x1xf32>) outs(%e : tensor<1x9x9x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x9x9x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x4xf32>, tensor<1x1x4x64xf32>) outs(%b : tensor<1x9x9x64xf32>) -> tensor<1x9x9x64xf32>
  return %c : tensor<1x9x9x64xf32>
}
