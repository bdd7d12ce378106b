//===- LowerVectors.cpp - vector ops toward LLVM, accumulators in registers ===//
//
// After bufferization: hoists loop-invariant transfers (so a contraction's
// accumulator stays in registers across its reduction loop), lowers
// contractions to outer products and FMAs, and the remaining n-D vector ops
// to forms the LLVM conversion handles well. Math functions become
// polynomial approximations that vectorize.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#define DEBUG_TYPE "jitrun-codegen-lower-vectors"

namespace jitrun {
#define GEN_PASS_DEF_LOWERVECTORSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// Masked tiles: upstream hoisting leaves a read/write pair alone when it
/// carries a mask, so the K loop of every partial (edge) tile reloads and
/// stores its accumulators each iteration, and LLVM cannot promote masked
/// loads. This hoists a pair of `scf.for`'s body that reads and writes the
/// same loop-invariant tile (same buffer, indices, mask and type) when no
/// other op of the loop touches that buffer (kernel buffers are distinct,
/// noalias arguments or allocas): the read goes before the loop, the value
/// becomes an iter_arg, the write goes after the loop.
static bool hoistMaskedTransferPair(RewriterBase &rewriter, scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto read : body->getOps<vector::TransferReadOp>()) {
    if (!read.getMask())
      continue;
    Value base = read.getBase();
    auto invariant = [&](Value v) { return !v || loop.isDefinedOutsideOfLoop(v); };
    if (!invariant(base) || !invariant(read.getMask()) || !invariant(read.getPadding()) ||
        !llvm::all_of(read.getIndices(), invariant))
      continue;
    vector::TransferWriteOp write;
    bool other = false;
    for (OpOperand &use : base.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isAncestor(user) || user == read.getOperation())
        continue;
      auto w = dyn_cast<vector::TransferWriteOp>(user);
      if (w && !write && w->getBlock() == body && read->isBeforeInBlock(w) &&
          w.getIndices() == read.getIndices() && w.getMask() == read.getMask() &&
          w.getVectorType() == read.getVectorType() &&
          w.getPermutationMap() == read.getPermutationMap() &&
          w.getInBounds() == read.getInBounds())
        write = w;
      else
        other = true;
    }
    if (!write || other)
      continue;
    // Views of the buffer inside the loop would be other accesses.
    if (!isa<BlockArgument>(base) && !isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(
                                         base.getDefiningOp()))
      continue;
    rewriter.moveOpBefore(read, loop);
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{read.getResult()}, /*replaceInitOperandUsesInLoop=*/true,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{write.getVector()};
        });
    if (failed(grown))
      return false;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    rewriter.moveOpAfter(write, newLoop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(newLoop.getResults().back());
    });
    return true;
  }
  return false;
}

static void hoistMaskedTransferPairs(func::FuncOp fn) {
  IRRewriter rewriter(fn.getContext());
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<scf::ForOp> loops;
    fn.walk([&](scf::ForOp loop) { loops.push_back(loop); }); // innermost first
    for (scf::ForOp loop : loops)
      if (hoistMaskedTransferPair(rewriter, loop)) {
        changed = true;
        break; // the loop was replaced: walk again
      }
  }
}

struct LowerVectorsPass final
    : public impl::LowerVectorsPassBase<LowerVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(fn, std::move(patterns));
    };
    // 1. Keep accumulators in registers across reduction loops. The
    // accumulator tile is a subview of the output buffer, and the hoisting
    // never moves transfers of a view: fold the subviews into the transfers'
    // indices first, so that the K loop carries the tile as a vector.
    // The folded indices are recomputed at each transfer: hoist them out of
    // the loops and merge equal ones, so that a read and a write of the
    // same tile have the same loop-invariant indices.
    // Not converging is no error here: the folds are an optimization, and
    // a 3-D read through an expand_shape (the lane sums of a VNNI row sum)
    // makes them report a change they did not make.
    (void)apply([&](RewritePatternSet &p) { memref::populateFoldMemRefAliasOpPatterns(p); });
    fn.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    {
      IRRewriter rewriter(ctx);
      DominanceInfo dom(fn);
      eliminateCommonSubExpressions(rewriter, dom, fn);
    }
    linalg::hoistRedundantVectorTransfers(fn, /*verifyNonZeroTrip=*/true);
    hoistMaskedTransferPairs(fn);
    // 2a. With VNNI, i8 x i8 -> i32 register tiles become vpdpbusd.
    if (vnni && failed(apply([&](RewritePatternSet &p) {
          populateVnniContractionPatterns(p);
        })))
      return signalPassFailure();
    // 2. Contractions to outer products and FMAs; reductions and masks.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })))
      return signalPassFailure();
    // 3. Unit dimensions (a tile of one pixel, one channel or one tap) go
    // away, so elementwise vector ops work on whole registers instead of
    // being unrolled into one-element vectors.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateDropUnitDimWithShapeCastPatterns(p);
          vector::ShapeCastOp::getCanonicalizationPatterns(p, ctx);
          vector::BroadcastOp::getCanonicalizationPatterns(p, ctx);
        })))
      return signalPassFailure();
    // 4. Transfers with permutations, transposes, broadcasts, shape casts.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorTransposeLoweringPatterns(
              p, vector::VectorTransposeLowering::Shuffle1D);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorShapeCastLoweringPatterns(p);
          vector::populateVectorGatherLoweringPatterns(p);
          vector::populateVectorStepLoweringPatterns(p);
        })))
      return signalPassFailure();
    // 5. Vectorizable polynomial approximations of exp, tanh, log, erf, ...
    if (failed(apply([&](RewritePatternSet &p) {
          populateMathPolynomialApproximationPatterns(p);
        })))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
