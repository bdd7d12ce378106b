//===- DistributeWorkgroups.cpp - the workgroup forall becomes the grid ---===//
//
// After bufferization the workgroup-level scf.forall has no results; its body
// is inlined with its induction variables computed from the kernel's
// workgroup id, and its trip count becomes the kernel's grid size.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "jitrun-codegen-distribute-workgroups"

namespace jitrun {
#define GEN_PASS_DEF_DISTRIBUTEWORKGROUPSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

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
    if (top.size() == 1 && top[0].getNumResults() == 0) {
      scf::ForallOp forall = top[0];
      auto staticOrNone = [](ArrayRef<int64_t> v) -> std::optional<SmallVector<int64_t>> {
        if (llvm::any_of(v, ShapedType::isDynamic))
          return std::nullopt;
        return SmallVector<int64_t>(v);
      };
      std::optional<SmallVector<int64_t>> lbs = staticOrNone(forall.getStaticLowerBound());
      std::optional<SmallVector<int64_t>> ubs = staticOrNone(forall.getStaticUpperBound());
      std::optional<SmallVector<int64_t>> steps = staticOrNone(forall.getStaticStep());
      if (lbs && ubs && steps) {
        SmallVector<int64_t> counts;
        for (auto [lb, ub, step] : llvm::zip(*lbs, *ubs, *steps))
          counts.push_back(std::max<int64_t>(0, llvm::divideCeil(ub - lb, step)));
        for (int64_t c : counts)
          workgroups *= c;
        Value wgId = fn.getArguments().back();
        rewriter.setInsertionPoint(forall);
        Location loc = forall.getLoc();
        SmallVector<Value> ivs;
        if (counts.size() == 1) {
          ivs.push_back(wgId);
        } else {
          auto delin = affine::AffineDelinearizeIndexOp::create(
              rewriter, loc, wgId, ValueRange{}, counts, /*hasOuterBound=*/true);
          ivs.append(delin.getResults().begin(), delin.getResults().end());
        }
        SmallVector<Value> mapped;
        for (auto [iv, lb, step] : llvm::zip(ivs, *lbs, *steps)) {
          AffineExpr d = rewriter.getAffineDimExpr(0);
          mapped.push_back(affine::AffineApplyOp::create(
              rewriter, loc, AffineMap::get(1, 0, d * step + lb), ValueRange{iv}));
        }
        Block *body = forall.getBody();
        rewriter.eraseOp(body->getTerminator());
        rewriter.inlineBlockBefore(body, forall, mapped);
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
  }
};

} // namespace
} // namespace jitrun
