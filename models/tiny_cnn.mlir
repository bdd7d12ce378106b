// A small NHWC image classifier: padded 3x3 convolution + bias + relu,
// 2x2 max pooling, global average pooling as a reduction, a dense layer.
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch4 = affine_map<(n, h, w, c) -> (c)>
func.func @main(%img: tensor<1x32x32x3xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<0.11> : tensor<3x3x3x16xf32>
  %b = arith.constant dense<[0.0, 0.1, -0.1, 0.2, -0.2, 0.3, -0.3, 0.4, -0.4, 0.5, -0.5, 0.6, -0.6, 0.7, -0.7, 0.8]> : tensor<16xf32>
  %fc = arith.constant dense<0.02> : tensor<16x10xf32>
  %padded = tensor.pad %img low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x3xf32> to tensor<1x34x34x3xf32>
  %e = tensor.empty() : tensor<1x32x32x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x32x16xf32>) -> tensor<1x32x32x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x34x34x3xf32>, tensor<3x3x3x16xf32>) outs(%f : tensor<1x32x32x16xf32>) -> tensor<1x32x32x16xf32>
  %act = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %b : tensor<1x32x32x16xf32>, tensor<16xf32>) outs(%e : tensor<1x32x32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x32x32x16xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<1x16x16x16xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%act, %win : tensor<1x32x32x16xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %ge = tensor.empty() : tensor<1x16xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<1x16xf32>) -> tensor<1x16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%pool : tensor<1x16x16x16xf32>) outs(%gf : tensor<1x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x16xf32>
  %scale = arith.constant 0.00390625 : f32
  %mean = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x16xf32>) outs(%ge : tensor<1x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %scale : f32
    linalg.yield %m : f32
  } -> tensor<1x16xf32>
  %le = tensor.empty() : tensor<1x10xf32>
  %lf = linalg.fill ins(%zero : f32) outs(%le : tensor<1x10xf32>) -> tensor<1x10xf32>
  %logits = linalg.matmul ins(%mean, %fc : tensor<1x16xf32>, tensor<16x10xf32>) outs(%lf : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %logits : tensor<1x10xf32>
}
