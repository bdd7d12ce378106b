//===- TosaLayers.cpp - TFLite-style layers as TOSA ops -------------------===//

#include "TosaLayers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cfloat>
#include <cmath>
#include <numeric>

using namespace mlir;

namespace jitrun::modelgen {

std::pair<int64_t, int64_t> samePadding(int64_t in, int64_t k, int64_t stride,
                                        int64_t dilation) {
  int64_t effective = (k - 1) * dilation + 1;
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  return {total / 2, total - total / 2};
}

int64_t convOutSize(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t before,
                    int64_t after) {
  return (in - 1 + before + after - (k - 1) * dilation) / stride + 1;
}

TosaGraph::TosaGraph(ModelContext &ctx)
    : ctx(ctx), b(ctx.builder), loc(ctx.builder.getUnknownLoc()) {}

SmallVector<Value> TosaGraph::begin(ArrayRef<Type> inputs) {
  b.setInsertionPointToEnd(ctx.module.getBody());
  fn = func::FuncOp::create(b, loc, "main", b.getFunctionType(inputs, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  // jitrun's random f32 inputs are uniform in [-1, 1): E[x^2] = 1/3.
  for (Value arg : entry->getArguments())
    track(arg, 1.0 / 3.0);
  return SmallVector<Value>(entry->getArguments().begin(), entry->getArguments().end());
}

double TosaGraph::power(Value v) const {
  auto it = powers.find(v);
  return it == powers.end() ? 1.0 : it->second;
}

Value TosaGraph::track(Value v, double p) {
  powers[v] = p;
  return v;
}

/// The weight scale that gives a unit-variance output for inputs with
/// second moment `p`: heScale(fanIn) * sqrt(1 / (2p)) = sqrt(3 / (fanIn p)).
static double foldedScale(int64_t fanIn, double p) {
  return heScale(fanIn) * std::sqrt(1.0 / (2.0 * std::max(p, 1e-6)));
}

void TosaGraph::finish(ValueRange results) {
  func::ReturnOp::create(b, loc, results);
  fn.setFunctionType(b.getFunctionType(fn.getArgumentTypes(), TypeRange(results)));
}

ArrayRef<int64_t> TosaGraph::shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

RankedTensorType TosaGraph::f32(ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF32Type());
}

RankedTensorType TosaGraph::tensor(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

std::string TosaGraph::nextName(StringRef kind) {
  return (kind + std::to_string(counter++)).str();
}

Value TosaGraph::tosaConst(ElementsAttr attr) {
  return tosa::ConstOp::create(b, loc, attr.getType(), attr);
}

Value TosaGraph::weight(ArrayRef<int64_t> shape, Type elem, double scale, StringRef kind) {
  // weightConstant makes an arith.constant; TFLite weights reach TOSA as
  // tosa.const, so move its dense_resource attribute over.
  Value v = weightConstant(ctx, loc, tensor(shape, elem), scale, nextName(kind));
  auto op = v.getDefiningOp<arith::ConstantOp>();
  auto attr = cast<ElementsAttr>(op.getValue());
  op.erase();
  return tosaConst(attr);
}

Value TosaGraph::constF32(ArrayRef<int64_t> shape, ArrayRef<float> values) {
  return tosaConst(DenseElementsAttr::get(f32(shape), values));
}

Value TosaGraph::scalarLike(Value like, float v) {
  SmallVector<int64_t> ones(shapeOf(like).size(), 1);
  return track(constF32(ones, {v}), double(v) * v);
}

Value TosaGraph::zeroPoint(Type elem, int64_t v) {
  auto type = tensor({1}, elem);
  if (isa<FloatType>(elem))
    return tosaConst(DenseElementsAttr::get(type, b.getFloatAttr(elem, double(v))));
  return tosaConst(DenseElementsAttr::get(type, b.getIntegerAttr(elem, v)));
}

Value TosaGraph::shape(ArrayRef<int64_t> dims) {
  auto n = static_cast<int64_t>(dims.size());
  // A dynamic variant's open dim is tosa.reshape's inferred one (-1).
  SmallVector<int64_t> values;
  for (int64_t d : dims)
    values.push_back(ShapedType::isDynamic(d) ? -1 : d);
  auto attr = DenseIntElementsAttr::get(RankedTensorType::get({n}, b.getIndexType()), values);
  return tosa::ConstShapeOp::create(b, loc, tosa::shapeType::get(b.getContext(), n), attr);
}

SmallVector<int64_t, 4> TosaGraph::broadcastShape(Value a, Value c) {
  ArrayRef<int64_t> sa = shapeOf(a), sc = shapeOf(c);
  assert(sa.size() == sc.size() && "TOSA elementwise operands have equal rank");
  SmallVector<int64_t, 4> out;
  for (auto [x, y] : llvm::zip(sa, sc))
    out.push_back(x == 1 ? y : x);
  return out;
}

// --- f32 layers -------------------------------------------------------------

Value TosaGraph::conv2dWith(Value x, Value w, Value bias, int64_t stride, int64_t dilation,
                            bool same) {
  ArrayRef<int64_t> in = shapeOf(x), ws = shapeOf(w);
  int64_t k = ws[1];
  auto [pt, pb] = same ? samePadding(in[1], k, stride, dilation) : std::pair<int64_t, int64_t>{};
  auto [pl, pr] = same ? samePadding(in[2], ws[2], stride, dilation)
                       : std::pair<int64_t, int64_t>{};
  int64_t oh = convOutSize(in[1], k, stride, dilation, pt, pb);
  int64_t ow = convOutSize(in[2], ws[2], stride, dilation, pl, pr);
  Value zp = zeroPoint(b.getF32Type(), 0);
  Value out = tosa::Conv2DOp::create(b, loc, f32({in[0], oh, ow, ws[0]}), x, w, bias, zp, zp,
                                     ArrayRef<int64_t>{pt, pb, pl, pr},
                                     ArrayRef<int64_t>{stride, stride},
                                     ArrayRef<int64_t>{dilation, dilation}, b.getF32Type());
  return track(out, 1.0);
}

Value TosaGraph::conv2d(Value x, int64_t cout, int64_t k, int64_t stride, int64_t dilation,
                        bool same) {
  int64_t cin = channels(x);
  Value w = weight({cout, k, k, cin}, b.getF32Type(), foldedScale(k * k * cin, power(x)),
                   "conv_w");
  Value bias = weight({cout}, b.getF32Type(), 0.1, "conv_b");
  return conv2dWith(x, w, bias, stride, dilation, same);
}

Value TosaGraph::depthwise(Value x, int64_t k, int64_t stride, int64_t dilation) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t c = in[3];
  Value w = weight({k, k, c, 1}, b.getF32Type(), foldedScale(k * k, power(x)), "dw_w");
  Value bias = weight({c}, b.getF32Type(), 0.1, "dw_b");
  auto [pt, pb] = samePadding(in[1], k, stride, dilation);
  auto [pl, pr] = samePadding(in[2], k, stride, dilation);
  int64_t oh = convOutSize(in[1], k, stride, dilation, pt, pb);
  int64_t ow = convOutSize(in[2], k, stride, dilation, pl, pr);
  Value zp = zeroPoint(b.getF32Type(), 0);
  Value out = tosa::DepthwiseConv2DOp::create(b, loc, f32({in[0], oh, ow, c}), x, w, bias, zp,
                                              zp, ArrayRef<int64_t>{pt, pb, pl, pr},
                                              ArrayRef<int64_t>{stride, stride},
                                              ArrayRef<int64_t>{dilation, dilation},
                                              b.getF32Type());
  return track(out, 1.0);
}

Value TosaGraph::clamp(Value x, float lo, float hi) {
  Value out = tosa::ClampOp::create(b, loc, x.getType(), x, b.getF32FloatAttr(lo),
                                    b.getF32FloatAttr(hi));
  // A relu of a zero-mean value keeps half its second moment.
  return track(out, lo == 0.0f ? 0.5 * power(x) : power(x));
}

Value TosaGraph::relu(Value x) { return clamp(x, 0.0f, FLT_MAX); }
Value TosaGraph::relu6(Value x) { return clamp(x, 0.0f, 6.0f); }

// Second moments after each activation, for unit-variance inputs (x ~ N(0, 1)):
// sigmoid 0.29, hard-sigmoid 0.28, swish 0.36, hard-swish 0.33.
Value TosaGraph::sigmoid(Value x) {
  return track(tosa::SigmoidOp::create(b, loc, x.getType(), x), 0.29);
}

Value TosaGraph::swish(Value x) {
  double p = power(x);
  return track(mul(x, sigmoid(x)), 0.36 * p);
}

Value TosaGraph::hardSigmoid(Value x) {
  return track(mulScalar(relu6(addScalar(x, 3.0f)), 1.0f / 6.0f), 0.28);
}

Value TosaGraph::hardSwish(Value x) {
  double p = power(x);
  return track(mulScalar(mul(x, relu6(addScalar(x, 3.0f))), 1.0f / 6.0f), 0.33 * p);
}

Value TosaGraph::add(Value a, Value c) {
  return track(tosa::AddOp::create(b, loc, f32(broadcastShape(a, c)), a, c),
               power(a) + power(c));
}

Value TosaGraph::sub(Value a, Value c) {
  return tosa::SubOp::create(b, loc, f32(broadcastShape(a, c)), a, c);
}

Value TosaGraph::mul(Value a, Value c) {
  Value shift = tosaConst(DenseElementsAttr::get(tensor({1}, b.getI8Type()), int8_t(0)));
  return track(tosa::MulOp::create(b, loc, f32(broadcastShape(a, c)), a, c, shift),
               power(a) * power(c));
}

Value TosaGraph::rsqrt(Value x) { return tosa::RsqrtOp::create(b, loc, x.getType(), x); }
Value TosaGraph::reciprocal(Value x) {
  return tosa::ReciprocalOp::create(b, loc, x.getType(), x);
}
Value TosaGraph::exp(Value x) { return tosa::ExpOp::create(b, loc, x.getType(), x); }

Value TosaGraph::reduceSum(Value x, int32_t axis) {
  SmallVector<int64_t> s(shapeOf(x));
  s[axis] = 1;
  return tosa::ReduceSumOp::create(b, loc, f32(s), x, b.getI32IntegerAttr(axis));
}

Value TosaGraph::reduceMax(Value x, int32_t axis) {
  SmallVector<int64_t> s(shapeOf(x));
  s[axis] = 1;
  return tosa::ReduceMaxOp::create(b, loc, f32(s), x, static_cast<uint32_t>(axis));
}

Value TosaGraph::avgPool(Value x, int64_t k, int64_t stride) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t oh = convOutSize(in[1], k, stride, 1, 0, 0);
  int64_t ow = convOutSize(in[2], k, stride, 1, 0, 0);
  Value zp = zeroPoint(b.getF32Type(), 0);
  Value out = tosa::AvgPool2dOp::create(b, loc, f32({in[0], oh, ow, in[3]}), x, zp, zp,
                                        ArrayRef<int64_t>{k, k},
                                        ArrayRef<int64_t>{stride, stride},
                                        ArrayRef<int64_t>{0, 0, 0, 0}, b.getF32Type());
  // Averaging keeps a positive activation's mean (E[relu]^2 / E[relu^2] is
  // about 0.3) and averages its spread away.
  return track(out, (oh == 1 && ow == 1 ? 0.4 : 1.0) * power(x));
}

Value TosaGraph::globalAvgPool(Value x) {
  ArrayRef<int64_t> in = shapeOf(x);
  assert(in[1] == in[2] && "square feature maps");
  return avgPool(x, in[1], 1);
}

Value TosaGraph::meanHW(Value x) {
  ArrayRef<int64_t> in = shapeOf(x);
  float inv = 1.0f / float(in[1] * in[2]);
  double p = power(x);
  return track(mulScalar(reduceSum(reduceSum(x, 1), 2), inv), 0.4 * p);
}

Value TosaGraph::squeezeExcite(Value x, int64_t squeeze, Value (TosaGraph::*inner)(Value),
                               Value (TosaGraph::*gate)(Value)) {
  Value s = meanHW(x);
  s = (this->*inner)(conv2d(s, squeeze, 1));
  s = (this->*gate)(conv2d(s, channels(x), 1));
  return mul(x, s);
}

Value TosaGraph::fullyConnected(Value x, int64_t cout) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t n = in[0], c = in[1];
  Value a = reshape(x, {1, n, c});
  Value w = weight({1, c, cout}, b.getF32Type(), foldedScale(c, power(x)), "fc_w");
  Value bias = weight({1, 1, cout}, b.getF32Type(), 0.1, "fc_b");
  Value zp = zeroPoint(b.getF32Type(), 0);
  Value m = tosa::MatMulOp::create(b, loc, f32({1, n, cout}), a, w, zp, zp);
  return reshape(track(add(m, bias), 1.0), {n, cout});
}

Value TosaGraph::reshape(Value x, ArrayRef<int64_t> dims) {
  auto type = tensor(dims, cast<RankedTensorType>(x.getType()).getElementType());
  return track(tosa::ReshapeOp::create(b, loc, type, x, shape(dims)), power(x));
}

Value TosaGraph::concat(ValueRange xs, int32_t axis) {
  SmallVector<int64_t> s(shapeOf(xs.front()));
  s[axis] = 0;
  for (Value v : xs)
    s[axis] += shapeOf(v)[axis];
  auto type = tensor(s, cast<RankedTensorType>(xs.front().getType()).getElementType());
  double p = 0;
  for (Value v : xs)
    p += power(v) * double(shapeOf(v)[axis]) / double(s[axis]);
  return track(tosa::ConcatOp::create(b, loc, type, xs, b.getI32IntegerAttr(axis)), p);
}

Value TosaGraph::resizeBilinear(Value x, int64_t outH, int64_t outW, bool alignCorners) {
  ArrayRef<int64_t> in = shapeOf(x);
  // The TFLite legalization: scale = out/in (or (out-1)/(in-1) with
  // align_corners), reduced; offset 0; border makes the output size exact.
  auto axis = [&](int64_t i, int64_t o, int64_t &n, int64_t &d, int64_t &border) {
    if (alignCorners && i > 1 && o > 1) {
      n = o - 1;
      d = i - 1;
    } else {
      n = o;
      d = i;
    }
    int64_t g = std::gcd(n, d);
    n /= g;
    d /= g;
    border = (o - 1) * d - (i - 1) * n;
  };
  int64_t yn, yd, by, xn, xd, bx;
  axis(in[1], outH, yn, yd, by);
  axis(in[2], outW, xn, xd, bx);
  return track(tosa::ResizeOp::create(b, loc, f32({in[0], outH, outW, in[3]}), x,
                                     shape({yn, yd, xn, xd}), shape({0, 0}), shape({by, bx}),
                                     tosa::ResizeMode::BILINEAR),
               power(x));
}

Value TosaGraph::softmax(Value x) {
  auto axis = static_cast<int32_t>(shapeOf(x).size() - 1);
  Value e = exp(sub(x, reduceMax(x, axis)));
  return mul(e, reciprocal(reduceSum(e, axis)));
}

// --- int8 layers ------------------------------------------------------------

/// scale = multiplier * 2^-shift with a 31-bit multiplier (TFLite's
/// QuantizeMultiplier).
static void quantizeMultiplier(double scale, int32_t &multiplier, int8_t &shift) {
  int exponent = 0;
  double q = std::frexp(scale, &exponent);
  auto m = static_cast<int64_t>(std::llround(q * double(int64_t(1) << 31)));
  if (m == (int64_t(1) << 31)) {
    m /= 2;
    ++exponent;
  }
  multiplier = static_cast<int32_t>(m);
  shift = static_cast<int8_t>(31 - exponent);
}

Value TosaGraph::rescaleI32ToI8(Value acc, ArrayRef<double> scales, int64_t outZp) {
  auto c = static_cast<int64_t>(scales.size());
  SmallVector<int32_t> mults;
  SmallVector<int8_t> shifts;
  for (double s : scales) {
    int32_t m;
    int8_t sh;
    quantizeMultiplier(s, m, sh);
    mults.push_back(m);
    shifts.push_back(sh);
  }
  Value mult = tosaConst(DenseElementsAttr::get(tensor({c}, b.getI32Type()), ArrayRef(mults)));
  Value shift = tosaConst(DenseElementsAttr::get(tensor({c}, b.getI8Type()), ArrayRef(shifts)));
  SmallVector<int64_t> s(shapeOf(acc));
  return tosa::RescaleOp::create(b, loc, tensor(s, b.getI8Type()), acc, mult, shift,
                                 zeroPoint(b.getI32Type(), 0), zeroPoint(b.getI8Type(), outZp),
                                 /*scale32=*/true, tosa::RoundingMode::DOUBLE_ROUND,
                                 /*per_channel=*/c > 1, /*input_unsigned=*/false,
                                 /*output_unsigned=*/false);
}

QValue TosaGraph::qconv(QValue x, int64_t cout, int64_t k, int64_t stride, bool dw, bool relu,
                        int64_t outZp) {
  ArrayRef<int64_t> in = shapeOf(x.value);
  int64_t cin = in[3];
  if (dw)
    cout = cin;
  int64_t fanIn = k * k * (dw ? 1 : cin);
  // Integer statistics: int8 weights uniform in [-127, 127] have an rms of
  // 73, so the accumulator's rms is sqrt(fanIn) * 73 * rms(x - zp); the
  // requantization scale brings it to about 60 int8 steps, with a TFLite-like
  // per-channel spread of the weight scales.
  constexpr double kTargetRms = 60.0;
  double accRms = std::sqrt(double(fanIn)) * 73.0 * x.rms;
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  SmallVector<int64_t> wShape =
      dw ? SmallVector<int64_t>{k, k, cin, 1} : SmallVector<int64_t>{cout, k, k, cin};
  Value w = weight(wShape, i8, 127.0, dw ? "qdw_w" : "qconv_w");
  Value bias = weight({cout}, i32, 0.3 * accRms, dw ? "qdw_b" : "qconv_b");
  auto [pt, pb] = samePadding(in[1], k, stride, 1);
  auto [pl, pr] = samePadding(in[2], k, stride, 1);
  int64_t oh = convOutSize(in[1], k, stride, 1, pt, pb);
  int64_t ow = convOutSize(in[2], k, stride, 1, pl, pr);
  Value izp = zeroPoint(i8, x.zp), wzp = zeroPoint(i8, 0);
  auto accType = tensor({in[0], oh, ow, cout}, i32);
  SmallVector<int64_t> pad{pt, pb, pl, pr}, strides{stride, stride}, dil{1, 1};
  Value acc = dw ? Value(tosa::DepthwiseConv2DOp::create(b, loc, accType, x.value, w, bias, izp,
                                                         wzp, pad, strides, dil, i32))
                 : Value(tosa::Conv2DOp::create(b, loc, accType, x.value, w, bias, izp, wzp,
                                                pad, strides, dil, i32));
  std::uniform_real_distribution<double> spread(0.7, 1.3);
  SmallVector<double> scales;
  for (int64_t i = 0; i < cout; ++i)
    scales.push_back(kTargetRms / accRms * spread(ctx.rng));
  Value out = rescaleI32ToI8(acc, scales, outZp);
  if (relu)
    out = tosa::ClampOp::create(b, loc, out.getType(), out,
                                b.getIntegerAttr(i8, outZp), b.getIntegerAttr(i8, 127));
  // A relu keeps sqrt(1/2) of the rms.
  return {out, outZp, relu ? kTargetRms * std::sqrt(0.5) : kTargetRms};
}

QValue TosaGraph::qavgPool(QValue x, int64_t k, int64_t stride) {
  ArrayRef<int64_t> in = shapeOf(x.value);
  int64_t oh = convOutSize(in[1], k, stride, 1, 0, 0);
  int64_t ow = convOutSize(in[2], k, stride, 1, 0, 0);
  Type i8 = b.getI8Type();
  Value zp = zeroPoint(i8, x.zp);
  Value out = tosa::AvgPool2dOp::create(b, loc, tensor({in[0], oh, ow, in[3]}, i8), x.value, zp,
                                        zp, ArrayRef<int64_t>{k, k},
                                        ArrayRef<int64_t>{stride, stride},
                                        ArrayRef<int64_t>{0, 0, 0, 0}, b.getI32Type());
  return {out, x.zp, (oh == 1 && ow == 1 ? 0.6 : 1.0) * x.rms};
}

} // namespace jitrun::modelgen
