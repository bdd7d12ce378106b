//===- DistributeWorkgroups.cpp - the workgroup forall becomes the grid ---===//
//
// After bufferization the workgroup-level scf.forall has no results; its body
// is inlined with its induction variables computed from the kernel's
// workgroup id, and its trip count becomes the kernel's grid size. A
// generic kernel's forall over its dynamic dim has a count known only at
// run time: the kernel computes it from the dim and returns it, and a call
// with a negative workgroup id only does that (contract/KernelAbi.h; the
// host program asks once per call site, compiler/Kernels.cpp).
//
// The pool gives each thread a contiguous part of the workgroup ids (see
// support/ThreadPool.cpp), so the outermost dim of the ids is the one split
// between threads. It is the dim that indexes the largest input: a 3x3
// convolution of 14x14x256 -> 256 (ResNet-50's third stage: 2.4 MB of
// filter, a 256 KB image) splits its filter's panels, each core reading half
// of the filter, rather than its rows, each core reading all of it.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "contract/Dispatch.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "jitrun-codegen-distribute-workgroups"

namespace jitrun {
#define GEN_PASS_DEF_DISTRIBUTEWORKGROUPSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The function argument `v` views (through subviews and reshapes), or null.
/// `view`, if given, becomes the type the argument is viewed as: its own,
/// or a generic kernel's view of its bare pointer (LowerDispatchABI).
static BlockArgument viewedArgument(Value v, func::FuncOp fn, MemRefType *view = nullptr) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(def))
      return nullptr;
    if (view && isa<memref::ReinterpretCastOp>(def))
      *view = cast<MemRefType>(def->getResult(0).getType());
    v = def->getOperand(0);
  }
  if (view && !*view)
    *view = dyn_cast<MemRefType>(v.getType());
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.getBody().front() ? arg : nullptr;
}

/// The forall dim to put outermost in the workgroup ids: the one whose
/// induction variable indexes the largest argument the kernel only reads;
/// 0 (the forall's own order) unless another indexes a strictly larger one.
static unsigned outermostDim(scf::ForallOp forall, func::FuncOp fn) {
  // Arguments written anywhere in the kernel.
  llvm::DenseSet<Value> written;
  fn.walk([&](MemoryEffectOpInterface op) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    op.getEffects(effects);
    for (auto &e : effects)
      if (isa<MemoryEffects::Write>(e.getEffect()) && e.getValue())
        if (BlockArgument arg = viewedArgument(e.getValue(), fn))
          written.insert(arg);
  });
  SmallVector<Value> ivs = forall.getInductionVars();
  if (ivs.size() > 64)
    return 0;
  // The induction variables each value is computed from, one bit each.
  llvm::DenseMap<Value, uint64_t> masks;
  for (auto [d, iv] : llvm::enumerate(ivs))
    masks[iv] = uint64_t(1) << d;
  std::function<uint64_t(Value)> ivMask = [&](Value v) -> uint64_t {
    if (auto it = masks.find(v); it != masks.end())
      return it->second;
    uint64_t m = 0;
    if (Operation *def = v.getDefiningOp(); def && forall->isProperAncestor(def))
      for (Value o : def->getOperands())
        m |= ivMask(o);
    return masks[v] = m;
  };
  int64_t genericDim = 1;
  if (auto a = fn->getAttrOfType<IntegerAttr>(kGenericDimAttrName))
    genericDim = std::max<int64_t>(1, a.getInt());
  SmallVector<int64_t> bytes(ivs.size(), 0);
  llvm::DenseSet<std::pair<Value, unsigned>> counted;
  forall.getBody()->walk([&](Operation *op) {
    Value base;
    ValueRange indices;
    if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
      base = read.getBase();
      indices = read.getIndices();
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      base = load.getBase();
      indices = load.getIndices();
    } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
      base = load.getMemRef();
      indices = load.getIndices();
    } else if (auto view = dyn_cast<memref::SubViewOp>(op)) {
      base = view.getSource();
      indices = view.getOffsets();
    } else {
      return;
    }
    MemRefType type;
    BlockArgument arg = viewedArgument(base, fn, &type);
    if (!arg || written.contains(arg) || !type || !type.getElementType().isIntOrFloat())
      return;
    // A generic kernel's dynamic dims at the largest value they take.
    int64_t size = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    for (int64_t d : type.getShape())
      size *= ShapedType::isDynamic(d) ? genericDim : d;
    uint64_t m = 0;
    for (Value i : indices)
      m |= ivMask(i);
    for (unsigned d = 0; d < ivs.size(); ++d)
      if ((m >> d & 1) && counted.insert({arg, d}).second)
        bytes[d] += size;
  });
  // Another dim only when it indexes a quarter more: where both index the
  // image and one of them also a small filter (RegNet's grouped 3x3
  // convolutions: 6 groups of 8 channels, 13 KB of filter against 2.5 MB of
  // image), splitting the groups made each thread read half of every pixel
  // of rows the other core had just written (and write cache lines the
  // other shares): the dispatch did not speed up on a second thread at all.
  unsigned best = 0;
  for (unsigned d = 1; d < bytes.size(); ++d)
    if (bytes[d] > bytes[best] && 4 * bytes[d] > 5 * bytes[0])
      best = d;
  return best;
}

struct DistributeWorkgroupsPass final
    : public impl::DistributeWorkgroupsPassBase<DistributeWorkgroupsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForallOp> top;
    for (auto forall : fn.getBody().getOps<scf::ForallOp>())
      top.push_back(forall);
    int64_t workgroups = 1;
    Value dynamicCount; // a grid counted at run time, or null
    if (top.size() == 1 && top[0].getNumResults() == 0) {
      scf::ForallOp forall = top[0];
      auto staticOrNone = [](ArrayRef<int64_t> v) -> std::optional<SmallVector<int64_t>> {
        if (llvm::any_of(v, ShapedType::isDynamic))
          return std::nullopt;
        return SmallVector<int64_t>(v);
      };
      std::optional<SmallVector<int64_t>> lbs = staticOrNone(forall.getStaticLowerBound());
      std::optional<SmallVector<int64_t>> steps = staticOrNone(forall.getStaticStep());
      SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
      // A dynamic upper bound: a generic kernel's dim, tiled into workgroups.
      if (lbs && steps) {
        Location loc = forall.getLoc();
        rewriter.setInsertionPoint(forall);
        SmallVector<OpFoldResult> counts;
        for (auto [lb, ub, step] : llvm::zip(*lbs, ubs, *steps)) {
          if (std::optional<int64_t> u = getConstantIntValue(ub)) {
            int64_t count = std::max<int64_t>(0, llvm::divideCeil(*u - lb, step));
            counts.push_back(rewriter.getIndexAttr(count));
            workgroups *= count;
            continue;
          }
          AffineExpr s = rewriter.getAffineSymbolExpr(0);
          AffineMap m = AffineMap::get(0, 1, {(s - lb).ceilDiv(step), rewriter.getAffineConstantExpr(0)},
                                       rewriter.getContext());
          counts.push_back(
              affine::AffineMaxOp::create(rewriter, loc, m, ValueRange{cast<Value>(ub)}).getResult());
        }
        Value wgId = fn.getArguments().back();
        Block *body = forall.getBody();
        // A counted grid: the kernel returns its count, and a call with a
        // negative id (KernelAbi.h) only asks for it.
        if (llvm::any_of(counts, [](OpFoldResult c) { return isa<Value>(c); })) {
          dynamicCount = getValueOrCreateConstantIndexOp(rewriter, loc, counts.front());
          for (OpFoldResult c : llvm::drop_begin(counts))
            dynamicCount = arith::MulIOp::create(
                rewriter, loc, dynamicCount, getValueOrCreateConstantIndexOp(rewriter, loc, c));
          Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
          Value run = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, wgId, zero);
          auto guard = scf::IfOp::create(rewriter, loc, run, /*withElseRegion=*/false);
          rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        }
        SmallVector<Value> ivs;
        if (counts.size() == 1) {
          ivs.push_back(wgId);
        } else {
          // Ids in the forall's order, but for the dim split between
          // threads (outermostDim) first.
          unsigned outer = outermostDim(forall, fn);
          SmallVector<int64_t> order = {static_cast<int64_t>(outer)};
          for (unsigned d = 0; d < counts.size(); ++d)
            if (d != outer)
              order.push_back(d);
          SmallVector<OpFoldResult> ordered;
          for (int64_t d : order)
            ordered.push_back(counts[d]);
          auto delin = affine::AffineDelinearizeIndexOp::create(rewriter, loc, wgId, ordered,
                                                                /*hasOuterBound=*/true);
          ivs.resize(counts.size());
          for (auto [pos, d] : llvm::enumerate(order))
            ivs[d] = delin.getResult(pos);
        }
        SmallVector<Value> mapped;
        for (auto [iv, lb, step] : llvm::zip(ivs, *lbs, *steps)) {
          AffineExpr d = rewriter.getAffineDimExpr(0);
          mapped.push_back(affine::AffineApplyOp::create(
              rewriter, loc, AffineMap::get(1, 0, d * step + lb), ValueRange{iv}));
        }
        rewriter.eraseOp(body->getTerminator());
        rewriter.inlineBlockBefore(body, rewriter.getInsertionBlock(),
                                   rewriter.getInsertionPoint(), mapped);
        rewriter.eraseOp(forall);
      }
    }
    // Any other forall runs sequentially inside its workgroup.
    SmallVector<scf::ForallOp> rest;
    fn.walk([&](scf::ForallOp f) { rest.push_back(f); });
    for (scf::ForallOp f : rest) {
      rewriter.setInsertionPoint(f);
      if (failed(scf::forallToForLoop(rewriter, f))) {
        f.emitOpError() << "could not be turned into a sequential loop";
        return signalPassFailure();
      }
    }
    fn->setAttr(kWorkgroupsAttrName, rewriter.getI64IntegerAttr(workgroups));
    if (dynamicCount) {
      auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
      rewriter.setInsertionPoint(ret);
      rewriter.replaceOpWithNewOp<func::ReturnOp>(ret, dynamicCount);
      fn.setType(FunctionType::get(&getContext(), fn.getArgumentTypes(),
                                   {rewriter.getIndexType()}));
      fn->setAttr(kDynamicWorkgroupsAttrName, rewriter.getUnitAttr());
    }
  }
};

} // namespace
} // namespace jitrun
