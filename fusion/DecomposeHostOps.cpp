//===- DecomposeHostOps.cpp - pad and concat as fills and slice copies ---===//
//
// tensor.pad becomes tensor.empty + linalg.fill + tensor.insert_slice and
// tensor.concat a chain of insert_slices, which the host program runs as
// memset- and memcpy-like commands. On import, pads that dispatch formation
// fuses into a depthwise convolution or pooling stay (isFusedWindowPad);
// after dispatch formation, whatever pad is left on the host is decomposed.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-decompose-host-ops"

namespace jitrun {
#define GEN_PASS_DEF_DECOMPOSEHOSTOPSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {
/// Upstream's pad decomposition, except for the pads dispatch formation
/// fuses into a depthwise convolution or pooling when `keepWindowPads`.
struct DecomposeHostPad final : public linalg::DecomposePadOpPattern {
  DecomposeHostPad(MLIRContext *ctx, bool keepWindowPads)
      : linalg::DecomposePadOpPattern(ctx), keepWindowPads(keepWindowPads) {}
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    if (keepWindowPads && isFusedWindowPad(pad))
      return rewriter.notifyMatchFailure(pad, "fused into its window op");
    return linalg::DecomposePadOpPattern::matchAndRewrite(pad, rewriter);
  }
  bool keepWindowPads;
};

struct DecomposeHostOpsPass final
    : public impl::DecomposeHostOpsPassBase<DecomposeHostOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (getOperation()->hasAttr(kDispatchAttrName))
      return markAllAnalysesPreserved();
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeHostPad>(&getContext(), keepWindowPads);
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    bool changed = false;
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), {}, &changed)))
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace


} // namespace jitrun
