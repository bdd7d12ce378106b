//===- PrepareContractions.cpp - rewrites before the tile strategy --------===//
//
// A dispatch whose contraction reaches its result through a reshape is
// expanded into one iteration space; under VNNI, i8 contractions read their
// right operand shifted to unsigned (VnniContraction.cpp). Both are marked on
// the function for the passes that follow.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "codegen/Strategy.h"
#include "contract/Dispatch.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_PREPARECONTRACTIONSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// A contraction's dispatch that reaches its last consumer through a
/// tensor.expand_shape (fusion's consumerThroughExpand: the per-head
/// transpose after a transformer's Q or V projection): the reshape is
/// propagated up through the epilogue into the contraction, generalized, by
/// upstream's fold-by-expansion patterns, until it reaches the dispatch's
/// inputs (the weights and bias, viewed in the expanded shape). Then every
/// op shares one iteration space and reads its producer through a
/// permutation, and the dispatch tiles as one.
static bool expandReshapesIntoContraction(RewriterBase &rewriter, func::FuncOp fn) {
  bool reshapedResult = false;
  fn.walk([&](tensor::ExpandShapeOp e) {
    reshapedResult |= e.getSrc().getDefiningOp<linalg::LinalgOp>() != nullptr;
  });
  if (!reshapedResult)
    return false;
  SmallVector<linalg::LinalgOp> named;
  fn.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op) && linalg::isaContractionOpInterface(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  // The expanded contraction is a new op: it keeps the AMX mark (and the
  // packed panels') of the one it replaces, found by its weights.
  auto weightsOf = [](linalg::LinalgOp op) {
    Value v = op.getDpsInputOperand(1)->get();
    while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    return v;
  };
  llvm::DenseMap<Value, DictionaryAttr> marks;
  fn.walk([&](linalg::GenericOp g) {
    if (g->hasAttr(kAmxTilesAttrName) && g.getNumDpsInputs() == 2)
      marks[weightsOf(g)] = g->getDiscardableAttrDictionary();
  });
  MLIRContext *ctx = fn.getContext();
  RewritePatternSet patterns(ctx);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                    [](OpOperand *) { return true; });
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(fn, std::move(patterns));
  if (!marks.empty())
    fn.walk([&](linalg::GenericOp g) {
      if (g.getNumDpsInputs() == 2 && !g->hasAttr(kAmxTilesAttrName) &&
          linalg::isaContractionOpInterface(g))
        if (auto it = marks.find(weightsOf(g)); it != marks.end())
          for (NamedAttribute a : it->second)
            g->setAttr(a.getName(), a.getValue());
    });
  // A reshape left after a linalg op means the ops before it cannot be
  // tiled with the consumer: say so. The accumulators' tensor.empty in the
  // expanded shape becomes a stack buffer of that shape, not an
  // expand_shape view of one.
  fn.walk([&](tensor::ExpandShapeOp e) {
    if (auto producer = e.getSrc().getDefiningOp<linalg::LinalgOp>())
      producer->emitWarning() << "the reshape after this op could not be propagated into "
                                 "it; the dispatch is not tiled as one";
    if (!e.getSrc().getDefiningOp<tensor::EmptyOp>() || !e.getResultType().hasStaticShape())
      return;
    rewriter.setInsertionPoint(e);
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(e, e.getResultType().getShape(),
                                                 e.getResultType().getElementType());
  });
  return true;
}
struct PrepareContractionsPass final
    : public impl::PrepareContractionsPassBase<PrepareContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    if (expandReshapesIntoContraction(rewriter, fn))
      fn->setAttr(kExpandedReshapesAttrName, rewriter.getUnitAttr());
    if (vnni && shiftInt8RhsForVnni(rewriter, fn))
      fn->setAttr(kVnniShiftedAttrName, rewriter.getUnitAttr());
  }
};

} // namespace
} // namespace jitrun
