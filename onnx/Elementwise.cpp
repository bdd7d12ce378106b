//===- Elementwise.cpp - ONNX's elementwise ops as linalg.generic ---------===//
//
// Every op here is one NumPy-broadcast linalg.generic (Importer::elementwise)
// whose body is arith and math on scalars, folded at import when its inputs
// are small constants (shape arithmetic).
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace jitrun {
namespace onnximport {
namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }

/// An op of one or more same-typed inputs whose result has their type.
LogicalResult same(Importer &im, SmallVectorImpl<Value> &results, int arity,
                   const ScalarFn &body, const FoldFn &fold = nullptr) {
  SmallVector<Value> ins;
  for (int i = 0; i < arity; ++i) {
    if (!im.hasInput(i))
      return im.fail(Twine(im.node->op_type()) + " needs " + Twine(arity) + " inputs");
    ins.push_back(im.in(i));
  }
  Type et = Importer::typeOf(ins[0]).getElementType();
  FailureOr<Value> r = im.elementwise(ins, et, body, fold);
  if (failed(r))
    return failure();
  results.push_back(*r);
  return success();
}

/// Binary arithmetic on floats or integers.
void binary(OpTable &t, StringRef name, ScalarFn floatOp, ScalarFn intOp, FoldFn fold) {
  t[name] = [=](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail(Twine(im.node->op_type()) + " needs 2 inputs");
    bool f = isFloat(Importer::typeOf(im.in(0)).getElementType());
    if (!f && !intOp)
      return im.fail(Twine(im.node->op_type()) + " on integers is not supported");
    return same(im, results, 2, f ? floatOp : intOp, fold);
  };
}

/// Unary float math.
void unary(OpTable &t, StringRef name, ScalarFn op, FoldFn fold = nullptr) {
  t[name] = [=](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail(Twine(im.node->op_type()) + " needs an input");
    if (!isFloat(Importer::typeOf(im.in(0)).getElementType()) && !fold)
      return im.fail(Twine(im.node->op_type()) + " on integers is not supported");
    return same(im, results, 1, op, fold);
  };
}

/// A comparison: bool result.
void compare(OpTable &t, StringRef name, arith::CmpFPredicate fp, arith::CmpIPredicate ip,
             FoldFn fold) {
  t[name] = [=](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail(Twine(im.node->op_type()) + " needs 2 inputs");
    bool f = isFloat(Importer::typeOf(im.in(0)).getElementType());
    FailureOr<Value> r = im.elementwise(
        {im.in(0), im.in(1)}, im.b.getI1Type(),
        [=](OpBuilder &b, Location loc, ValueRange a) -> Value {
          if (f)
            return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
          return arith::CmpIOp::create(b, loc, ip, a[0], a[1]);
        },
        fold);
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
}

/// Min, Max, Sum, Mean: variadic, folded pairwise.
void variadic(OpTable &t, StringRef name, ScalarFn floatOp, ScalarFn intOp, bool mean) {
  t[name] = [=](Importer &im, SmallVectorImpl<Value> &results) {
    int n = im.node->input_size();
    if (n == 0)
      return im.fail(Twine(im.node->op_type()) + " needs an input");
    Value acc = im.in(0);
    bool f = isFloat(Importer::typeOf(acc).getElementType());
    for (int i = 1; i < n; ++i) {
      FailureOr<Value> r = im.elementwise(
          {acc, im.in(i)}, Importer::typeOf(acc).getElementType(), f ? floatOp : intOp);
      if (failed(r))
        return failure();
      acc = *r;
    }
    if (mean && n > 1) {
      Type et = Importer::typeOf(acc).getElementType();
      FailureOr<Value> r = im.elementwise(
          {acc}, et, [=](OpBuilder &b, Location loc, ValueRange a) -> Value {
            return arith::DivFOp::create(b, loc, a[0], fconst(b, loc, et, n));
          });
      if (failed(r))
        return failure();
      acc = *r;
    }
    results.push_back(acc);
    return success();
  };
}

/// Arithmetic and math: NumPy-broadcast, folded on constants where exact.
void addArithmetic(OpTable &t) {
  binary(t, "Add", [](B &b, L l, V a) -> Value { return arith::AddFOp::create(b, l, a[0], a[1]); },
         [](B &b, L l, V a) -> Value { return arith::AddIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return a[0] + a[1]; });
  binary(t, "Sub", [](B &b, L l, V a) -> Value { return arith::SubFOp::create(b, l, a[0], a[1]); },
         [](B &b, L l, V a) -> Value { return arith::SubIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return a[0] - a[1]; });
  binary(t, "Mul", [](B &b, L l, V a) -> Value { return arith::MulFOp::create(b, l, a[0], a[1]); },
         [](B &b, L l, V a) -> Value { return arith::MulIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return a[0] * a[1]; });
  // Integer division truncates (ONNX follows C here), as arith.divsi.
  t["Div"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("Div needs 2 inputs");
    bool f = isFloat(Importer::typeOf(im.in(0)).getElementType());
    return same(
        im, results, 2,
        [f](B &b, L l, V a) -> Value {
          if (f)
            return arith::DivFOp::create(b, l, a[0], a[1]);
          return arith::DivSIOp::create(b, l, a[0], a[1]);
        },
        [f](ArrayRef<double> a) {
          if (f)
            return a[0] / a[1];
          return a[1] == 0 ? 0.0 : std::trunc(a[0] / a[1]);
        });
  };
  t["Pow"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("Pow needs 2 inputs");
    Type et = Importer::typeOf(im.in(0)).getElementType();
    if (!isFloat(et))
      return im.fail("Pow on integers is not supported");
    FailureOr<Value> r = im.elementwise(
        {im.in(0), im.in(1)}, et, [et](B &b, L l, V a) -> Value {
          Value e = Importer::convert(b, l, a[1], et);
          return math::PowFOp::create(b, l, a[0], e);
        });
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  unary(t, "Sqrt", [](B &b, L l, V a) -> Value { return math::SqrtOp::create(b, l, a[0]); },
        [](ArrayRef<double> a) { return std::sqrt(a[0]); });
  unary(t, "Exp", [](B &b, L l, V a) -> Value { return math::ExpOp::create(b, l, a[0]); });
  unary(t, "Log", [](B &b, L l, V a) -> Value { return math::LogOp::create(b, l, a[0]); });
  unary(t, "Tanh", [](B &b, L l, V a) -> Value { return math::TanhOp::create(b, l, a[0]); });
  unary(t, "Erf", [](B &b, L l, V a) -> Value { return math::ErfOp::create(b, l, a[0]); });
  unary(t, "Sin", [](B &b, L l, V a) -> Value { return math::SinOp::create(b, l, a[0]); });
  unary(t, "Cos", [](B &b, L l, V a) -> Value { return math::CosOp::create(b, l, a[0]); });
  unary(t, "Floor", [](B &b, L l, V a) -> Value { return math::FloorOp::create(b, l, a[0]); },
        [](ArrayRef<double> a) { return std::floor(a[0]); });
  unary(t, "Ceil", [](B &b, L l, V a) -> Value { return math::CeilOp::create(b, l, a[0]); },
        [](ArrayRef<double> a) { return std::ceil(a[0]); });
  // Halves to even, as ONNX's Round (and the default rounding mode's rint).
  unary(t, "Round", [](B &b, L l, V a) -> Value { return math::RoundEvenOp::create(b, l, a[0]); },
        [](ArrayRef<double> a) { return std::nearbyint(a[0]); });
  unary(t, "Reciprocal", [](B &b, L l, V a) -> Value {
    return arith::DivFOp::create(b, l, fconst(b, l, a[0].getType(), 1.0), a[0]);
  });
  t["Neg"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    bool f = im.hasInput(0) && isFloat(Importer::typeOf(im.in(0)).getElementType());
    return same(
        im, results, 1,
        [f](B &b, L l, V a) -> Value {
          if (f)
            return arith::NegFOp::create(b, l, a[0]);
          return arith::SubIOp::create(
              b, l, arith::ConstantOp::create(b, l, IntegerAttr::get(a[0].getType(), 0)), a[0]);
        },
        [](ArrayRef<double> a) { return -a[0]; });
  };
  // Sign: -1, 0 or 1 (0 for a NaN).
  t["Sign"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Sign needs an input");
    Type et = Importer::typeOf(im.in(0)).getElementType();
    bool f = isFloat(et), u = im.isUnsigned(im.in(0));
    if (!f && u)
      return im.fail("Sign on uint8 tensors is not supported");
    return same(
        im, results, 1,
        [f](B &b, L l, V a) -> Value {
          Type t = a[0].getType();
          auto c = [&](double v) -> Value {
            return f ? fconst(b, l, t, v)
                     : arith::ConstantOp::create(b, l, IntegerAttr::get(t, static_cast<int64_t>(v)))
                           .getResult();
          };
          Value pos = f ? arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], c(0)).getResult()
                        : arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, a[0], c(0)).getResult();
          Value neg = f ? arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, a[0], c(0)).getResult()
                        : arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, a[0], c(0)).getResult();
          return arith::SelectOp::create(b, l, pos, c(1),
                                         arith::SelectOp::create(b, l, neg, c(-1), c(0)));
        },
        [](ArrayRef<double> a) { return a[0] > 0 ? 1.0 : a[0] < 0 ? -1.0 : 0.0; });
  };
  // Mod: fmod = 0 takes the divisor's sign (Python's %, integers only),
  // fmod = 1 the dividend's (C's fmod). Integer x % 0 is 0, not a trap
  // (codegen's SafeKernelArith).
  t["Mod"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("Mod needs 2 inputs");
    Type et = Importer::typeOf(im.in(0)).getElementType();
    bool f = isFloat(et), cmod = im.attrInt("fmod", 0) != 0;
    if (f && !cmod)
      return im.fail("Mod: floats need fmod = 1");
    if (!f && (im.isUnsigned(im.in(0)) || im.isUnsigned(im.in(1))))
      return im.fail("Mod on uint8 tensors is not supported");
    return same(
        im, results, 2,
        [=](B &b, L l, V a) -> Value {
          if (f)
            return arith::RemFOp::create(b, l, a[0], a[1]);
          Value r = arith::RemSIOp::create(b, l, a[0], a[1]);
          if (cmod)
            return r;
          Value zero = arith::ConstantOp::create(b, l, IntegerAttr::get(a[0].getType(), 0));
          Value nonzero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
          Value rneg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
          Value bneg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, a[1], zero);
          Value differ = arith::XOrIOp::create(b, l, rneg, bneg);
          Value fix = arith::AndIOp::create(b, l, nonzero, differ);
          return arith::SelectOp::create(b, l, fix, arith::AddIOp::create(b, l, r, a[1]), r);
        },
        [=](ArrayRef<double> a) {
          if (a[1] == 0)
            return f ? std::nan("") : 0.0;
          double r = std::fmod(a[0], a[1]);
          if (!cmod && r != 0 && ((r < 0) != (a[1] < 0)))
            r += a[1];
          return r;
        });
  };
  t["IsInf"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !isFloat(Importer::typeOf(im.in(0)).getElementType()))
      return im.fail("IsInf needs a float input");
    bool pos = im.attrInt("detect_positive", 1) != 0, neg = im.attrInt("detect_negative", 1) != 0;
    FailureOr<Value> r = im.elementwise({im.in(0)}, im.b.getI1Type(), [=](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      const double inf = std::numeric_limits<double>::infinity();
      Value p = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], fconst(b, l, t, inf));
      Value n = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], fconst(b, l, t, -inf));
      Value no = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
      return arith::OrIOp::create(b, l, pos ? p : no, neg ? n : no);
    });
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
  t["Abs"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    bool f = im.hasInput(0) && isFloat(Importer::typeOf(im.in(0)).getElementType());
    return same(
        im, results, 1,
        [f](B &b, L l, V a) -> Value {
          if (f)
            return math::AbsFOp::create(b, l, a[0]);
          return math::AbsIOp::create(b, l, a[0]);
        },
        [](ArrayRef<double> a) { return std::fabs(a[0]); });
  };
}

/// Activations.
void addActivations(OpTable &t) {
  unary(t, "Relu", [](B &b, L l, V a) -> Value {
    return arith::MaximumFOp::create(b, l, a[0], fconst(b, l, a[0].getType(), 0.0));
  });
  unary(t, "Sigmoid", [](B &b, L l, V a) -> Value {
    Type t = a[0].getType();
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, a[0]));
    return arith::DivFOp::create(b, l, fconst(b, l, t, 1.0),
                                 arith::AddFOp::create(b, l, fconst(b, l, t, 1.0), e));
  });
  unary(t, "Softplus", [](B &b, L l, V a) -> Value {
    Value e = math::ExpOp::create(b, l, a[0]);
    return math::Log1pOp::create(b, l, e);
  });
  t["LeakyRelu"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    double alpha = im.attrFloat("alpha", 0.01f);
    return same(im, results, 1, [alpha](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value neg = arith::MulFOp::create(b, l, a[0], fconst(b, l, t, alpha));
      Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], fconst(b, l, t, 0));
      return arith::SelectOp::create(b, l, pos, a[0], neg);
    });
  };
  t["Elu"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    double alpha = im.attrFloat("alpha", 1.0f);
    return same(im, results, 1, [alpha](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value em1 = math::ExpM1Op::create(b, l, a[0]);
      Value neg = arith::MulFOp::create(b, l, em1, fconst(b, l, t, alpha));
      Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], fconst(b, l, t, 0));
      return arith::SelectOp::create(b, l, pos, a[0], neg);
    });
  };
  t["Selu"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    double alpha = im.attrFloat("alpha", 1.67326319217681884765625f);
    double gamma = im.attrFloat("gamma", 1.05070102214813232421875f);
    return same(im, results, 1, [=](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value neg = arith::MulFOp::create(b, l, math::ExpM1Op::create(b, l, a[0]),
                                        fconst(b, l, t, alpha));
      Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], fconst(b, l, t, 0));
      return arith::MulFOp::create(b, l, fconst(b, l, t, gamma),
                                   arith::SelectOp::create(b, l, pos, a[0], neg));
    });
  };
  unary(t, "Softsign", [](B &b, L l, V a) -> Value {
    Value d = arith::AddFOp::create(b, l, fconst(b, l, a[0].getType(), 1.0),
                                    math::AbsFOp::create(b, l, a[0]));
    return arith::DivFOp::create(b, l, a[0], d);
  });
  t["ThresholdedRelu"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    double alpha = im.attrFloat("alpha", 1.0f);
    return same(im, results, 1, [=](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value above =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], fconst(b, l, t, alpha));
      return arith::SelectOp::create(b, l, above, a[0], fconst(b, l, t, 0));
    });
  };
  t["HardSigmoid"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    double alpha = im.attrFloat("alpha", 0.2f), beta = im.attrFloat("beta", 0.5f);
    return same(im, results, 1, [=](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      Value y = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, a[0], fconst(b, l, t, alpha)),
                                      fconst(b, l, t, beta));
      y = arith::MaximumFOp::create(b, l, y, fconst(b, l, t, 0));
      return arith::MinimumFOp::create(b, l, y, fconst(b, l, t, 1));
    });
  };
  t["HardSwish"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    return same(im, results, 1, [](B &b, L l, V a) -> Value {
      Type t = a[0].getType();
      // As the operator is defined, x * max(0, min(1, x / 6 + 1 / 2)) with
      // 1 / 6 a constant: no division per element (vdivps takes the FMA
      // ports for 10 cycles a register on Intel hosts).
      Value y = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, a[0], fconst(b, l, t, 1.0 / 6)),
                                      fconst(b, l, t, 0.5));
      y = arith::MaximumFOp::create(b, l, y, fconst(b, l, t, 0));
      y = arith::MinimumFOp::create(b, l, y, fconst(b, l, t, 1));
      return arith::MulFOp::create(b, l, a[0], y);
    });
  };
  t["Clip"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Clip needs an input");
    Type et = Importer::typeOf(im.in(0)).getElementType();
    bool f = isFloat(et);
    // Bounds: attributes before opset 11, then optional (scalar) inputs.
    SmallVector<Value> ins = {im.in(0)};
    std::optional<double> lo, hi;
    bool loIn = false, hiIn = false;
    if (im.opset < 11) {
      if (im.attr("min"))
        lo = im.attrFloat("min", 0);
      if (im.attr("max"))
        hi = im.attrFloat("max", 0);
    } else {
      if ((loIn = im.hasInput(1)))
        ins.push_back(im.in(1));
      if ((hiIn = im.hasInput(2)))
        ins.push_back(im.in(2));
    }
    FailureOr<Value> r = im.elementwise(ins, et, [=](B &b, L l, V a) -> Value {
      Value y = a[0];
      auto bound = [&](std::optional<double> c, int idx) -> Value {
        if (idx > 0)
          return a[idx];
        return f ? fconst(b, l, et, *c)
                 : Value(arith::ConstantOp::create(b, l, IntegerAttr::get(et, static_cast<int64_t>(*c))));
      };
      int next = 1;
      if (lo || loIn) {
        Value v = bound(lo, loIn ? next++ : 0);
        y = f ? Value(arith::MaximumFOp::create(b, l, y, v)) : Value(arith::MaxSIOp::create(b, l, y, v));
      }
      if (hi || hiIn) {
        Value v = bound(hi, hiIn ? next++ : 0);
        y = f ? Value(arith::MinimumFOp::create(b, l, y, v)) : Value(arith::MinSIOp::create(b, l, y, v));
      }
      return y;
    });
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
}

/// Variadic min, max, sum, mean; comparisons and logic.
void addLogic(OpTable &t) {
  variadic(t, "Max", [](B &b, L l, V a) -> Value { return arith::MaximumFOp::create(b, l, a[0], a[1]); },
           [](B &b, L l, V a) -> Value { return arith::MaxSIOp::create(b, l, a[0], a[1]); }, false);
  variadic(t, "Min", [](B &b, L l, V a) -> Value { return arith::MinimumFOp::create(b, l, a[0], a[1]); },
           [](B &b, L l, V a) -> Value { return arith::MinSIOp::create(b, l, a[0], a[1]); }, false);
  variadic(t, "Sum", [](B &b, L l, V a) -> Value { return arith::AddFOp::create(b, l, a[0], a[1]); },
           [](B &b, L l, V a) -> Value { return arith::AddIOp::create(b, l, a[0], a[1]); }, false);
  variadic(t, "Mean", [](B &b, L l, V a) -> Value { return arith::AddFOp::create(b, l, a[0], a[1]); },
           [](B &b, L l, V a) -> Value { return arith::AddIOp::create(b, l, a[0], a[1]); }, true);
  compare(t, "Equal", arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
          [](ArrayRef<double> a) { return a[0] == a[1] ? 1.0 : 0.0; });
  compare(t, "Less", arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
          [](ArrayRef<double> a) { return a[0] < a[1] ? 1.0 : 0.0; });
  compare(t, "Greater", arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
          [](ArrayRef<double> a) { return a[0] > a[1] ? 1.0 : 0.0; });
  compare(t, "LessOrEqual", arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
          [](ArrayRef<double> a) { return a[0] <= a[1] ? 1.0 : 0.0; });
  compare(t, "GreaterOrEqual", arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
          [](ArrayRef<double> a) { return a[0] >= a[1] ? 1.0 : 0.0; });
  t["Not"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    return same(
        im, results, 1,
        [](B &b, L l, V a) -> Value {
          return arith::XOrIOp::create(b, l, a[0],
                                       arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
        },
        [](ArrayRef<double> a) { return a[0] != 0 ? 0.0 : 1.0; });
  };
  binary(t, "And", nullptr, [](B &b, L l, V a) -> Value { return arith::AndIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return (a[0] != 0 && a[1] != 0) ? 1.0 : 0.0; });
  binary(t, "Or", nullptr, [](B &b, L l, V a) -> Value { return arith::OrIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return (a[0] != 0 || a[1] != 0) ? 1.0 : 0.0; });
  binary(t, "Xor", nullptr, [](B &b, L l, V a) -> Value { return arith::XOrIOp::create(b, l, a[0], a[1]); },
         [](ArrayRef<double> a) { return ((a[0] != 0) != (a[1] != 0)) ? 1.0 : 0.0; });
  t["Where"] = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1) || !im.hasInput(2))
      return im.fail("Where needs 3 inputs");
    Type et = Importer::typeOf(im.in(1)).getElementType();
    FailureOr<Value> r = im.elementwise(
        {im.in(0), im.in(1), im.in(2)}, et,
        [](B &b, L l, V a) -> Value { return arith::SelectOp::create(b, l, a[0], a[1], a[2]); },
        [](ArrayRef<double> a) { return a[0] != 0 ? a[1] : a[2]; });
    if (failed(r))
      return failure();
    results.push_back(*r);
    return success();
  };
}

/// Cast, Identity and inference Dropout.
void addConversions(OpTable &t) {
  // Cast to `to` (signless; toUnsigned: uint8), CastLike to its second
  // input's type.
  auto cast = [](Importer &im, SmallVectorImpl<Value> &results, Type to, bool toUnsigned) {
    bool fromUnsigned = im.isUnsigned(im.in(0));
    bool toInt = !isFloat(to), toBool = to.isInteger(1);
    FailureOr<Value> r = im.elementwise(
        {im.in(0)}, to,
        [=](B &b, L l, V a) -> Value {
          Type from = a[0].getType();
          if (fromUnsigned && !from.isInteger(1)) {
            if (isFloat(to))
              return arith::UIToFPOp::create(b, l, to, a[0]);
            if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
              return arith::ExtUIOp::create(b, l, to, a[0]);
          }
          // Float to 8 bits through i32: fptosi to i8 is poison above 127.
          if (isFloat(from) && toInt && !toBool && to.getIntOrFloatBitWidth() < 32) {
            Value wide = arith::FPToSIOp::create(b, l, b.getI32Type(), a[0]);
            return arith::TruncIOp::create(b, l, to, wide);
          }
          return Importer::convert(b, l, a[0], to);
        },
        [=](ArrayRef<double> a) {
          if (toBool)
            return a[0] != 0 ? 1.0 : 0.0;
          return toInt ? std::trunc(a[0]) : a[0];
        });
    if (failed(r))
      return failure();
    if (toUnsigned)
      im.markUnsigned(*r);
    results.push_back(*r);
    return success();
  };
  t["Cast"] = [cast](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail("Cast needs an input");
    int toOnnx = static_cast<int>(im.attrInt("to", 0));
    Type to = elementTypeOf(im.context, toOnnx);
    if (!to)
      return im.fail("Cast: unsupported target type " + Twine(toOnnx));
    bool toUnsigned = to.isUnsignedInteger();
    if (auto i = dyn_cast<IntegerType>(to))
      to = IntegerType::get(to.getContext(), i.getWidth());
    return cast(im, results, to, toUnsigned);
  };
  t["CastLike"] = [cast](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0) || !im.hasInput(1))
      return im.fail("CastLike needs an input and a target");
    return cast(im, results, Importer::typeOf(im.in(1)).getElementType(),
                im.isUnsigned(im.in(1)));
  };
  auto identity = [](Importer &im, SmallVectorImpl<Value> &results) {
    if (!im.hasInput(0))
      return im.fail(Twine(im.node->op_type()) + " needs an input");
    results.push_back(im.in(0));
    return success();
  };
  t["Identity"] = identity;
  // Inference: Dropout is the identity (its mask output is not supported).
  t["Dropout"] = [identity](Importer &im, SmallVectorImpl<Value> &results) {
    if (std::optional<Lit> training = im.lit(im.in(2)))
      if (!training->values.empty() && training->values[0] != 0)
        return im.fail("Dropout: training mode is not supported (jitrun runs inference)");
    if (im.hasInput(2) && !im.lit(im.in(2)))
      return im.fail("Dropout: a training_mode computed from data is not supported");
    if (im.node->output_size() > 1 && !im.node->output(1).empty())
      return im.fail("Dropout: the mask output is not supported");
    return identity(im, results);
  };
}

} // namespace

void addElementwiseOps(OpTable &t) {
  addArithmetic(t);
  addActivations(t);
  addLogic(t);
  addConversions(t);
}

} // namespace onnximport
} // namespace jitrun
