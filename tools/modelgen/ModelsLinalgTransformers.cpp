//===- ModelsLinalgTransformers.cpp - encoders in linalg form -------------===//
//
// BERT-style encoders as torch-mlir exports them at batch 1: the hidden
// states are S x H matrices (the 1 x S x H input collapsed), every linear
// layer a linalg.matmul + bias generic, attention with linalg.batch_matmul
// over heads x S x head_dim (expand_shape + transpose generics), softmax
// and layer norm as reduction and elementwise generics, GELU with math.erf.
// The inputs are the embeddings (f32), so there is no gather.
//
//===----------------------------------------------------------------------===//

#include "LinalgLayers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <string>

using namespace mlir;

namespace jitrun::modelgen {

namespace {

struct EncoderConfig {
  int64_t seq, hidden, heads, ffn, layers;
};

/// One post-LN BERT layer: self-attention + output projection, residual,
/// layer norm; GELU feed-forward, residual, layer norm.
Value bertLayer(Layers &L, Value x, const EncoderConfig &c, const std::string &name) {
  L.at(name + ".attention");
  Value q = L.linear(x, c.hidden, true, name + ".attention.self.query");
  Value k = L.linear(x, c.hidden, true, name + ".attention.self.key");
  Value v = L.linear(x, c.hidden, true, name + ".attention.self.value");
  Value context = L.attention(q, k, v, c.heads);
  Value o = L.linear(context, c.hidden, true, name + ".attention.output.dense");
  Value x1 = L.layerNormLast(L.add(o, x), 1e-12, name + ".attention.output.LayerNorm");
  L.at(name + ".ffn");
  Value h = L.gelu(L.linear(x1, c.ffn, true, name + ".intermediate.dense"));
  Value f = L.linear(h, c.hidden, true, name + ".output.dense");
  return L.layerNormLast(L.add(f, x1), 1e-12, name + ".output.LayerNorm");
}

Type hiddenType(ModelContext &ctx, int64_t seq, int64_t hidden) {
  return RankedTensorType::get({1, openIfDynamic(ctx, seq), hidden}, ctx.builder.getF32Type());
}

/// bert_encoder: BERT-base's encoder stack. full: 12 layers, seq 128, hidden
/// 768, 12 heads, ffn 3072; test: 2 layers, seq 16, hidden 64, 2 heads, ffn 256.
/// 1 x S x H embeddings in, 1 x S x H hidden states out.
LogicalResult buildBertEncoder(ModelContext &ctx) {
  EncoderConfig c = ctx.size == Size::Full ? EncoderConfig{128, 768, 12, 3072, 12}
                                           : EncoderConfig{16, 64, 2, 256, 2};
  int64_t seq = openIfDynamic(ctx, c.seq);
  return buildMain(ctx, "bert_encoder", {hiddenType(ctx, c.seq, c.hidden)},
                   [&](Layers &L, ValueRange args) {
    Value x = L.collapse(args[0], {{0, 1}, {2}});
    for (int64_t i = 0; i < c.layers; ++i)
      x = bertLayer(L, x, c, "encoder.layer." + std::to_string(i));
    return SmallVector<Value>{L.expand(x, {1, seq, c.hidden}, {{0, 1}, {2}})};
  });
}

/// minilm: all-MiniLM-L12 as a sentence encoder: embedding layer norm, the
/// BERT layers, mean pooling over the sequence, L2 normalization.
/// full: 12 layers, seq 128, hidden 384, 12 heads, ffn 1536; test: 2 layers,
/// seq 16, hidden 64, 4 heads, ffn 256. 1 x S x H in, 1 x H out.
LogicalResult buildMiniLM(ModelContext &ctx) {
  EncoderConfig c = ctx.size == Size::Full ? EncoderConfig{128, 384, 12, 1536, 12}
                                           : EncoderConfig{16, 64, 4, 256, 2};
  return buildMain(ctx, "minilm", {hiddenType(ctx, c.seq, c.hidden)},
                   [&](Layers &L, ValueRange args) {
    L.at("embeddings");
    Value x = L.collapse(args[0], {{0, 1}, {2}});
    x = L.layerNormLast(x, 1e-12, "embeddings.LayerNorm");
    for (int64_t i = 0; i < c.layers; ++i)
      x = bertLayer(L, x, c, "encoder.layer." + std::to_string(i));
    L.at("pooling");
    Value sum = L.reduceDim(x, 0, Layers::Reduce::Sum); // H
    // Divided by the sequence length (the run's, in the dynamic variant).
    Value n = L.sizeAsF32(c.seq);
    Value mean = L.map({sum}, [n](OpBuilder &b, Location loc, ValueRange a) -> Value {
      return arith::DivFOp::create(b, loc, a[0], n);
    });
    Value pooled = L.expand(mean, {1, c.hidden}, {{0, 1}}); // 1 x H
    L.at("normalize");
    Value sq = L.reduceLast(pooled, Layers::Reduce::Sum, /*square=*/true); // 1
    Value inv = L.map({sq}, [](OpBuilder &b, Location loc, ValueRange a) -> Value {
      // 1 / max(||x||, 1e-12), as torch.nn.functional.normalize.
      Value norm = math::SqrtOp::create(b, loc, a[0]);
      Value eps = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1e-12f));
      Value clamped = arith::MaximumFOp::create(b, loc, norm, eps);
      Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
      return arith::DivFOp::create(b, loc, one, clamped);
    });
    Value out = L.elementwise({1, c.hidden}, {pooled, inv}, {L.identity(2), L.project(2, {0})},
                              [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                                return arith::MulFOp::create(b, loc, a[0], a[1]);
                              });
    return SmallVector<Value>{out};
  });
}

struct MobileBertConfig {
  int64_t seq, hidden, bottleneck, heads, intermediate, ffns, layers;
};

/// MobileBERT's NoNorm: x * weight + bias per feature.
Value noNorm(Layers &L, Value x, const std::string &name) {
  SmallVector<int64_t> shape = Layers::shapeOf(x);
  Value w = L.nearOne({shape[1]}, 0.1, name + ".weight");
  Value bias = L.weight({shape[1]}, 0.1, name + ".bias");
  AffineMap col = L.project(2, {1});
  return L.elementwise(shape, {x, w, bias}, {L.identity(2), col, col},
                       [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                         Value m = arith::MulFOp::create(b, loc, a[0], a[1]);
                         return arith::AddFOp::create(b, loc, m, a[2]);
                       });
}

/// One MobileBERT layer (HF MobileBertLayer: use_bottleneck,
/// key_query_shared_bottleneck, no_norm, relu): input and shared query/key
/// bottlenecks, attention on the bottleneck width with values from the full
/// hidden states, then `ffns - 1` stacked FFNs, the intermediate/output FFN,
/// and the output bottleneck back to the hidden width with the residual.
/// NoNorm does not normalize, so the projections ending a residual branch
/// are scaled by 1/sqrt(layers) (GPT-2's residual scaling): 24 random layers
/// then keep their scale instead of overflowing.
Value mobileBertLayer(Layers &L, Value x, const MobileBertConfig &c, const std::string &name) {
  double gain = 1.0 / std::sqrt(double(c.layers));
  L.at(name + ".bottleneck");
  Value layerInput = noNorm(L, L.linear(x, c.bottleneck, true, name + ".bottleneck.input.dense"),
                            name + ".bottleneck.input.LayerNorm");
  Value shared = noNorm(L, L.linear(x, c.bottleneck, true, name + ".bottleneck.attention.dense"),
                        name + ".bottleneck.attention.LayerNorm");
  L.at(name + ".attention");
  Value q = L.linear(shared, c.bottleneck, true, name + ".attention.self.query");
  Value k = L.linear(shared, c.bottleneck, true, name + ".attention.self.key");
  Value v = L.linear(x, c.bottleneck, true, name + ".attention.self.value");
  Value context = L.attention(q, k, v, c.heads);
  Value a = L.linear(context, c.bottleneck, true, name + ".attention.output.dense", false, gain);
  a = noNorm(L, L.add(a, layerInput), name + ".attention.output.LayerNorm");
  for (int64_t i = 0; i + 1 < c.ffns; ++i) {
    std::string f = name + ".ffn." + std::to_string(i);
    L.at(f);
    Value h = L.relu(L.linear(a, c.intermediate, true, f + ".intermediate.dense"));
    Value o = L.linear(h, c.bottleneck, true, f + ".output.dense", false, gain);
    a = noNorm(L, L.add(o, a), f + ".output.LayerNorm");
  }
  L.at(name + ".output");
  Value h = L.relu(L.linear(a, c.intermediate, true, name + ".intermediate.dense"));
  Value o = L.linear(h, c.bottleneck, true, name + ".output.dense", false, gain);
  o = noNorm(L, L.add(o, a), name + ".output.LayerNorm");
  Value up = L.linear(o, c.hidden, true, name + ".output.bottleneck.dense", false, gain);
  return noNorm(L, L.add(up, x), name + ".output.bottleneck.LayerNorm");
}

/// mobilebert: MobileBERT's encoder. full: 24 layers, seq 128, hidden 512,
/// bottleneck 128, 4 heads, intermediate 512, 4 FFNs; test: 2 layers, seq 16,
/// hidden 64, bottleneck 32, 2 heads, intermediate 64, 4 FFNs.
LogicalResult buildMobileBert(ModelContext &ctx) {
  MobileBertConfig c = ctx.size == Size::Full ? MobileBertConfig{128, 512, 128, 4, 512, 4, 24}
                                              : MobileBertConfig{16, 64, 32, 2, 64, 4, 2};
  int64_t seq = openIfDynamic(ctx, c.seq);
  return buildMain(ctx, "mobilebert", {hiddenType(ctx, c.seq, c.hidden)},
                   [&](Layers &L, ValueRange args) {
    Value x = L.collapse(args[0], {{0, 1}, {2}});
    for (int64_t i = 0; i < c.layers; ++i)
      x = mobileBertLayer(L, x, c, "encoder.layer." + std::to_string(i));
    return SmallVector<Value>{L.expand(x, {1, seq, c.hidden}, {{0, 1}, {2}})};
  });
}

/// fragment: a few ops cut from a transformer: matmul + bias, residual add,
/// layer norm. full: 128 x 768; test: 8 x 32.
LogicalResult buildFragment(ModelContext &ctx) {
  int64_t rows = ctx.size == Size::Full ? 128 : 8, cols = ctx.size == Size::Full ? 768 : 32;
  Type input = RankedTensorType::get({rows, cols}, ctx.builder.getF32Type());
  return buildMain(ctx, "fragment", {input}, [&](Layers &L, ValueRange args) {
    Value y = L.linear(args[0], cols, /*bias=*/true, "dense");
    Value r = L.add(y, args[0]);
    return SmallVector<Value>{L.layerNormLast(r, 1e-5, "LayerNorm")};
  });
}

} // namespace

void addLinalgTransformerModels(std::vector<ModelSpec> &models) {
  models.push_back({"bert_encoder", "linalg", buildBertEncoder, "sequence"});
  models.push_back({"minilm", "linalg", buildMiniLM, "sequence"});
  models.push_back({"mobilebert", "linalg", buildMobileBert, "sequence"});
  models.push_back({"fragment", "linalg", buildFragment});
}

} // namespace jitrun::modelgen
