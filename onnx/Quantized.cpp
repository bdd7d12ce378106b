//===- Quantized.cpp - ONNX's quantized ops on jitrun's integer path -------===//
//
// QuantizeLinear and DequantizeLinear are elementwise generics (per tensor or
// per axis); DequantizeLinear of constant 8-bit weights is folded at import.
// DynamicQuantizeLinear computes its scale and zero point from the input's
// range. QLinearMatMul, QLinearConv, MatMulInteger and ConvInteger contract
// their 8-bit operands as they are, i8 x i8 -> i32 (VNNI's vpdpbusd, AMX's
// tdpbssd), when the zero points allow (constants, but for the activations'
// of a matmul, and a convolution's weights symmetric and constant): uint8 as
// int8 bits (v - 128, the sign bit flipped), the zero points corrected
// algebraically (the accumulator starts at za (K zb - colsum(b)), folded at
// import for constants, minus zb rowsum(a) per row). Otherwise they subtract
// the zero points first, widened to i32, and contract in i32 (4-6x slower);
// grouped and depthwise ones subtract them in f32 and run the float
// convolution (its sums exact integers while under 2^24). All are exact; the
// i32 sums are requantized with the combined scale, rounding half to even
// and saturating. A QDQ model's Conv, MatMul and Gemm of DequantizeLinear'd
// operands take the int8 contraction too (qdqConv, qdqMatmul), where it
// beats f32. uint8 tensors are carried as i8 bits and widened unsigned
// (Importer::isUnsigned).
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;

namespace jitrun {
namespace onnximport {
namespace {

/// `v` (a scalar or a per-axis vector) shaped to broadcast against a
/// rank-`rank` tensor along `axis`.
Value alongAxis(Importer &im, Value v, int64_t rank, int64_t axis) {
  Shape s = Importer::shapeOf(v);
  if (s.empty() || (s.size() == 1 && s[0] == 1))
    return v;
  Shape to(rank - axis, 1);
  to[0] = s[0];
  return im.reshape(v, to);
}

/// The scalar `x` of an 8- or 32-bit integer tensor as i32.
Value widen(B &b, L l, Value x, bool isUnsigned) {
  Type i32 = b.getI32Type();
  if (x.getType() == i32)
    return x;
  return isUnsigned ? Value(arith::ExtUIOp::create(b, l, i32, x))
                    : Value(arith::ExtSIOp::create(b, l, i32, x));
}

/// round_half_even(v) + zp, saturated to the 8-bit range, as i8 bits.
Value requantize(B &b, L l, Value v, Value zpF32, bool isUnsigned) {
  Type f32 = b.getF32Type();
  Value r = arith::AddFOp::create(b, l, math::RoundEvenOp::create(b, l, v), zpF32);
  double lo = isUnsigned ? 0 : -128, hi = isUnsigned ? 255 : 127;
  r = arith::MaximumFOp::create(b, l, r, arith::ConstantOp::create(b, l, FloatAttr::get(f32, lo)));
  r = arith::MinimumFOp::create(b, l, r, arith::ConstantOp::create(b, l, FloatAttr::get(f32, hi)));
  Value i = arith::FPToSIOp::create(b, l, b.getI32Type(), r);
  return arith::TruncIOp::create(b, l, b.getIntegerType(8), i);
}

Value toF32(B &b, L l, Value x, bool isUnsigned) {
  Type f32 = b.getF32Type();
  if (isa<FloatType>(x.getType()))
    return Importer::convert(b, l, x, f32);
  return isUnsigned ? Value(arith::UIToFPOp::create(b, l, f32, x))
                    : Value(arith::SIToFPOp::create(b, l, f32, x));
}

/// A zero point input, or a 0 of x's 8-bit type when absent.
Value zeroPoint(Importer &im, int i) {
  if (im.hasInput(i))
    return im.in(i);
  Lit zero;
  zero.elementType = im.b.getIntegerType(8);
  zero.values = {0};
  return im.constant(zero);
}

LogicalResult dequantize(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("DequantizeLinear needs x and x_scale");
  Value x = im.in(0);
  int64_t rank = Importer::typeOf(x).getRank();
  // The axis matters only for a per-axis (1-D) scale.
  int64_t axis = quantizationAxis(im.attrInt("axis", 1), rank,
                                  Importer::typeOf(im.in(1)).getNumElements());
  if (axis < 0)
    return im.fail("DequantizeLinear: axis out of range");
  bool uns = im.isUnsigned(x);
  Value zp = zeroPoint(im, 2);
  bool zpUns = im.hasInput(2) ? im.isUnsigned(zp) : uns;
  FailureOr<Value> r = failure();
  // Constant 8-bit weights (a QDQ model's) are dequantized here, once,
  // whatever their size: as float constants the matmuls and convolutions
  // pack them as they pack any weights.
  RankedTensorType xType = Importer::typeOf(x);
  std::optional<ArrayRef<char>> data = Importer::constantData(x);
  std::optional<Lit> scales = im.lit(im.in(1)), zps = im.lit(zp);
  if (xType.getElementType().isInteger(8) && data &&
      static_cast<int64_t>(data->size()) == xType.getNumElements() && scales && zps &&
      (zps->numElements() == scales->numElements() || zps->numElements() == 1)) {
    int64_t inner = 1, channels = scales->numElements();
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= xType.getDimSize(d);
    AsmResourceBlob blob = newBlob(data->size() * sizeof(float));
    auto *out = reinterpret_cast<float *>(blob.getMutableData().data());
    for (size_t i = 0; i < data->size(); ++i) {
      int64_t c = channels == 1 ? 0 : (static_cast<int64_t>(i) / inner) % channels;
      float q = uns ? static_cast<float>(static_cast<uint8_t>((*data)[i]))
                    : static_cast<float>(static_cast<int8_t>((*data)[i]));
      // (q - zp) * scale, in f32 as the generic below computes it.
      float z = static_cast<float>(zps->values[zps->numElements() == 1 ? 0 : c]);
      out[i] = (q - z) * static_cast<float>(scales->values[c]);
    }
    r = im.constantOfBytes(RankedTensorType::get(xType.getShape(), im.b.getF32Type()),
                           std::move(blob), "onnx_dequantized");
  } else {
    r = im.elementwise(
        {x, alongAxis(im, im.in(1), rank, axis), alongAxis(im, zp, rank, axis)}, im.b.getF32Type(),
        [=](B &b, L l, V a) -> Value {
          Value d = arith::SubFOp::create(b, l, toF32(b, l, a[0], uns), toF32(b, l, a[2], zpUns));
          return arith::MulFOp::create(b, l, d, a[1]);
        });
  }
  if (failed(r))
    return failure();
  if (Importer::typeOf(x).getElementType().isInteger(8)) {
    if (!im.hasInput(2) && uns)
      im.markUnsigned(zp);
    im.dequantized[*r] = {x, im.in(1), zp, axis};
  }
  results.push_back(*r);
  return success();
}

LogicalResult quantize(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("QuantizeLinear needs x and y_scale");
  Value x = im.in(0);
  int64_t rank = Importer::typeOf(x).getRank();
  int64_t axis = quantizationAxis(im.attrInt("axis", 1), rank,
                                  Importer::typeOf(im.in(1)).getNumElements());
  if (axis < 0)
    return im.fail("QuantizeLinear: axis out of range");
  // The output type is the zero point's; uint8 when it is absent.
  bool uns = im.hasInput(2) ? im.isUnsigned(im.in(2)) : true;
  Value zp = zeroPoint(im, 2);
  if (!Importer::typeOf(zp).getElementType().isInteger(8))
    return im.fail("QuantizeLinear: only 8-bit outputs are supported");
  FailureOr<Value> r = im.elementwise(
      {x, alongAxis(im, im.in(1), rank, axis), alongAxis(im, zp, rank, axis)},
      im.b.getIntegerType(8), [=](B &b, L l, V a) -> Value {
        Value v = arith::DivFOp::create(b, l, toF32(b, l, a[0], false), a[1]);
        return requantize(b, l, v, toF32(b, l, a[2], uns), uns);
      });
  if (failed(r))
    return failure();
  if (uns)
    im.markUnsigned(*r);
  results.push_back(*r);
  return success();
}

/// DynamicQuantizeLinear: x's range widened to hold 0, scale = range / 255
/// (an all-zero x: 0, dividing by 1 instead), the uint8 zero point
/// round(-min / scale), and x quantized with them, rounding half to even
/// and saturating, as ONNX defines them.
LogicalResult dynamicQuantize(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("DynamicQuantizeLinear needs x");
  Value x = im.in(0);
  Type f32 = im.b.getF32Type();
  if (Importer::typeOf(x).getElementType() != f32)
    return im.fail("DynamicQuantizeLinear: x must be float32");
  int64_t rank = Importer::typeOf(x).getRank();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  const double inf = std::numeric_limits<double>::infinity();
  Value hi = im.reduce(x, all, false, -inf, [](B &b, L l, V a) -> Value {
    return arith::MaximumFOp::create(b, l, a[0], a[1]);
  });
  Value lo = im.reduce(x, all, false, inf, [](B &b, L l, V a) -> Value {
    return arith::MinimumFOp::create(b, l, a[0], a[1]);
  });
  auto c = [](B &b, L l, double v) { return fconst(b, l, b.getF32Type(), v); };
  FailureOr<Value> scale = im.elementwise({hi, lo}, f32, [&](B &b, L l, V a) -> Value {
    Value h = arith::MaximumFOp::create(b, l, a[0], c(b, l, 0.0));
    Value m = arith::MinimumFOp::create(b, l, a[1], c(b, l, 0.0));
    return arith::DivFOp::create(b, l, arith::SubFOp::create(b, l, h, m), c(b, l, 255.0));
  });
  if (failed(scale))
    return failure();
  // The divisor: the scale, or 1 where it is 0.
  auto divisor = [&](B &b, L l, Value s) -> Value {
    Value zero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, s, c(b, l, 0.0));
    return arith::SelectOp::create(b, l, zero, c(b, l, 1.0), s);
  };
  FailureOr<Value> zp = im.elementwise({lo, *scale}, im.b.getIntegerType(8),
                                       [&](B &b, L l, V a) -> Value {
    Value m = arith::MinimumFOp::create(b, l, a[0], c(b, l, 0.0));
    Value v = arith::DivFOp::create(b, l, arith::NegFOp::create(b, l, m), divisor(b, l, a[1]));
    return requantize(b, l, v, c(b, l, 0.0), true);
  });
  if (failed(zp))
    return failure();
  im.markUnsigned(*zp);
  FailureOr<Value> y = im.elementwise({x, *scale, *zp}, im.b.getIntegerType(8),
                                      [&](B &b, L l, V a) -> Value {
    Value v = arith::DivFOp::create(b, l, a[0], divisor(b, l, a[1]));
    return requantize(b, l, v, toF32(b, l, a[2], true), true);
  });
  if (failed(y))
    return failure();
  im.markUnsigned(*y);
  results.append({*y, *scale, *zp});
  return success();
}

/// `x - zp` widened to i32 (zp per tensor or along `axis`).
FailureOr<Value> shifted(Importer &im, Value x, Value zp, int64_t axis) {
  // The zero point has x's type (ONNX): unsigned together.
  bool xu = im.isUnsigned(x), zu = xu || im.isUnsigned(zp);
  int64_t rank = Importer::typeOf(x).getRank();
  return im.elementwise({x, alongAxis(im, zp, rank, axis)}, im.b.getI32Type(),
                        [=](B &b, L l, V a) -> Value {
                          return arith::SubIOp::create(b, l, widen(b, l, a[0], xu),
                                                       widen(b, l, a[1], zu));
                        });
}

/// i32 [M, K] x [K, N] -> [M, N].
Value matmulI32(Importer &im, Value a, Value b) {
  Shape as = Importer::shapeOf(a), bs = Importer::shapeOf(b);
  Value acc = im.filled({as[0], bs[1]}, im.b.getI32Type(), 0);
  return linalg::MatmulOp::create(im.b, im.loc, TypeRange{acc.getType()}, ValueRange{a, b},
                                  ValueRange{acc})
      .getResult(0);
}

/// The i32 sums requantized: round(acc * scale) + zp, saturated; `scale`
/// and `zp` broadcast against `acc` (scale may be per output channel).
FailureOr<Value> requantized(Importer &im, Value acc, ArrayRef<Value> scales, Value zp) {
  bool uns = im.isUnsigned(zp);
  SmallVector<Value> ins = {acc, zp};
  ins.append(scales.begin(), scales.end());
  FailureOr<Value> r = im.elementwise(ins, im.b.getIntegerType(8), [=](B &b, L l, V a) -> Value {
    // acc * (a_scale * b_scale / y_scale)
    Value scale = arith::MulFOp::create(b, l, a[2], a[3]);
    scale = arith::DivFOp::create(b, l, scale, a[4]);
    Value v = arith::MulFOp::create(b, l, toF32(b, l, a[0], false), scale);
    return requantize(b, l, v, toF32(b, l, a[1], uns), uns);
  });
  if (succeeded(r) && uns)
    im.markUnsigned(*r);
  return r;
}

/// An 8-bit operand as int8 bits: uint8 values with their sign bit flipped
/// (v - 128, exactly), so that i8 x i8 -> i32 contractions (VNNI, AMX) take
/// them; `shift` is what was subtracted (128, or 0 for int8).
Value asSigned8(Importer &im, Value x, int64_t &shift) {
  shift = 0;
  if (!im.isUnsigned(x))
    return x;
  shift = 128;
  RankedTensorType type = Importer::typeOf(x);
  if (std::optional<ArrayRef<char>> data = Importer::constantData(x);
      data && static_cast<int64_t>(data->size()) == type.getNumElements()) {
    AsmResourceBlob blob = newBlob(data->size());
    MutableArrayRef<char> out = blob.getMutableData();
    for (size_t i = 0; i < data->size(); ++i)
      out[i] = static_cast<char>((*data)[i] ^ 0x80);
    return im.constantOfBytes(type, std::move(blob), "onnx_signed8");
  }
  return *im.elementwise(
      {x}, type.getElementType(),
      [](B &b, L l, V a) -> Value {
        return arith::XOrIOp::create(
            b, l, a[0], arith::ConstantOp::create(b, l, b.getIntegerAttr(a[0].getType(), -128)));
      },
      [](ArrayRef<double> a) { return a[0] - 128; });
}

/// `v` [..., K] as the matrix [rows, K] of its leading dims.
Value asRows(Importer &im, Value v) {
  Shape s = Importer::shapeOf(v);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < s.size(); ++d)
    rows *= s[d];
  return im.reshape(v, {rows, s.back()});
}

/// The sums of 8-bit `v` along `axis`, in i32, the axis kept as a 1.
Value sumI32(Importer &im, Value v, int64_t axis) {
  Value wide = *im.elementwise({v}, im.b.getI32Type(), [](B &b, L l, V x) -> Value {
    return arith::ExtSIOp::create(b, l, b.getI32Type(), x[0]);
  });
  return im.reduce(wide, {axis}, true, 0, [](B &b, L l, V x) -> Value {
    return arith::AddIOp::create(b, l, x[0], x[1]);
  });
}

/// The host values of a constant zero point, minus `shift` (asSigned8's).
std::optional<std::vector<int64_t>> zeroPointValues(Importer &im, Value zp, int64_t shift) {
  std::optional<Lit> l = im.lit(zp);
  if (!l)
    return std::nullopt;
  std::vector<int64_t> r;
  for (double v : l->values)
    r.push_back(static_cast<int64_t>(v) - shift);
  return r;
}

/// sum_k (a[i,k] - za) (b[k,j] - zb[j]) for 8-bit `a` [M, K] and `b` [K, N]
/// (za per tensor, a constant or computed at run time, as
/// DynamicQuantizeLinear's; zb constant, per tensor or per column), in i32:
/// an i8 x i8 -> i32 matmul of the operands as they are (uint8 as int8
/// bits, asSigned8) starting from za (K zb[j] - colsum(b)[j]) (folded at
/// import when b and za are constants), minus zb[j] rowsum(a)[i] when some
/// zb is not 0. The same sums as subtracting the zero points first,
/// exactly, at int8's speed instead of an i32 matmul's. Failure (nothing
/// built) when a zero point is no such value.
FailureOr<Value> matmulInt8(Importer &im, Value a, Value azp, Value b, Value bzp) {
  Shape as = Importer::shapeOf(a), bs = Importer::shapeOf(b);
  int64_t m = as[0], k = as[1], n = bs[1];
  if (Importer::typeOf(azp).getNumElements() != 1 ||
      !Importer::typeOf(azp).getElementType().isInteger(8))
    return failure();
  int64_t ashift = im.isUnsigned(a) ? 128 : 0, bshift;
  std::optional<std::vector<int64_t>> zas = zeroPointValues(im, azp, ashift);
  std::optional<std::vector<int64_t>> zbs = zeroPointValues(im, bzp, im.isUnsigned(b) ? 128 : 0);
  if (!zbs || (zbs->size() != 1 && static_cast<int64_t>(zbs->size()) != n))
    return failure();
  bool azpUnsigned = im.isUnsigned(azp) || im.isUnsigned(a);
  Value a8 = asSigned8(im, a, ashift), b8 = asSigned8(im, b, bshift);
  auto zb = [&](int64_t j) { return (*zbs)[zbs->size() == 1 ? 0 : j]; };
  Type i32 = im.b.getI32Type();
  auto i32Lit = [&](Shape shape, std::vector<double> values) {
    Lit l;
    l.shape = std::move(shape);
    l.elementType = i32;
    l.values = std::move(values);
    return im.constant(l);
  };
  // c[j] = K zb[j] - colsum(b)[j], on the host for a constant b.
  Value c;
  std::optional<std::vector<int64_t>> cs;
  if (std::optional<ArrayRef<char>> data = Importer::constantData(b8);
      data && static_cast<int64_t>(data->size()) == k * n) {
    cs.emplace(n, 0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < n; ++j)
        (*cs)[j] -= static_cast<int8_t>((*data)[r * n + j]);
    std::vector<double> values;
    for (int64_t j = 0; j < n; ++j)
      values.push_back(static_cast<double>((*cs)[j] += k * zb(j)));
    c = i32Lit({1, n}, values);
  } else {
    Value colsum = sumI32(im, b8, 0);
    std::vector<double> kzb;
    for (int64_t v : *zbs)
      kzb.push_back(static_cast<double>(k * v));
    c = *im.elementwise({i32Lit({1, static_cast<int64_t>(zbs->size())}, kzb), colsum}, i32,
                        [](B &bb, L l, V x) -> Value {
                          return arith::SubIOp::create(bb, l, x[0], x[1]);
                        });
  }
  // The accumulator's start, per column: za c[j].
  Value start;
  if (zas && cs) {
    std::vector<double> values;
    for (int64_t j = 0; j < n; ++j)
      values.push_back(static_cast<double>(zas->front() * (*cs)[j]));
    start = i32Lit({1, n}, values);
  } else if (zas) {
    start = *im.elementwise({c, i32Lit({1, 1}, {static_cast<double>(zas->front())})}, i32,
                            [](B &bb, L l, V x) -> Value {
                              return arith::MulIOp::create(bb, l, x[0], x[1]);
                            });
  } else {
    start = *im.elementwise(
        {c, im.reshape(azp, {1, 1})}, i32, [=](B &bb, L l, V x) -> Value {
          Value z = widen(bb, l, x[1], azpUnsigned);
          if (ashift)
            z = arith::SubIOp::create(bb, l, z,
                                      arith::ConstantOp::create(bb, l, bb.getI32IntegerAttr(ashift)));
          return arith::MulIOp::create(bb, l, x[0], z);
        });
  }
  Value init = *im.elementwise({start, im.empty({m, n}, i32)}, i32,
                               [](B &, L, V x) -> Value { return x[0]; });
  Value acc = linalg::MatmulOp::create(im.b, im.loc, TypeRange{init.getType()}, ValueRange{a8, b8},
                                       ValueRange{init})
                  .getResult(0);
  if (llvm::all_of(*zbs, [](int64_t v) { return v == 0; }))
    return acc;
  std::vector<double> zbValues(zbs->begin(), zbs->end());
  Value zbRow = i32Lit({1, static_cast<int64_t>(zbs->size())}, zbValues);
  return im.elementwise({acc, sumI32(im, a8, 1), zbRow}, i32, [](B &bb, L l, V x) -> Value {
    return arith::SubIOp::create(bb, l, x[0], arith::MulIOp::create(bb, l, x[1], x[2]));
  });
}

LogicalResult qlinearMatMul(Importer &im, SmallVectorImpl<Value> &results, bool integer) {
  for (int i : integer ? std::vector<int>{0, 1} : std::vector<int>{0, 1, 3, 4, 6})
    if (!im.hasInput(i))
      return im.fail(Twine(im.node->op_type()) + ": missing input " + Twine(i));
  Value a = im.in(0), b = im.in(integer ? 1 : 3);
  int64_t ar = Importer::typeOf(a).getRank(), br = Importer::typeOf(b).getRank();
  if (ar < 2 || br < 2)
    return im.fail(Twine(im.node->op_type()) + ": vector operands are not supported");
  Value azp = zeroPoint(im, 2);
  Value bzp = integer ? zeroPoint(im, 3) : zeroPoint(im, 5);
  if (!im.hasInput(2) && im.isUnsigned(a))
    im.markUnsigned(azp);
  if (!im.hasInput(integer ? 3 : 5) && im.isUnsigned(b))
    im.markUnsigned(bzp);
  auto requantize = [&](Value acc) -> LogicalResult {
    if (integer) {
      results.push_back(acc);
      return success();
    }
    Value bScale = im.in(4);
    if (Importer::shapeOf(bScale).size() == 1 && Importer::shapeOf(bScale)[0] > 1)
      bScale = im.reshape(bScale, {1, Importer::shapeOf(bScale)[0]});
    FailureOr<Value> r = requantized(im, acc, {im.in(1), bScale, im.in(6)}, zeroPoint(im, 7));
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  if (br > 2) {
    // Batched right operands: the zero points subtracted first (per row of
    // a, per column of b), an i32 matmul with NumPy's batch broadcasting.
    FailureOr<Value> a32 = shifted(im, a, azp, ar - 2), b32 = shifted(im, b, bzp, br - 1);
    if (failed(a32) || failed(b32))
      return failure();
    FailureOr<Value> acc = matmul(im, *a32, *b32);
    if (failed(acc))
      return failure();
    return requantize(*acc);
  }
  // Leading batch dims of a ([B, M, K], a transformer's activations): one
  // [B M, K] matmul, reshaped back.
  Shape as = Importer::shapeOf(a);
  Shape outShape(as.begin(), as.end() - 1);
  outShape.push_back(Importer::shapeOf(b)[1]);
  if (as.size() > 2) {
    if (im.hasInput(2) && Importer::typeOf(im.in(2)).getNumElements() != 1)
      return im.fail(Twine(im.node->op_type()) +
                     ": a per-row zero point of a batched left operand is not supported");
    a = asRows(im, a);
  }
  // 8-bit operands with constant zero points contract as they are; others
  // (a per-row zero point of MatMulInteger's, a zero point computed at run
  // time, 32-bit operands) with the zero points subtracted in i32 first.
  Value acc;
  bool eightBit = Importer::typeOf(a).getElementType().isInteger(8) &&
                  Importer::typeOf(b).getElementType().isInteger(8);
  if (FailureOr<Value> fast = eightBit ? matmulInt8(im, a, azp, b, bzp) : FailureOr<Value>();
      succeeded(fast)) {
    acc = *fast;
  } else {
    FailureOr<Value> a32 = shifted(im, a, azp, 0), b32 = shifted(im, b, bzp, 1);
    if (failed(a32) || failed(b32))
      return failure();
    // b's zero point may be per column: along axis 1 of [K, N].
    acc = matmulI32(im, *a32, *b32);
  }
  return requantize(im.reshape(acc, outShape));
}

/// The 8-bit convolution of `x` [N, C, H, W] (zero point `xzp`, a constant
/// scalar) with constant 8-bit `w` [M, C, KH, KW] whose zero points are 0
/// (ONNX's symmetric weights; uint8 ones at 128), into i32 starting from
/// `bias` ([M], i32, or null): the operands as they are (uint8 as int8
/// bits), `x` padded with its zero point, from bias - zx sum(w[m]) (folded
/// at import), which is sum (x - zx) w exactly. Failure (nothing built)
/// otherwise.
FailureOr<Value> convInt8(Importer &im, Value x, Value xzp, Value w, Value wzp, Value bias,
                          const Window &win, Shape os) {
  if (!Importer::typeOf(x).getElementType().isInteger(8) ||
      !Importer::typeOf(w).getElementType().isInteger(8) ||
      Importer::typeOf(xzp).getNumElements() != 1)
    return failure();
  std::optional<std::vector<int64_t>> zxs = zeroPointValues(im, xzp, im.isUnsigned(x) ? 128 : 0);
  std::optional<std::vector<int64_t>> zws = zeroPointValues(im, wzp, im.isUnsigned(w) ? 128 : 0);
  if (!zxs || !zws || llvm::any_of(*zws, [](int64_t v) { return v != 0; }))
    return failure();
  int64_t xshift, wshift;
  Value w8 = asSigned8(im, w, wshift);
  Shape ws = Importer::shapeOf(w);
  int64_t m = ws[0], window = ws[1] * ws[2] * ws[3];
  std::optional<ArrayRef<char>> data = Importer::constantData(w8);
  if (!data || static_cast<int64_t>(data->size()) != m * window)
    return failure();
  int64_t zx = zxs->front();
  Value x8 = asSigned8(im, x, xshift);
  Value padded = padTo(im, x8, {0, 0, win.padBegin[0], win.padBegin[1]},
                       {0, 0, win.padEnd[0], win.padEnd[1]}, static_cast<double>(zx));
  Type i32 = im.b.getI32Type();
  Lit start;
  start.shape = {m, 1, 1};
  start.elementType = i32;
  for (int64_t o = 0; o < m; ++o) {
    int64_t sum = 0;
    for (int64_t i = 0; i < window; ++i)
      sum += static_cast<int8_t>((*data)[o * window + i]);
    start.values.push_back(static_cast<double>(-zx * sum));
  }
  SmallVector<Value> ins = {im.constant(start), im.empty(os, i32)};
  if (bias)
    ins.push_back(im.reshape(bias, {m, 1, 1}));
  FailureOr<Value> init = im.elementwise(ins, i32, [](B &b, L l, V a) -> Value {
    return a.size() > 2 ? arith::AddIOp::create(b, l, a[0], a[2]).getResult() : a[0];
  });
  if (failed(init))
    return failure();
  SmallVector<NamedAttribute> attrs = {i64Tensor(im, "dilations", win.dilations),
                                       i64Tensor(im, "strides", win.strides)};
  return linalg::Conv2DNchwFchwOp::create(im.b, im.loc, TypeRange{RankedTensorType::get(os, i32)},
                                          ValueRange{padded, w8}, ValueRange{*init}, attrs)
      .getResult(0);
}

LogicalResult qlinearConv(Importer &im, SmallVectorImpl<Value> &results, bool integer) {
  // QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B.
  // ConvInteger: x, w, x_zp, w_zp.
  Value x = im.in(0), w = im.in(integer ? 1 : 3);
  if (!x || !w || (!integer && (!im.hasInput(1) || !im.hasInput(4) || !im.hasInput(6))))
    return im.fail(Twine(im.node->op_type()) + " needs x, w and (QLinearConv) their scales");
  Shape xs = Importer::shapeOf(x), ws = Importer::shapeOf(w);
  if (xs.size() != 4 || ws.size() != 4)
    return im.fail(Twine(im.node->op_type()) + ": only 2-D convolutions are supported");
  int64_t n = xs[0], c = xs[1], m = ws[0], group = im.attrInt("group", 1);
  if (group < 1 || c % group != 0 || m % group != 0 || ws[1] != c / group)
    return im.fail(Twine(im.node->op_type()) +
                   ": the weights' shape does not match the input channels and group");
  Value xzp = zeroPoint(im, 2), wzp = zeroPoint(im, integer ? 3 : 5);
  if (!im.hasInput(2) && im.isUnsigned(x))
    im.markUnsigned(xzp);
  if (!im.hasInput(integer ? 3 : 5) && im.isUnsigned(w))
    im.markUnsigned(wzp);
  FailureOr<Window> win = window2D(im, xs, {ws[2], ws[3]});
  if (failed(win))
    return failure();
  Shape os = {n, m, win->out[0], win->out[1]};
  Type i32 = im.b.getI32Type();
  Value bias = !integer && im.hasInput(8) ? im.in(8) : Value();
  if (bias && Importer::shapeOf(bias) != Shape{m})
    return im.fail("QLinearConv: B must be [" + Twine(m) + "]");
  auto requantize = [&](Value acc) -> LogicalResult {
    if (integer) {
      results.push_back(acc);
      return success();
    }
    Value wScale = im.in(4);
    if (Importer::shapeOf(wScale).size() == 1 && Importer::shapeOf(wScale)[0] > 1)
      wScale = im.reshape(wScale, {m, 1, 1});
    FailureOr<Value> r = requantized(im, acc, {im.in(1), wScale, im.in(6)}, zeroPoint(im, 7));
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  if (group != 1) {
    // Grouped and depthwise: the zero points subtracted in f32 and the
    // float convolution, whose sums are exact integers while they stay
    // under 2^24 (each product of two 8-bit differences is), converted to
    // i32: a depthwise 3x3's 9 products by far.
    auto largest = [&](Value v, Value zp) -> double {
      std::optional<Lit> z = im.lit(zp);
      double lo = im.isUnsigned(v) ? 0 : -128, hi = im.isUnsigned(v) ? 255 : 127, r = 0;
      for (double zv : z ? z->values : std::vector<double>{lo, hi})
        r = std::max({r, std::abs(hi - zv), std::abs(lo - zv)});
      return z ? r : hi - lo;
    };
    double bound = static_cast<double>(ws[1] * ws[2] * ws[3]) * largest(x, xzp) * largest(w, wzp);
    if (bound >= 16777216.0)
      return im.fail(Twine(im.node->op_type()) +
                     ": groups of this many channels are not supported (their sums could "
                     "pass 2^24)");
    Type f32 = im.b.getF32Type();
    bool xu = im.isUnsigned(x), wu = im.isUnsigned(w);
    bool xzu = xu || im.isUnsigned(xzp), wzu = wu || im.isUnsigned(wzp);
    FailureOr<Value> xf = im.elementwise(
        {x, alongAxis(im, xzp, 4, 1)}, f32, [=](B &b, L l, V a) -> Value {
          return arith::SubFOp::create(b, l, toF32(b, l, a[0], xu), toF32(b, l, a[1], xzu));
        });
    FailureOr<Value> wf = im.elementwise(
        {w, alongAxis(im, wzp, 4, 0)}, f32, [=](B &b, L l, V a) -> Value {
          return arith::SubFOp::create(b, l, toF32(b, l, a[0], wu), toF32(b, l, a[1], wzu));
        });
    if (failed(xf) || failed(wf))
      return failure();
    FailureOr<Value> sums = convolution(im, *xf, *wf, Value());
    if (failed(sums))
      return failure();
    SmallVector<Value> ins = {*sums};
    if (bias)
      ins.push_back(im.reshape(bias, {m, 1, 1}));
    FailureOr<Value> acc = im.elementwise(ins, i32, [](B &b, L l, V a) -> Value {
      Value v = arith::FPToSIOp::create(b, l, b.getI32Type(), a[0]);
      return a.size() > 1 ? arith::AddIOp::create(b, l, v, a[1]).getResult() : v;
    });
    if (failed(acc))
      return failure();
    return requantize(*acc);
  }
  // 8-bit operands with a constant input zero point and symmetric constant
  // weights contract as they are; others with the zero points subtracted
  // in i32 first.
  if (FailureOr<Value> fast = convInt8(im, x, xzp, w, wzp, bias, *win, os); succeeded(fast))
    return requantize(*fast);
  FailureOr<Value> x32 = shifted(im, x, xzp, 1), w32 = shifted(im, w, wzp, 0);
  if (failed(x32) || failed(w32))
    return failure();
  // Padding is the zero point, so 0 once shifted.
  Value padded = padTo(im, *x32, {0, 0, win->padBegin[0], win->padBegin[1]},
                       {0, 0, win->padEnd[0], win->padEnd[1]}, 0.0);
  Value init;
  if (bias) {
    FailureOr<Value> b = im.elementwise({im.reshape(bias, {m, 1, 1}), im.empty(os, i32)}, i32,
                                        [](B &, L, V a) -> Value { return a[0]; });
    if (failed(b))
      return failure();
    init = *b;
  } else {
    init = im.filled(os, i32, 0);
  }
  SmallVector<NamedAttribute> attrs = {i64Tensor(im, "dilations", win->dilations),
                                       i64Tensor(im, "strides", win->strides)};
  Value acc = linalg::Conv2DNchwFchwOp::create(im.b, im.loc,
                                               TypeRange{RankedTensorType::get(os, i32)},
                                               ValueRange{padded, *w32}, ValueRange{init}, attrs)
                  .getResult(0);
  return requantize(acc);
}

/// A DequantizeLinear'd value's scale as a float factor broadcasting
/// against a rank-`rank` result whose dim `dim` it runs along (a per-tensor
/// scale as it is); null when it is neither.
Value scaleAlong(Importer &im, Value scale, int64_t rank, int64_t dim) {
  Shape s = Importer::shapeOf(scale);
  int64_t n = Importer::typeOf(scale).getNumElements();
  if (!Importer::typeOf(scale).getElementType().isF32())
    return {};
  if (n == 1)
    return s.size() <= 1 ? scale : im.reshape(scale, {1});
  if (s.size() != 1)
    return {};
  Shape to(rank - dim, 1);
  to[0] = n;
  return im.reshape(scale, to);
}

} // namespace

FailureOr<Value> qdqConv(Importer &im, Value x, Value w, Value bias, const Window &win,
                         ArrayRef<int64_t> os) {
  auto xi = im.dequantized.find(x), wi = im.dequantized.find(w);
  if (!im.int8Contractions() || xi == im.dequantized.end() || wi == im.dequantized.end())
    return failure();
  Importer::Dequantized xq = xi->second, wq = wi->second;
  int64_t m = os[1];
  // Where int8 beats f32 (VNNI's register tiles): input channels in its
  // groups of four, a reduction of 64 or more, output channels in whole
  // registers of 16. A first layer's 3 channels, MobileNetV2's 1x1
  // convolutions of 16 or 24 channels (and into 24) ran 1.2-2x slower in
  // int8 than in f32.
  Shape xs = Importer::shapeOf(xq.q), ws = Importer::shapeOf(wq.q);
  if (xs[1] % 4 != 0 || xs[1] * ws[2] * ws[3] < 64 || m % 16 != 0)
    return failure();
  if (Importer::typeOf(xq.scale).getNumElements() != 1 ||
      (Importer::typeOf(wq.scale).getNumElements() != 1 &&
       (wq.axis != 0 || Importer::typeOf(wq.scale).getNumElements() != m)))
    return failure();
  Value sx = scaleAlong(im, xq.scale, 4, 1), sw = scaleAlong(im, wq.scale, 4, 1);
  if (!sx || !sw)
    return failure();
  FailureOr<Value> acc = convInt8(im, xq.q, xq.zp, wq.q, wq.zp, Value(), win, Shape(os));
  if (failed(acc))
    return failure();
  SmallVector<Value> ins = {*acc, sx, sw};
  if (bias)
    ins.push_back(im.reshape(bias, {m, 1, 1}));
  return im.elementwise(ins, im.b.getF32Type(), [](B &b, L l, V a) -> Value {
    Value v = arith::MulFOp::create(b, l, toF32(b, l, a[0], false),
                                    arith::MulFOp::create(b, l, a[1], a[2]));
    return a.size() > 3 ? arith::AddFOp::create(b, l, v, a[3]).getResult() : v;
  });
}

FailureOr<Value> qdqMatmul(Importer &im, Value a, Value b, bool transposeB) {
  auto ai = im.dequantized.find(a), bi = im.dequantized.find(b);
  if (!im.int8Contractions() || ai == im.dequantized.end() || bi == im.dequantized.end())
    return failure();
  Importer::Dequantized aq = ai->second, bq = bi->second;
  Shape as = Importer::shapeOf(aq.q), bs = Importer::shapeOf(bq.q);
  if (as.size() < 2 || bs.size() != 2)
    return failure();
  // Where int8 beats f32: many rows (a few rows' f32 matmul reads packed
  // weight panels in order: a 1x1280x1000 classifier ran 2x slower in
  // int8), K in VNNI's groups of four and 64 or more, N in whole registers.
  int64_t rowCount = 1;
  for (size_t d = 0; d + 1 < as.size(); ++d)
    rowCount *= as[d];
  int64_t kDim = as.back(), nDim = transposeB ? bs[0] : bs[1];
  if (rowCount <= 8 || kDim % 4 != 0 || kDim < 64 || nDim % 16 != 0)
    return failure();
  int64_t n = transposeB ? bs[0] : bs[1];
  // b's scale and zero point per tensor or per column of [K, N] (per row
  // of a transposed [N, K]).
  int64_t columnAxis = transposeB ? 0 : 1;
  int64_t bScales = Importer::typeOf(bq.scale).getNumElements();
  if (Importer::typeOf(aq.scale).getNumElements() != 1 ||
      Importer::typeOf(aq.zp).getNumElements() != 1 ||
      (bScales != 1 && (bq.axis != columnAxis || bScales != n)))
    return failure();
  Value sa = scaleAlong(im, aq.scale, 2, 1), sb = scaleAlong(im, bq.scale, 2, 1);
  if (!sa || !sb)
    return failure();
  Value bMatrix = transposeB ? im.transpose(bq.q, {1, 0}) : bq.q;
  FailureOr<Value> acc = matmulInt8(im, asRows(im, aq.q), aq.zp, bMatrix, bq.zp);
  if (failed(acc))
    return failure();
  FailureOr<Value> r = im.elementwise({*acc, sa, sb}, im.b.getF32Type(), [](B &b, L l, V x) -> Value {
    return arith::MulFOp::create(b, l, toF32(b, l, x[0], false),
                                 arith::MulFOp::create(b, l, x[1], x[2]));
  });
  if (failed(r))
    return failure();
  Shape out(as.begin(), as.end() - 1);
  out.push_back(n);
  return im.reshape(*r, out);
}

void addQuantizedOps(OpTable &t) {
  t["QuantizeLinear"] = quantize;
  t["DequantizeLinear"] = dequantize;
  t["DynamicQuantizeLinear"] = dynamicQuantize;
  t["QLinearMatMul"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return qlinearMatMul(im, r, false);
  };
  t["MatMulInteger"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return qlinearMatMul(im, r, true);
  };
  t["QLinearConv"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return qlinearConv(im, r, false);
  };
  t["ConvInteger"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return qlinearConv(im, r, true);
  };
}

} // namespace onnximport
} // namespace jitrun
