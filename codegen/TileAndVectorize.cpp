//===- TileAndVectorize.cpp - workgroup, cache and vector tiles ----------===//
//
// Tiles the op that produces a dispatch's result with its producers fused, at
// three levels (an scf.forall of workgroups, cache tiles, vector-register
// tiles), tiles reduction loops last, decomposes 2-D convolutions to 1-D and
// vectorizes every linalg op. The tile-size policy is `selectTileSizes`.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "codegen/Strategy.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-codegen-tile-and-vectorize"

namespace jitrun {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

static SmallVector<OpFoldResult> asFoldResults(OpBuilder &b,
                                               ArrayRef<int64_t> sizes) {
  return llvm::to_vector(llvm::map_range(
      sizes, [&](int64_t s) -> OpFoldResult { return b.getIndexAttr(s); }));
}

/// Tiles `root` with `sizes` and fuses every producer inside the dispatch;
/// returns the tiled root.
static FailureOr<TilingInterface>
tileAndFuse(RewriterBase &rewriter, TilingInterface root,
            ArrayRef<int64_t> sizes, scf::SCFTilingOptions::LoopType loopType,
            bool fuseReductions = true) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return root;
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(asFoldResults(rewriter, sizes));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // A fused producer whose result is also a dispatch output (multi-result
  // dispatches of aggressive fusion) yields its tiles too, so that the
  // untiled producer is not kept alive and computed again.
  options.setFusionControlFn(
      [fuseReductions](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // Below the workgroup level a row reduction (mean, max, sum of a
        // softmax or layer norm) is not fused into its broadcast consumer:
        // each finer tile of the consumer would compute it again. It stays
        // whole for the workgroup's rows, in a stack buffer.
        if (!fuseReductions)
          if (auto l = dyn_cast<linalg::LinalgOp>(producer.getOwner()))
            if (l.getNumReductionLoops() > 0 && !linalg::isaContractionOpInterface(l) &&
                !isa<linalg::ConvolutionOpInterface>(l.getOperation()))
              return std::nullopt;
        scf::SCFTileAndFuseOptions::ControlFnResult r;
        r.yieldProducerReplacement = llvm::any_of(producer.getUsers(), [](Operation *u) {
          return isa<bufferization::MaterializeInDestinationOp,
                     tensor::ParallelInsertSliceOp, tensor::InsertSliceOp,
                     scf::YieldOp>(u);
        });
        return r;
      });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
  if (failed(result))
    return failure();
  // Only uses after the new loops take the replacement; those before or
  // inside (tile-size computations) keep the original.
  Operation *outer = result->loops.empty() ? nullptr : result->loops.front();
  DominanceInfo dom;
  for (auto [orig, repl] : result->replacements)
    rewriter.replaceUsesWithIf(orig, repl, [&](OpOperand &use) {
      return !outer || dom.properlyDominates(outer, use.getOwner());
    });
  auto tiled = dyn_cast<TilingInterface>(result->tiledAndFusedOps.front());
  if (!tiled)
    return failure();
  // Tile sizes of edge tiles are read back with tensor.dim of the fused
  // producers' results; resolve those to the producers' own sizes, or the
  // untiled producers stay alive and are computed twice.
  RewritePatternSet patterns(rewriter.getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  tensor::DimOp::getCanonicalizationPatterns(patterns, rewriter.getContext());
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(tiled->getParentOfType<func::FuncOp>(),
                              std::move(patterns), config);
  return tiled;
}

/// Tiles the reduction loops of every linalg op nested in `fn` that has them.
static void tileReductions(RewriterBase &rewriter, func::FuncOp fn,
                           const TileSizeOptions &opts) {
  SmallVector<linalg::LinalgOp> ops;
  fn.walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() > 0)
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    SmallVector<int64_t> sizes = selectReductionTileSizes(op, opts);
    if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
      continue;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asFoldResults(rewriter, sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), tiling);
    if (failed(result))
      continue;
    rewriter.replaceOp(op, result->replacements);
  }
}

/// Splits every tile loop whose step does not divide its range into a loop
/// of full tiles and one partial iteration, outer loops first (the partial
/// copies of an outer loop are peeled in their turn). Full tiles get static
/// shapes and vectorize without masks; only the edge tiles are masked. A
/// 4225 x 72 matmul with 8 x 32 vector tiles would otherwise run masked code
/// in every tile, because each tile's size is an affine.min of its offset.
static void peelPartialTiles(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<scf::ForOp> worklist;
  fn.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) { worklist.push_back(loop); });
  for (size_t i = 0; i < worklist.size(); ++i) {
    scf::ForOp partial;
    rewriter.setInsertionPoint(worklist[i]);
    if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, worklist[i], partial)))
      continue;
    partial->walk<WalkOrder::PreOrder>([&](scf::ForOp inner) {
      if (inner != partial)
        worklist.push_back(inner);
    });
  }
}

/// A convolution whose filter window has been tiled to one tap reads its
/// input through `out * stride`: the same as an elementwise-with-reduction
/// generic over a strided slice of the input. This rewrites it so, for the
/// layouts the 1-D convolution vectorizer does not take (NCHW depthwise).
static FailureOr<linalg::GenericOp> unitWindowConvToGeneric(RewriterBase &rewriter,
                                                            linalg::LinalgOp op) {
  if (!isa<linalg::ConvolutionOpInterface>(op.getOperation()) ||
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

struct TileAndVectorizePass final
    : public impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    TileSizeOptions opts{vectorBits, targetWorkgroups, tileScale, vnni};

    // 1. The op whose result is stored into the first output buffer.
    // With several outputs, the last of them in block order: it consumes
    // the others, which are fused into its tiles.
    TilingInterface root;
    fn.walk([&](bufferization::MaterializeInDestinationOp store) {
      auto op = store.getSource().getDefiningOp<TilingInterface>();
      if (op && (!root || root->isBeforeInBlock(op)))
        root = op;
    });
    if (root) {
      TileSizes sizes = selectTileSizes(root, opts);
      rewriter.setInsertionPoint(root);
      // 2. Workgroup tiles: an scf.forall that becomes the grid.
      FailureOr<TilingInterface> tiled = tileAndFuse(
          rewriter, root, sizes.workgroup, scf::SCFTilingOptions::LoopType::ForallOp);
      // 3. Cache tiles, then 4. vector-register tiles.
      if (succeeded(tiled))
        tiled = tileAndFuse(rewriter, *tiled, sizes.cache,
                            scf::SCFTilingOptions::LoopType::ForOp,
                            /*fuseReductions=*/!sizes.reductionsAtWorkgroupLevel);
      if (succeeded(tiled))
        tiled = tileAndFuse(rewriter, *tiled, sizes.vector,
                            scf::SCFTilingOptions::LoopType::ForOp,
                            /*fuseReductions=*/!sizes.reductionsAtWorkgroupLevel);
      if (failed(tiled)) {
        root->emitWarning() << "could not tile this dispatch; it runs as one "
                               "workgroup of scalar loops";
      }
    }
    // 5. Full tiles apart from edge tiles, then reduction loops.
    peelPartialTiles(rewriter, fn);
    tileReductions(rewriter, fn, opts);
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
    // 6. Vectorize every linalg op, masked where its shape is dynamic.
    SmallVector<linalg::LinalgOp> candidates;
    fn.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
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
    // 7. Fold slices into transfers and clean up.
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    (void)applyPatternsGreedily(fn, std::move(patterns));
  }
};

} // namespace
} // namespace jitrun
