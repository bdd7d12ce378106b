//===- LinalgLayers.cpp - layer builders in linalg-on-tensors form --------===//

#include "LinalgLayers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

using namespace mlir;

namespace jitrun::modelgen {

// --- Types, constants, weights ---------------------------------------------

RankedTensorType Layers::f32(ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF32Type());
}

SmallVector<int64_t> Layers::shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return SmallVector<int64_t>(t.getShape().begin(), t.getShape().end());
}

Value Layers::scalar(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

Value Layers::index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value Layers::empty(ArrayRef<int64_t> shape, Type elem) {
  SmallVector<Value> sizes;
  for (int64_t d : shape)
    if (ShapedType::isDynamic(d)) {
      assert(dynamicSize && "a dynamic dim in a model without an open size");
      sizes.push_back(dynamicSize);
    }
  return tensor::EmptyOp::create(b, loc, shape, elem ? elem : b.getF32Type(), sizes);
}

Value Layers::sizeAsF32(int64_t v) {
  if (!dynamicSize)
    return scalar(double(v));
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamicSize);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i);
}

Value Layers::filled(ArrayRef<int64_t> shape, double v, Type elem) {
  Value init = empty(shape, elem);
  Value value = elem && isa<IntegerType>(elem)
                    ? Value(arith::ConstantOp::create(b, loc, b.getIntegerAttr(elem, int64_t(v))))
                    : scalar(v);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{init}).getResult(0);
}

Value Layers::weight(ArrayRef<int64_t> shape, double scale, StringRef name) {
  return weightConstant(ctx, loc, f32(shape), scale, name);
}

Value Layers::nearOne(ArrayRef<int64_t> shape, double spread, StringRef name, double center) {
  RankedTensorType type = f32(shape);
  std::uniform_real_distribution<double> dist(-spread, spread);
  std::vector<float> data(type.getNumElements());
  for (float &v : data)
    v = static_cast<float>(center * (1.0 + dist(ctx.rng)));
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(data));
  auto attr = DenseResourceElementsAttr::get(type, name, std::move(blob));
  return arith::ConstantOp::create(b, loc, attr);
}

void Layers::at(StringRef name) {
  Location file = FileLineColLoc::get(b.getStringAttr(model + "/" + name.str()), ++layerCount, 1);
  loc = NameLoc::get(b.getStringAttr(name), file);
}

// --- Shapes -------------------------------------------------------------------

Value Layers::pad(Value x, ArrayRef<int64_t> low, ArrayRef<int64_t> high, double value) {
  SmallVector<int64_t> shape = shapeOf(x);
  SmallVector<OpFoldResult> lo, hi;
  for (size_t i = 0; i < shape.size(); ++i) {
    assert((!ShapedType::isDynamic(shape[i]) || low[i] + high[i] == 0) &&
           "an open dim is not padded");
    if (!ShapedType::isDynamic(shape[i]))
      shape[i] += low[i] + high[i];
    lo.push_back(b.getIndexAttr(low[i]));
    hi.push_back(b.getIndexAttr(high[i]));
  }
  return tensor::PadOp::create(b, loc, f32(shape), x, lo, hi, scalar(value));
}

static SmallVector<ReassociationIndices> toReassociation(ArrayRef<SmallVector<int64_t, 2>> groups) {
  SmallVector<ReassociationIndices> r;
  for (const auto &g : groups)
    r.push_back(ReassociationIndices(g.begin(), g.end()));
  return r;
}

Value Layers::collapse(Value x, ArrayRef<SmallVector<int64_t, 2>> groups) {
  return tensor::CollapseShapeOp::create(b, loc, x, toReassociation(groups));
}

Value Layers::expand(Value x, ArrayRef<int64_t> shape, ArrayRef<SmallVector<int64_t, 2>> groups) {
  auto elem = cast<RankedTensorType>(x.getType()).getElementType();
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, elem), x,
                                       toReassociation(groups));
}

Value Layers::transpose(Value x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> src = shapeOf(x), shape;
  unsigned rank = perm.size();
  SmallVector<AffineExpr> reads(rank);
  for (unsigned i = 0; i < rank; ++i) {
    shape.push_back(src[perm[i]]);
    reads[perm[i]] = b.getAffineDimExpr(i);
  }
  AffineMap read = AffineMap::get(rank, 0, reads, b.getContext());
  return elementwise(shape, {x}, {read},
                     [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

// --- linalg.generic -------------------------------------------------------------

AffineMap Layers::identity(unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, b.getContext());
}

AffineMap Layers::project(unsigned rank, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

Value Layers::elementwise(ArrayRef<int64_t> shape, ValueRange inputs, ArrayRef<AffineMap> maps,
                          Body body, Type resultElem) {
  Type elem = resultElem ? resultElem : b.getF32Type();
  Value init = empty(shape, elem);
  SmallVector<AffineMap> all(maps.begin(), maps.end());
  all.push_back(identity(shape.size()));
  SmallVector<utils::IteratorType> iters(shape.size(), utils::IteratorType::parallel);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, all, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = body(nb, nl, args.drop_back());
        linalg::YieldOp::create(nb, nl, r);
      });
  return op.getResult(0);
}

Value Layers::map(ValueRange inputs, Body body, Type resultElem) {
  SmallVector<int64_t> shape = shapeOf(inputs[0]);
  SmallVector<AffineMap> maps(inputs.size(), identity(shape.size()));
  return elementwise(shape, inputs, maps, body, resultElem);
}

Value Layers::reduceLast(Value x, Reduce kind, bool square) {
  return reduceDim(x, cast<RankedTensorType>(x.getType()).getRank() - 1, kind, square);
}

Value Layers::reduceDim(Value x, unsigned dim, Reduce kind, bool square) {
  SmallVector<int64_t> shape = shapeOf(x);
  unsigned rank = shape.size();
  SmallVector<int64_t> outShape;
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d < rank; ++d)
    if (d != dim) {
      outer.push_back(d);
      outShape.push_back(shape[d]);
    }
  Value init = filled(outShape, kind == Reduce::Sum ? 0.0 : -3.40282347e+38);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[dim] = utils::IteratorType::reduction;
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
      ArrayRef<AffineMap>{identity(rank), project(rank, outer)}, iters,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value in = a[0];
        if (square)
          in = arith::MulFOp::create(nb, nl, in, in);
        Value r = kind == Reduce::Sum ? Value(arith::AddFOp::create(nb, nl, in, a[1]))
                                      : Value(arith::MaximumFOp::create(nb, nl, in, a[1]));
        linalg::YieldOp::create(nb, nl, r);
      });
  return op.getResult(0);
}

// --- Activations and elementwise math ---------------------------------------

static Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

Value Layers::relu(Value x) {
  return map({x}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    Value zero = f32Const(nb, nl, 0.0);
    Value gt = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UGT, a[0], zero);
    return arith::SelectOp::create(nb, nl, gt, a[0], zero);
  });
}

Value Layers::gelu(Value x) {
  return map({x}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    Value t = arith::MulFOp::create(nb, nl, a[0], f32Const(nb, nl, 0.70710678118654752));
    Value e = math::ErfOp::create(nb, nl, t);
    Value p = arith::AddFOp::create(nb, nl, e, f32Const(nb, nl, 1.0));
    Value h = arith::MulFOp::create(nb, nl, a[0], f32Const(nb, nl, 0.5));
    return arith::MulFOp::create(nb, nl, h, p);
  });
}

Value Layers::sigmoid(Value x) {
  return map({x}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    Value one = f32Const(nb, nl, 1.0);
    Value n = arith::NegFOp::create(nb, nl, a[0]);
    Value e = math::ExpOp::create(nb, nl, n);
    Value d = arith::AddFOp::create(nb, nl, e, one);
    return arith::DivFOp::create(nb, nl, one, d);
  });
}

Value Layers::tanh(Value x) {
  return map({x}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return math::TanhOp::create(nb, nl, a[0]);
  });
}

Value Layers::add(Value x, Value y) {
  return map({x, y}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::AddFOp::create(nb, nl, a[0], a[1]);
  });
}

Value Layers::mulScalar(Value x, double s) {
  return map({x}, [s](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::MulFOp::create(nb, nl, a[0], f32Const(nb, nl, s));
  });
}

Value Layers::addBias(Value x, Value bias, unsigned dim) {
  SmallVector<int64_t> shape = shapeOf(x);
  unsigned rank = shape.size();
  return elementwise(shape, {x, bias}, {identity(rank), project(rank, {dim})},
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       return arith::AddFOp::create(nb, nl, a[0], a[1]);
                     });
}

// --- Layers -------------------------------------------------------------------

Value Layers::conv2d(Value x, int64_t outC, int64_t k, int64_t stride, int64_t padding, bool bias,
                     StringRef name, bool nchw) {
  SmallVector<int64_t> in = shapeOf(x);
  int64_t n = in[0], c = nchw ? in[1] : in[3], h = nchw ? in[2] : in[1], w = nchw ? in[3] : in[2];
  Value padded = x;
  if (padding > 0) {
    if (nchw)
      padded = pad(x, {0, 0, padding, padding}, {0, 0, padding, padding}, 0.0);
    else
      padded = pad(x, {0, padding, padding, 0}, {0, padding, padding, 0}, 0.0);
  }
  int64_t oh = (h + 2 * padding - k) / stride + 1, ow = (w + 2 * padding - k) / stride + 1;
  double scale = heScale(c * k * k);
  SmallVector<int64_t> outShape =
      nchw ? SmallVector<int64_t>{n, outC, oh, ow} : SmallVector<int64_t>{n, oh, ow, outC};
  Value init = filled(outShape, 0.0);
  Attribute strides = b.getI64VectorAttr({stride, stride});
  Attribute dilations = b.getI64VectorAttr({1, 1});
  Value conv;
  if (nchw) {
    Value wt = weight({outC, c, k, k}, scale, (name + ".weight").str());
    conv = linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{init.getType()},
                                            ValueRange{padded, wt}, ValueRange{init}, strides,
                                            dilations)
               .getResult(0);
  } else {
    Value wt = weight({k, k, c, outC}, scale, (name + ".weight").str());
    conv = linalg::Conv2DNhwcHwcfOp::create(b, loc, TypeRange{init.getType()},
                                            ValueRange{padded, wt}, ValueRange{init}, strides,
                                            dilations)
               .getResult(0);
  }
  if (bias)
    conv = addBias(conv, weight({outC}, 0.1, (name + ".bias").str()), nchw ? 1 : 3);
  return conv;
}

Value Layers::conv2dNchw(Value x, int64_t outC, int64_t k, int64_t stride, int64_t padding,
                         bool bias, StringRef name) {
  return conv2d(x, outC, k, stride, padding, bias, name, /*nchw=*/true);
}

Value Layers::conv2dNhwc(Value x, int64_t outC, int64_t k, int64_t stride, int64_t padding,
                         bool bias, StringRef name) {
  return conv2d(x, outC, k, stride, padding, bias, name, /*nchw=*/false);
}

Value Layers::batchNormNchw(Value x, StringRef name, double gain) {
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t c = shape[1];
  Value gamma = nearOne({c}, 0.1, (name + ".weight").str(), gain);
  Value beta = weight({c}, 0.1, (name + ".bias").str());
  Value mean = weight({c}, 0.1, (name + ".running_mean").str());
  Value var = nearOne({c}, 0.1, (name + ".running_var").str());
  AffineMap ch = project(4, {1});
  return elementwise(shape, {x, gamma, beta, mean, var}, {identity(4), ch, ch, ch, ch},
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       Value eps = f32Const(nb, nl, 1e-5);
                       Value ve = arith::AddFOp::create(nb, nl, a[4], eps);
                       Value r = math::RsqrtOp::create(nb, nl, ve);
                       Value d = arith::SubFOp::create(nb, nl, a[0], a[3]);
                       Value m = arith::MulFOp::create(nb, nl, d, r);
                       Value g = arith::MulFOp::create(nb, nl, m, a[1]);
                       return arith::AddFOp::create(nb, nl, g, a[2]);
                     });
}

Value Layers::maxPoolNchw(Value x, int64_t k, int64_t stride, int64_t padding) {
  const double lowest = -3.40282347e+38;
  SmallVector<int64_t> in = shapeOf(x);
  Value padded = padding > 0 ? pad(x, {0, 0, padding, padding}, {0, 0, padding, padding}, lowest) : x;
  int64_t oh = (in[2] + 2 * padding - k) / stride + 1, ow = (in[3] + 2 * padding - k) / stride + 1;
  Value init = filled({in[0], in[1], oh, ow}, lowest);
  Value window = empty({k, k});
  return linalg::PoolingNchwMaxOp::create(b, loc, TypeRange{init.getType()},
                                          ValueRange{padded, window}, ValueRange{init},
                                          b.getI64VectorAttr({stride, stride}),
                                          b.getI64VectorAttr({1, 1}))
      .getResult(0);
}

Value Layers::globalAvgPoolNchw(Value x) {
  SmallVector<int64_t> in = shapeOf(x);
  Value init = filled({in[0], in[1], 1, 1}, 0.0);
  Value window = empty({in[2], in[3]});
  Value sum = linalg::PoolingNchwSumOp::create(b, loc, TypeRange{init.getType()},
                                               ValueRange{x, window}, ValueRange{init},
                                               b.getI64VectorAttr({1, 1}),
                                               b.getI64VectorAttr({1, 1}))
                  .getResult(0);
  double count = double(in[2] * in[3]);
  if (count == 1.0)
    return sum;
  return map({sum}, [count](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::DivFOp::create(nb, nl, a[0], f32Const(nb, nl, count));
  });
}

Value Layers::linear(Value x, int64_t n, bool bias, StringRef name, bool torchLayout,
                     double gain) {
  SmallVector<int64_t> in = shapeOf(x);
  int64_t m = in[0], k = in[1];
  double scale = gain * heScale(k);
  Value wt;
  if (torchLayout)
    wt = transpose(weight({n, k}, scale, (name + ".weight").str()), {1, 0});
  else
    wt = weight({k, n}, scale, (name + ".weight").str());
  Value init = filled({m, n}, 0.0);
  Value mm = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()}, ValueRange{x, wt},
                                      ValueRange{init})
                 .getResult(0);
  if (bias)
    mm = addBias(mm, weight({n}, 0.1, (name + ".bias").str()), 1);
  return mm;
}

Value Layers::softmaxLast(Value x) {
  SmallVector<int64_t> shape = shapeOf(x);
  unsigned rank = shape.size();
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d + 1 < rank; ++d)
    outer.push_back(d);
  AffineMap rows = project(rank, outer);
  Value mx = reduceLast(x, Reduce::Max);
  Value e = elementwise(shape, {x, mx}, {identity(rank), rows},
                        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                          Value d = arith::SubFOp::create(nb, nl, a[0], a[1]);
                          return math::ExpOp::create(nb, nl, d);
                        });
  Value sum = reduceLast(e, Reduce::Sum);
  return elementwise(shape, {e, sum}, {identity(rank), rows},
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       return arith::DivFOp::create(nb, nl, a[0], a[1]);
                     });
}

Value Layers::layerNormLast(Value x, double eps, StringRef name) {
  SmallVector<int64_t> shape = shapeOf(x);
  unsigned rank = shape.size();
  double n = double(shape.back());
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d + 1 < rank; ++d)
    outer.push_back(d);
  AffineMap rows = project(rank, outer), last = project(rank, {rank - 1});
  Value gamma = nearOne({shape.back()}, 0.1, (name + ".weight").str());
  Value beta = weight({shape.back()}, 0.1, (name + ".bias").str());
  Value sum = reduceLast(x, Reduce::Sum);
  Value mean = map({sum}, [n](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::DivFOp::create(nb, nl, a[0], f32Const(nb, nl, n));
  });
  Value centered = elementwise(shape, {x, mean}, {identity(rank), rows},
                               [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                                 return arith::SubFOp::create(nb, nl, a[0], a[1]);
                               });
  Value sq = reduceLast(centered, Reduce::Sum, /*square=*/true);
  Value rstd = map({sq}, [n, eps](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    Value var = arith::DivFOp::create(nb, nl, a[0], f32Const(nb, nl, n));
    Value ve = arith::AddFOp::create(nb, nl, var, f32Const(nb, nl, eps));
    return math::RsqrtOp::create(nb, nl, ve);
  });
  return elementwise(shape, {centered, rstd, gamma, beta}, {identity(rank), rows, last, last},
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       Value m = arith::MulFOp::create(nb, nl, a[0], a[1]);
                       Value g = arith::MulFOp::create(nb, nl, m, a[2]);
                       return arith::AddFOp::create(nb, nl, g, a[3]);
                     });
}

Value Layers::attention(Value q, Value k, Value v, int64_t heads) {
  SmallVector<int64_t> shape = shapeOf(q);
  int64_t s = shape[0], h = shape[1], hd = h / heads;
  auto splitHeads = [&](Value x) { return expand(x, {s, heads, hd}, {{0}, {1, 2}}); };
  Value qh = transpose(splitHeads(q), {1, 0, 2}); // heads x S x hd
  Value kt = transpose(splitHeads(k), {1, 2, 0}); // heads x hd x S
  Value vh = transpose(splitHeads(v), {1, 0, 2}); // heads x S x hd
  Value scoresInit = filled({heads, s, s}, 0.0);
  Value scores = linalg::BatchMatmulOp::create(b, loc, TypeRange{scoresInit.getType()},
                                               ValueRange{qh, kt}, ValueRange{scoresInit})
                     .getResult(0);
  double root = std::sqrt(double(hd));
  Value scaled = map({scores}, [root](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::DivFOp::create(nb, nl, a[0], f32Const(nb, nl, root));
  });
  Value probs = softmaxLast(scaled);
  Value ctxInit = filled({heads, s, hd}, 0.0);
  Value context = linalg::BatchMatmulOp::create(b, loc, TypeRange{ctxInit.getType()},
                                                ValueRange{probs, vh}, ValueRange{ctxInit})
                      .getResult(0);
  Value merged = transpose(context, {1, 0, 2}); // S x heads x hd
  return collapse(merged, {{0}, {1, 2}});
}

LogicalResult buildMain(ModelContext &ctx, StringRef modelName, ArrayRef<Type> inputs,
                        function_ref<SmallVector<Value>(Layers &, ValueRange)> body) {
  OpBuilder &b = ctx.builder;
  MLIRContext *mctx = b.getContext();
  Location loc = FileLineColLoc::get(b.getStringAttr(modelName), 0, 0);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(ctx.module.getBody());
  auto fn = func::FuncOp::create(b, loc, "main", FunctionType::get(mctx, inputs, {}));
  fn.setPublic();
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Layers layers(ctx, loc);
  layers.model = modelName.str();
  layers.at("main");
  for (BlockArgument arg : entry->getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    for (int64_t d = 0; d < type.getRank() && !layers.dynamicSize; ++d)
      if (type.isDynamicDim(d))
        layers.dynamicSize = tensor::DimOp::create(b, loc, arg, d);
  }
  SmallVector<Value> results = body(layers, entry->getArguments());
  if (results.empty())
    return failure();
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc, results);
  SmallVector<Type> resultTypes;
  for (Value v : results)
    resultTypes.push_back(v.getType());
  fn.setFunctionType(FunctionType::get(mctx, inputs, resultTypes));
  return success();
}

} // namespace jitrun::modelgen
