//===- SplitReductions.cpp - a whole tensor's reduction in two steps ------===//
//
// A reduction of a whole tensor to a scalar (DynamicQuantizeLinear's minimum
// and maximum, a global norm) has no parallel loop: one workgroup, whose
// vector of each step was reduced to the scalar before the next (a
// shuffle tree and a dependence on the last sum per 32 elements): 128 x 768
// floats took 0.2 ms, 2 ns per element. It becomes two reductions: the
// innermost dim split into [d / L, L] (L = 64, 32 or 16, whichever divides
// it first), every dim but the L lanes reduced into L partial results from
// the combiner's neutral element (one vector operation per L elements,
// lanes split between workgroups), and those L reduced onto the original
// initial value: 0.012 ms. Max, min and the bitwise and integer combiners
// give the same result in any order; a float sum or product is reassociated
// (as every vectorized reduction is).
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_SPLITREDUCTIONSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// Below this many elements a whole reduction stays one (its two steps would
/// cost more than they save).
constexpr int64_t kMinElements = 4096;

/// The combiner of `op`'s body when it is one op, `combine(in, out)`, with a
/// neutral element jitrun knows; null otherwise.
Operation *splittableCombiner(linalg::GenericOp op) {
  Operation *combine = singleCombiner(op.getRegion().front());
  if (!combine ||
      !isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
           arith::AddFOp, arith::MulFOp, arith::AddIOp, arith::MulIOp, arith::MaxSIOp,
           arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::AndIOp, arith::OrIOp,
           arith::XOrIOp>(combine))
    return nullptr;
  return combine;
}

/// A generic of one input reduced by `combine` into `init` over the loops
/// `iters` (the input read with the identity map, `outMap` the result's).
Value reduction(PatternRewriter &rewriter, Location loc, Value input, Value init,
                AffineMap outMap, ArrayRef<utils::IteratorType> iters, Operation *combine) {
  unsigned rank = iters.size();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
      SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap}, iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        // The new body's (in, out) where the combiner had its own.
        Block *body = combine->getBlock();
        IRMapping map;
        map.map(body->getArgument(0), args[0]);
        map.map(body->getArgument(1), args[1]);
        linalg::YieldOp::create(b, l, b.clone(*combine, map)->getResult(0));
      });
  return generic.getResult(0);
}

struct SplitWholeReduction : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != 0)
      return failure();
    auto inType = dyn_cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
    if (!inType || !outType || outType.getRank() != 0 || inType.getRank() == 0 ||
        !inType.hasStaticShape() || inType.getNumElements() < kMinElements ||
        !op.getIndexingMapsArray()[0].isIdentity())
      return failure();
    Operation *combine = splittableCombiner(op);
    if (!combine)
      return failure();
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
    if (!neutral)
      return failure();
    int64_t rank = inType.getRank(), inner = inType.getShape().back(), lanes = 0;
    for (int64_t l : {64, 32, 16})
      if (inner % l == 0) {
        lanes = l;
        break;
      }
    if (!lanes)
      return rewriter.notifyMatchFailure(op, "the innermost dim is no multiple of 16");
    Location loc = op.getLoc();
    Type elem = inType.getElementType();
    // [..., d] -> [..., d / L, L].
    SmallVector<int64_t> split(inType.getShape().drop_back());
    split.append({inner / lanes, lanes});
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i + 1 < rank; ++i)
      groups.push_back({i});
    groups.push_back({rank - 1, rank});
    Value input = tensor::ExpandShapeOp::create(rewriter, loc, RankedTensorType::get(split, elem),
                                                op.getDpsInputOperand(0)->get(), groups);
    // L partial results from the neutral element.
    Value neutralValue = arith::ConstantOp::create(rewriter, loc, *neutral);
    Value partialInit =
        linalg::FillOp::create(rewriter, loc, neutralValue,
                               ValueRange{tensor::EmptyOp::create(rewriter, loc, lanes, elem)})
            .getResult(0);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::reduction);
    iters.push_back(utils::IteratorType::parallel);
    AffineMap lanesMap = AffineMap::get(rank + 1, 0, rewriter.getAffineDimExpr(rank));
    Value partial = reduction(rewriter, loc, input, partialInit, lanesMap, iters, combine);
    // ... reduced onto the original initial value.
    Value result = reduction(rewriter, loc, partial, op.getDpsInitOperand(0)->get(),
                             AffineMap::get(1, 0, {}, rewriter.getContext()),
                             {utils::IteratorType::reduction}, combine);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A linalg.reduce of every dim (TOSA's, once MergeReductions made one of
/// its per-axis reductions) as the generic the pattern above splits.
struct GeneralizeWholeReduce : public OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::ReduceOp op, PatternRewriter &rewriter) const override {
    auto outType = dyn_cast<RankedTensorType>(op.getInits()[0].getType());
    auto inType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    if (op.getInputs().size() != 1 || !outType || outType.getRank() != 0 || !inType ||
        !inType.hasStaticShape() || inType.getNumElements() < kMinElements)
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct SplitReductionsPass final : public impl::SplitReductionsPassBase<SplitReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitWholeReduction, GeneralizeWholeReduce>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
