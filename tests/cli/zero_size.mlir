// Zero-size dimensions: an op whose loops include one of extent 0 computes
// nothing and its results are its inits (jitrun-fusion-fold-empty-loops):
// an elementwise op on an empty tensor gives an empty tensor, a matmul over
// K = 0 its accumulator's start, a sum over no element its initial value.
// Before, such a dispatch was a kernel of zero-size vectors that LLVM could
// not translate ("failed to translate a kernel module").
// RUN: %jitrun %s --input=3x0x5xf32 --input=4x0xf32 --input=0x3xf32 --input=2x0xf32 | FileCheck %s
// RUN: %jitrun %s --input=3x0x5xf32 --input=4x0xf32 --input=0x3xf32 --input=2x0xf32 --reference | FileCheck %s
// CHECK: result[0]: 3x0x5xf32=[][][]
// CHECK: result[1]: 4x3xf32=[1.5 1.5 1.5][1.5 1.5 1.5][1.5 1.5 1.5][1.5 1.5 1.5]
// CHECK: result[2]: 2xf32=7 7
func.func @main(%x: tensor<3x0x5xf32>, %a: tensor<4x0xf32>, %b: tensor<0x3xf32>, %r: tensor<2x0xf32>)
    -> (tensor<3x0x5xf32>, tensor<4x3xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<3x0x5xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<3x0x5xf32>) outs(%e : tensor<3x0x5xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<3x0x5xf32>
  %half = arith.constant 1.5 : f32
  %em = tensor.empty() : tensor<4x3xf32>
  %fm = linalg.fill ins(%half : f32) outs(%em : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x3xf32>) outs(%fm : tensor<4x3xf32>) -> tensor<4x3xf32>
  %seven = arith.constant 7.0 : f32
  %es = tensor.empty() : tensor<2xf32>
  %fs = linalg.fill ins(%seven : f32) outs(%es : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.reduce ins(%r : tensor<2x0xf32>) outs(%fs : tensor<2xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
  return %neg, %mm, %sum : tensor<3x0x5xf32>, tensor<4x3xf32>, tensor<2xf32>
}
