//===- Recurrent.cpp - ONNX's LSTM, GRU and RNN ---------------------------===//
//
// A recurrent layer becomes, per direction, one matmul of the whole input
// sequence by the input weights (all time steps at once: [T*B, I] x [I, G*H],
// plus the biases that do not depend on the state) and an scf.for over the
// steps with the hidden (and cell) state as iter_args: each step slices its
// row of those projections at the induction variable (T-1-t in reverse),
// multiplies the state by the recurrence weights and computes the gates as
// elementwise generics, then inserts the new state into the sequence Y. The
// loop stays a loop in the host program, so the kernels compile once
// whatever the sequence's length.
//
// sequence_lens masks: a batch entry past its length keeps its state and
// writes zeros to Y. Run in reverse the same mask starts each entry at its
// own last element with the initial state, which is ONNX's definition.
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringExtras.h"

#include <cstring>
#include <optional>

using namespace mlir;

namespace jitrun {
namespace onnximport {
namespace {

enum class Cell { LSTM, GRU, RNN };

/// One of the activation functions ONNX's recurrent ops name, with its
/// alpha and beta.
struct Activation {
  std::string name; // lower case
  double alpha = 0, beta = 0;
};

bool takesAlpha(StringRef n) {
  return n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" || n == "hardsigmoid" ||
         n == "elu" || n == "affine";
}
bool takesBeta(StringRef n) { return n == "scaledtanh" || n == "hardsigmoid" || n == "affine"; }

/// The default alpha and beta of activation `n` (ONNX's operators').
std::pair<double, double> defaults(StringRef n) {
  if (n == "leakyrelu")
    return {0.01, 0};
  if (n == "hardsigmoid")
    return {0.2, 0.5};
  if (n == "affine" || n == "scaledtanh")
    return {1.0, n == "affine" ? 0.0 : 1.0};
  return {1.0, 0};
}

Value activate(B &b, L l, Value x, const Activation &f) {
  Type t = x.getType();
  auto c = [&](double v) { return fconst(b, l, t, v); };
  StringRef n = f.name;
  if (n == "sigmoid") {
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    return arith::DivFOp::create(b, l, c(1.0), arith::AddFOp::create(b, l, c(1.0), e));
  }
  if (n == "tanh")
    return math::TanhOp::create(b, l, x);
  if (n == "relu")
    return arith::MaximumFOp::create(b, l, x, c(0.0));
  if (n == "affine")
    return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x, c(f.alpha)), c(f.beta));
  if (n == "scaledtanh")
    return arith::MulFOp::create(
        b, l, c(f.alpha), math::TanhOp::create(b, l, arith::MulFOp::create(b, l, x, c(f.beta))));
  if (n == "hardsigmoid") {
    Value y = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x, c(f.alpha)), c(f.beta));
    return arith::MinimumFOp::create(b, l, arith::MaximumFOp::create(b, l, y, c(0.0)), c(1.0));
  }
  if (n == "softsign")
    return arith::DivFOp::create(
        b, l, x, arith::AddFOp::create(b, l, c(1.0), math::AbsFOp::create(b, l, x)));
  if (n == "softplus")
    return math::Log1pOp::create(b, l, math::ExpOp::create(b, l, x));
  Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                    c(n == "thresholdedrelu" ? f.alpha : 0.0));
  if (n == "leakyrelu")
    return arith::SelectOp::create(b, l, pos, x, arith::MulFOp::create(b, l, x, c(f.alpha)));
  if (n == "thresholdedrelu")
    return arith::SelectOp::create(b, l, pos, x, c(0.0));
  // elu
  return arith::SelectOp::create(
      b, l, pos, x, arith::MulFOp::create(b, l, math::ExpM1Op::create(b, l, x), c(f.alpha)));
}

/// `v`'s box at static `offsets` of `sizes`, seen as `shape` (rank-reduced).
Value slice(Importer &im, Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
            ArrayRef<int64_t> shape) {
  Type et = Importer::typeOf(v).getElementType();
  SmallVector<OpFoldResult> o, s, ones(offsets.size(), im.b.getIndexAttr(1));
  for (int64_t x : offsets)
    o.push_back(im.b.getIndexAttr(x));
  for (int64_t x : sizes)
    s.push_back(im.b.getIndexAttr(x));
  return tensor::ExtractSliceOp::create(im.b, im.loc, RankedTensorType::get(shape, et), v, o, s,
                                        ones);
}

/// Rows [start, start + count) of `v` along its first dim, seen as `shape`:
/// a constant of its own when `v` is one (so that a transpose of it folds at
/// import), else a slice.
Value leading(Importer &im, Value v, int64_t start, int64_t count, ArrayRef<int64_t> shape) {
  Shape s = Importer::shapeOf(v);
  if (start == 0 && count == s[0])
    return im.reshape(v, shape);
  auto type = RankedTensorType::get(shape, Importer::typeOf(v).getElementType());
  std::optional<ArrayRef<char>> data = Importer::constantData(v);
  size_t bytes = static_cast<size_t>(type.getNumElements()) *
                 (type.getElementType().getIntOrFloatBitWidth() / 8);
  size_t rowBytes = bytes / count;
  if (data && data->size() == rowBytes * s[0]) {
    AsmResourceBlob blob = newBlob(bytes);
    std::memcpy(blob.getMutableData().data(), data->data() + start * rowBytes, bytes);
    return im.constantOfBytes(type, std::move(blob), "onnx_recurrent");
  }
  Shape offsets(s.size(), 0), sizes = s;
  offsets[0] = start;
  sizes[0] = count;
  return slice(im, v, offsets, sizes, shape);
}

/// Direction `d` of a [nd, ...] weight, bias or state.
Value direction(Importer &im, Value v, int64_t d) {
  Shape s = Importer::shapeOf(v);
  return leading(im, v, d, 1, Shape(s.begin() + 1, s.end()));
}

/// The elementwise op `body` over `inputs` (NumPy broadcasting), which the
/// callers build from shapes that always broadcast.
Value map(Importer &im, ArrayRef<Value> inputs, const ScalarFn &body) {
  Type et = Importer::typeOf(inputs[0]).getElementType();
  return *im.elementwise(inputs, et, body);
}

LogicalResult recurrent(Importer &im, SmallVectorImpl<Value> &results, Cell cell) {
  const char *op = cell == Cell::LSTM ? "LSTM" : cell == Cell::GRU ? "GRU" : "RNN";
  auto fail = [&](const Twine &m) { return im.fail(Twine(op) + ": " + m); };
  if (!im.hasInput(0) || !im.hasInput(1) || !im.hasInput(2))
    return fail("needs X, W and R");
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  Value x = im.in(0), w = im.in(1), r = im.in(2);
  Type et = Importer::typeOf(x).getElementType();
  if (!isa<FloatType>(et) || Importer::typeOf(w).getElementType() != et ||
      Importer::typeOf(r).getElementType() != et)
    return fail("X, W and R must be floats of one type");
  std::string dir = im.attrString("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return fail("unknown direction '" + dir + "'");
  int64_t nd = dir == "bidirectional" ? 2 : 1;
  int64_t layout = im.attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return fail("layout must be 0 or 1");
  Shape xs = Importer::shapeOf(x), ws = Importer::shapeOf(w), rs = Importer::shapeOf(r);
  if (xs.size() != 3)
    return fail("X must be 3-D");
  if (layout == 1)
    x = im.transpose(x, {1, 0, 2}), xs = Importer::shapeOf(x);
  int64_t steps = xs[0], batch = xs[1], inSize = xs[2];
  int64_t hidden = im.attrInt("hidden_size", rs.size() == 3 ? rs[2] : -1);
  if (steps < 1 || batch < 1 || hidden < 1)
    return fail("the sequence, batch and hidden_size must be at least 1");
  int64_t g = gates * hidden;
  if (ws != Shape{nd, g, inSize} || rs != Shape{nd, g, hidden})
    return fail("W must be [" + Twine(nd) + ", " + Twine(g) + ", " + Twine(inSize) +
                "] and R [" + Twine(nd) + ", " + Twine(g) + ", " + Twine(hidden) + "]");
  // Optional inputs, checked against their shapes.
  auto optional = [&](int i, Shape shape, const char *what) -> FailureOr<Value> {
    if (!im.hasInput(i))
      return Value();
    Value v = im.in(i);
    if (layout == 1 && shape.size() == 3)
      v = im.transpose(v, {1, 0, 2});
    if (Importer::shapeOf(v) != shape || Importer::typeOf(v).getElementType() != et)
      return fail(Twine(what) + " has the wrong shape or type");
    return v;
  };
  FailureOr<Value> bias = optional(3, {nd, 2 * g}, "B");
  FailureOr<Value> h0 = optional(5, {nd, batch, hidden}, "initial_h");
  FailureOr<Value> c0 = cell == Cell::LSTM ? optional(6, {nd, batch, hidden}, "initial_c")
                                           : FailureOr<Value>(Value());
  FailureOr<Value> peep = cell == Cell::LSTM ? optional(7, {nd, 3 * hidden}, "P")
                                             : FailureOr<Value>(Value());
  if (failed(bias) || failed(h0) || failed(c0) || failed(peep))
    return failure();
  bool inputForget = cell == Cell::LSTM && im.attrInt("input_forget", 0) != 0;
  bool linearBeforeReset = cell == Cell::GRU && im.attrInt("linear_before_reset", 0) != 0;
  std::optional<double> clip;
  if (im.attr("clip"))
    clip = im.attrFloat("clip", 0.0f);

  // Activations: f, g (and h) per direction, with their alphas and betas
  // taken in order by the functions that have them.
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = im.attr("activations"))
    for (const std::string &s : a->strings())
      names.push_back(llvm::StringRef(s).lower());
  int64_t perDir = cell == Cell::LSTM ? 3 : cell == Cell::GRU ? 2 : 1;
  if (names.empty()) {
    for (int64_t d = 0; d < nd; ++d) {
      if (cell != Cell::RNN)
        names.push_back("sigmoid");
      names.push_back("tanh");
      if (cell == Cell::LSTM)
        names.push_back("tanh");
    }
  }
  if (static_cast<int64_t>(names.size()) != perDir * nd)
    return fail("expects " + Twine(perDir * nd) + " activations, not " + Twine(names.size()));
  const onnx::AttributeProto *alphaAttr = im.attr("activation_alpha");
  const onnx::AttributeProto *betaAttr = im.attr("activation_beta");
  int alphaNext = 0, betaNext = 0;
  SmallVector<Activation> acts;
  for (const std::string &n : names) {
    static const char *known[] = {"sigmoid", "tanh",     "relu",     "affine",
                                  "leakyrelu", "thresholdedrelu", "scaledtanh", "hardsigmoid",
                                  "elu",     "softsign", "softplus"};
    if (!llvm::is_contained(known, StringRef(n)))
      return fail("activation '" + n + "' is not supported");
    Activation f{n, defaults(n).first, defaults(n).second};
    if (takesAlpha(n) && alphaAttr && alphaNext < alphaAttr->floats_size())
      f.alpha = alphaAttr->floats(alphaNext++);
    if (takesBeta(n) && betaAttr && betaNext < betaAttr->floats_size())
      f.beta = betaAttr->floats(betaNext++);
    acts.push_back(f);
  }

  // sequence_lens: ignored when a constant equal to the sequence everywhere,
  // else a [T, B, 1] mask of 1s where step t is within the entry's length.
  Value mask;
  if (im.hasInput(4)) {
    Value lens = im.in(4);
    if (Importer::shapeOf(lens) != Shape{batch} ||
        !Importer::typeOf(lens).getElementType().isInteger(32))
      return fail("sequence_lens must be [" + Twine(batch) + "] of int32");
    std::optional<Lit> known = im.lit(lens);
    bool full = known && llvm::all_of(known->values, [&](double v) { return v == steps; });
    if (known && llvm::any_of(known->values, [&](double v) { return v < 1 || v > steps; }))
      return fail("sequence_lens must lie in [1, " + Twine(steps) + "]");
    if (!full) {
      Value l3 = im.reshape(lens, {1, batch, 1});
      mask = *im.elementwise({l3, im.empty({steps, batch, 1}, et)}, et,
                             [et](B &b, L l, V a) -> Value {
                               Value t = linalg::IndexOp::create(b, l, 0);
                               Value ti = arith::IndexCastOp::create(b, l, b.getI32Type(), t);
                               Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                                ti, a[0]);
                               return arith::SelectOp::create(b, l, in, fconst(b, l, et, 1.0),
                                                              fconst(b, l, et, 0.0));
                             });
    }
  }

  auto clipped = [&](B &b, L l, Value v) -> Value {
    if (!clip)
      return v;
    Value lo = fconst(b, l, v.getType(), -*clip), hi = fconst(b, l, v.getType(), *clip);
    return arith::MinimumFOp::create(b, l, arith::MaximumFOp::create(b, l, v, lo), hi);
  };
  // Columns [c0, c0 + n) of a [B, cols] value.
  auto cols = [&](Value v, int64_t c0, int64_t n) {
    return slice(im, v, {0, c0}, {batch, n}, {batch, n});
  };

  Value y = im.filled({steps, nd, batch, hidden}, et, 0.0);
  Value yh = im.filled({nd, batch, hidden}, et, 0.0), yc = yh;
  for (int64_t d = 0; d < nd; ++d) {
    bool reverse = dir == "reverse" || d == 1;
    const Activation &f = acts[d * perDir];
    const Activation &gAct = acts[d * perDir + (cell == Cell::RNN ? 0 : 1)];
    const Activation &hAct = acts[d * perDir + (cell == Cell::LSTM ? 2 : 0)];
    // The input projections of every step, with the biases that do not
    // depend on the state: [T, B, G*H].
    Value wT = im.transpose(direction(im, w, d), {1, 0});
    Value rd = direction(im, r, d);
    // GRU without linear_before_reset multiplies the reset state by h's
    // recurrence weights: z and r's are apart.
    bool resetFirst = cell == Cell::GRU && !linearBeforeReset;
    Value rT = im.transpose(resetFirst ? leading(im, rd, 0, 2 * hidden, {2 * hidden, hidden}) : rd,
                            {1, 0});
    Value rhT = resetFirst ? im.transpose(leading(im, rd, 2 * hidden, hidden, {hidden, hidden}),
                                          {1, 0})
                           : Value();
    FailureOr<Value> xw = matmul(im, im.reshape(x, {steps * batch, inSize}), wT);
    if (failed(xw))
      return failure();
    Value rb; // the state's bias, added after its matmul (GRU's h gate)
    if (*bias) {
      Value bd = direction(im, *bias, d);
      Value wb = slice(im, bd, {0}, {g}, {g}), rbAll = slice(im, bd, {g}, {g}, {g});
      Value pre = wb;
      if (cell != Cell::GRU) {
        pre = map(im, {wb, rbAll}, [](B &b, L l, V a) -> Value {
          return arith::AddFOp::create(b, l, a[0], a[1]);
        });
      } else {
        // GRU: z and r take both biases up front; h's recurrent bias
        // follows its matmul (of the reset state, or before the reset).
        Value zr = map(im, {slice(im, wb, {0}, {2 * hidden}, {2 * hidden}),
                            slice(im, rbAll, {0}, {2 * hidden}, {2 * hidden})},
                       [](B &b, L l, V a) -> Value {
                         return arith::AddFOp::create(b, l, a[0], a[1]);
                       });
        Value zrh = im.filled({g}, et, 0.0);
        SmallVector<OpFoldResult> off = {im.b.getIndexAttr(0)};
        SmallVector<OpFoldResult> sz = {im.b.getIndexAttr(2 * hidden)};
        SmallVector<OpFoldResult> one = {im.b.getIndexAttr(1)};
        zrh = tensor::InsertSliceOp::create(im.b, im.loc, zr, zrh, off, sz, one);
        off[0] = im.b.getIndexAttr(2 * hidden);
        sz[0] = im.b.getIndexAttr(hidden);
        pre = tensor::InsertSliceOp::create(im.b, im.loc,
                                            slice(im, wb, {2 * hidden}, {hidden}, {hidden}), zrh,
                                            off, sz, one);
        rb = slice(im, rbAll, {2 * hidden}, {hidden}, {hidden});
      }
      xw = map(im, {*xw, pre}, [](B &b, L l, V a) -> Value {
        return arith::AddFOp::create(b, l, a[0], a[1]);
      });
    }
    Value proj = im.reshape(*xw, {steps, batch, g});
    Value hInit = *h0 ? direction(im, *h0, d) : im.filled({batch, hidden}, et, 0.0);
    Value cInit = *c0 ? direction(im, *c0, d) : im.filled({batch, hidden}, et, 0.0);
    Value pd = *peep ? direction(im, *peep, d) : Value();

    SmallVector<Value> inits = {hInit, y};
    if (cell == Cell::LSTM)
      inits.push_back(cInit);
    Value lb = arith::ConstantIndexOp::create(im.b, im.loc, 0);
    Value ub = arith::ConstantIndexOp::create(im.b, im.loc, steps);
    Value one = arith::ConstantIndexOp::create(im.b, im.loc, 1);
    auto loop = scf::ForOp::create(im.b, im.loc, lb, ub, one, inits);
    {
      OpBuilder::InsertionGuard guard(im.b);
      im.b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      Value idx = t;
      if (reverse)
        idx = arith::SubIOp::create(im.b, im.loc,
                                    arith::ConstantIndexOp::create(im.b, im.loc, steps - 1), t);
      Value h = loop.getRegionIterArgs()[0], yIn = loop.getRegionIterArgs()[1];
      Value c = cell == Cell::LSTM ? loop.getRegionIterArgs()[2] : Value();
      auto rowAt = [&](Value v, int64_t width) {
        SmallVector<OpFoldResult> o = {idx, im.b.getIndexAttr(0), im.b.getIndexAttr(0)};
        SmallVector<OpFoldResult> s = {im.b.getIndexAttr(1), im.b.getIndexAttr(batch),
                                       im.b.getIndexAttr(width)};
        SmallVector<OpFoldResult> ones(3, im.b.getIndexAttr(1));
        return tensor::ExtractSliceOp::create(
            im.b, im.loc, RankedTensorType::get({batch, width}, et), v, o, s, ones);
      };
      Value gx = rowAt(proj, g);
      // LSTM and RNN accumulate the state's product onto the step's input
      // projection; GRU keeps them apart (its h gate resets one of them).
      FailureOr<Value> gh = matmul(im, h, rT, cell == Cell::GRU ? Value() : gx);
      if (failed(gh))
        return failure();
      Value hNew, cNew;
      if (cell == Cell::RNN) {
        hNew = map(im, {*gh}, [&](B &b, L l, V a) -> Value {
          return activate(b, l, clipped(b, l, a[0]), f);
        });
      } else if (cell == Cell::LSTM) {
        // ONNX's gate order: i, o, f, c; peepholes i, o, f.
        Value sum = *gh;
        Value gi = cols(sum, 0, hidden), go = cols(sum, hidden, hidden),
              gf = cols(sum, 2 * hidden, hidden), gc = cols(sum, 3 * hidden, hidden);
        Value zeros = im.filled({hidden}, et, 0.0);
        Value pi = pd ? slice(im, pd, {0}, {hidden}, {hidden}) : zeros;
        Value po = pd ? slice(im, pd, {hidden}, {hidden}, {hidden}) : zeros;
        Value pf = pd ? slice(im, pd, {2 * hidden}, {hidden}, {hidden}) : zeros;
        // gate = f(x + p * c): a peephole-weighted gate.
        auto peeped = [&](B &b, L l, Value x, Value p, Value cell) {
          Value s = arith::AddFOp::create(b, l, x, arith::MulFOp::create(b, l, p, cell));
          return activate(b, l, clipped(b, l, s), f);
        };
        cNew = map(im, {gi, gf, gc, c, pi, pf}, [&](B &b, L l, V a) -> Value {
          Value it = peeped(b, l, a[0], a[4], a[3]);
          Value ft = inputForget
                         ? arith::SubFOp::create(b, l, fconst(b, l, a[0].getType(), 1.0), it)
                         : peeped(b, l, a[1], a[5], a[3]);
          Value ct = activate(b, l, clipped(b, l, a[2]), gAct);
          return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, ft, a[3]),
                                       arith::MulFOp::create(b, l, it, ct));
        });
        hNew = map(im, {go, cNew, po}, [&](B &b, L l, V a) -> Value {
          Value ot = peeped(b, l, a[0], a[2], a[1]);
          return arith::MulFOp::create(b, l, ot, activate(b, l, a[1], hAct));
        });
      } else {
        // GRU: z, r, h.
        Value gxz = cols(gx, 0, hidden), gxr = cols(gx, hidden, hidden),
              gxh = cols(gx, 2 * hidden, hidden);
        Value ghz = cols(*gh, 0, hidden), ghr = cols(*gh, hidden, hidden);
        auto gate = [&](B &b, L l, Value u, Value v) {
          return activate(b, l, clipped(b, l, arith::AddFOp::create(b, l, u, v)), f);
        };
        Value hh;
        if (linearBeforeReset) {
          Value rbh = rb ? rb : im.filled({hidden}, et, 0.0);
          Value ghh = cols(*gh, 2 * hidden, hidden);
          hh = map(im, {gxr, ghr, gxh, ghh, rbh}, [&](B &b, L l, V a) -> Value {
            Value rt = gate(b, l, a[0], a[1]);
            Value lin = arith::MulFOp::create(b, l, rt, arith::AddFOp::create(b, l, a[3], a[4]));
            return activate(b, l, clipped(b, l, arith::AddFOp::create(b, l, a[2], lin)), gAct);
          });
        } else {
          Value rh = map(im, {gxr, ghr, h}, [&](B &b, L l, V a) -> Value {
            return arith::MulFOp::create(b, l, gate(b, l, a[0], a[1]), a[2]);
          });
          FailureOr<Value> m = matmul(im, rh, rhT);
          if (failed(m))
            return failure();
          Value rbh = rb ? rb : im.filled({hidden}, et, 0.0);
          hh = map(im, {gxh, *m, rbh}, [&](B &b, L l, V a) -> Value {
            Value s = arith::AddFOp::create(b, l, a[0], arith::AddFOp::create(b, l, a[1], a[2]));
            return activate(b, l, clipped(b, l, s), gAct);
          });
        }
        hNew = map(im, {gxz, ghz, hh, h}, [&](B &b, L l, V a) -> Value {
          Value pre = clipped(b, l, arith::AddFOp::create(b, l, a[0], a[1]));
          Value zt = activate(b, l, pre, f);
          // 1 - z, as sigmoid(-x) for a sigmoid: z near 1 leaves 1 - z
          // few bits of its own (the ONNX test data sees the difference).
          Value notZ = f.name == "sigmoid"
                           ? activate(b, l, arith::NegFOp::create(b, l, pre), f)
                           : arith::SubFOp::create(b, l, fconst(b, l, zt.getType(), 1.0), zt);
          Value keep = arith::MulFOp::create(b, l, zt, a[3]);
          Value take = arith::MulFOp::create(b, l, notZ, a[2]);
          return arith::AddFOp::create(b, l, take, keep);
        });
      }
      // Past an entry's length: the state stays, Y gets zeros.
      Value yRow = hNew;
      if (mask) {
        Value m = rowAt(mask, 1);
        auto keep = [](B &b, L l, V a) -> Value {
          Value in = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ONE, a[0],
                                           fconst(b, l, a[1].getType(), 0.0));
          return arith::SelectOp::create(b, l, in, a[1], a[2]);
        };
        yRow = map(im, {m, hNew}, [](B &b, L l, V a) -> Value {
          return arith::MulFOp::create(b, l, a[0], a[1]);
        });
        hNew = map(im, {m, hNew, h}, keep);
        if (cNew)
          cNew = map(im, {m, cNew, c}, keep);
      }
      SmallVector<OpFoldResult> o = {idx, im.b.getIndexAttr(d), im.b.getIndexAttr(0),
                                     im.b.getIndexAttr(0)};
      SmallVector<OpFoldResult> s = {im.b.getIndexAttr(1), im.b.getIndexAttr(1),
                                     im.b.getIndexAttr(batch), im.b.getIndexAttr(hidden)};
      SmallVector<OpFoldResult> ones(4, im.b.getIndexAttr(1));
      Value yNext = tensor::InsertSliceOp::create(im.b, im.loc, yRow, yIn, o, s, ones);
      SmallVector<Value> next = {hNew, yNext};
      if (cNew)
        next.push_back(cNew);
      scf::YieldOp::create(im.b, im.loc, next);
    }
    y = loop.getResult(1);
    auto intoDirection = [&](Value state, Value into) -> Value {
      SmallVector<OpFoldResult> o = {im.b.getIndexAttr(d), im.b.getIndexAttr(0),
                                     im.b.getIndexAttr(0)};
      SmallVector<OpFoldResult> s = {im.b.getIndexAttr(1), im.b.getIndexAttr(batch),
                                     im.b.getIndexAttr(hidden)};
      SmallVector<OpFoldResult> ones(3, im.b.getIndexAttr(1));
      return tensor::InsertSliceOp::create(im.b, im.loc, state, into, o, s, ones);
    };
    yh = intoDirection(loop.getResult(0), yh);
    if (cell == Cell::LSTM)
      yc = intoDirection(loop.getResult(2), yc);
  }
  if (layout == 1) {
    y = im.transpose(y, {2, 0, 1, 3});
    yh = im.transpose(yh, {1, 0, 2});
    yc = im.transpose(yc, {1, 0, 2});
  }
  results.push_back(y);
  results.push_back(yh);
  if (cell == Cell::LSTM)
    results.push_back(yc);
  return success();
}

} // namespace

void addRecurrentOps(OpTable &t) {
  t["LSTM"] = [](Importer &im, SmallVectorImpl<Value> &r) { return recurrent(im, r, Cell::LSTM); };
  t["GRU"] = [](Importer &im, SmallVectorImpl<Value> &r) { return recurrent(im, r, Cell::GRU); };
  t["RNN"] = [](Importer &im, SmallVectorImpl<Value> &r) { return recurrent(im, r, Cell::RNN); };
}

} // namespace onnximport
} // namespace jitrun
