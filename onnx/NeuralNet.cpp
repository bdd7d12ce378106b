//===- NeuralNet.cpp - ONNX's convolutions, matmuls, pooling and norms ----===//
//
// Written as torch-mlir writes them, the form the rest of jitrun fuses and
// tiles best: NCHW convolutions and poolings on a tensor.pad, the bias as
// the broadcast init of the accumulator, normalizations and softmax as
// reduction and elementwise generics.
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace jitrun {
namespace onnximport {
FailureOr<Value> convolution(Importer &im, Value x, Value w, Value bias) {
  Shape xs = Importer::shapeOf(x), ws = Importer::shapeOf(w);
  if ((xs.size() != 4 && xs.size() != 3) || ws.size() != xs.size())
    return im.fail("Conv: " + Twine(xs.size() - 2) + "-D convolutions are not supported (1-D and 2-D are)");
  bool oneD = xs.size() == 3;
  Type et = Importer::typeOf(x).getElementType();
  if (!isa<FloatType>(et))
    return im.fail("Conv on integers is not supported (use QLinearConv)");
  int64_t n = xs[0], c = xs[1], m = ws[0], group = im.attrInt("group", 1);
  if (group < 1 || c % group != 0 || m % group != 0 || ws[1] != c / group)
    return im.fail("Conv: the weights' shape does not match the input channels and group");
  FailureOr<Window> win = window2D(im, xs, Shape(ws.begin() + 2, ws.end()));
  if (failed(win))
    return failure();
  if (oneD) {
    x = im.reshape(x, {xs[0], xs[1], 1, xs[2]});
    w = im.reshape(w, {ws[0], ws[1], 1, ws[2]});
    xs = Importer::shapeOf(x);
    ws = Importer::shapeOf(w);
  }
  Shape os = {n, m, win->out[0], win->out[1]};
  // QDQ (a statically quantized model): the quantized input and filter
  // contract in int8, the sums scaled back to float.
  if (!oneD && group == 1 && win->ceilExtra[0] == 0 && win->ceilExtra[1] == 0)
    if (FailureOr<Value> q = qdqConv(im, x, w, bias, *win, os); succeeded(q))
      return *q;
  Value padded = padTo(im, x, {0, 0, win->padBegin[0], win->padBegin[1]},
                     {0, 0, win->padEnd[0] + win->ceilExtra[0], win->padEnd[1] + win->ceilExtra[1]},
                     0.0);
  auto done = [&](Value r) -> FailureOr<Value> {
    return oneD ? im.reshape(r, {n, m, win->out[1]}) : r;
  };
  // The accumulator starts at the bias, broadcast over the output.
  Value init;
  if (bias) {
    FailureOr<Value> r = im.elementwise({im.reshape(bias, {m, 1, 1}), im.empty(os, et)}, et,
                                        [](B &, L, V a) -> Value { return a[0]; });
    if (failed(r))
      return failure();
    init = *r;
  } else {
    init = im.filled(os, et, 0.0);
  }
  SmallVector<NamedAttribute> attrs = {i64Tensor(im, "dilations", win->dilations),
                                       i64Tensor(im, "strides", win->strides)};
  auto outType = RankedTensorType::get(os, et);
  if (group == 1) {
    return done(linalg::Conv2DNchwFchwOp::create(im.b, im.loc, TypeRange{outType},
                                                 ValueRange{padded, w}, ValueRange{init}, attrs)
                    .getResult(0));
  }
  if (group == c && m == c) {
    Value filter = im.reshape(w, {m, ws[2], ws[3]});
    return done(linalg::DepthwiseConv2DNchwChwOp::create(im.b, im.loc, TypeRange{outType},
                                                         ValueRange{padded, filter},
                                                         ValueRange{init}, attrs)
                    .getResult(0));
  }
  // Grouped: [N, G, C/G, H, W] x [G, M/G, C/G, KH, KW] -> [N, G, M/G, OH, OW].
  Shape ps = Importer::shapeOf(padded);
  Value xg = im.reshape(padded, {n, group, c / group, ps[2], ps[3]});
  Value wg = im.reshape(w, {group, m / group, c / group, ws[2], ws[3]});
  Value ig = im.reshape(init, {n, group, m / group, os[2], os[3]});
  auto gType = RankedTensorType::get({n, group, m / group, os[2], os[3]}, et);
  Value r = linalg::Conv2DNgchwGfchwOp::create(im.b, im.loc, TypeRange{gType}, ValueRange{xg, wg},
                                               ValueRange{ig}, attrs)
                .getResult(0);
  return done(im.reshape(r, os));
}

namespace {

LogicalResult conv(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("Conv needs an input and weights");
  FailureOr<Value> r =
      convolution(im, im.in(0), im.in(1), im.hasInput(2) ? im.in(2) : Value());
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

LogicalResult pool(Importer &im, SmallVectorImpl<Value> &results, bool max) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  Value x = im.in(0);
  Shape xs = Importer::shapeOf(x);
  Type et = Importer::typeOf(x).getElementType();
  if (xs.size() != 4 && xs.size() != 3)
    return im.fail(Twine(im.node->op_type()) + ": " + Twine(xs.size() - 2) + "-D pooling is not supported (1-D and 2-D are)");
  bool oneD = xs.size() == 3;
  if (!isa<FloatType>(et))
    return im.fail(Twine(im.node->op_type()) + " on integers is not supported");
  if (im.node->output_size() > 1 && !im.node->output(1).empty())
    return im.fail("MaxPool: the indices output is not supported");
  std::vector<int64_t> k = im.attrInts("kernel_shape");
  if (k.size() != xs.size() - 2)
    return im.fail(Twine(im.node->op_type()) + ": kernel_shape does not match the input's rank");
  FailureOr<Window> win = window2D(im, xs, k);
  if (failed(win))
    return failure();
  int64_t outW = win->out[1];
  if (oneD) {
    x = im.reshape(x, {xs[0], xs[1], 1, xs[2]});
    xs = Importer::shapeOf(x);
    k.insert(k.begin(), 1);
  }
  auto done = [&](Value r) {
    results.push_back(oneD ? im.reshape(r, {xs[0], xs[1], outW}) : r);
    return success();
  };
  double padValue = max ? -std::numeric_limits<double>::infinity() : 0.0;
  Value padded = padTo(im, x, {0, 0, win->padBegin[0], win->padBegin[1]},
                     {0, 0, win->padEnd[0] + win->ceilExtra[0], win->padEnd[1] + win->ceilExtra[1]},
                     padValue);
  Shape os = {xs[0], xs[1], win->out[0], win->out[1]};
  auto outType = RankedTensorType::get(os, et);
  Value windowShape = im.empty(k, et);
  SmallVector<NamedAttribute> attrs = {i64Tensor(im, "dilations", win->dilations),
                                       i64Tensor(im, "strides", win->strides)};
  if (max) {
    return done(linalg::PoolingNchwMaxOp::create(im.b, im.loc, TypeRange{outType},
                                                 ValueRange{padded, windowShape},
                                                 ValueRange{im.filled(os, et, padValue)}, attrs)
                    .getResult(0));
  }
  Value sum = linalg::PoolingNchwSumOp::create(im.b, im.loc, TypeRange{outType},
                                               ValueRange{padded, windowShape},
                                               ValueRange{im.filled(os, et, 0.0)}, attrs)
                  .getResult(0);
  // The divisor per output position: the window's elements inside the input
  // (count_include_pad=0) or inside the input and its explicit padding.
  bool includePad = im.attrInt("count_include_pad", 0) != 0;
  Lit counts;
  counts.shape = {win->out[0], win->out[1]};
  counts.elementType = et;
  bool uniform = true;
  for (int64_t oh = 0; oh < win->out[0]; ++oh)
    for (int64_t ow = 0; ow < win->out[1]; ++ow) {
      int64_t count = 1;
      for (int dim = 0; dim < 2; ++dim) {
        int64_t o = dim == 0 ? oh : ow, in = 0;
        int64_t lo = includePad ? -win->padBegin[dim] : 0;
        int64_t hi = includePad ? xs[2 + dim] + win->padEnd[dim] : xs[2 + dim];
        for (int64_t t = 0; t < k[dim]; ++t) {
          int64_t pos = o * win->strides[dim] - win->padBegin[dim] + t * win->dilations[dim];
          in += pos >= lo && pos < hi;
        }
        count *= in;
      }
      counts.values.push_back(static_cast<double>(std::max<int64_t>(count, 1)));
      uniform &= counts.values.back() == counts.values.front();
    }
  Value divisor;
  if (uniform) {
    double d = counts.values.front();
    FailureOr<Value> r = im.elementwise({sum}, et, [=](B &b, L l, V a) -> Value {
      return arith::DivFOp::create(b, l, a[0], fconst(b, l, et, d));
    });
    if (failed(r))
      return failure();
    return done(*r);
  }
  // Not a foldable Lit (it can be large): a constant attribute.
  SmallVector<float> data(counts.values.begin(), counts.values.end());
  divisor = im.constant(DenseElementsAttr::get(
      RankedTensorType::get(counts.shape, im.b.getF32Type()), ArrayRef<float>(data)));
  FailureOr<Value> r = im.elementwise({sum, divisor}, et, [=](B &b, L l, V a) -> Value {
    return arith::DivFOp::create(b, l, a[0], Importer::convert(b, l, a[1], et));
  });
  if (failed(r))
    return failure();
  return done(*r);
}

LogicalResult globalPool(Importer &im, SmallVectorImpl<Value> &results, bool max) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  Value x = im.in(0);
  Shape xs = Importer::shapeOf(x);
  Type et = Importer::typeOf(x).getElementType();
  if (xs.size() < 3 || !isa<FloatType>(et))
    return im.fail(Twine(im.node->op_type()) + " needs a float tensor with spatial dims");
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (size_t d = 2; d < xs.size(); ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  if (max) {
    results.push_back(im.reduce(x, axes, true, -std::numeric_limits<double>::infinity(),
                                [](B &b, L l, V a) -> Value {
                                  return arith::MaximumFOp::create(b, l, a[0], a[1]);
                                }));
    return success();
  }
  Value sum = im.reduce(x, axes, true, 0.0, [](B &b, L l, V a) -> Value {
    return arith::AddFOp::create(b, l, a[0], a[1]);
  });
  FailureOr<Value> r = im.elementwise({sum}, et, [=](B &b, L l, V a) -> Value {
    return arith::DivFOp::create(b, l, a[0], fconst(b, l, et, static_cast<double>(count)));
  });
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

} // namespace

FailureOr<Value> matmul(Importer &im, Value a, Value bv, Value init) {
  Shape as = Importer::shapeOf(a), bs = Importer::shapeOf(bv);
  Type et = Importer::typeOf(a).getElementType();
  if (as.empty() || bs.empty())
    return im.fail("MatMul: scalars are not matrices");
  bool vecA = as.size() == 1, vecB = bs.size() == 1;
  if (vecA)
    a = im.reshape(a, {1, as[0]}), as = {1, as[0]};
  if (vecB)
    bv = im.reshape(bv, {bs[0], 1}), bs = {bs[0], 1};
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k)
    return im.fail("MatMul: inner dimensions differ (" + Twine(k) + " and " +
                   Twine(bs[bs.size() - 2]) + ")");
  Shape batchA(as.begin(), as.end() - 2), batchB(bs.begin(), bs.end() - 2);
  Value result;
  Shape outShape;
  auto zeroInit = [&](ArrayRef<int64_t> shape) { return im.filled(shape, et, 0.0); };
  if (batchB.empty()) {
    // [..., M, K] x [K, N]: one matmul over the collapsed rows.
    int64_t rows = m;
    for (int64_t d : batchA)
      rows *= d;
    Value a2 = im.reshape(a, {rows, k});
    Value acc = init ? im.reshape(init, {rows, n}) : zeroInit({rows, n});
    Value r = linalg::MatmulOp::create(im.b, im.loc, TypeRange{acc.getType()}, ValueRange{a2, bv},
                                       ValueRange{acc})
                  .getResult(0);
    outShape = batchA;
    outShape.push_back(m);
    outShape.push_back(n);
    result = im.reshape(r, outShape);
  } else {
    // Broadcast the batch dims, collapse them, batch_matmul.
    size_t rank = std::max(batchA.size(), batchB.size());
    Shape batch(rank, 1);
    for (const Shape *s : {&batchA, &batchB})
      for (size_t i = 0; i < s->size(); ++i) {
        int64_t &o = batch[rank - s->size() + i];
        int64_t v = (*s)[i];
        if (v != 1 && o != 1 && v != o)
          return im.fail("MatMul: batch dimensions do not broadcast");
        o = std::max(o, v);
      }
    int64_t nb = 1;
    for (int64_t d : batch)
      nb *= d;
    auto expand = [&](Value v, Shape vs, int64_t r, int64_t c) -> FailureOr<Value> {
      Shape full = batch;
      full.push_back(r);
      full.push_back(c);
      if (vs != full) {
        FailureOr<Value> e = im.elementwise({v, im.empty(full, et)}, et,
                                            [](B &, L, V x) -> Value { return x[0]; });
        if (failed(e))
          return failure();
        v = *e;
      }
      return im.reshape(v, {nb, r, c});
    };
    FailureOr<Value> a3 = expand(a, as, m, k), b3 = expand(bv, bs, k, n);
    if (failed(a3) || failed(b3))
      return failure();
    Value acc = init ? im.reshape(init, {nb, m, n}) : zeroInit({nb, m, n});
    Value r = linalg::BatchMatmulOp::create(im.b, im.loc, TypeRange{acc.getType()},
                                            ValueRange{*a3, *b3}, ValueRange{acc})
                  .getResult(0);
    outShape = batch;
    outShape.push_back(m);
    outShape.push_back(n);
    result = im.reshape(r, outShape);
  }
  if (vecA || vecB) {
    Shape s = outShape;
    if (vecB)
      s.erase(s.end() - 1);
    if (vecA)
      s.erase(s.end() - (vecB ? 1 : 2));
    result = im.reshape(result, s);
  }
  return result;
}

namespace {

LogicalResult gemm(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("Gemm needs A and B");
  Value a = im.in(0), bv = im.in(1);
  if (Importer::typeOf(a).getRank() != 2 || Importer::typeOf(bv).getRank() != 2)
    return im.fail("Gemm: A and B must be matrices");
  double alpha = im.attrFloat("alpha", 1.0f), beta = im.attrFloat("beta", 1.0f);
  // QDQ: a quantized A times quantized weights in int8, plus C.
  if (!im.attrInt("transA", 0) && alpha == 1.0 && beta == 1.0)
    if (FailureOr<Value> q = qdqMatmul(im, a, bv, im.attrInt("transB", 0) != 0); succeeded(q)) {
      if (!im.hasInput(2)) {
        results.push_back(*q);
        return success();
      }
      FailureOr<Value> r = im.elementwise({*q, im.in(2)}, Importer::typeOf(*q).getElementType(),
                                          [](B &b, L l, V x) -> Value {
                                            return arith::AddFOp::create(b, l, x[0], x[1]);
                                          });
      if (failed(r))
        return failure();
      results.push_back(*r);
      return success();
    }
  if (im.attrInt("transA", 0))
    a = im.transpose(a, {1, 0});
  if (im.attrInt("transB", 0))
    bv = im.transpose(bv, {1, 0});
  Type et = Importer::typeOf(a).getElementType();
  int64_t m = Importer::shapeOf(a)[0], n = Importer::shapeOf(bv)[1];
  Value init;
  if (im.hasInput(2) && beta != 0.0) {
    FailureOr<Value> c = im.elementwise({im.in(2), im.empty({m, n}, et)}, et,
                                        [=](B &b, L l, V x) -> Value {
                                          if (beta == 1.0)
                                            return x[0];
                                          return arith::MulFOp::create(b, l, x[0],
                                                                       fconst(b, l, et, beta));
                                        });
    if (failed(c))
      return failure();
    init = *c;
  }
  if (alpha != 1.0) {
    FailureOr<Value> scaled = im.elementwise({a}, et, [=](B &b, L l, V x) -> Value {
      return arith::MulFOp::create(b, l, x[0], fconst(b, l, et, alpha));
    });
    if (failed(scaled))
      return failure();
    a = *scaled;
  }
  FailureOr<Value> r = matmul(im, a, bv, init);
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

/// Per-channel affine y = x * scale[c] + shift[c] over dim 1 of `x`.
FailureOr<Value> channelAffine(Importer &im, Value x, Value scale, Value shift) {
  Shape xs = Importer::shapeOf(x);
  Shape cs(xs.size() - 1, 1);
  cs[0] = xs[1];
  Type et = Importer::typeOf(x).getElementType();
  return im.elementwise({x, im.reshape(scale, cs), im.reshape(shift, cs)}, et,
                        [](B &b, L l, V a) -> Value {
                          return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, a[0], a[1]),
                                                       a[2]);
                        });
}

LogicalResult batchNorm(Importer &im, SmallVectorImpl<Value> &results) {
  for (int i = 0; i < 5; ++i)
    if (!im.hasInput(i))
      return im.fail("BatchNormalization needs X, scale, B, mean and var");
  if (im.attrInt("training_mode", 0))
    return im.fail("BatchNormalization: training mode is not supported");
  Value x = im.in(0);
  Type et = Importer::typeOf(x).getElementType();
  double eps = im.attrFloat("epsilon", 1e-5f);
  // scale' = scale / sqrt(var + eps), shift' = B - mean * scale'.
  FailureOr<Value> s = im.elementwise(
      {im.in(1), im.in(4)}, et,
      [=](B &b, L l, V a) -> Value {
        Value d = math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, a[1], fconst(b, l, et, eps)));
        return arith::DivFOp::create(b, l, a[0], d);
      },
      [=](ArrayRef<double> a) { return a[0] / std::sqrt(a[1] + eps); });
  if (failed(s))
    return failure();
  FailureOr<Value> t = im.elementwise(
      {im.in(2), im.in(3), *s}, et,
      [](B &b, L l, V a) -> Value {
        return arith::SubFOp::create(b, l, a[0], arith::MulFOp::create(b, l, a[1], a[2]));
      },
      [](ArrayRef<double> a) { return a[0] - a[1] * a[2]; });
  if (failed(t))
    return failure();
  FailureOr<Value> y = channelAffine(im, x, *s, *t);
  if (failed(y))
    return failure();
  results.push_back(*y);
  return success();
}

/// Mean and variance over `axes` (kept), then (x - mean) / sqrt(var + eps).
struct Normalized {
  Value y, mean, invStdDev;
};

FailureOr<Normalized> normalize(Importer &im, Value x, ArrayRef<int64_t> axes, double eps) {
  Type et = Importer::typeOf(x).getElementType();
  Shape xs = Importer::shapeOf(x);
  double count = 1;
  for (int64_t a : axes)
    count *= xs[a];
  auto add = [](B &b, L l, V a) -> Value { return arith::AddFOp::create(b, l, a[0], a[1]); };
  Value sum = im.reduce(x, axes, true, 0.0, add);
  FailureOr<Value> mean = im.elementwise({sum}, et, [=](B &b, L l, V a) -> Value {
    return arith::DivFOp::create(b, l, a[0], fconst(b, l, et, count));
  });
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = im.elementwise({x, *mean}, et, [](B &b, L l, V a) -> Value {
    return arith::SubFOp::create(b, l, a[0], a[1]);
  });
  if (failed(centered))
    return failure();
  FailureOr<Value> squares = im.elementwise({*centered}, et, [](B &b, L l, V a) -> Value {
    return arith::MulFOp::create(b, l, a[0], a[0]);
  });
  if (failed(squares))
    return failure();
  Value sq = im.reduce(*squares, axes, true, 0.0, add);
  FailureOr<Value> inv = im.elementwise({sq}, et, [=](B &b, L l, V a) -> Value {
    Value var = arith::DivFOp::create(b, l, a[0], fconst(b, l, et, count));
    Value d = math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, var, fconst(b, l, et, eps)));
    return arith::DivFOp::create(b, l, fconst(b, l, et, 1.0), d);
  });
  if (failed(inv))
    return failure();
  FailureOr<Value> y = im.elementwise({*centered, *inv}, et, [](B &b, L l, V a) -> Value {
    return arith::MulFOp::create(b, l, a[0], a[1]);
  });
  if (failed(y))
    return failure();
  return Normalized{*y, *mean, *inv};
}

LogicalResult layerNorm(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("LayerNormalization needs X and scale");
  Value x = im.in(0);
  int64_t rank = Importer::typeOf(x).getRank();
  int64_t axis = normalizeAxis(im.attrInt("axis", -1), rank);
  if (axis < 0)
    return im.fail("LayerNormalization: axis out of range");
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  FailureOr<Normalized> y = normalize(im, x, axes, im.attrFloat("epsilon", 1e-5f));
  if (failed(y))
    return failure();
  Type et = Importer::typeOf(x).getElementType();
  SmallVector<Value> ins = {y->y, im.in(1)};
  if (im.hasInput(2))
    ins.push_back(im.in(2));
  FailureOr<Value> r = im.elementwise(ins, et, [](B &b, L l, V a) -> Value {
    Value v = arith::MulFOp::create(b, l, a[0], a[1]);
    return a.size() > 2 ? Value(arith::AddFOp::create(b, l, v, a[2])) : v;
  });
  if (failed(r))
    return failure();
  results.push_back(*r);
  // The optional outputs: the mean and the inverse standard deviation.
  results.push_back(y->mean);
  results.push_back(y->invStdDev);
  return success();
}

LogicalResult instanceNorm(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1) || !im.hasInput(2))
    return im.fail("InstanceNormalization needs X, scale and B");
  Value x = im.in(0);
  int64_t rank = Importer::typeOf(x).getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  FailureOr<Normalized> y = normalize(im, x, axes, im.attrFloat("epsilon", 1e-5f));
  if (failed(y))
    return failure();
  FailureOr<Value> r = channelAffine(im, y->y, im.in(1), im.in(2));
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

LogicalResult softmax(Importer &im, SmallVectorImpl<Value> &results, bool log) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  Value x = im.in(0);
  Shape xs = Importer::shapeOf(x);
  Type et = Importer::typeOf(x).getElementType();
  int64_t rank = xs.size();
  int64_t axis = normalizeAxis(im.attrInt("axis", im.opset < 13 ? 1 : -1), rank);
  if (axis < 0)
    return im.fail(Twine(im.node->op_type()) + ": axis out of range");
  // Before opset 13 the input is seen as 2-D: [prod(:axis), prod(axis:)].
  Value v = x;
  int64_t reduceAxis = axis;
  if (im.opset < 13) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) *= xs[d];
    v = im.reshape(x, {outer, inner});
    reduceAxis = 1;
  }
  Value mx = im.reduce(v, {reduceAxis}, true, -std::numeric_limits<double>::infinity(),
                       [](B &b, L l, V a) -> Value {
                         return arith::MaximumFOp::create(b, l, a[0], a[1]);
                       });
  FailureOr<Value> e = im.elementwise({v, mx}, et, [](B &b, L l, V a) -> Value {
    return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]));
  });
  if (failed(e))
    return failure();
  Value sum = im.reduce(*e, {reduceAxis}, true, 0.0, [](B &b, L l, V a) -> Value {
    return arith::AddFOp::create(b, l, a[0], a[1]);
  });
  FailureOr<Value> r =
      log ? im.elementwise({v, mx, sum}, et,
                           [](B &b, L l, V a) -> Value {
                             Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
                             return arith::SubFOp::create(b, l, shifted,
                                                          math::LogOp::create(b, l, a[2]));
                           })
          : im.elementwise({*e, sum}, et, [](B &b, L l, V a) -> Value {
              return arith::DivFOp::create(b, l, a[0], a[1]);
            });
  if (failed(r))
    return failure();
  results.push_back(im.reshape(*r, xs));
  return success();
}

/// ArgMax / ArgMin along `axis`: the extreme value (a reduction), then the
/// first (or, select_last_index, the last) index holding it (a second
/// reduction of min / max over the indices where the element equals it; a
/// NaN extreme matches the NaNs, the first of which NumPy returns).
LogicalResult argExtreme(Importer &im, SmallVectorImpl<Value> &results, bool max) {
  const char *op = max ? "ArgMax" : "ArgMin";
  if (!im.hasInput(0))
    return im.fail(Twine(op) + " needs an input");
  Value x = im.in(0);
  Type et = Importer::typeOf(x).getElementType();
  if (!isa<FloatType>(et))
    return im.fail(Twine(op) + " on integers is not supported");
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  int64_t axis = normalizeAxis(im.attrInt("axis", 0), rank);
  if (axis < 0 || xs[axis] < 1)
    return im.fail(Twine(op) + ": axis out of range or of size 0");
  bool keep = im.attrInt("keepdims", 1) != 0, last = im.attrInt("select_last_index", 0) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  Value extreme = im.reduce(x, {axis}, true, max ? -inf : inf, [max](B &b, L l, V a) -> Value {
    return max ? arith::MaximumFOp::create(b, l, a[0], a[1]).getResult()
               : arith::MinimumFOp::create(b, l, a[0], a[1]).getResult();
  });
  // Each element's index along the axis where it holds the extreme, else a
  // value the second reduction never picks.
  int64_t none = last ? -1 : xs[axis];
  Type i64 = im.b.getI64Type();
  FailureOr<Value> candidates = im.elementwise({x, extreme}, i64, [=](B &b, L l, V a) -> Value {
    Value eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
    Value bothNan = arith::AndIOp::create(
        b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, a[0], a[0]),
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, a[1], a[1]));
    Value hit = arith::OrIOp::create(b, l, eq, bothNan);
    Value index = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, axis));
    return arith::SelectOp::create(b, l, hit, index,
                                   arith::ConstantOp::create(b, l, b.getI64IntegerAttr(none)));
  });
  if (failed(candidates))
    return failure();
  results.push_back(im.reduce(*candidates, {axis}, keep, static_cast<double>(none),
                              [last](B &b, L l, V a) -> Value {
                                return last ? arith::MaxSIOp::create(b, l, a[0], a[1]).getResult()
                                            : arith::MinSIOp::create(b, l, a[0], a[1]).getResult();
                              }));
  return success();
}

enum class ReduceKind { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2 };

LogicalResult reduceOp(Importer &im, SmallVectorImpl<Value> &results, ReduceKind kind) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  Value x = im.in(0);
  Shape xs = Importer::shapeOf(x);
  Type et = Importer::typeOf(x).getElementType();
  bool f = isa<FloatType>(et);
  int64_t rank = xs.size();
  std::vector<int64_t> axes;
  // Axes: an attribute until opset 13 (ReduceSum) or 18 (the others), then an input.
  bool axesInput = kind == ReduceKind::Sum ? im.opset >= 13 : im.opset >= 18;
  if (axesInput && im.hasInput(1)) {
    FailureOr<std::vector<int64_t>> a = im.constInts(1, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else if (!axesInput) {
    axes = im.attrInts("axes");
  }
  if (axes.empty()) {
    if (im.attrInt("noop_with_empty_axes", 0)) {
      results.push_back(x);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  SmallVector<int64_t> norm;
  double count = 1;
  for (int64_t a : axes) {
    int64_t n = normalizeAxis(a, rank);
    if (n < 0)
      return im.fail(Twine(im.node->op_type()) + ": axis out of range");
    if (!llvm::is_contained(norm, n)) {
      norm.push_back(n);
      count *= xs[n];
    }
  }
  llvm::sort(norm);
  bool keep = im.attrInt("keepdims", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  Value input = x;
  if (kind == ReduceKind::SumSquare || kind == ReduceKind::L2 || kind == ReduceKind::L1) {
    FailureOr<Value> sq = im.elementwise({x}, et, [=](B &b, L l, V a) -> Value {
      if (kind == ReduceKind::L1)
        return f ? Value(math::AbsFOp::create(b, l, a[0])) : Value(math::AbsIOp::create(b, l, a[0]));
      return f ? Value(arith::MulFOp::create(b, l, a[0], a[0]))
               : Value(arith::MulIOp::create(b, l, a[0], a[0]));
    });
    if (failed(sq))
      return failure();
    input = *sq;
  }
  double init = 0;
  ScalarFn combine;
  switch (kind) {
  case ReduceKind::Max:
    init = f ? -inf : static_cast<double>(std::numeric_limits<int32_t>::min());
    combine = [f](B &b, L l, V a) -> Value {
      return f ? Value(arith::MaximumFOp::create(b, l, a[0], a[1]))
               : Value(arith::MaxSIOp::create(b, l, a[0], a[1]));
    };
    break;
  case ReduceKind::Min:
    init = f ? inf : static_cast<double>(std::numeric_limits<int32_t>::max());
    combine = [f](B &b, L l, V a) -> Value {
      return f ? Value(arith::MinimumFOp::create(b, l, a[0], a[1]))
               : Value(arith::MinSIOp::create(b, l, a[0], a[1]));
    };
    break;
  case ReduceKind::Prod:
    init = 1;
    combine = [f](B &b, L l, V a) -> Value {
      return f ? Value(arith::MulFOp::create(b, l, a[0], a[1]))
               : Value(arith::MulIOp::create(b, l, a[0], a[1]));
    };
    break;
  default:
    combine = [f](B &b, L l, V a) -> Value {
      return f ? Value(arith::AddFOp::create(b, l, a[0], a[1]))
               : Value(arith::AddIOp::create(b, l, a[0], a[1]));
    };
  }
  Value r = im.reduce(input, norm, keep, init, combine);
  if (kind == ReduceKind::Mean || kind == ReduceKind::L2) {
    if (!f)
      return im.fail(Twine(im.node->op_type()) + " on integers is not supported");
    FailureOr<Value> m = im.elementwise({r}, et, [=](B &b, L l, V a) -> Value {
      if (kind == ReduceKind::L2)
        return math::SqrtOp::create(b, l, a[0]);
      return arith::DivFOp::create(b, l, a[0], fconst(b, l, et, count));
    });
    if (failed(m))
      return failure();
    r = *m;
  }
  results.push_back(r);
  return success();
}

/// ConvTranspose as a convolution: the input dilated by the stride (zeros
/// between its elements), padded by the kernel's extent, convolved with the
/// weights flipped and transposed; then the output window the pads select.
LogicalResult convTranspose(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("ConvTranspose needs an input and weights");
  Value x = im.in(0), wIn = im.in(1);
  Shape xs = Importer::shapeOf(x), ws = Importer::shapeOf(wIn);
  Type et = Importer::typeOf(x).getElementType();
  if ((xs.size() != 4 && xs.size() != 3) || ws.size() != xs.size() || !et.isF32())
    return im.fail("ConvTranspose: " + Twine(xs.size() - 2) +
                   "-D or non-f32 transposed convolutions are not supported (1-D and 2-D f32 are)");
  // 1-D: the 2-D one of height 1.
  bool oneD = xs.size() == 3;
  if (oneD) {
    x = im.reshape(x, {xs[0], xs[1], 1, xs[2]});
    wIn = im.reshape(wIn, {ws[0], ws[1], 1, ws[2]});
    xs = Importer::shapeOf(x);
    ws = Importer::shapeOf(wIn);
  }
  if (im.attrInt("group", 1) != 1)
    return im.fail("ConvTranspose: groups are not supported");
  auto wc = wIn.getDefiningOp<arith::ConstantOp>();
  int64_t n = xs[0], c = xs[1], m = ws[1], kh = ws[2], kw = ws[3];
  if (ws[0] != c)
    return im.fail("ConvTranspose: the weights do not match the input channels");
  auto attrOr = [&](StringRef name, int64_t dflt) {
    std::vector<int64_t> v = im.attrInts(name);
    if (oneD && v.size() == 1)
      return Shape{dflt, v[0]};
    return v.size() == 2 ? Shape(v.begin(), v.end()) : Shape{dflt, dflt};
  };
  Shape s = attrOr("strides", 1), d = attrOr("dilations", 1), op = attrOr("output_padding", 0);
  Shape k = {kh, kw}, in = {xs[2], xs[3]}, begin(2, 0), out(2, 0);
  std::vector<int64_t> pads = im.attrInts("pads"), outputShape = im.attrInts("output_shape");
  if (oneD) {
    if (pads.size() == 2)
      pads = {0, pads[0], 0, pads[1]};
    if (outputShape.size() == 1)
      outputShape = {1, outputShape[0]};
  }
  std::string autoPad = im.attrString("auto_pad", "NOTSET");
  for (int i = 0; i < 2; ++i) {
    int64_t full = s[i] * (in[i] - 1) + op[i] + d[i] * (k[i] - 1) + 1;
    if (outputShape.size() >= 2) {
      int64_t want = outputShape[outputShape.size() - 2 + i];
      // A larger output than the input reaches: zeros at the end, as
      // output_padding would add.
      if (want > full) {
        op[i] += want - full;
        full = want;
      }
      int64_t total = full - want;
      begin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      out[i] = want;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t want = in[i] * s[i], total = full - want;
      begin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      out[i] = want;
    } else {
      int64_t pb = pads.size() == 4 ? pads[i] : 0, pe = pads.size() == 4 ? pads[2 + i] : 0;
      begin[i] = pb;
      out[i] = full - pb - pe;
    }
    if (begin[i] < 0 || out[i] <= 0 || begin[i] + out[i] > full)
      return im.fail("ConvTranspose: pads and output shape do not fit the output");
  }
  // The weights [C, M, KH, KW] as a convolution's [M, C, KH, KW], flipped:
  // rearranged here when constant, else by a generic reading
  // (m, c, i, j) -> (c, m, KH-1-i, KW-1-j).
  Value w;
  std::optional<ArrayRef<char>> wBytes = Importer::constantData(wIn);
  if (wc && wBytes && et.isF32() &&
      wBytes->size() == static_cast<size_t>(c * m * kh * kw) * sizeof(float)) {
    std::vector<float> src(c * m * kh * kw);
    std::memcpy(src.data(), wBytes->data(), wBytes->size());
    std::vector<float> flipped(src.size());
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t mi = 0; mi < m; ++mi)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j)
            flipped[((mi * c + ci) * kh + i) * kw + j] =
                src[((ci * m + mi) * kh + (kh - 1 - i)) * kw + (kw - 1 - j)];
    AsmResourceBlob blob = newBlob(flipped.size() * sizeof(float));
    std::memcpy(blob.getMutableData().data(), flipped.data(), flipped.size() * sizeof(float));
    w = im.constantOfBytes(RankedTensorType::get({m, c, kh, kw}, et), std::move(blob),
                           "onnx_flipped");
  } else {
    w = linalg::GenericOp::create(
            im.b, im.loc, RankedTensorType::get({m, c, kh, kw}, et), ValueRange{},
            ValueRange{im.empty({m, c, kh, kw}, et)},
            SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, im.context)},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            [&](B &b, L l, V) {
              Value mi = linalg::IndexOp::create(b, l, 0), ci = linalg::IndexOp::create(b, l, 1);
              Value i = linalg::IndexOp::create(b, l, 2), j = linalg::IndexOp::create(b, l, 3);
              Value fi = arith::SubIOp::create(b, l, arith::ConstantIndexOp::create(b, l, kh - 1), i);
              Value fj = arith::SubIOp::create(b, l, arith::ConstantIndexOp::create(b, l, kw - 1), j);
              linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(
                                                 b, l, wIn, ValueRange{ci, mi, fi, fj})});
            })
            .getResult(0);
  }
  // Dilate by the stride: zeros with the input inserted every s-th element.
  Value dilated = x;
  if (s[0] > 1 || s[1] > 1) {
    Shape ds = {n, c, (in[0] - 1) * s[0] + 1, (in[1] - 1) * s[1] + 1};
    Value zeros = im.filled(ds, et, 0.0);
    SmallVector<OpFoldResult> offs(4, im.b.getIndexAttr(0)), sizes, strides;
    for (int64_t v : xs)
      sizes.push_back(im.b.getIndexAttr(v));
    strides = {im.b.getIndexAttr(1), im.b.getIndexAttr(1), im.b.getIndexAttr(s[0]),
               im.b.getIndexAttr(s[1])};
    dilated = tensor::InsertSliceOp::create(im.b, im.loc, x, zeros, offs, sizes, strides);
  }
  Value padded = padTo(im, dilated, {0, 0, d[0] * (kh - 1), d[1] * (kw - 1)},
                     {0, 0, d[0] * (kh - 1) + op[0], d[1] * (kw - 1) + op[1]}, 0.0);
  Shape fullShape = {n, m, s[0] * (in[0] - 1) + op[0] + d[0] * (kh - 1) + 1,
                     s[1] * (in[1] - 1) + op[1] + d[1] * (kw - 1) + 1};
  Value init = im.filled(fullShape, et, 0.0);
  SmallVector<NamedAttribute> attrs = {i64Tensor(im, "dilations", d),
                                       i64Tensor(im, "strides", {1, 1})};
  Value full = linalg::Conv2DNchwFchwOp::create(im.b, im.loc,
                                                TypeRange{RankedTensorType::get(fullShape, et)},
                                                ValueRange{padded, w}, ValueRange{init}, attrs)
                   .getResult(0);
  Shape os = {n, m, out[0], out[1]};
  Value y = full;
  if (fullShape != os) {
    SmallVector<OpFoldResult> offs = {im.b.getIndexAttr(0), im.b.getIndexAttr(0),
                                      im.b.getIndexAttr(begin[0]), im.b.getIndexAttr(begin[1])};
    SmallVector<OpFoldResult> sizes, ones(4, im.b.getIndexAttr(1));
    for (int64_t v : os)
      sizes.push_back(im.b.getIndexAttr(v));
    y = tensor::ExtractSliceOp::create(im.b, im.loc, RankedTensorType::get(os, et), full, offs,
                                       sizes, ones);
  }
  if (im.hasInput(2)) {
    FailureOr<Value> r = im.elementwise({y, im.reshape(im.in(2), {m, 1, 1})}, et,
                                        [](B &b, L l, V a) -> Value {
                                          return arith::AddFOp::create(b, l, a[0], a[1]);
                                        });
    if (failed(r))
      return failure();
    y = *r;
  }
  results.push_back(oneD ? im.reshape(y, {n, m, out[1]}) : y);
  return success();
}

} // namespace

void addNeuralNetOps(OpTable &t) {
  t["ConvTranspose"] = convTranspose;
  t["Conv"] = conv;
  t["MaxPool"] = [](Importer &im, SmallVectorImpl<Value> &r) { return pool(im, r, true); };
  t["AveragePool"] = [](Importer &im, SmallVectorImpl<Value> &r) { return pool(im, r, false); };
  t["GlobalAveragePool"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return globalPool(im, r, false);
  };
  t["GlobalMaxPool"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return globalPool(im, r, true);
  };
  t["Gemm"] = gemm;
  t["MatMul"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("MatMul needs 2 inputs");
    if (!isa<FloatType>(Importer::typeOf(im.in(0)).getElementType()))
      return im.fail("MatMul on integers is not supported (use MatMulInteger or QLinearMatMul)");
    // QDQ: quantized operands contract in int8.
    if (FailureOr<Value> q = qdqMatmul(im, im.in(0), im.in(1), false); succeeded(q)) {
      results.push_back(*q);
      return success();
    }
    FailureOr<Value> r = matmul(im, im.in(0), im.in(1));
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  t["BatchNormalization"] = batchNorm;
  t["LayerNormalization"] = layerNorm;
  t["InstanceNormalization"] = instanceNorm;
  t["Softmax"] = [](Importer &im, SmallVectorImpl<Value> &r) { return softmax(im, r, false); };
  t["LogSoftmax"] = [](Importer &im, SmallVectorImpl<Value> &r) { return softmax(im, r, true); };
  t["ReduceSum"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::Sum);
  };
  t["ReduceMean"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::Mean);
  };
  t["ArgMax"] = [](Importer &im, SmallVectorImpl<Value> &r) { return argExtreme(im, r, true); };
  t["ArgMin"] = [](Importer &im, SmallVectorImpl<Value> &r) { return argExtreme(im, r, false); };
  t["ReduceMax"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::Max);
  };
  t["ReduceMin"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::Min);
  };
  t["ReduceProd"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::Prod);
  };
  t["ReduceSumSquare"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::SumSquare);
  };
  t["ReduceL1"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::L1);
  };
  t["ReduceL2"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return reduceOp(im, r, ReduceKind::L2);
  };
  t["PRelu"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("PRelu needs X and slope");
    Value x = im.in(0), slope = im.in(1);
    Type et = Importer::typeOf(x).getElementType();
    // A per-channel slope [C] of an NCHW input broadcasts over dim 1.
    Shape ss = Importer::shapeOf(slope), xs = Importer::shapeOf(x);
    if (ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1] && ss[0] != 1) {
      Shape cs(xs.size() - 1, 1);
      cs[0] = ss[0];
      slope = im.reshape(slope, cs);
    }
    FailureOr<Value> r = im.elementwise({x, slope}, et, [](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0],
                                        arith::ConstantOp::create(b, l, FloatAttr::get(t, 0.0)));
      return arith::SelectOp::create(b, l, pos, a[0], arith::MulFOp::create(b, l, a[0], a[1]));
    });
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
}

} // namespace onnximport
} // namespace jitrun
