//===- ReportIndexErrors.cpp - a gather's bad index is an error ----------===//
//
// jitrun-codegen-safe-arith clamps every data-dependent index of a gather so
// that the read stays inside its tensor; this pass, on the bufferized and
// vectorized kernel, makes a clamp that changed an index set the kernel's
// status word, so that the run fails with the gather's location instead of
// returning the nearest element. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace jitrun {
#define GEN_PASS_DEF_REPORTINDEXERRORSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The masks of the lanes that vector `index` (through index arithmetic)
/// actually reads with: those of the gathers it feeds and of the
/// vector.mask around them. A masked-off lane's index may be a masked read's
/// padding (poison), which must not count as an error.
static SmallVector<Value> readMasks(Value index) {
  SmallVector<Value> masks;
  SmallVector<Value> work{index};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (auto gather = dyn_cast<vector::GatherOp>(user)) {
        masks.push_back(gather.getMask());
        if (auto mask = dyn_cast<vector::MaskOp>(gather->getParentOp()))
          masks.push_back(mask.getMask());
        continue;
      }
      if (isa<arith::ArithDialect>(user->getDialect()) ||
          isa<vector::BroadcastOp, vector::ShapeCastOp>(user))
        for (Value r : user->getResults())
          work.push_back(r);
    }
  }
  return masks;
}

/// i1 (or vector of i1): whether clamp `minOp` changed its index in a lane
/// that is read. Built at `b`'s insertion point, moved past the definitions
/// of the masks it uses.
static Value clampChanged(OpBuilder &b, arith::MinSIOp minOp, DominanceInfo &dom) {
  Location loc = minOp.getLoc();
  Value original = minOp.getLhs();
  if (auto maxOp = original.getDefiningOp<arith::MaxSIOp>())
    original = maxOp.getLhs();
  auto vt = dyn_cast<VectorType>(minOp.getType());
  SmallVector<Value> masks;
  if (vt) {
    Operation *point = minOp;
    for (Value mask : readMasks(minOp.getResult())) {
      auto mt = dyn_cast<VectorType>(mask.getType());
      if (!mt || mt.getShape() != vt.getShape() || matchPattern(mask, m_One()))
        continue;
      Operation *def = mask.getDefiningOp();
      if (def && def->getBlock() == point->getBlock() && point->isBeforeInBlock(def))
        point = def;
      masks.push_back(mask);
    }
    b.setInsertionPointAfter(point);
    llvm::erase_if(masks, [&](Value m) { return !dom.properlyDominates(m, &*b.getInsertionPoint()); });
  }
  Value changed =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, minOp.getResult(), original);
  if (!vt)
    return changed;
  // select, not and: a poison lane under a false mask gives false.
  auto boolType = VectorType::get(vt.getShape(), b.getI1Type());
  Value none = masks.empty() ? Value()
                             : arith::ConstantOp::create(
                                   b, loc, DenseElementsAttr::get(boolType, false));
  for (Value mask : masks)
    changed = arith::SelectOp::create(b, loc, mask, changed, none);
  if (vt.getRank() != 1)
    changed = vector::ShapeCastOp::create(
        b, loc, VectorType::get({vt.getNumElements()}, b.getI1Type()), changed);
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, changed);
}

struct ReportIndexErrorsPass final
    : public impl::ReportIndexErrorsPassBase<ReportIndexErrorsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (!fn->hasAttr(kIndexChecksAttrName) || fn.isExternal())
      return;
    SmallVector<arith::MinSIOp> clamps;
    fn.walk([&](arith::MinSIOp op) {
      if (op->hasAttr(kIndexCheckAttrName))
        clamps.push_back(op);
    });
    // The status buffer goes last among the buffers, before the workgroup id.
    unsigned position = fn.getNumArguments() - 1;
    auto statusType = MemRefType::get({1}, IntegerType::get(&getContext(), 32));
    if (failed(fn.insertArgument(position, statusType, {}, fn.getLoc())))
      return signalPassFailure();
    Value status = fn.getArgument(position);
    DominanceInfo dom(fn);
    for (arith::MinSIOp clamp : clamps) {
      auto site = clamp->getAttrOfType<IntegerAttr>(kIndexCheckAttrName);
      clamp->removeAttr(kIndexCheckAttrName);
      OpBuilder b(clamp->getContext());
      b.setInsertionPointAfter(clamp);
      Location loc = clamp.getLoc();
      Value changed = clampChanged(b, clamp, dom);
      auto ifOp = scf::IfOp::create(b, loc, changed, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value siteValue = arith::ConstantIntOp::create(b, loc, site.getInt(), 32);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxs, siteValue, status,
                                  ValueRange{zero});
    }
  }
};

} // namespace

void addIndexCheckTable(ModuleOp module, func::FuncOp kernel, llvm::StringRef symbol) {
  std::string table;
  if (auto sites = kernel->getAttrOfType<ArrayAttr>(kIndexChecksAttrName))
    for (Attribute a : sites)
      table += cast<StringAttr>(a).getValue().str() + "\n";
  table.push_back('\0');
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), table.size());
  LLVM::GlobalOp::create(b, kernel.getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External, (symbol + "_checks").str(),
                         b.getStringAttr(table));
}

} // namespace jitrun
