//===- Window.cpp - convolution and pooling windows, padding --------------===//
//
// The geometry ONNX's Conv, ConvTranspose, pooling and QLinearConv share:
// output sizes and padding from pads, auto_pad, strides, dilations and
// ceil_mode, and the padded input.
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace jitrun {
namespace onnximport {

/// `v` padded with `value`: `low` and `high` per dim.
Value padTo(Importer &im, Value v, ArrayRef<int64_t> low, ArrayRef<int64_t> high, double value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  Shape s = Importer::shapeOf(v);
  for (size_t i = 0; i < s.size(); ++i)
    s[i] += low[i] + high[i];
  Type et = Importer::typeOf(v).getElementType();
  auto type = RankedTensorType::get(s, et);
  Value padValue = im.scalarConstant(et, value);
  SmallVector<OpFoldResult> lo, hi;
  for (size_t i = 0; i < low.size(); ++i) {
    lo.push_back(im.b.getIndexAttr(low[i]));
    hi.push_back(im.b.getIndexAttr(high[i]));
  }
  return tensor::PadOp::create(im.b, im.loc, type, v, lo, hi, padValue);
}

FailureOr<Window> window(Importer &im, ArrayRef<int64_t> in, ArrayRef<int64_t> k) {
  size_t n = in.size();
  Window w;
  w.kernel.assign(k.begin(), k.end());
  std::vector<int64_t> s = im.attrInts("strides"), d = im.attrInts("dilations"),
                       p = im.attrInts("pads");
  w.strides.assign(n, 1);
  w.dilations.assign(n, 1);
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  w.ceilExtra.assign(n, 0);
  if (!s.empty()) {
    if (s.size() != n)
      return im.fail(Twine(im.node->op_type()) + ": strides do not match the spatial rank");
    w.strides.assign(s.begin(), s.end());
  }
  if (!d.empty()) {
    if (d.size() != n)
      return im.fail(Twine(im.node->op_type()) + ": dilations do not match the spatial rank");
    w.dilations.assign(d.begin(), d.end());
  }
  std::string autoPad = im.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET" && !p.empty()) {
    if (p.size() != 2 * n)
      return im.fail(Twine(im.node->op_type()) + ": pads do not match the spatial rank");
    for (size_t i = 0; i < n; ++i) {
      w.padBegin[i] = p[i];
      w.padEnd[i] = p[n + i];
    }
  }
  bool ceil = im.attrInt("ceil_mode", 0) != 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t extent = w.dilations[i] * (w.kernel[i] - 1) + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t o = (in[i] + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>((o - 1) * w.strides[i] + extent - in[i], 0);
      w.padBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.padEnd[i] = total - w.padBegin[i];
    } else if (autoPad != "NOTSET" && autoPad != "VALID") {
      return im.fail(Twine(im.node->op_type()) + ": unknown auto_pad '" + autoPad + "'");
    }
    int64_t span = in[i] + w.padBegin[i] + w.padEnd[i] - extent;
    if (span < 0)
      return im.fail(Twine(im.node->op_type()) + ": the window is larger than the padded input");
    int64_t o = (ceil ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
    // A last window that would start in the end padding is dropped.
    if (ceil && (o - 1) * w.strides[i] >= in[i] + w.padBegin[i])
      --o;
    w.out.push_back(o);
    int64_t need = (o - 1) * w.strides[i] + extent - (in[i] + w.padBegin[i] + w.padEnd[i]);
    if (need > 0)
      w.ceilExtra[i] = need;
  }
  return w;
}

FailureOr<Window> window2D(Importer &im, ArrayRef<int64_t> xs, ArrayRef<int64_t> k) {
  if (xs.size() == 4)
    return window(im, {xs[2], xs[3]}, k);
  FailureOr<Window> w = window(im, {xs[2]}, k);
  if (failed(w))
    return failure();
  for (Shape *v : {&w->kernel, &w->strides, &w->dilations, &w->out})
    v->insert(v->begin(), 1);
  for (Shape *v : {&w->padBegin, &w->padEnd, &w->ceilExtra})
    v->insert(v->begin(), 0);
  return w;
}

NamedAttribute i64Tensor(Importer &im, StringRef name, ArrayRef<int64_t> v) {
  return im.b.getNamedAttr(name, im.b.getI64TensorAttr(v));
}

} // namespace onnximport
} // namespace jitrun
