// A matmul with an elementwise epilogue whose columns no tile divides: a
// 1x1 NCHW convolution from ONNX (256 channels x 56*56 = 3136 pixels, 28*28
// = 784): workgroups of 128 columns end in a partial tile of 64, whose
// full vector tiles must come out static and whose edge temporary must be
// a fixed-size stack buffer. Both failed to compile ("'memref.alloca' op
// has a dynamic size"); they agree with --reference now.
// RUN: %jitrun %s --function=pixels3136 --input=1x256x64xf32 --input=1x64x3136xf32 --input=1x256x3136xf32 --reference --output=@%t.3136.npy
// RUN: %jitrun %s --function=pixels3136 --input=1x256x64xf32 --input=1x64x3136xf32 --input=1x256x3136xf32 --threads=2 --expected_output=@%t.3136.npy | FileCheck %s
// RUN: %jitrun %s --function=pixels784 --input=256x64xf32 --input=64x784xf32 --input=256x784xf32 --reference --output=@%t.784.npy
// RUN: %jitrun %s --function=pixels784 --input=256x64xf32 --input=64x784xf32 --input=256x784xf32 --threads=2 --expected_output=@%t.784.npy | FileCheck %s
// CHECK: result[0]: matches the expected output
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @pixels3136(%a: tensor<1x256x64xf32>, %b: tensor<1x64x3136xf32>, %c: tensor<1x256x3136xf32>) -> tensor<1x256x3136xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x256x3136xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<1x256x64xf32>, tensor<1x64x3136xf32>) outs(%c : tensor<1x256x3136xf32>) -> tensor<1x256x3136xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m : tensor<1x256x3136xf32>) outs(%e : tensor<1x256x3136xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x256x3136xf32>
  return %r : tensor<1x256x3136xf32>
}
func.func @pixels784(%a: tensor<256x64xf32>, %b: tensor<64x784xf32>, %c: tensor<256x784xf32>) -> tensor<256x784xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x784xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x784xf32>) outs(%c : tensor<256x784xf32>) -> tensor<256x784xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<256x784xf32>) outs(%e : tensor<256x784xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<256x784xf32>
  return %r : tensor<256x784xf32>
}
