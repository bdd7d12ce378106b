//===- ModelsTosa.cpp - zoo models in TOSA form ---------------------------===//
//
// TFLite models as they reach a compiler through the TFLite-to-TOSA
// legalization: NHWC, tosa.const weights with batchnorm folded in, TFLite
// SAME padding, relu6/hard-swish/swish as clamp/mul/sigmoid sequences.
// `--size=test` keeps every block kind (stride-2, residual, squeeze-excite,
// dilated, ...) at a small resolution, a quarter of the widths and fewer
// repeats per stage.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "TosaLayers.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace jitrun::modelgen {
namespace {

/// Full-size channel count, or a quarter of it (at least 2) at test size.
int64_t width(const TosaGraph &g, int64_t c) {
  return g.full() ? c : std::max<int64_t>(2, c / 4);
}

/// Full-size repeat count, or at most 2 at test size (the second repeat is
/// the residual one).
int64_t repeats(const TosaGraph &g, int64_t n) { return g.full() ? n : std::min<int64_t>(n, 2); }

/// TF's _make_divisible: round to a multiple of `divisor`, never below 90%.
int64_t makeDivisible(double v, int64_t divisor) {
  int64_t r = std::max<int64_t>(divisor, int64_t(v + divisor / 2.0) / divisor * divisor);
  if (double(r) < 0.9 * v)
    r += divisor;
  return r;
}

//===----------------------------------------------------------------------===//
// MobileNet V1 / V2 building blocks
//===----------------------------------------------------------------------===//

/// MobileNetV1's depthwise-separable block: 3x3 depthwise + relu6, 1x1 + relu6.
Value depthwiseSeparable(TosaGraph &g, Value x, int64_t cout, int64_t stride) {
  Value h = g.relu6(g.depthwise(x, 3, stride));
  return g.relu6(g.conv2d(h, cout, 1));
}

struct V1Block {
  int64_t channels, stride;
};
/// MobileNetV1 after the stem; the 5 repeated 512-channel blocks are entry 6
/// (repeated `v1Repeats` times).
const V1Block kMobileNetV1[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2},  {256, 1},
                                {512, 2}, {512, 1}, {1024, 2}, {1024, 1}};

/// The MobileNetV1 backbone; `taps` receives the outputs of the last 512
/// block ("conv11") and of the last block ("conv13").
Value mobileNetV1(TosaGraph &g, Value x, int64_t stemChannels, Value *conv11 = nullptr) {
  Value h = g.relu6(g.conv2d(x, stemChannels, 3, 2));
  for (size_t i = 0; i < std::size(kMobileNetV1); ++i) {
    const V1Block &blk = kMobileNetV1[i];
    int64_t n = i == 6 ? (g.full() ? 5 : 1) : 1;
    for (int64_t r = 0; r < n; ++r)
      h = depthwiseSeparable(g, h, width(g, blk.channels), blk.stride);
    if (i == 6 && conv11)
      *conv11 = h;
  }
  return h;
}

/// MobileNetV2's inverted residual: 1x1 expansion + relu6 (unless t == 1),
/// 3x3 depthwise + relu6, linear 1x1 projection, residual add when the shape
/// is kept.
Value invertedResidual(TosaGraph &g, Value x, int64_t t, int64_t cout, int64_t stride,
                       int64_t dilation = 1) {
  int64_t cin = TosaGraph::channels(x);
  Value h = x;
  if (t != 1)
    h = g.relu6(g.conv2d(h, cin * t, 1));
  h = g.relu6(g.depthwise(h, 3, stride, dilation));
  h = g.conv2d(h, cout, 1);
  if (stride == 1 && cin == cout)
    h = g.add(h, x);
  return h;
}

struct IRStage {
  int64_t t, c, n, s;
};
const IRStage kMobileNetV2[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

/// The MobileNetV2 feature extractor (stem + 17 inverted residuals at full
/// size). With `outputStride`, strides beyond it become dilations (TF-slim's
/// atrous MobileNetV2, as DeepLab uses it).
Value mobileNetV2Features(TosaGraph &g, Value x, int64_t outputStride = 0) {
  Value h = g.relu6(g.conv2d(x, width(g, 32), 3, 2));
  int64_t currentStride = 2, rate = 1;
  for (const IRStage &st : kMobileNetV2) {
    for (int64_t i = 0, n = repeats(g, st.n); i < n; ++i) {
      int64_t stride = i == 0 ? st.s : 1, layerRate = 1;
      if (outputStride && currentStride == outputStride) {
        layerRate = rate;
        rate *= stride;
        stride = 1;
      } else {
        currentStride *= stride;
      }
      h = invertedResidual(g, h, st.t, width(g, st.c), stride, layerRate);
    }
  }
  return h;
}

//===----------------------------------------------------------------------===//
// mobilenet_v2: 224x224x3 -> 1000 class probabilities
//===----------------------------------------------------------------------===//

LogicalResult buildMobileNetV2(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 224 : 32;
  Value x = g.begin({g.f32({openIfDynamic(ctx, 1), res, res, 3})})[0];
  Value h = mobileNetV2Features(g, x);
  h = g.relu6(g.conv2d(h, width(g, 1280), 1));
  h = g.globalAvgPool(h);
  h = g.reshape(h, {TosaGraph::shapeOf(h)[0], TosaGraph::channels(h)});
  h = g.fullyConnected(h, g.full() ? 1000 : 10);
  g.finish({g.softmax(h)});
  return success();
}

//===----------------------------------------------------------------------===//
// mobilenet_v3_small: hard-swish, squeeze-excite with hard-sigmoid gates
//===----------------------------------------------------------------------===//

struct V3Block {
  int64_t k, exp, out;
  bool se, hardSwish;
  int64_t stride;
};
const V3Block kMobileNetV3Small[] = {
    {3, 16, 16, true, false, 2},   {3, 72, 24, false, false, 2}, {3, 88, 24, false, false, 1},
    {5, 96, 40, true, true, 2},    {5, 240, 40, true, true, 1},  {5, 240, 40, true, true, 1},
    {5, 120, 48, true, true, 1},   {5, 144, 48, true, true, 1},  {5, 288, 96, true, true, 2},
    {5, 576, 96, true, true, 1},   {5, 576, 96, true, true, 1}};

LogicalResult buildMobileNetV3Small(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 224 : 32;
  Value x = g.begin({g.f32({1, res, res, 3})})[0];
  Value h = g.hardSwish(g.conv2d(x, width(g, 16), 3, 2));
  for (size_t i = 0; i < std::size(kMobileNetV3Small); ++i) {
    // Test size keeps one of each kind: blocks 5 and 7 repeat 4 and 6.
    if (!g.full() && (i == 5 || i == 7 || i == 10))
      continue;
    const V3Block &blk = kMobileNetV3Small[i];
    auto act = blk.hardSwish ? &TosaGraph::hardSwish : &TosaGraph::relu;
    int64_t cin = TosaGraph::channels(h), exp = width(g, blk.exp), cout = width(g, blk.out);
    Value y = h;
    if (exp != cin)
      y = (g.*act)(g.conv2d(y, exp, 1));
    y = (g.*act)(g.depthwise(y, blk.k, blk.stride));
    if (blk.se)
      y = g.squeezeExcite(y, makeDivisible(exp / 4.0, g.full() ? 8 : 2), &TosaGraph::relu,
                          &TosaGraph::hardSigmoid);
    y = g.conv2d(y, cout, 1);
    if (blk.stride == 1 && cin == cout)
      y = g.add(y, h);
    h = y;
  }
  h = g.hardSwish(g.conv2d(h, width(g, 576), 1));
  h = g.globalAvgPool(h);
  h = g.hardSwish(g.conv2d(h, width(g, 1024), 1));
  int64_t classes = g.full() ? 1000 : 10;
  h = g.conv2d(h, classes, 1);
  h = g.reshape(h, {1, classes});
  g.finish({g.softmax(h)});
  return success();
}

//===----------------------------------------------------------------------===//
// efficientnet_b0: MBConv with squeeze-excite and swish
//===----------------------------------------------------------------------===//

struct MBStage {
  int64_t e, k, s, c, n;
};
const MBStage kEfficientNetB0[] = {{1, 3, 1, 16, 1}, {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2},
                                   {6, 3, 2, 80, 3}, {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4},
                                   {6, 3, 1, 320, 1}};

LogicalResult buildEfficientNetB0(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 224 : 32;
  Value x = g.begin({g.f32({1, res, res, 3})})[0];
  Value h = g.swish(g.conv2d(x, width(g, 32), 3, 2));
  for (const MBStage &st : kEfficientNetB0) {
    for (int64_t i = 0, n = repeats(g, st.n); i < n; ++i) {
      int64_t stride = i == 0 ? st.s : 1;
      int64_t cin = TosaGraph::channels(h), cout = width(g, st.c);
      Value y = h;
      if (st.e != 1)
        y = g.swish(g.conv2d(y, cin * st.e, 1));
      y = g.swish(g.depthwise(y, st.k, stride));
      y = g.squeezeExcite(y, std::max<int64_t>(1, cin / 4), &TosaGraph::swish,
                          &TosaGraph::sigmoid);
      y = g.conv2d(y, cout, 1);
      if (stride == 1 && cin == cout)
        y = g.add(y, h);
      h = y;
    }
  }
  h = g.swish(g.conv2d(h, width(g, 1280), 1));
  h = g.meanHW(h);
  h = g.reshape(h, {1, TosaGraph::channels(h)});
  h = g.fullyConnected(h, g.full() ? 1000 : 10);
  g.finish({g.softmax(h)});
  return success();
}

//===----------------------------------------------------------------------===//
// posenet: MobileNetV1 (output stride 32) + keypoint heads, 257x257x3
//===----------------------------------------------------------------------===//

LogicalResult buildPoseNet(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 257 : 33;
  Value x = g.begin({g.f32({1, res, res, 3})})[0];
  Value f = mobileNetV1(g, x, width(g, 32));
  // 17 keypoint heatmaps, their 2D offsets, and the forward/backward
  // displacements along the 16 skeleton edges (raw 1x1 conv outputs).
  Value heatmaps = g.conv2d(f, 17, 1);
  Value offsets = g.conv2d(f, 34, 1);
  Value fwd = g.conv2d(f, 32, 1);
  Value bwd = g.conv2d(f, 32, 1);
  g.finish({heatmaps, offsets, fwd, bwd});
  return success();
}

//===----------------------------------------------------------------------===//
// deeplab_v3: atrous MobileNetV2 (output stride 16) + ASPP, 513x513x3
//===----------------------------------------------------------------------===//

LogicalResult buildDeepLabV3(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 513 : 33;
  Value x = g.begin({g.f32({1, res, res, 3})})[0];
  Value f = mobileNetV2Features(g, x, /*outputStride=*/16);
  int64_t fh = TosaGraph::shapeOf(f)[1], fw = TosaGraph::shapeOf(f)[2];
  int64_t depth = width(g, 256);
  SmallVector<Value> branches;
  branches.push_back(g.relu(g.conv2d(f, depth, 1)));
  for (int64_t rate : g.full() ? SmallVector<int64_t>{6, 12, 18} : SmallVector<int64_t>{2, 4, 6})
    branches.push_back(g.relu(g.conv2d(f, depth, 3, 1, rate)));
  // Image pooling: global average, 1x1 conv, bilinear back to the feature size.
  Value pooled = g.relu(g.conv2d(g.globalAvgPool(f), depth, 1));
  branches.push_back(g.resizeBilinear(pooled, fh, fw, /*alignCorners=*/true));
  Value h = g.concat(branches, 3);
  h = g.relu(g.conv2d(h, depth, 1));
  h = g.conv2d(h, 21, 1);
  g.finish({g.resizeBilinear(h, res, res, /*alignCorners=*/true)});
  return success();
}

//===----------------------------------------------------------------------===//
// mobile_ssd: SSD MobileNetV1, box and class heads on 6 (test: 3) feature maps
//===----------------------------------------------------------------------===//

LogicalResult buildMobileSSD(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 300 : 48;
  int64_t classes = g.full() ? 91 : 11;
  Value x = g.begin({g.f32({1, res, res, 3})})[0];
  Value conv11;
  Value conv13 = mobileNetV1(g, x, width(g, 32), &conv11);
  SmallVector<Value> maps{conv11, conv13};
  const int64_t extra[][2] = {{256, 512}, {128, 256}, {128, 256}, {64, 128}};
  Value h = conv13;
  for (int i = 0, n = g.full() ? 4 : 1; i < n; ++i) {
    h = g.relu6(g.conv2d(h, width(g, extra[i][0]), 1));
    h = g.relu6(g.conv2d(h, width(g, extra[i][1]), 3, 2));
    maps.push_back(h);
  }
  SmallVector<Value> boxes, scores;
  for (size_t i = 0; i < maps.size(); ++i) {
    int64_t anchors = i == 0 ? 3 : 6;
    ArrayRef<int64_t> s = TosaGraph::shapeOf(maps[i]);
    int64_t n = s[1] * s[2] * anchors;
    boxes.push_back(g.reshape(g.conv2d(maps[i], anchors * 4, 1), {1, n, 4}));
    scores.push_back(g.reshape(g.conv2d(maps[i], anchors * classes, 1), {1, n, classes}));
  }
  g.finish({g.concat(boxes, 1), g.sigmoid(g.concat(scores, 1))});
  return success();
}

//===----------------------------------------------------------------------===//
// edge_detection: Sobel gradients as a fixed conv2d, gradient magnitude
//===----------------------------------------------------------------------===//

LogicalResult buildEdgeDetection(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 256 : 64;
  Value x = g.begin({g.f32({1, res, res, 1})})[0];
  // OHWI: output channel 0 is d/dx, 1 is d/dy.
  Value sobel = g.constF32({2, 3, 3, 1}, {-1, 0, 1, -2, 0, 2, -1, 0, 1,    //
                                          -1, -2, -1, 0, 0, 0, 1, 2, 1});
  Value grad = g.conv2dWith(x, sobel, g.constF32({2}, {0, 0}), 1, 1, /*same=*/true);
  Value sumSq = g.reduceSum(g.mul(grad, grad), 3);
  // TFLite SQRT's legalization: reciprocal(rsqrt(x)).
  g.finish({g.reciprocal(g.rsqrt(sumSq))});
  return success();
}

//===----------------------------------------------------------------------===//
// person_detect_int8: TFLite-micro person detection, int8 MobileNetV1 0.25
//===----------------------------------------------------------------------===//

LogicalResult buildPersonDetectInt8(ModelContext &ctx) {
  TosaGraph g(ctx);
  int64_t res = g.full() ? 96 : 32;
  Value x = g.begin({g.tensor({1, res, res, 1}, g.b.getI8Type())})[0];
  // Activations after relu6 use zero point -128 (the [0, 6] range mapped to
  // [-128, 127]), as does the image (pixels 0..255 as int8 minus 128; the
  // rms of pixel - zp of a natural image is about 128).
  QValue h{x, -128, 128.0};
  h = g.qconv(h, 8, 3, 2, /*depthwise=*/false, /*relu=*/true, -128);
  for (size_t i = 0; i < std::size(kMobileNetV1); ++i) {
    const V1Block &blk = kMobileNetV1[i];
    int64_t n = i == 6 ? (g.full() ? 5 : 1) : 1;
    for (int64_t r = 0; r < n; ++r) {
      h = g.qconv(h, 0, 3, blk.stride, /*depthwise=*/true, /*relu=*/true, -128);
      h = g.qconv(h, blk.channels / 4, 1, 1, /*depthwise=*/false, /*relu=*/true, -128);
    }
  }
  h = g.qavgPool(h, TosaGraph::shapeOf(h.value)[1], 1);
  h = g.qconv(h, 2, 1, 1, /*depthwise=*/false, /*relu=*/false, 0);
  g.finish({g.reshape(h.value, {1, 2})});
  return success();
}

} // namespace

void addTosaModels(std::vector<ModelSpec> &models) {
  models.push_back({"mobilenet_v2", "tosa", buildMobileNetV2, "batch"});
  models.push_back({"mobilenet_v3_small", "tosa", buildMobileNetV3Small});
  models.push_back({"posenet", "tosa", buildPoseNet});
  models.push_back({"deeplab_v3", "tosa", buildDeepLabV3});
  models.push_back({"mobile_ssd", "tosa", buildMobileSSD});
  models.push_back({"efficientnet_b0", "tosa", buildEfficientNetB0});
  models.push_back({"edge_detection", "tosa", buildEdgeDetection});
  models.push_back({"person_detect_int8", "tosa", buildPersonDetectInt8});
}

} // namespace jitrun::modelgen
