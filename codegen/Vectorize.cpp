//===- Vectorize.cpp - every linalg op of a tiled dispatch to vectors -----===//
//
// After tiling: full tiles' slices become static, 2-D convolutions and
// poolings decompose to 1-D, unit dims of expanded, packed and VNNI
// contractions are dropped, and every linalg op is vectorized with the linalg
// vectorizer (masked where its shape is dynamic); slices fold into transfers.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "codegen/Strategy.h"
#include "contract/Dispatch.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_VECTORIZEPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// A convolution whose filter window has been tiled to one tap reads its
/// input through `out * stride`: the same as an elementwise-with-reduction
/// generic over a strided slice of the input. This rewrites it so, for the
/// layouts the 1-D convolution vectorizer does not take (NCHW depthwise).
static FailureOr<linalg::GenericOp> unitWindowConvToGeneric(RewriterBase &rewriter,
                                                            linalg::LinalgOp op) {
  if (!isa<linalg::ConvolutionOpInterface, linalg::GenericOp>(op.getOperation()) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op.hasDynamicShape())
    return failure();
  FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(op);
  if (failed(dims))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned f : dims->filterLoop)
    if (ranges[f] != 1)
      return failure();
  MLIRContext *ctx = op->getContext();
  unsigned numLoops = op.getNumLoops();
  // Filter loops are 0: substitute them away from the input map.
  SmallVector<AffineExpr> repl;
  for (unsigned d = 0; d < numLoops; ++d)
    repl.push_back(llvm::is_contained(dims->filterLoop, d)
                       ? getAffineConstantExpr(0, ctx)
                       : getAffineDimExpr(d, ctx));
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap inMap = op.getMatchingIndexingMap(input)
                        .replaceDimsAndSymbols(repl, {}, numLoops, 0);
  auto inType = cast<RankedTensorType>(input->get().getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<AffineExpr> newResults;
  SmallVector<int64_t> sliceShape;
  for (AffineExpr e : inMap.getResults()) {
    e = simplifyAffineExpr(e, numLoops, 0);
    int64_t stride = 1;
    AffineExpr dim = e;
    if (auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        bin && e.getKind() == AffineExprKind::Mul) {
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (!c || !isa<AffineDimExpr>(bin.getLHS()))
        return failure();
      stride = c.getValue();
      dim = bin.getLHS();
    }
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      // A dimension indexed only by filter taps (extent-1 window): tap 0.
      if (c.getValue() != 0)
        return failure();
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(1));
      strides.push_back(rewriter.getIndexAttr(1));
      sliceShape.push_back(1);
      newResults.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    auto d = dyn_cast<AffineDimExpr>(dim);
    if (!d)
      return failure();
    int64_t extent = ranges[d.getPosition()];
    offsets.push_back(rewriter.getIndexAttr(0));
    sizes.push_back(rewriter.getIndexAttr(extent));
    strides.push_back(rewriter.getIndexAttr(stride));
    sliceShape.push_back(extent);
    newResults.push_back(d);
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto sliceType = RankedTensorType::get(sliceShape, inType.getElementType());
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, sliceType,
                                               input->get(), offsets, sizes, strides);
  // The constant-0 results of the new map are not projected permutations the
  // vectorizer accepts as reads; give those slice dimensions to a filter loop
  // of extent 1 instead.
  for (AffineExpr &e : newResults)
    if (isa<AffineConstantExpr>(e))
      e = getAffineDimExpr(dims->filterLoop.front(), ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[0] = AffineMap::get(numLoops, 0, newResults, ctx);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(),
      ValueRange{slice, op.getDpsInputOperand(1)->get()},
      ValueRange{op.getDpsInitOperand(0)->get()}, maps,
      op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op->getRegion(0), generic.getRegion(),
                              generic.getRegion().begin());
  rewriter.replaceOp(op, generic->getResults());
  return generic;
}

/// Upper bounds of the loop ranges of `op`, for masked vectorization.
static std::optional<SmallVector<int64_t>> loopUpperBounds(linalg::LinalgOp op) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  for (auto [dim, bound] : llvm::enumerate(bounds)) {
    if (!ShapedType::isDynamic(bound))
      continue;
    // Find an operand dimension that this loop indexes directly.
    bool found = false;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<ShapedType>(operand.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        auto d = dyn_cast<AffineDimExpr>(expr);
        if (!d || d.getPosition() != dim)
          continue;
        FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
            presburger::BoundType::UB,
            ValueBoundsConstraintSet::Variable(operand.get(), pos),
            /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (succeeded(ub)) {
          bound = *ub;
          found = true;
          break;
        }
      }
      if (found)
        break;
    }
    if (!found)
      return std::nullopt;
  }
  return bounds;
}

/// True when every operand is read through a projected permutation that keeps
/// the loop order, ignoring loops of extent 1; masked vectorization of
/// transposing reads is not reliable.
static bool readsInOrder(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return false;
    int64_t last = -1;
    for (AffineExpr e : map.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || ranges[d.getPosition()] == 1)
        continue;
      if (static_cast<int64_t>(d.getPosition()) < last)
        return false;
      last = d.getPosition();
    }
  }
  return true;
}
/// A vector read of a tensor.expand_shape (the weights of an expanded
/// contraction, viewed per head) as a read of the unexpanded tensor at the
/// linearized indices, when the vector only runs along the last dimension of
/// a reshaped group (contiguous in the source). Upstream's memref alias
/// folding loops without progress on such reads after bufferization.
struct ReadThroughExpandShape final : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto expand = read.getBase().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || read.getMask() || !expand.getSrcType().hasStaticShape())
      return failure();
    AffineMap map = read.getPermutationMap();
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<unsigned> groupOf(shape.size());
    for (auto [g, group] : llvm::enumerate(expand.getReassociationIndices()))
      for (int64_t d : group)
        groupOf[d] = g;
    SmallVector<AffineExpr> results;
    for (auto [e, size] : llvm::zip(map.getResults(), read.getVectorType().getShape())) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d) {
        results.push_back(e);
        continue;
      }
      ReassociationIndices group = expand.getReassociationIndices()[groupOf[d.getPosition()]];
      // A unit vector dimension reads one element: a broadcast of it.
      if (size == 1 && d.getPosition() != static_cast<unsigned>(group.back())) {
        results.push_back(rewriter.getAffineConstantExpr(0));
        continue;
      }
      if (d.getPosition() != static_cast<unsigned>(group.back()))
        return rewriter.notifyMatchFailure(read, "vector along an outer dimension of a group");
      results.push_back(rewriter.getAffineDimExpr(groupOf[d.getPosition()]));
    }
    Location loc = read.getLoc();
    SmallVector<Value> indices;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      AffineExpr linear = rewriter.getAffineConstantExpr(0);
      SmallVector<OpFoldResult> operands;
      for (auto [i, d] : llvm::enumerate(group)) {
        linear = linear * shape[d] + rewriter.getAffineDimExpr(i);
        operands.push_back(read.getIndices()[d]);
      }
      indices.push_back(getValueOrCreateConstantIndexOp(
          rewriter, loc,
          affine::makeComposedFoldedAffineApply(
              rewriter, loc, AffineMap::get(group.size(), 0, linear), operands)));
    }
    auto newMap = AffineMap::get(expand.getSrcType().getRank(), 0, results, getContext());
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), expand.getSrc(), indices, AffineMapAttr::get(newMap),
        read.getPadding(), Value(), read.getInBoundsAttr());
    return success();
  }
};

/// The tiled contraction of an expanded dispatch keeps the split dimension
/// with extent 1 (one head per tile): dropping it leaves the plain
/// (m, n, k) contraction that vectorizes to vector.contract like a matmul.
/// Drops the unit loops `control` picks from the linalg ops of `fn`; the
/// operands are rank-reduced with slices.
static void dropUnitDims(func::FuncOp fn, linalg::ControlDropUnitDims::ControlFnTy control) {
  linalg::ControlDropUnitDims options;
  options.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  options.controlFn = std::move(control);
  RewritePatternSet patterns(fn.getContext());
  linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
  (void)applyPatternsGreedily(fn, std::move(patterns));
}

static void dropUnitDimsOfContractions(func::FuncOp fn) {
  dropUnitDims(fn, [](Operation *op) -> SmallVector<unsigned> {
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g || !linalg::isaContractionOpInterface(g) || g->hasAttr(kAmxTilesAttrName))
      return {};
    // Parallel loops only: a dropped unit reduction loop would leave a
    // multiply and an add, not a contraction (no FMA).
    SmallVector<unsigned> dims;
    for (auto [i, it] : llvm::enumerate(g.getIteratorTypesArray()))
      if (it == utils::IteratorType::parallel)
        dims.push_back(i);
    return dims;
  });
}

/// A generic int8 convolution (shiftInt8RhsForVnni) tiled to one filter tap
/// per step is a contraction over its channels once its unit loops are gone:
/// the taps (while channels remain to reduce) and the unit parallel loops.
/// A named one gets there through the 1-D convolution decomposition.
static void dropUnitTapsOfInt8Convolutions(func::FuncOp fn) {
  dropUnitDims(fn, [](Operation *op) -> SmallVector<unsigned> {
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g || !isInt8Contraction(g) || g.hasDynamicShape() ||
        linalg::isaContractionOpInterface(g) || failed(linalg::inferConvolutionDims(g)))
      return {};
    // A strided window (oh * 2 + kh) left without its tap is no projected
    // permutation: unitWindowConvToGeneric reads it through a strided slice
    // at vectorization instead, and the unit taps stay.
    bool strided = llvm::any_of(g.getIndexingMapsArray(), [](AffineMap map) {
      return llvm::any_of(map.getResults(), [](AffineExpr e) {
        bool mul = false;
        e.walk([&](AffineExpr sub) { mul |= sub.getKind() == AffineExprKind::Mul; });
        return mul;
      });
    });
    if (strided)
      return {};
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iters = g.getIteratorTypesArray();
    bool channels = llvm::any_of(llvm::seq<size_t>(0, ranges.size()), [&](size_t i) {
      return iters[i] == utils::IteratorType::reduction && ranges[i] > 1;
    });
    SmallVector<unsigned> dims;
    for (size_t i = 0; i < ranges.size(); ++i)
      if (ranges[i] == 1 && (iters[i] == utils::IteratorType::parallel || channels))
        dims.push_back(i);
    return dims;
  });
}

struct VectorizePass final : public impl::VectorizePassBase<VectorizePass> {
  void runOnOperation() override;
};

void VectorizePass::runOnOperation() {
  func::FuncOp fn = getOperation();
  if (fn.isExternal())
    return;
  MLIRContext *ctx = &getContext();
  IRRewriter rewriter(ctx);
  bool expanded = fn->hasAttr(kExpandedReshapesAttrName);
  bool shifted = fn->hasAttr(kVnniShiftedAttrName);
  // A contraction over packed weight panels (jitrun-fusion-pack-weights)
  // is a generic with a unit row dim at one row: dropped like an expanded
  // contraction's, it is the plain (m, n, k) contraction.
  bool packed = false;
  fn.walk([&](linalg::GenericOp g) { packed |= g->hasAttr(kPackedPanelsAttrName); });
  {
    RewritePatternSet patterns(ctx);
    // Full tiles' slices become static and their ops take static shapes.
    ctx->getOrLoadDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    ctx->getOrLoadDialect<tensor::TensorDialect>()->getCanonicalizationPatterns(patterns);
    tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::populateDecomposeConvolutionPatterns(patterns);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    affine::AffineMinOp::getCanonicalizationPatterns(patterns, ctx);
    (void)applyPatternsGreedily(fn, std::move(patterns));
  }
  if (expanded || packed)
    dropUnitDimsOfContractions(fn);
  if (shifted)
    dropUnitTapsOfInt8Convolutions(fn);
  // Vectorize every linalg op, masked where its shape is dynamic.
  SmallVector<linalg::LinalgOp> candidates;
  // (Not a contraction in AMX tiles: jitrun-codegen-amx-contractions
  // lowers it after bufferization.)
  fn.walk([&](linalg::LinalgOp op) {
    if (!op->hasAttr(kAmxTilesAttrName))
      candidates.push_back(op);
  });
  for (linalg::LinalgOp op : candidates) {
    SmallVector<int64_t> vectorSizes;
    if (!op.hasDynamicShape()) {
      // Static: the vectorizer takes the shapes.
    } else if (std::optional<SmallVector<int64_t>> ub = loopUpperBounds(op);
               ub && (readsInOrder(op) || linalg::isaContractionOpInterface(op))) {
      // Contractions are vectorized as vector.contract on their operands
      // read as they are laid out: (k, n) of a matmul is no transpose.
      vectorSizes = *ub;
      // An edge tile left by peeling is bounded by one less than the tile
      // (31 of 32): masked at the tile's own power-of-two width, it
      // keeps whole registers.
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      for (auto [size, range] : llvm::zip(vectorSizes, ranges))
        if (ShapedType::isDynamic(range))
          size = static_cast<int64_t>(llvm::PowerOf2Ceil(size));
    } else {
      ++numScalar;
      continue;
    }
    rewriter.setInsertionPoint(op);
    SmallVector<bool> scalable(vectorSizes.size(), false);
    if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable,
                                               /*vectorizeNDExtract=*/true))) {
      FailureOr<linalg::GenericOp> generic = unitWindowConvToGeneric(rewriter, op);
      if (failed(generic) ||
          failed(linalg::vectorizeOpPrecondition(*generic, vectorSizes, scalable,
                                                 /*vectorizeNDExtract=*/true))) {
        ++numScalar;
        continue;
      }
      op = *generic;
      rewriter.setInsertionPoint(op);
    }
    FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
        rewriter, op, vectorSizes, scalable, /*vectorizeNDExtract=*/true,
        /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/linalg::isaContractionOpInterface(op));
    if (failed(result)) {
      ++numScalar;
      continue;
    }
    if (!result->replacements.empty())
      rewriter.replaceOp(op, result->replacements);
    else
      rewriter.eraseOp(op);
    ++numVectorized;
  }
  // Fold slices into transfers and clean up.
  RewritePatternSet patterns(ctx);
  tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
  if (expanded)
    patterns.add<ReadThroughExpandShape>(ctx);
  if (expanded || shifted || packed) {
    // The generic contraction vectorizes as a multiply and a reduction:
    // back to vector.contract, which lowers to FMAs like a matmul's.
    // Broadcasting reads become a read and a vector.broadcast, which the
    // contraction folds into its indexing maps.
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  }
  // The sign extension and the zero extension of a VNNI contraction's
  // operands, and the widening of a bf16 one's (--weights=bf16 over packed
  // panels or heads), sit on those broadcasts: move the broadcasts (and
  // transposes) below them, so that the contraction folds them too and
  // reads its bf16 operands as the AVX512_BF16 dot products want them.
  // Widened after the broadcast, a 197x768x768 bf16 contraction over
  // packed panels converted every broadcast element: 25 ms against 0.67.
  if (shifted || expanded || packed)
    vector::populateSinkVectorOpsPatterns(patterns);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
  scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(fn, std::move(patterns));
  fn->removeAttr(kExpandedReshapesAttrName);
  fn->removeAttr(kVnniShiftedAttrName);
}

} // namespace
} // namespace jitrun
