//===- SafeKernelArith.cpp - no trapping division, no wild reads ---------===//
//
// Kernels run inside the host's process: x86 raises SIGFPE on an integer
// division by zero or of the signed minimum by -1, and a gather by a bad
// index reads (or faults on) memory outside its tensor. This pass, first in
// the kernel pipeline (so the reference path gets it too), gives both a
// defined result; see Passes.td for the semantics. A clamp that changed an
// index is an error the run reports (ReportIndexErrors.cpp).
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "contract/Location.h"

#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/IR/Matchers.h"

namespace jitrun {
#define GEN_PASS_DEF_SAFEKERNELARITHPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// Bits of an integer (or index, taken as 64-bit) element type.
static unsigned elementBits(Type t) {
  Type elt = getElementTypeOrSelf(t);
  return elt.isIndex() ? 64 : elt.getIntOrFloatBitWidth();
}

static Value constantOf(OpBuilder &b, Location loc, Type t, const APInt &v) {
  Type elt = getElementTypeOrSelf(t);
  TypedAttr scalar = b.getIntegerAttr(elt, v);
  if (auto shaped = dyn_cast<ShapedType>(t))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shaped, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// Makes `op` (lhs, rhs -> result) safe: see Passes.td.
static void makeDivisionSafe(Operation *op, bool isSigned) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  unsigned bits = elementBits(b.getType());
  APInt c;
  if (matchPattern(b, m_ConstantInt(&c)) && !c.isZero() && (!isSigned || !c.isAllOnes()))
    return;
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Type t = b.getType();
  Value zero = constantOf(builder, loc, t, APInt::getZero(bits));
  Value one = constantOf(builder, loc, t, APInt(bits, 1));
  Value byZero = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, b, zero);
  Value bad = byZero;
  if (isSigned) {
    Value min = constantOf(builder, loc, t, APInt::getSignedMinValue(bits));
    Value minusOne = constantOf(builder, loc, t, APInt::getAllOnes(bits));
    Value aMin = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, min);
    Value bMinusOne = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, b, minusOne);
    Value overflow = arith::AndIOp::create(builder, loc, aMin, bMinusOne);
    bad = arith::OrIOp::create(builder, loc, byZero, overflow);
  }
  Value safe = arith::SelectOp::create(builder, loc, bad, one, b);
  op->setOperand(1, safe);
  builder.setInsertionPointAfter(op);
  Value result = op->getResult(0);
  auto select = arith::SelectOp::create(builder, loc, byZero, zero, result);
  result.replaceAllUsesExcept(select, select);
}

/// Whether `v` may depend on data: a block argument (a generic's element,
/// a loop's iteration value) or a value read from a tensor somewhere in its
/// slice. Indices made of linalg.index, constants and arithmetic on them are
/// in range by construction and keep the vectorizer's contiguous loads.
static bool dependsOnData(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    Operation *def = cur.getDefiningOp();
    if (!def)
      return true;
    if (!seen.insert(def).second || isa<linalg::IndexOp>(def) || matchPattern(cur, m_Constant()))
      continue;
    if (def->getNumRegions() != 0 || isa<tensor::ExtractOp>(def) ||
        !isa<arith::ArithDialect, affine::AffineDialect, index::IndexDialect>(def->getDialect()))
      return true;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return false;
}

/// Clamps each index of `op` that depends on data into [0, dim - 1]; each
/// clamp's `arith.minsi` carries its site number (1-based, into `sites`,
/// whose entry is the error a run reports when the clamp changed an index).
static void clampIndices(tensor::ExtractOp op, SmallVectorImpl<Attribute> &sites) {
  auto type = cast<RankedTensorType>(op.getTensor().getType());
  OpBuilder builder(op);
  Location loc = op.getLoc();
  SmallVector<Value> indices(op.getIndices());
  bool changed = false;
  for (auto [d, idx] : llvm::enumerate(indices)) {
    if (!dependsOnData(idx))
      continue;
    if (type.getDimSize(d) == 0)
      continue; // an empty tensor has nothing to read; the op is never reached
    Value last;
    if (type.isDynamicDim(d)) {
      Value dim = tensor::DimOp::create(builder, loc, op.getTensor(), d);
      last = arith::SubIOp::create(builder, loc, dim,
                                   arith::ConstantIndexOp::create(builder, loc, 1));
    } else {
      last = arith::ConstantIndexOp::create(builder, loc, type.getDimSize(d) - 1);
    }
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value low = arith::MaxSIOp::create(builder, loc, idx, zero);
    auto clamp = arith::MinSIOp::create(builder, loc, low, last);
    std::string message;
    llvm::raw_string_ostream os(message);
    std::string at = sourcePosition(loc);
    os << (at.empty() ? "jitrun" : at) << ": error: index out of range: a 'tensor.extract' "
       << "(a gather by data) read an index outside dimension " << d << " of its "
       << type;
    if (!type.isDynamicDim(d))
      os << " (valid indices 0.." << type.getDimSize(d) - 1 << ")";
    sites.push_back(builder.getStringAttr(message));
    clamp->setAttr(kIndexCheckAttrName, builder.getI64IntegerAttr(sites.size()));
    indices[d] = clamp;
    changed = true;
  }
  if (changed)
    op.getIndicesMutable().assign(indices);
}

struct SafeKernelArithPass final
    : public impl::SafeKernelArithPassBase<SafeKernelArithPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
              arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp, tensor::ExtractOp>(op))
        ops.push_back(op);
    });
    SmallVector<Attribute> sites;
    for (Operation *op : ops) {
      if (auto extract = dyn_cast<tensor::ExtractOp>(op))
        clampIndices(extract, sites);
      else
        makeDivisionSafe(op, isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                                 arith::FloorDivSIOp>(op));
    }
    if (!sites.empty())
      getOperation()->setAttr(kIndexChecksAttrName,
                              ArrayAttr::get(&getContext(), sites));
  }
};

} // namespace
} // namespace jitrun
