//===- BatchLoopMatmuls.cpp - a recurrence's input projections at once ---===//
//
// An LSTM or GRU imported step by step (an scf.for over the sequence)
// multiplies each step's input row x_t by the same weights W: a 1 x K by
// K x N matmul per step that reads all of W (1 MB for the four gates of a
// 256-wide LSTM) for 2 K N flops, once per step. Nothing in x_t W depends on
// the recurrence: computed before the loop for every step at once (a T x K
// by K x N matmul, W read once), each step takes its row of the result.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-batch-loop-matmuls"

namespace jitrun {
#define GEN_PASS_DEF_BATCHLOOPMATMULSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The most elements of the batched result (all steps' rows).
constexpr int64_t kMaxBatchedElements = int64_t(1) << 24;

/// A matmul in an scf.for from 0 to T by 1 whose left operand is row `iv`
/// of a loop-invariant T x 1 x ... x K tensor (a slice [iv, 0, ..., 0]
/// [1, 1, ..., K] to 1 x K), whose right operand is loop-invariant and whose
/// accumulator is a fill of a loop-invariant value: the matmul of all T rows
/// before the loop, and row `iv` of its result in the loop.
struct BatchLoopMatmul : public OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::MatmulOp op, PatternRewriter &rewriter) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    if (!loop || !op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return failure();
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub < 2)
      return rewriter.notifyMatchFailure(op, "needs a loop from 0 by 1");
    Value a = op.getInputs()[0], b = op.getInputs()[1], init = op.getOutputs()[0];
    // One element type (no cast for the batched matmul to keep).
    Type elem = getElementTypeOrSelf(init.getType());
    if (getElementTypeOrSelf(a.getType()) != elem || getElementTypeOrSelf(b.getType()) != elem)
      return rewriter.notifyMatchFailure(op, "needs one element type");
    auto fill = init.getDefiningOp<linalg::FillOp>();
    auto resultType = dyn_cast<RankedTensorType>(init.getType());
    if (!loop.isDefinedOutsideOfLoop(b) || !fill || !fill.hasPureTensorSemantics() ||
        !loop.isDefinedOutsideOfLoop(fill.getInputs()[0]) || !resultType ||
        !resultType.hasStaticShape() || resultType.getDimSize(0) != 1)
      return rewriter.notifyMatchFailure(op, "needs loop-invariant weights and accumulator value");
    auto slice = a.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !loop.isDefinedOutsideOfLoop(slice.getSource()))
      return rewriter.notifyMatchFailure(op, "needs a slice of a loop-invariant input");
    RankedTensorType source = slice.getSourceType();
    int64_t rank = source.getRank();
    if (!source.hasStaticShape() || rank < 2 || source.getDimSize(0) != *ub ||
        source.getDimSize(rank - 1) != cast<RankedTensorType>(a.getType()).getDimSize(1))
      return rewriter.notifyMatchFailure(op, "needs one row per step");
    // Row iv, whole: [iv, 0, ..., 0] [1, 1, ..., K] [1, ...], unit dims
    // between the row and K.
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(), sizes = slice.getMixedSizes();
    if (dyn_cast_if_present<Value>(offsets[0]) != loop.getInductionVar() ||
        !llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
      return rewriter.notifyMatchFailure(op, "needs row iv of the input");
    for (int64_t d = 1; d < rank; ++d)
      if (!isConstantIntValue(offsets[d], 0) ||
          !isConstantIntValue(sizes[d], source.getDimSize(d)) ||
          (d < rank - 1 && source.getDimSize(d) != 1))
        return rewriter.notifyMatchFailure(op, "needs whole rows");
    int64_t rows = *ub, n = resultType.getDimSize(1);
    if (rows * n > kMaxBatchedElements)
      return rewriter.notifyMatchFailure(op, "a batched result too large");

    Location loc = op.getLoc();
    rewriter.setInsertionPoint(loop);
    Value input = slice.getSource();
    if (rank > 2) {
      SmallVector<ReassociationIndices> groups = {{0}, {}};
      for (int64_t d = 1; d < rank; ++d)
        groups[1].push_back(d);
      input = tensor::CollapseShapeOp::create(rewriter, loc, input, groups);
    }
    auto batchedType = RankedTensorType::get({rows, n}, resultType.getElementType());
    Value empty = tensor::EmptyOp::create(rewriter, loc, batchedType.getShape(),
                                          batchedType.getElementType());
    Value acc = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
    Value batched = linalg::MatmulOp::create(rewriter, loc, TypeRange{batchedType},
                                             ValueRange{input, b}, ValueRange{acc})
                        .getResult(0);
    rewriter.setInsertionPoint(op);
    SmallVector<OpFoldResult> rowOffsets = {loop.getInductionVar(), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> rowSizes = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(n)};
    SmallVector<OpFoldResult> unit(2, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, resultType, batched, rowOffsets,
                                                        rowSizes, unit);
    return success();
  }
};

struct BatchLoopMatmulsPass final
    : public impl::BatchLoopMatmulsPassBase<BatchLoopMatmulsPass> {
  void runOnOperation() override {
    bool any = false;
    getOperation().walk([&](linalg::MatmulOp op) { any |= isa<scf::ForOp>(op->getParentOp()); });
    if (!any)
      return markAllAnalysesPreserved();
    RewritePatternSet patterns(&getContext());
    patterns.add<BatchLoopMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
