//===- EmptyLoops.cpp - linalg ops with no iterations ---------------------===//
//
// A linalg op on tensors with a loop of static extent 0 (a zero-size
// dimension: an empty input, an empty reduction) runs no iteration: its
// results are its init operands as they are (an empty tensor, or a
// reduction's initial value, the sum of nothing). Left in place it became a
// kernel with zero-size vectors, which LLVM could not translate. The op is
// replaced by its inits before dispatches form.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_FOLDEMPTYLOOPSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

struct FoldEmptyLoops : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op->getNumResults() != op.getNumDpsInits())
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (!llvm::is_contained(ranges, 0))
      return failure();
    SmallVector<Value> inits;
    for (OpOperand &init : op.getDpsInitsMutable())
      inits.push_back(init.get());
    for (auto [result, init] : llvm::zip(op->getResults(), inits))
      if (result.getType() != init.getType())
        return failure();
    rewriter.replaceOp(op, inits);
    return success();
  }
};

struct FoldEmptyLoopsPass final : public impl::FoldEmptyLoopsPassBase<FoldEmptyLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldEmptyLoops>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
