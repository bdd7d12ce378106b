//===- MergeReductions.cpp - one reduction over several dims ------------===//
//
// TOSA reduces one axis per op, so a mean over an image (squeeze-excite,
// global pooling written as reduce_sum) is two linalg.reduce ops, each
// keeping its dims, with a unit reshape between them: two roots and two
// dispatches, the first writing a whole intermediate (H x C partial sums) to
// memory. When the second reduces the first's result with the same combiner
// and the same initial value, and that value is idempotent for the combiner
// (0 for a sum, any for a max), they are one reduction over the union of
// their dims: one root, one dispatch, no intermediate.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-merge-reductions"

namespace jitrun {
#define GEN_PASS_DEF_MERGEREDUCTIONSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

Operation *singleCombiner(Block &body) {
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return nullptr;
  Operation *combine = &body.front();
  if (combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
      combine->getNumRegions() != 0 ||
      body.getTerminator()->getOperand(0) != combine->getResult(0))
    return nullptr;
  Value a = combine->getOperand(0), b = combine->getOperand(1);
  Value in = body.getArgument(0), init = body.getArgument(1);
  if (!((a == in && b == init) || (a == init && b == in)))
    return nullptr;
  return combine;
}

namespace {

/// The constant a reduction's init is filled with.
static Attribute fillValue(linalg::ReduceOp op) {
  auto fill = op.getInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill)
    return {};
  Attribute value;
  if (!matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return {};
  return value;
}

/// True when v (+) v == v for the combiner (+): then the inner reduction's
/// initial value, folded in once per element of the outer one, changes
/// nothing, and one reduction from v is the same. A sum must start at 0 and
/// a product at 1; max, min, and, or start anywhere.
static bool idempotentInit(Operation *combine, Attribute value) {
  if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
          arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::AndIOp,
          arith::OrIOp>(combine))
    return true;
  auto isValue = [&](double f, int64_t i) {
    if (auto fa = dyn_cast<FloatAttr>(value))
      return fa.getValueAsDouble() == f;
    if (auto ia = dyn_cast<IntegerAttr>(value))
      return ia.getValue().getSExtValue() == i;
    return false;
  };
  if (isa<arith::AddFOp, arith::AddIOp, arith::XOrIOp>(combine))
    return isValue(0.0, 0);
  if (isa<arith::MulFOp, arith::MulIOp>(combine))
    return isValue(1.0, 1);
  return false;
}

/// For each dim of `reshaped` (a unit reshape of `source`, or `source`
/// itself), the dim of `source` it is, or -1 for a unit dim the reshape
/// inserted. Fails unless the reshape only inserts or drops unit dims.
static FailureOr<SmallVector<int64_t>> unitReshapeDims(Value reshaped, Value &source) {
  source = reshaped;
  auto type = cast<ShapedType>(reshaped.getType());
  Operation *def = reshaped.getDefiningOp();
  if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  source = def->getOperand(0);
  ShapedType wide;
  std::optional<SmallVector<ReassociationIndices>> groups = unitReshapeGroups(def, wide);
  if (!groups || !type.hasStaticShape() || !cast<ShapedType>(source.getType()).hasStaticShape())
    return failure();
  // Each group stands for one narrow dim: its non-unit wide dim, or its
  // first when all are unit.
  auto representative = [&](const ReassociationIndices &g) {
    auto it = llvm::find_if(g, [&](int64_t d) { return wide.getDimSize(d) != 1; });
    return it == g.end() ? g.front() : *it;
  };
  SmallVector<int64_t> dims(type.getRank(), -1);
  bool expand = isa<tensor::ExpandShapeOp>(def);
  for (auto [narrow, group] : llvm::enumerate(*groups)) {
    if (expand)
      dims[representative(group)] = narrow; // reshaped is the wide side
    else
      dims[narrow] = representative(group); // reshaped is the narrow side
  }
  return dims;
}

/// reduce(reshape?(reduce(x, D1)), D2) -> reshape?(reduce(x, D1 u D2')).
struct MergeConsecutiveReductions final : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::ReduceOp outer,
                                PatternRewriter &rewriter) const override {
    if (outer.getInputs().size() != 1 || outer.getInits().size() != 1)
      return failure();
    Value innerResult;
    FailureOr<SmallVector<int64_t>> toInner =
        unitReshapeDims(outer.getInputs()[0], innerResult);
    auto inner = innerResult.getDefiningOp<linalg::ReduceOp>();
    if (failed(toInner) || !inner || inner.getInputs().size() != 1 ||
        inner.getInits().size() != 1 || !innerResult.hasOneUse() ||
        (outer.getInputs()[0] != innerResult && !outer.getInputs()[0].hasOneUse()))
      return rewriter.notifyMatchFailure(outer, "not a reduction of a reduction");
    Operation *c1 = singleCombiner(inner.getCombiner().front()),
              *c2 = singleCombiner(outer.getCombiner().front());
    if (!c1 || !c2 || c1->getName() != c2->getName() ||
        c1->getAttrDictionary() != c2->getAttrDictionary() ||
        c1->getResultTypes() != c2->getResultTypes())
      return rewriter.notifyMatchFailure(outer, "different combiners");
    Attribute v1 = fillValue(inner), v2 = fillValue(outer);
    if (!v1 || v1 != v2)
      return rewriter.notifyMatchFailure(outer, "different initial values");
    if (!idempotentInit(c1, v1))
      return rewriter.notifyMatchFailure(outer, "the initial value would count twice");

    // Dims of the inner reduction's input that the merged one reduces.
    Value x = inner.getInputs()[0];
    auto xType = cast<RankedTensorType>(x.getType());
    if (!xType.hasStaticShape())
      return failure();
    SmallVector<int64_t> kept; // inner result dim -> x dim
    for (int64_t d = 0; d < xType.getRank(); ++d)
      if (!llvm::is_contained(inner.getDimensions(), d))
        kept.push_back(d);
    llvm::SmallSetVector<int64_t, 4> reduced(inner.getDimensions().begin(),
                                             inner.getDimensions().end());
    for (int64_t d : outer.getDimensions())
      if ((*toInner)[d] >= 0)
        reduced.insert(kept[(*toInner)[d]]);
    SmallVector<int64_t> dims(reduced.begin(), reduced.end());
    llvm::sort(dims);
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < xType.getRank(); ++d)
      if (!reduced.contains(d))
        shape.push_back(xType.getDimSize(d));

    // Both results keep the non-reduced dims in order and differ only in
    // unit dims: the merged one reaches the old shape by one unit reshape.
    auto resultType = cast<RankedTensorType>(outer.getResult(0).getType());
    auto mergedType = RankedTensorType::get(shape, xType.getElementType());
    std::optional<SmallVector<ReassociationIndices>> reassoc;
    if (mergedType.getRank() < resultType.getRank())
      reassoc = getReassociationIndicesForReshape(mergedType, resultType);
    else if (mergedType.getRank() > resultType.getRank())
      reassoc = getReassociationIndicesForReshape(resultType, mergedType);
    else if (mergedType != resultType)
      return rewriter.notifyMatchFailure(outer, "results differ in more than unit dims");
    if (mergedType.getRank() != resultType.getRank() && !reassoc)
      return rewriter.notifyMatchFailure(outer, "no unit reshape between the results");

    Location loc = outer.getLoc();
    auto fill = inner.getInits()[0].getDefiningOp<linalg::FillOp>();
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, xType.getElementType());
    Value init = linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs()[0], empty)
                     .getResult(0);
    auto merged = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{x}, ValueRange{init}, dims,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          IRMapping map;
          Block &body = inner.getCombiner().front();
          map.map(body.getArgument(0), args[0]);
          map.map(body.getArgument(1), args[1]);
          Operation *combine = b.clone(*c1, map);
          linalg::YieldOp::create(b, bodyLoc, combine->getResult(0));
        });
    Value result = merged.getResult(0);
    if (mergedType.getRank() < resultType.getRank())
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result, *reassoc);
    else if (mergedType.getRank() > resultType.getRank())
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType, result, *reassoc);
    rewriter.replaceOp(outer, result);
    return success();
  }
};

struct MergeReductionsPass final
    : public impl::MergeReductionsPassBase<MergeReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeConsecutiveReductions>(&getContext());
    bool changed = false;
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), {}, &changed)))
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
} // namespace jitrun
