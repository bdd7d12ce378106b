"""Writes an MLIR model of two 3x3 convolutions whose constant filters
(884 KB each) are large enough to be packed into panels
(jitrun-fusion-pack-weights), each with ONNX's bias (a Fx1x1 constant
broadcast through (c, 0, 0)): the first stride 1 with a relu, the second
stride 2. Seeded random weights, as hex-encoded dense constants."""
import sys

import numpy as np

rng = np.random.RandomState(7)


def const(shape):
    data = rng.uniform(-0.1, 0.1, shape).astype("<f4")
    return 'dense<"0x%s"> : tensor<%sxf32>' % (data.tobytes().hex().upper(),
                                               "x".join(map(str, shape)))


w1, b1 = const((3, 3, 128, 192)), const((192, 1, 1))
w2, b2 = const((3, 3, 192, 128)), const((128, 1, 1))
sys.stdout.write("""#bias = affine_map<(d0, d1, d2, d3) -> (d3, 0, 0)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @main(%%x: tensor<1x16x16x128xf32>) -> tensor<1x6x6x128xf32> {
  %%zero = arith.constant 0.0 : f32
  %%w1 = arith.constant %s
  %%b1 = arith.constant %s
  %%w2 = arith.constant %s
  %%b2 = arith.constant %s
  %%e1 = tensor.empty() : tensor<1x14x14x192xf32>
  %%acc1 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%%b1 : tensor<192x1x1xf32>) outs(%%e1 : tensor<1x14x14x192xf32>) {
  ^bb0(%%in: f32, %%o: f32):
    linalg.yield %%in : f32
  } -> tensor<1x14x14x192xf32>
  %%c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%%x, %%w1 : tensor<1x16x16x128xf32>, tensor<3x3x128x192xf32>) outs(%%acc1 : tensor<1x14x14x192xf32>) -> tensor<1x14x14x192xf32>
  %%r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%%c1 : tensor<1x14x14x192xf32>) outs(%%e1 : tensor<1x14x14x192xf32>) {
  ^bb0(%%in: f32, %%o: f32):
    %%m = arith.maximumf %%in, %%zero : f32
    linalg.yield %%m : f32
  } -> tensor<1x14x14x192xf32>
  %%e2 = tensor.empty() : tensor<1x6x6x128xf32>
  %%acc2 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%%b2 : tensor<128x1x1xf32>) outs(%%e2 : tensor<1x6x6x128xf32>) {
  ^bb0(%%in: f32, %%o: f32):
    linalg.yield %%in : f32
  } -> tensor<1x6x6x128xf32>
  %%c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%%r1, %%w2 : tensor<1x14x14x192xf32>, tensor<3x3x192x128xf32>) outs(%%acc2 : tensor<1x6x6x128xf32>) -> tensor<1x6x6x128xf32>
  return %%c2 : tensor<1x6x6x128xf32>
}
""" % (w1, b1, w2, b2))
