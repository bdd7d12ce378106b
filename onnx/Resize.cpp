//===- Resize.cpp - ONNX Resize and Upsample, nearest and linear ----------===//
//
// Shapes are static, so the source coordinates of every output row and
// column are computed here, once: per resized axis a table of the one
// (nearest) or two (linear) source indices and the linear weight. The op is
// then one generic over the output that reads the input with tensor.extract
// at those indices (2^k reads for k linearly resized axes).
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace jitrun {
namespace onnximport {
namespace {

struct AxisTable {
  int64_t axis;
  std::vector<int32_t> lo, hi;
  std::vector<float> weight; // of `hi`, linear only
};

LogicalResult resize(Importer &im, SmallVectorImpl<Value> &results, bool upsample) {
  if (!im.hasInput(0))
    return im.fail(Twine(im.node->op_type()) + " needs an input");
  Value x = im.in(0);
  Shape in = Importer::shapeOf(x);
  Type et = Importer::typeOf(x).getElementType();
  if (!isa<FloatType>(et))
    return im.fail(Twine(im.node->op_type()) + " on integers is not supported");
  int64_t rank = in.size();
  std::string mode = im.attrString("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "bilinear")
    return im.fail(Twine(im.node->op_type()) + ": mode '" + mode +
                   "' is not supported (nearest and linear are)");
  bool linear = mode != "nearest";
  // Scales or sizes: Upsample and Resize-10 take scales as input 1; from
  // opset 11 Resize takes (X, roi, scales, sizes).
  std::vector<double> scales;
  Shape out;
  int scalesInput = upsample || im.opset < 11 ? 1 : 2;
  if (!upsample && im.opset >= 11 && im.hasInput(3) &&
      Importer::typeOf(im.in(3)).getNumElements() > 0) {
    FailureOr<std::vector<int64_t>> sizes = im.constInts(3, "sizes");
    if (failed(sizes))
      return failure();
    if (static_cast<int64_t>(sizes->size()) != rank)
      return im.fail("Resize: sizes do not match the rank (axes are not supported)");
    out.assign(sizes->begin(), sizes->end());
    for (int64_t d = 0; d < rank; ++d)
      scales.push_back(static_cast<double>(out[d]) / static_cast<double>(in[d]));
  } else {
    std::optional<Lit> s = im.lit(im.in(scalesInput));
    if (!s && upsample && im.attr("scales")) {
      const onnx::AttributeProto *a = im.attr("scales");
      scales.assign(a->floats().begin(), a->floats().end());
    } else if (!s) {
      return im.fail(Twine(im.node->op_type()) +
                     ": scales computed from data are not supported (they must be constants)");
    } else {
      scales = s->values;
    }
    if (static_cast<int64_t>(scales.size()) != rank)
      return im.fail(Twine(im.node->op_type()) + ": scales do not match the rank");
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(static_cast<int64_t>(std::floor(in[d] * scales[d])));
  }
  std::string ctm = im.attrString(
      "coordinate_transformation_mode", upsample || im.opset < 11 ? "asymmetric" : "half_pixel");
  std::string nearestMode = im.attrString("nearest_mode", "round_prefer_floor");
  if (ctm == "tf_crop_and_resize")
    return im.fail("Resize: coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  // Before opset 11 Resize and Upsample use asymmetric coordinates and
  // nearest rounds down.
  if (upsample || im.opset < 11)
    nearestMode = "floor";
  SmallVector<AxisTable> tables;
  for (int64_t d = 0; d < rank; ++d) {
    if (out[d] == in[d] && scales[d] == 1.0)
      continue;
    if (out[d] <= 0)
      return im.fail(Twine(im.node->op_type()) + ": an output dim of size 0");
    AxisTable t;
    t.axis = d;
    for (int64_t o = 0; o < out[d]; ++o) {
      double s = scales[d], xo;
      if (ctm == "half_pixel")
        xo = (o + 0.5) / s - 0.5;
      else if (ctm == "pytorch_half_pixel")
        xo = out[d] > 1 ? (o + 0.5) / s - 0.5 : 0.0;
      else if (ctm == "align_corners")
        xo = out[d] > 1 ? o * static_cast<double>(in[d] - 1) / (out[d] - 1) : 0.0;
      else if (ctm == "asymmetric")
        xo = o / s;
      else if (ctm == "tf_half_pixel_for_nn")
        xo = (o + 0.5) / s;
      else
        return im.fail("Resize: unknown coordinate_transformation_mode '" + ctm + "'");
      auto clamp = [&](double v) {
        return static_cast<int32_t>(std::clamp<double>(v, 0, static_cast<double>(in[d] - 1)));
      };
      if (linear) {
        double f = std::floor(xo);
        t.lo.push_back(clamp(f));
        t.hi.push_back(clamp(f + 1));
        t.weight.push_back(static_cast<float>(xo - f));
      } else {
        double r;
        if (nearestMode == "floor")
          r = std::floor(xo);
        else if (nearestMode == "ceil")
          r = std::ceil(xo);
        else if (nearestMode == "round_prefer_ceil")
          r = std::floor(xo + 0.5);
        else if (nearestMode == "round_prefer_floor")
          r = xo - std::floor(xo) == 0.5 ? std::floor(xo) : std::round(xo);
        else
          return im.fail("Resize: unknown nearest_mode '" + nearestMode + "'");
        t.lo.push_back(clamp(r));
      }
    }
    tables.push_back(std::move(t));
  }
  if (tables.empty()) {
    results.push_back(x);
    return success();
  }
  if (linear && tables.size() > 3)
    return im.fail("Resize: linear resizing of more than 3 axes is not supported");
  // Inputs of the generic: per resized axis its tables, read at (axis).
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  Type i32 = im.b.getI32Type();
  for (const AxisTable &t : tables) {
    auto map = AffineMap::get(rank, 0, {im.b.getAffineDimExpr(t.axis)}, im.context);
    auto idxType = RankedTensorType::get({static_cast<int64_t>(t.lo.size())}, i32);
    ins.push_back(im.constant(DenseElementsAttr::get(idxType, ArrayRef<int32_t>(t.lo))));
    maps.push_back(map);
    if (linear) {
      ins.push_back(im.constant(DenseElementsAttr::get(idxType, ArrayRef<int32_t>(t.hi))));
      maps.push_back(map);
      auto wType = RankedTensorType::get({static_cast<int64_t>(t.weight.size())},
                                         im.b.getF32Type());
      ins.push_back(im.constant(DenseElementsAttr::get(wType, ArrayRef<float>(t.weight))));
      maps.push_back(map);
    }
  }
  maps.push_back(im.b.getMultiDimIdentityMap(rank));
  auto generic = linalg::GenericOp::create(
      im.b, im.loc, RankedTensorType::get(out, et), ins, ValueRange{im.empty(out, et)}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> base;
        for (int64_t d = 0; d < rank; ++d)
          base.push_back(linalg::IndexOp::create(b, l, d));
        auto index = [&](Value v) -> Value {
          return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
        };
        if (!linear) {
          for (auto [k, t] : llvm::enumerate(tables))
            base[t.axis] = index(args[k]);
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, x, base)});
          return;
        }
        // Sum over the 2^k corners of weight product * input.
        Value acc;
        size_t k = tables.size();
        for (unsigned corner = 0; corner < (1u << k); ++corner) {
          SmallVector<Value> at = base;
          Value w;
          for (size_t a = 0; a < k; ++a) {
            bool high = corner & (1u << a);
            at[tables[a].axis] = index(args[3 * a + (high ? 1 : 0)]);
            Value wa = Importer::convert(b, l, args[3 * a + 2], et);
            if (!high)
              wa = arith::SubFOp::create(
                  b, l, arith::ConstantOp::create(b, l, FloatAttr::get(et, 1.0)), wa);
            w = w ? Value(arith::MulFOp::create(b, l, w, wa)) : wa;
          }
          Value term = arith::MulFOp::create(b, l, w, tensor::ExtractOp::create(b, l, x, at));
          acc = acc ? Value(arith::AddFOp::create(b, l, acc, term)) : term;
        }
        linalg::YieldOp::create(b, l, ValueRange{acc});
      });
  results.push_back(generic.getResult(0));
  return success();
}

} // namespace

void addResizeOps(OpTable &t) {
  t["Resize"] = [](Importer &im, SmallVectorImpl<Value> &r) { return resize(im, r, false); };
  t["Upsample"] = [](Importer &im, SmallVectorImpl<Value> &r) { return resize(im, r, true); };
}

} // namespace onnximport
} // namespace jitrun
