//===- ModelsLinalg.cpp - zoo models in linalg-on-tensors form -----------===//
//
// The linalg family: models as torch-mlir (or TF) hands them to a compiler,
// linalg named ops + linalg.generic with arith/math bodies, tensor.pad and
// reshapes. This file registers them all and holds the MLP and the CNNs;
// ModelsLinalgTransformers.cpp has the encoders and the graph fragment,
// ModelsLinalgControlFlow.cpp the scf.while / scf.for models. The layers
// themselves are in LinalgLayers.cpp.
//
//===----------------------------------------------------------------------===//

#include "LinalgLayers.h"

#include <cmath>
#include <string>

using namespace mlir;

namespace jitrun::modelgen {

namespace {

bool isFull(ModelContext &ctx) { return ctx.size == Size::Full; }

/// fullyconnected: an MLP of matmul + bias + relu layers (TF's
/// FullyConnected, weights stored K x N). full: 1 x 784 -> 512 -> 256 -> 10;
/// test: 2 x 64 -> 32 -> 32 -> 10.
LogicalResult buildFullyConnected(ModelContext &ctx) {
  bool full = isFull(ctx);
  int64_t batch = full ? 1 : 2;
  std::vector<int64_t> widths = full ? std::vector<int64_t>{784, 512, 256, 10}
                                     : std::vector<int64_t>{64, 32, 32, 10};
  Type input = RankedTensorType::get({batch, widths[0]}, ctx.builder.getF32Type());
  return buildMain(ctx, "fullyconnected", {input}, [&](Layers &L, ValueRange args) {
    Value x = args[0];
    for (size_t i = 1; i < widths.size(); ++i) {
      std::string name = "fc" + std::to_string(i);
      L.at(name);
      x = L.linear(x, widths[i], /*bias=*/true, name);
      if (i + 1 < widths.size())
        x = L.relu(x);
    }
    return SmallVector<Value>{x};
  });
}

/// mnist: the classic PyTorch example CNN, NCHW: (conv 5x5 pad 2 + bias,
/// relu, maxpool 2) x 2, flatten, dense + relu, dense (torch layout weights,
/// transposed by a generic). full: 1x1x28x28, 32/64 channels, 1024 hidden;
/// test: 1x1x28x28, 8/16 channels, 64 hidden.
LogicalResult buildMnist(ModelContext &ctx) {
  bool full = isFull(ctx);
  int64_t c1 = full ? 32 : 8, c2 = full ? 64 : 16, hidden = full ? 1024 : 64;
  int64_t k = full ? 5 : 3, p = k / 2;
  Type input = RankedTensorType::get({1, 1, 28, 28}, ctx.builder.getF32Type());
  return buildMain(ctx, "mnist", {input}, [&](Layers &L, ValueRange args) {
    L.at("conv1");
    Value x = L.relu(L.conv2dNchw(args[0], c1, k, 1, p, /*bias=*/true, "conv1"));
    L.at("pool1");
    x = L.maxPoolNchw(x, 2, 2, 0); // 14x14
    L.at("conv2");
    x = L.relu(L.conv2dNchw(x, c2, k, 1, p, /*bias=*/true, "conv2"));
    L.at("pool2");
    x = L.maxPoolNchw(x, 2, 2, 0); // 7x7
    L.at("fc1");
    x = L.collapse(x, {{0}, {1, 2, 3}}); // 1 x c2*49
    x = L.relu(L.linear(x, hidden, /*bias=*/true, "fc1", /*torchLayout=*/true));
    L.at("fc2");
    x = L.linear(x, 10, /*bias=*/true, "fc2", /*torchLayout=*/true);
    return SmallVector<Value>{x};
  });
}

/// resnet50: torchvision ResNet-50 v1.5 as torch-mlir exports it, NCHW:
/// 7x7/2 stem conv + batch norm + relu, 3x3/2 max pool, bottleneck blocks
/// (1x1, 3x3 with the stride, 1x1 to 4x width; a 1x1 strided projection +
/// batch norm on the first block of a stage), residual add + relu, global
/// average pool, fc to 1000. full: 1x3x224x224, widths 64..512, blocks
/// [3,4,6,3]; test: 1x3x32x32, widths 16..128, one block per stage.
LogicalResult buildResnet50(ModelContext &ctx) {
  bool full = isFull(ctx);
  int64_t res = full ? 224 : 32, div = full ? 1 : 4;
  std::vector<int64_t> blocks = full ? std::vector<int64_t>{3, 4, 6, 3}
                                     : std::vector<int64_t>{1, 1, 1, 1};
  Type input =
      RankedTensorType::get({openIfDynamic(ctx, 1), 3, res, res}, ctx.builder.getF32Type());
  return buildMain(ctx, "resnet50", {input}, [&](Layers &L, ValueRange args) {
    L.at("conv1");
    int64_t stem = 64 / div;
    Value x = L.conv2dNchw(args[0], stem, 7, 2, 3, /*bias=*/false, "conv1");
    x = L.relu(L.batchNormNchw(x, "bn1"));
    L.at("maxpool");
    x = L.maxPoolNchw(x, 3, 2, 1);
    int64_t channels = stem;
    // The last batch norm of each residual branch has gamma near
    // 1/sqrt(blocks), so the random blocks do not double the activations'
    // variance each (torchvision's zero_init_residual, but not zero).
    int64_t totalBlocks = 0;
    for (int64_t n : blocks)
      totalBlocks += n;
    double residualGain = 1.0 / std::sqrt(double(totalBlocks));
    for (size_t stage = 0; stage < blocks.size(); ++stage) {
      int64_t width = (64 << stage) / div, out = width * 4;
      for (int64_t blk = 0; blk < blocks[stage]; ++blk) {
        std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(blk);
        int64_t stride = (blk == 0 && stage > 0) ? 2 : 1;
        L.at(name);
        Value y = L.relu(L.batchNormNchw(L.conv2dNchw(x, width, 1, 1, 0, false, name + ".conv1"),
                                         name + ".bn1"));
        y = L.relu(L.batchNormNchw(L.conv2dNchw(y, width, 3, stride, 1, false, name + ".conv2"),
                                   name + ".bn2"));
        y = L.batchNormNchw(L.conv2dNchw(y, out, 1, 1, 0, false, name + ".conv3"), name + ".bn3",
                            residualGain);
        Value identity = x;
        if (blk == 0 && (stride != 1 || channels != out)) {
          L.at(name + ".downsample");
          identity = L.batchNormNchw(
              L.conv2dNchw(x, out, 1, stride, 0, false, name + ".downsample.0"),
              name + ".downsample.1");
        }
        L.at(name);
        x = L.relu(L.add(y, identity));
        channels = out;
      }
    }
    L.at("avgpool");
    x = L.globalAvgPoolNchw(x);
    x = L.collapse(x, {{0}, {1, 2, 3}}); // 1 x 2048
    L.at("fc");
    x = L.linear(x, 1000, /*bias=*/true, "fc", /*torchLayout=*/true);
    return SmallVector<Value>{x};
  });
}

} // namespace

void addLinalgVisionModels(std::vector<ModelSpec> &models) {
  models.push_back({"fullyconnected", "linalg", buildFullyConnected});
  models.push_back({"mnist", "linalg", buildMnist});
  models.push_back({"resnet50", "linalg", buildResnet50, "batch"});
}

void addLinalgModels(std::vector<ModelSpec> &models) {
  addLinalgVisionModels(models);
  addLinalgTransformerModels(models);
  addLinalgControlFlowModels(models);
}

} // namespace jitrun::modelgen
