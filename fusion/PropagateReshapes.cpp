//===- PropagateReshapes.cpp - reshapes out of the way of fusion ---------===//
//
// The upstream reshape folding patterns are the mechanism; the policy is
// which folds to allow. Expansion folds reshapes into elementwise generics
// (never into roots: a matmul stays a matmul); sinking collapses an
// elementwise consumer of an expand_shape so that the root's result reaches it
// directly.
//
// Traversal order: top-down and bottom-up were both measured on the corpus
// (ResNet18, MobileNetV2) and the bundled models; they give the same
// dispatch counts there, and top-down is the default because it visits
// producers before their consumers, so a chain of reshapes resolves in one
// sweep.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-propagate-reshapes"

namespace jitrun {
#define GEN_PASS_DEF_PROPAGATERESHAPESPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// A fold is allowed when both ends are elementwise generics or function
/// inputs: reshapes are never folded into a root or a fill.
static bool isFoldableEnd(Operation *op) {
  return !op || (isa<linalg::GenericOp>(op) && isElementwiseOp(op));
}

struct PropagateReshapesPass final
    : public impl::PropagateReshapesPassBase<PropagateReshapesPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(topDown);
    auto control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      Operation *consumer = operand->getOwner();
      // Look past the reshape itself to the op on its other side.
      if (producer && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(producer))
        producer = producer->getOperand(0).getDefiningOp();
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(consumer))
        return isFoldableEnd(producer);
      return isFoldableEnd(consumer) &&
             (!producer || isFoldableEnd(producer) || isRootOp(producer));
    };
    // 1. By expansion.
    {
      RewritePatternSet patterns(ctx);
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
        return signalPassFailure();
    }
    // 2. Sink what remains: elementwise consumers of an expand_shape work on
    // its source shape.
    {
      RewritePatternSet patterns(ctx);
      linalg::populateFoldReshapeOpsByCollapsingPatterns(
          patterns, [](OpOperand *operand) {
            auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
            Operation *owner = operand->getOwner();
            if (!expand || !isa<linalg::GenericOp>(owner) || !isElementwiseOp(owner))
              return false;
            // Not when another operand is a root's result as it is: the
            // collapsed generic would read that root through a reshape and
            // could not join its dispatch (a residual add of a 1x1
            // convolution made a matmul and a strided one kept as is).
            return llvm::none_of(owner->getOpOperands(), [&](OpOperand &other) {
              Operation *def = other.get().getDefiningOp();
              return &other != operand && def && isRootOp(def);
            });
          });
      tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace jitrun
