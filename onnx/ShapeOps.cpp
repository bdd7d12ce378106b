//===- ShapeOps.cpp - ONNX's shape, layout and data-movement ops ----------===//
//
// Shape, Reshape, Transpose, Concat, Slice, Gather and friends. On small
// constants they fold at import (the shape subgraphs exporters write); on
// data they become tensor reshapes, slices, concats and gathers.
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "llvm/ADT/StringExtras.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace jitrun {
namespace onnximport {
namespace {

int64_t product(ArrayRef<int64_t> s, size_t from = 0, size_t to = ~size_t(0)) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i)
    p *= s[i];
  return p;
}

Lit int64Lit(MLIRContext *ctx, Shape shape, ArrayRef<int64_t> values) {
  Lit l;
  l.shape = std::move(shape);
  l.elementType = IntegerType::get(ctx, 64);
  for (int64_t v : values)
    l.values.push_back(static_cast<double>(v));
  return l;
}

/// Axes from an attribute (before `inputFrom`) or input 1.
FailureOr<std::vector<int64_t>> axesOf(Importer &im, int64_t inputFrom) {
  if (im.opset >= inputFrom) {
    if (!im.hasInput(1))
      return std::vector<int64_t>{};
    return im.constInts(1, "axes");
  }
  return im.attrInts("axes");
}

/// Strides of a row-major shape.
Shape strides(ArrayRef<int64_t> s) {
  Shape st(s.size(), 1);
  for (int64_t d = static_cast<int64_t>(s.size()) - 2; d >= 0; --d)
    st[d] = st[d + 1] * s[d + 1];
  return st;
}

LogicalResult reshapeOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("Reshape needs data and shape");
  FailureOr<std::vector<int64_t>> target = im.constInts(1, "shape");
  if (failed(target))
    return failure();
  Shape in = Importer::shapeOf(im.in(0)), out;
  bool allowZero = im.attrInt("allowzero", 0) != 0;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return im.fail("Reshape: a 0 dim copies a dim the input does not have");
      d = in[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return im.fail("Reshape: more than one -1 dim");
      inferred = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0)
      return im.fail("Reshape: negative dim " + Twine(d));
    out.push_back(d);
    known *= d;
  }
  int64_t total = product(in);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return im.fail("Reshape: cannot infer the -1 dim");
    out[inferred] = total / known;
  }
  if (product(out) != total)
    return im.fail("Reshape: " + Twine(total) + " elements cannot take the shape asked for");
  results.push_back(im.reshape(im.in(0), out));
  return success();
}

LogicalResult squeezeOp(Importer &im, SmallVectorImpl<Value> &results, bool unsqueeze) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  FailureOr<std::vector<int64_t>> axes = axesOf(im, 13);
  if (failed(axes))
    return failure();
  Shape in = Importer::shapeOf(im.in(0)), out;
  if (unsqueeze) {
    int64_t rank = in.size() + axes->size();
    SmallVector<bool> inserted(rank, false);
    for (int64_t a : *axes) {
      int64_t n = normalizeAxis(a, rank);
      if (n < 0 || inserted[n])
        return im.fail("Unsqueeze: bad axis " + Twine(a));
      inserted[n] = true;
    }
    size_t k = 0;
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(inserted[d] ? 1 : in[k++]);
  } else {
    SmallVector<bool> dropped(in.size(), axes->empty());
    if (axes->empty()) {
      for (size_t d = 0; d < in.size(); ++d)
        dropped[d] = in[d] == 1;
    }
    for (int64_t a : *axes) {
      int64_t n = normalizeAxis(a, in.size());
      if (n < 0 || in[n] != 1)
        return im.fail("Squeeze: axis " + Twine(a) + " is not a dim of size 1");
      dropped[n] = true;
    }
    for (size_t d = 0; d < in.size(); ++d)
      if (!dropped[d])
        out.push_back(in[d]);
  }
  results.push_back(im.reshape(im.in(0), out));
  return success();
}

LogicalResult concatOp(Importer &im, SmallVectorImpl<Value> &results) {
  SmallVector<Value> ins;
  for (int i = 0; i < im.node->input_size(); ++i)
    if (im.hasInput(i) && Importer::typeOf(im.in(i)).getNumElements() != 0)
      ins.push_back(im.in(i));
  if (ins.empty())
    return im.fail("Concat needs an input");
  int64_t rank = Importer::typeOf(ins[0]).getRank();
  int64_t axis = normalizeAxis(im.attrInt("axis", 0), rank);
  if (axis < 0)
    return im.fail("Concat: axis out of range");
  if (ins.size() == 1) {
    results.push_back(ins[0]);
    return success();
  }
  // All small constants (shape vectors): fold.
  SmallVector<Lit> lits;
  for (Value v : ins)
    if (std::optional<Lit> l = im.lit(v))
      lits.push_back(*l);
  if (lits.size() == ins.size()) {
    Lit r;
    r.elementType = lits[0].elementType;
    r.shape = lits[0].shape;
    r.shape[axis] = 0;
    for (const Lit &l : lits)
      r.shape[axis] += l.shape[axis];
    int64_t outer = product(r.shape, 0, axis);
    for (int64_t o = 0; o < outer; ++o)
      for (const Lit &l : lits) {
        int64_t inner = product(l.shape, axis);
        r.values.insert(r.values.end(), l.values.begin() + o * inner,
                        l.values.begin() + (o + 1) * inner);
      }
    results.push_back(im.constant(r));
    return success();
  }
  results.push_back(tensor::ConcatOp::create(im.b, im.loc, axis, ins));
  return success();
}

/// A strided slice of `v`: `offsets`, `sizes` and positive `steps` per dim.
Value slice(Importer &im, Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
            ArrayRef<int64_t> steps) {
  if (std::optional<Lit> l = im.lit(v)) {
    Lit r;
    r.elementType = l->elementType;
    r.shape.assign(sizes.begin(), sizes.end());
    Shape st = strides(l->shape);
    int64_t n = product(sizes);
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, idx = 0;
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        idx += (offsets[d] + (rem % sizes[d]) * steps[d]) * st[d];
        rem /= sizes[d];
      }
      r.values.push_back(l->values[idx]);
    }
    return im.constant(r);
  }
  auto type = RankedTensorType::get(sizes, Importer::typeOf(v).getElementType());
  auto folded = [&](ArrayRef<int64_t> xs) {
    SmallVector<OpFoldResult> r;
    for (int64_t x : xs)
      r.push_back(im.b.getIndexAttr(x));
    return r;
  };
  return tensor::ExtractSliceOp::create(im.b, im.loc, type, v, folded(offsets), folded(sizes),
                                        folded(steps));
}

LogicalResult sliceOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Slice needs data");
  Shape in = Importer::shapeOf(im.in(0));
  int64_t rank = in.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (im.opset < 10) {
    starts = im.attrInts("starts");
    ends = im.attrInts("ends");
    axes = im.attrInts("axes");
  } else {
    FailureOr<std::vector<int64_t>> s = im.constInts(1, "starts"), e = im.constInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (im.hasInput(3)) {
      FailureOr<std::vector<int64_t>> a = im.constInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (im.hasInput(4)) {
      FailureOr<std::vector<int64_t>> st = im.constInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return im.fail("Slice: starts, ends, axes and steps differ in length");
  Shape offsets(rank, 0), sizes = in, strides(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = normalizeAxis(axes[i], rank);
    if (a < 0)
      return im.fail("Slice: axis out of range");
    int64_t dim = in[a], step = steps[i];
    if (step == 0)
      return im.fail("Slice: a step of 0");
    if (step < 0)
      return im.fail("Slice: negative steps are not supported");
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    offsets[a] = s;
    sizes[a] = e > s ? (e - s + step - 1) / step : 0;
    strides[a] = step;
  }
  results.push_back(slice(im, im.in(0), offsets, sizes, strides));
  return success();
}

LogicalResult splitOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Split needs an input");
  Shape in = Importer::shapeOf(im.in(0));
  int64_t axis = normalizeAxis(im.attrInt("axis", 0), in.size());
  if (axis < 0)
    return im.fail("Split: axis out of range");
  std::vector<int64_t> parts;
  if (im.opset >= 13 && im.hasInput(1)) {
    FailureOr<std::vector<int64_t>> p = im.constInts(1, "split");
    if (failed(p))
      return failure();
    parts = *p;
  } else if (im.opset < 13) {
    parts = im.attrInts("split");
  }
  int64_t n = im.node->output_size();
  if (parts.empty()) {
    int64_t each = (in[axis] + n - 1) / n;
    for (int64_t i = 0, left = in[axis]; i < n; ++i, left -= each)
      parts.push_back(std::min(each, left));
  }
  if (static_cast<int64_t>(parts.size()) != n || product(parts) < 0)
    return im.fail("Split: the split sizes do not match the outputs");
  int64_t offset = 0;
  for (int64_t p : parts) {
    Shape offsets(in.size(), 0), sizes = in, steps(in.size(), 1);
    offsets[axis] = offset;
    sizes[axis] = p;
    offset += p;
    results.push_back(slice(im, im.in(0), offsets, sizes, steps));
  }
  if (offset != in[axis])
    return im.fail("Split: the split sizes do not add up to the dim");
  return success();
}

/// A gather's index (an integer read from the indices) as an index into a
/// dimension of `dim`: negative ones count from the end. (An index out of
/// range is left to the kernels' bounds check of the tensor.extract.)
Value gatherIndex(B &b, L l, Value raw, int64_t dim) {
  Value k = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  Value size = arith::ConstantIndexOp::create(b, l, dim);
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value negative = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
  return arith::SelectOp::create(b, l, negative, arith::AddIOp::create(b, l, k, size), k);
}

LogicalResult gatherOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("Gather needs data and indices");
  Value data = im.in(0), indices = im.in(1);
  Shape ds = Importer::shapeOf(data), is = Importer::shapeOf(indices);
  int64_t axis = normalizeAxis(im.attrInt("axis", 0), ds.size());
  if (axis < 0)
    return im.fail("Gather: axis out of range");
  Shape out(ds.begin(), ds.begin() + axis);
  out.append(is.begin(), is.end());
  out.append(ds.begin() + axis + 1, ds.end());
  std::optional<Lit> li = im.lit(indices);
  std::optional<Lit> ld = im.lit(data);
  if (li && ld) {
    Lit r;
    r.elementType = ld->elementType;
    r.shape = out;
    int64_t outer = product(ds, 0, axis), inner = product(ds, axis + 1);
    for (int64_t o = 0; o < outer; ++o)
      for (double id : li->values) {
        int64_t k = static_cast<int64_t>(id);
        if (k < 0)
          k += ds[axis];
        if (k < 0 || k >= ds[axis])
          return im.fail("Gather: index " + Twine(static_cast<int64_t>(id)) + " is out of range");
        for (int64_t i = 0; i < inner; ++i)
          r.values.push_back(ld->values[(o * ds[axis] + k) * inner + i]);
      }
    results.push_back(im.constant(r));
    return success();
  }
  // A constant scalar index: a slice.
  if (li && is.empty()) {
    int64_t k = static_cast<int64_t>(li->values[0]);
    if (k < 0)
      k += ds[axis];
    if (k < 0 || k >= ds[axis])
      return im.fail("Gather: index " + Twine(k) + " is out of range");
    Shape offsets(ds.size(), 0), sizes = ds, steps(ds.size(), 1);
    offsets[axis] = k;
    sizes[axis] = 1;
    results.push_back(im.reshape(slice(im, data, offsets, sizes, steps), out));
    return success();
  }
  // A gather by data: a generic over the output reading data with
  // tensor.extract at the index it reads from `indices`.
  int64_t rank = out.size(), irank = is.size();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < irank; ++d)
    idxExprs.push_back(im.b.getAffineDimExpr(axis + d));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, im.context),
                                 im.b.getMultiDimIdentityMap(rank)};
  Type et = Importer::typeOf(data).getElementType();
  int64_t dim = ds[axis];
  auto generic = linalg::GenericOp::create(
      im.b, im.loc, RankedTensorType::get(out, et), ValueRange{indices},
      ValueRange{im.empty(out, et)}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](B &b, L l, V args) {
        Value k = gatherIndex(b, l, args[0], dim);
        SmallVector<Value> at;
        for (int64_t d = 0; d < axis; ++d)
          at.push_back(linalg::IndexOp::create(b, l, d));
        at.push_back(k);
        for (int64_t d = axis + irank; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(b, l, d));
        linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, data, at)});
      });
  results.push_back(generic.getResult(0));
  return success();
}

/// GatherElements: out[i...] = data[i... with the axis coordinate replaced
/// by indices[i...]] (negative indices count from the end; an index out of
/// range is the kernels' bounds-check error, as Gather's).
LogicalResult gatherElementsOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0) || !im.hasInput(1))
    return im.fail("GatherElements needs data and indices");
  Value data = im.in(0), indices = im.in(1);
  Shape ds = Importer::shapeOf(data), is = Importer::shapeOf(indices);
  int64_t rank = ds.size();
  int64_t axis = normalizeAxis(im.attrInt("axis", 0), rank);
  if (axis < 0 || static_cast<int64_t>(is.size()) != rank)
    return im.fail("GatherElements: indices must have data's rank and axis be in range");
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && is[d] > ds[d])
      return im.fail("GatherElements: indices dim " + Twine(d) + " is larger than data's");
  if (!Importer::typeOf(indices).getElementType().isSignlessInteger())
    return im.fail("GatherElements: indices must be integers");
  Type et = Importer::typeOf(data).getElementType();
  int64_t dim = ds[axis];
  auto generic = linalg::GenericOp::create(
      im.b, im.loc, RankedTensorType::get(is, et), ValueRange{indices},
      ValueRange{im.empty(is, et)},
      SmallVector<AffineMap>{im.b.getMultiDimIdentityMap(rank), im.b.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](B &b, L l, V args) {
        Value k = gatherIndex(b, l, args[0], dim);
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(d == axis ? k : linalg::IndexOp::create(b, l, d).getResult());
        linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, data, at)});
      });
  results.push_back(generic.getResult(0));
  return success();
}

/// Trilu: the upper (or lower) triangle of the last two dims from diagonal
/// k (input 1), the rest zeros.
LogicalResult triluOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Trilu needs an input");
  Value x = im.in(0);
  int64_t rank = Importer::typeOf(x).getRank();
  if (rank < 2)
    return im.fail("Trilu: the input must have 2 dims or more");
  // k: a constant or a scalar computed at run time (an input), 0 if absent.
  SmallVector<Value> ins = {x};
  if (im.hasInput(1)) {
    Value k = im.in(1);
    if (Importer::typeOf(k).getNumElements() != 1 ||
        !Importer::typeOf(k).getElementType().isInteger(64))
      return im.fail("Trilu: k must be one int64");
    ins.push_back(im.reshape(k, {}));
  }
  bool upper = im.attrInt("upper", 1) != 0;
  Type et = Importer::typeOf(x).getElementType();
  FailureOr<Value> r = im.elementwise(ins, et, [=](B &b, L l, V a) -> Value {
    Value i = linalg::IndexOp::create(b, l, rank - 2), j = linalg::IndexOp::create(b, l, rank - 1);
    // j - i >= k keeps the upper triangle, j - i <= k the lower.
    Value diff = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                            arith::SubIOp::create(b, l, j, i));
    Value kk = a.size() > 1 ? a[1] : arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)).getResult();
    Value keep = arith::CmpIOp::create(b, l, upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle, diff, kk);
    Value zero = isa<FloatType>(et) ? fconst(b, l, et, 0.0)
                                    : arith::ConstantOp::create(b, l, b.getZeroAttr(et)).getResult();
    return arith::SelectOp::create(b, l, keep, a[0], zero);
  });
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth: a reshape, a transpose and a
/// reshape of an NCHW tensor, by `blocksize`.
LogicalResult depthSpaceOp(Importer &im, SmallVectorImpl<Value> &results, bool toSpace) {
  const char *op = toSpace ? "DepthToSpace" : "SpaceToDepth";
  if (!im.hasInput(0))
    return im.fail(Twine(op) + " needs an input");
  Value x = im.in(0);
  Shape xs = Importer::shapeOf(x);
  int64_t bs = im.attrInt("blocksize", 0);
  if (xs.size() != 4 || bs < 1)
    return im.fail(Twine(op) + " needs an NCHW input and a blocksize of 1 or more");
  int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  Value r;
  if (toSpace) {
    if (c % (bs * bs) != 0)
      return im.fail("DepthToSpace: the channels are not a multiple of blocksize^2");
    bool crd = im.attrString("mode", "DCR") == "CRD";
    int64_t cc = c / (bs * bs);
    r = crd ? im.transpose(im.reshape(x, {n, cc, bs, bs, h, w}), {0, 1, 4, 2, 5, 3})
            : im.transpose(im.reshape(x, {n, bs, bs, cc, h, w}), {0, 3, 4, 1, 5, 2});
    r = im.reshape(r, {n, cc, h * bs, w * bs});
  } else {
    if (h % bs != 0 || w % bs != 0)
      return im.fail("SpaceToDepth: the height and width are not multiples of blocksize");
    r = im.transpose(im.reshape(x, {n, c, h / bs, bs, w / bs, bs}), {0, 3, 5, 1, 2, 4});
    r = im.reshape(r, {n, c * bs * bs, h / bs, w / bs});
  }
  results.push_back(r);
  return success();
}

/// Broadcasts `v` to `shape` (NumPy rules, as Expand).
FailureOr<Value> broadcastTo(Importer &im, Value v, ArrayRef<int64_t> shape) {
  Type et = Importer::typeOf(v).getElementType();
  Shape in = Importer::shapeOf(v);
  size_t rank = std::max(in.size(), shape.size());
  Shape out(rank, 1);
  for (const Shape *s : {&in}) {
    for (size_t i = 0; i < s->size(); ++i)
      out[rank - s->size() + i] = (*s)[i];
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t &o = out[rank - shape.size() + i];
    if (shape[i] != 1 && o != 1 && shape[i] != o)
      return im.fail("Expand: shapes do not broadcast");
    o = std::max(o, shape[i]);
  }
  return im.elementwise({v, im.empty(out, et)}, et, [](B &, L, V a) -> Value { return a[0]; },
                        [](ArrayRef<double> a) { return a[0]; });
}

LogicalResult constantOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (const onnx::AttributeProto *a = im.attr("value")) {
    std::string error;
    FailureOr<DenseElementsAttr> attr = tensorAttr(im.context, a->t(), error);
    if (failed(attr))
      return im.fail("Constant: " + error);
    results.push_back(im.constant(*attr));
    return success();
  }
  Lit l;
  if (const onnx::AttributeProto *a = im.attr("value_float")) {
    l.elementType = im.b.getF32Type();
    l.values = {a->f()};
  } else if (const onnx::AttributeProto *a = im.attr("value_floats")) {
    l.elementType = im.b.getF32Type();
    l.values.assign(a->floats().begin(), a->floats().end());
    l.shape = {static_cast<int64_t>(l.values.size())};
  } else if (const onnx::AttributeProto *a = im.attr("value_int")) {
    l = int64Lit(im.context, {}, {a->i()});
  } else if (const onnx::AttributeProto *a = im.attr("value_ints")) {
    std::vector<int64_t> v(a->ints().begin(), a->ints().end());
    l = int64Lit(im.context, {static_cast<int64_t>(v.size())}, v);
  } else {
    return im.fail("Constant: no supported value attribute");
  }
  results.push_back(im.constant(l));
  return success();
}

LogicalResult constantOfShapeOp(Importer &im, SmallVectorImpl<Value> &results) {
  FailureOr<std::vector<int64_t>> shape = im.constInts(0, "shape");
  if (failed(shape))
    return failure();
  Type et = im.b.getF32Type();
  Attribute value = im.b.getF32FloatAttr(0.0f);
  if (const onnx::AttributeProto *a = im.attr("value")) {
    std::string error;
    FailureOr<DenseElementsAttr> attr = tensorAttr(im.context, a->t(), error);
    if (failed(attr) || attr->getNumElements() != 1)
      return im.fail("ConstantOfShape: the value must be a one-element tensor");
    et = attr->getElementType();
    value = *attr->value_begin<Attribute>();
  }
  auto type = RankedTensorType::get(*shape, et);
  results.push_back(im.constant(DenseElementsAttr::get(type, value)));
  return success();
}

LogicalResult tileOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Tile needs an input");
  FailureOr<std::vector<int64_t>> repeats = im.constInts(1, "repeats");
  if (failed(repeats))
    return failure();
  Shape in = Importer::shapeOf(im.in(0));
  if (repeats->size() != in.size())
    return im.fail("Tile: repeats do not match the rank");
  // [a, b] x [r, s]: [1, a, 1, b] broadcast to [r, a, s, b], then [r*a, s*b].
  Shape spread, wide, out;
  for (size_t d = 0; d < in.size(); ++d) {
    spread.append({1, in[d]});
    wide.append({(*repeats)[d], in[d]});
    out.push_back((*repeats)[d] * in[d]);
  }
  FailureOr<Value> r = broadcastTo(im, im.reshape(im.in(0), spread), wide);
  if (failed(r))
    return failure();
  results.push_back(im.reshape(*r, out));
  return success();
}

LogicalResult padOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Pad needs an input");
  std::string mode = im.attrString("mode", "constant");
  if (mode != "constant")
    return im.fail("Pad: mode '" + mode + "' is not supported (only 'constant')");
  Shape in = Importer::shapeOf(im.in(0));
  int64_t rank = in.size();
  std::vector<int64_t> pads;
  double value = 0;
  if (im.opset < 11) {
    pads = im.attrInts("pads");
    value = im.attrFloat("value", 0.0f);
  } else {
    FailureOr<std::vector<int64_t>> p = im.constInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (im.hasInput(2)) {
      std::optional<Lit> v = im.lit(im.in(2));
      if (!v || v->numElements() != 1)
        return im.fail("Pad: constant_value must be a scalar constant");
      value = v->values[0];
    }
  }
  std::vector<int64_t> axes;
  if (im.opset >= 18 && im.hasInput(3)) {
    FailureOr<std::vector<int64_t>> a = im.constInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    return im.fail("Pad: pads do not match the axes");
  Shape lo(rank, 0), hi(rank, 0), out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = normalizeAxis(axes[i], rank);
    if (a < 0)
      return im.fail("Pad: axis out of range");
    lo[a] = pads[i];
    hi[a] = pads[axes.size() + i];
    if (lo[a] < 0 || hi[a] < 0)
      return im.fail("Pad: negative pads are not supported");
    out[a] += lo[a] + hi[a];
  }
  Type et = Importer::typeOf(im.in(0)).getElementType();
  SmallVector<OpFoldResult> l, h;
  for (int64_t d = 0; d < rank; ++d) {
    l.push_back(im.b.getIndexAttr(lo[d]));
    h.push_back(im.b.getIndexAttr(hi[d]));
  }
  results.push_back(tensor::PadOp::create(im.b, im.loc, RankedTensorType::get(out, et),
                                          im.in(0), l, h, im.scalarConstant(et, value)));
  return success();
}

LogicalResult rangeOp(Importer &im, SmallVectorImpl<Value> &results) {
  std::optional<Lit> s = im.lit(im.in(0)), l = im.lit(im.in(1)), d = im.lit(im.in(2));
  if (!s || !l || !d || s->numElements() != 1 || l->numElements() != 1 || d->numElements() != 1)
    return im.fail("Range: start, limit and delta computed from data are not supported (they must be scalar constants)");
  double start = s->values[0], limit = l->values[0], delta = d->values[0];
  if (delta == 0)
    return im.fail("Range: delta is 0");
  int64_t n = std::max<int64_t>(static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
  if (n > kFoldLimit)
    return im.fail("Range: more than " + Twine(kFoldLimit) + " elements");
  Lit r;
  r.elementType = s->elementType;
  r.shape = {n};
  for (int64_t i = 0; i < n; ++i)
    r.values.push_back(start + i * delta);
  results.push_back(im.constant(r));
  return success();
}

LogicalResult shapeOp(Importer &im, SmallVectorImpl<Value> &results) {
  if (!im.hasInput(0))
    return im.fail("Shape needs an input");
  Shape s = Importer::shapeOf(im.in(0));
  int64_t rank = s.size();
  int64_t start = im.attrInt("start", 0), end = im.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  Shape part(s.begin() + start, s.begin() + end);
  results.push_back(im.constant(int64Lit(im.context, {static_cast<int64_t>(part.size())}, part)));
  return success();
}

} // namespace

void addShapeOps(OpTable &t) {
  t["Shape"] = shapeOp;
  t["Size"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Size needs an input");
    results.push_back(
        im.constant(int64Lit(im.context, {}, {Importer::typeOf(im.in(0)).getNumElements()})));
    return success();
  };
  t["Constant"] = constantOp;
  t["ConstantOfShape"] = constantOfShapeOp;
  t["Reshape"] = reshapeOp;
  t["Flatten"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Flatten needs an input");
    Shape s = Importer::shapeOf(im.in(0));
    int64_t axis = im.attrInt("axis", 1);
    if (axis < 0)
      axis += s.size();
    if (axis < 0 || axis > static_cast<int64_t>(s.size()))
      return im.fail("Flatten: axis out of range");
    results.push_back(im.reshape(im.in(0), {product(s, 0, axis), product(s, axis)}));
    return success();
  };
  t["Squeeze"] = [](Importer &im, SmallVectorImpl<Value> &r) { return squeezeOp(im, r, false); };
  t["Unsqueeze"] = [](Importer &im, SmallVectorImpl<Value> &r) { return squeezeOp(im, r, true); };
  t["Transpose"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Transpose needs an input");
    int64_t rank = Importer::typeOf(im.in(0)).getRank();
    std::vector<int64_t> perm = im.attrInts("perm");
    if (perm.empty())
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if (static_cast<int64_t>(perm.size()) != rank)
      return im.fail("Transpose: perm does not match the rank");
    // Each dim once: a repeated or out-of-range one would read outside the
    // input (a constant's bytes are permuted at import).
    std::vector<bool> seen(rank, false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p])
        return im.fail("Transpose: perm [" + llvm::join(llvm::map_range(perm, [](int64_t d) {
                         return std::to_string(d);
                       }), ", ") + "] is not a permutation of the input's " +
                       std::to_string(rank) + " dims");
      seen[p] = true;
    }
    results.push_back(im.transpose(im.in(0), perm));
    return success();
  };
  t["Concat"] = concatOp;
  t["Slice"] = sliceOp;
  t["Split"] = splitOp;
  t["Gather"] = gatherOp;
  t["GatherElements"] = gatherElementsOp;
  t["Trilu"] = triluOp;
  t["DepthToSpace"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return depthSpaceOp(im, r, true);
  };
  t["SpaceToDepth"] = [](Importer &im, SmallVectorImpl<Value> &r) {
    return depthSpaceOp(im, r, false);
  };
  t["Expand"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Expand needs an input");
    FailureOr<std::vector<int64_t>> shape = im.constInts(1, "shape");
    if (failed(shape))
      return failure();
    FailureOr<Value> r = broadcastTo(im, im.in(0), *shape);
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  t["Tile"] = tileOp;
  t["Pad"] = padOp;
  t["Range"] = rangeOp;
}

} // namespace onnximport
} // namespace jitrun
