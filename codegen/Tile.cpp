//===- Tile.cpp - workgroup, cache, vector and reduction tiles ------------===//
//
// The tiling passes of a dispatch, each reading the IR the one before left:
// jitrun-codegen-select-strategy writes the root's lowering config (the
// policy, Strategy.cpp); jitrun-codegen-tile tiles the root with its producers fused at the three
// levels of its lowering config (an scf.forall of workgroups, cache tiles,
// vector-register tiles); jitrun-codegen-peel-partial-tiles splits edge tiles
// off; jitrun-codegen-tile-reductions tiles reduction loops last.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "codegen/Strategy.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/AffineCanonicalizationUtils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_SELECTSTRATEGYPASS
#define GEN_PASS_DEF_TILEROOTPASS
#define GEN_PASS_DEF_PEELPARTIALTILESPASS
#define GEN_PASS_DEF_TILEREDUCTIONSPASS
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
            bool fuseAnchor = true) {
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
  bool workgroupLevel = loopType == scf::SCFTilingOptions::LoopType::ForallOp;
  options.setFusionControlFn(
      [fuseAnchor, workgroupLevel](tensor::ExtractSliceOp slice, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // Below the workgroup level an anchor read through a broadcast (the
        // mean, max or sum of a softmax or layer norm; a squeeze-excite
        // convolution) is not fused into its consumer: each finer tile of
        // the consumer would compute it again. It stays whole for the
        // workgroup, in a stack buffer.
        // A pad is never tiled with its consumer: jitrun-codegen-read-padding-in-place reads
        // the interior tiles straight from the unpadded input instead.
        if (isa<tensor::PadOp>(producer.getOwner()))
          return std::nullopt;
        if (!workgroupLevel && producer.getOwner()->hasAttr(kWorkgroupLevelAttrName))
          return std::nullopt;
        if (!fuseAnchor) {
          if (auto l = dyn_cast<linalg::LinalgOp>(producer.getOwner()))
            if (l.getNumReductionLoops() > 0)
              return std::nullopt;
          // Nor what the consumer reads through a broadcast (the sigmoid of
          // a squeeze-excite gate): it would run once per finer tile.
          for (OpOperand &use : slice->getUses())
            if (auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner()))
              if (!consumer.getMatchingIndexingMap(&use).isPermutation())
                return std::nullopt;
        }
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

/// Tiles the parallel loops of the ops kept at the workgroup level (the row
/// sums of a VNNI contraction, whole for the workgroup's rows) to vector
/// tiles of their own: runs of at most 16 along their innermost parallel
/// loop, or the one before when the innermost is the 16 lanes of partial
/// sums. Vectorized whole, 2 x 28 pixels of a 1x1 convolution's workgroup
/// would be one vector of 56 x 16 lanes, transposed at once.
static void tileWorkgroupLevelOps(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<linalg::LinalgOp> ops;
  fn.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kWorkgroupLevelAttrName) && !op.hasDynamicShape())
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> sizes(iters.size(), 0);
    bool innermost = true;
    bool laneSums = iters.back() == utils::IteratorType::parallel;
    for (int i = static_cast<int>(iters.size()) - 1 - (laneSums ? 1 : 0); i >= 0; --i) {
      if (iters[i] != utils::IteratorType::parallel)
        continue;
      if (innermost) {
        innermost = false;
        int64_t t = 16;
        while (ranges[i] % t != 0)
          --t;
        sizes[i] = t < ranges[i] ? t : 0;
      } else {
        sizes[i] = ranges[i] > 1 ? 1 : 0;
      }
    }
    if (llvm::all_of(sizes, [](int64_t t) { return t == 0; }))
      continue;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asFoldResults(rewriter, sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), tiling);
    if (succeeded(result))
      rewriter.replaceOp(op, result->replacements);
  }
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
    // A root's lowering config may set them (`reduction`); else the strategy.
    SmallVector<int64_t> sizes;
    auto config = op->getAttrOfType<DictionaryAttr>(kLoweringConfigAttrName);
    auto given = config ? config.getAs<DenseI64ArrayAttr>("reduction") : nullptr;
    if (given && given.size() == op.getNumLoops())
      sizes.assign(given.asArrayRef().begin(), given.asArrayRef().end());
    else {
      sizes = selectReductionTileSizes(op, opts);
      tileRowsOfReduction(op, sizes);
    }
    if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
      continue;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asFoldResults(rewriter, sizes));
    rewriter.setInsertionPoint(op);
    // Producers marked to be fused into the reduction loop are, one
    // reduction tile per iteration; nothing through the accumulator.
    bool fuse = llvm::any_of(op.getDpsInputOperands(), [](OpOperand *in) {
      Operation *def = in->get().getDefiningOp();
      return def && def->hasAttr(kFuseIntoReductionAttrName);
    });
    if (fuse) {
      scf::SCFTileAndFuseOptions options;
      options.setTilingOptions(tiling);
      options.setFusionControlFn(
          [](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
              -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
            if (isDestination || !producer.getOwner()->hasAttr(kFuseIntoReductionAttrName))
              return std::nullopt;
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          });
      FailureOr<scf::SCFTileAndFuseResult> result = scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(result))
        continue;
      for (auto [orig, repl] : result->replacements)
        rewriter.replaceAllUsesWith(orig, repl);
      continue;
    }
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
///
/// Peeling an outer loop makes the sizes its full tiles hand to inner loops
/// constant, but as `affine.apply () -> (128)` and `affine.min (-d0 + s0,
/// 32)` of such values: before a loop is considered, the affine ops that
/// compute its bounds are folded to constants, and a loop with nothing to
/// peel (its step divides its range) has the min/max ops of its body
/// simplified by its range. Otherwise the inner loops of a full tile kept
/// dynamic sizes: a 256x784 matmul with a relu epilogue (cache tiles of 128
/// columns, the last of 16) failed to compile, its tile's temporary a
/// stack buffer of dynamic size.
static void foldConstantAffineOps(RewriterBase &rewriter, Operation *scope) {
  SmallVector<Operation *> ops;
  scope->walk([&](Operation *op) {
    if (isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    SmallVector<Attribute> operands;
    for (Value v : op->getOperands()) {
      Attribute a;
      if (!matchPattern(v, m_Constant(&a)))
        break;
      operands.push_back(a);
    }
    if (operands.size() != op->getNumOperands())
      continue;
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.size() != 1)
      continue;
    auto attr = dyn_cast_if_present<IntegerAttr>(dyn_cast<Attribute>(results[0]));
    if (!attr)
      continue;
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(op, attr.getInt());
  }
}

static void peelPartialTiles(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<scf::ForOp> worklist;
  fn.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) { worklist.push_back(loop); });
  for (size_t i = 0; i < worklist.size(); ++i) {
    scf::ForOp loop = worklist[i];
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (Operation *def = bound.getDefiningOp())
        foldConstantAffineOps(rewriter, def);
    scf::ForOp partial;
    rewriter.setInsertionPoint(loop);
    if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial))) {
      SmallVector<Operation *> minMax;
      loop.getBody()->walk([&](Operation *op) {
        if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op))
          minMax.push_back(op);
      });
      for (Operation *op : minMax)
        (void)scf::canonicalizeMinMaxOpInLoop(rewriter, op, scf::matchForLikeLoop);
      continue;
    }
    partial->walk<WalkOrder::PreOrder>([&](scf::ForOp inner) {
      if (inner != partial)
        worklist.push_back(inner);
    });
  }
  // The sizes of full tiles' slices, constant now.
  foldConstantAffineOps(rewriter, fn);
}

/// A generic kernel's contraction generic over a dynamic parallel dim (a
/// packed matmul's rows): its full tiles are static after peeling, but the
/// vectorizer's masked writes through its permuted output map do not
/// verify, so the edge tile runs one row at a time instead of masked: every
/// linalg op left with a dynamic parallel dim is tiled by 1 along it. (The
/// strategy used to give such dims one-row tiles throughout: 2.6x slower
/// than the specialized kernel on a 100 x 256 x 1024 matmul.)
static void unitTileDynamicEdges(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<linalg::LinalgOp> ops;
  bool contraction = false;
  auto dynamicParallel = [](linalg::LinalgOp op) {
    SmallVector<bool> dims;
    for (auto [range, iter] :
         llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      dims.push_back(ShapedType::isDynamic(range) && iter == utils::IteratorType::parallel);
    return dims;
  };
  auto collect = [&] {
    ops.clear();
    contraction = false;
    fn.walk([&](linalg::LinalgOp op) {
      if (!llvm::is_contained(dynamicParallel(op), true))
        return;
      ops.push_back(op);
      contraction |= isa<linalg::GenericOp>(op.getOperation()) &&
                     linalg::isaContractionOpInterface(op);
    });
  };
  collect();
  if (!contraction)
    return;
  // Full tiles' slices have constant sizes but dynamic types until
  // canonicalized: static first, so that only the edge's ops are left. So
  // does a static edge, once its loop of one iteration is inlined and its
  // size folds (128 rows in tiles of 12: the last 8 in one 8-row tile, not
  // in 8 one-row tiles, whose one accumulator per step made them 10 % of a
  // BERT projection's time).
  MLIRContext *ctx = fn.getContext();
  RewritePatternSet patterns(ctx);
  scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
  affine::AffineMinOp::getCanonicalizationPatterns(patterns, ctx);
  affine::AffineMaxOp::getCanonicalizationPatterns(patterns, ctx);
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  ctx->getLoadedDialect<tensor::TensorDialect>()->getCanonicalizationPatterns(patterns);
  ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
  (void)applyPatternsGreedily(fn, std::move(patterns));
  collect();
  for (linalg::LinalgOp op : ops) {
    SmallVector<int64_t> sizes;
    for (bool unit : dynamicParallel(op))
      sizes.push_back(unit ? 1 : 0);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asFoldResults(rewriter, sizes));
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), tiling);
    if (succeeded(result))
      rewriter.replaceOp(op, result->replacements);
  }
}

struct TileRootPass final : public impl::TileRootPassBase<TileRootPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    TilingInterface root = findTileRoot(fn);
    if (!root)
      return;
    auto config = root->getAttrOfType<DictionaryAttr>(kLoweringConfigAttrName);
    if (!config) {
      root->emitError() << "no " << kLoweringConfigAttrName
                        << " on the dispatch's root (jitrun-codegen-select-strategy writes one)";
      return signalPassFailure();
    }
    FailureOr<TileSizes> sizes = parseLoweringConfig(root, config);
    if (failed(sizes))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    rewriter.setInsertionPoint(root);
    // Workgroup tiles: an scf.forall that becomes the grid.
    FailureOr<TilingInterface> tiled = tileAndFuse(
        rewriter, root, sizes->workgroup, scf::SCFTilingOptions::LoopType::ForallOp);
    if (succeeded(tiled) && fn->hasAttr(kVnniShiftedAttrName))
      tileWorkgroupLevelOps(rewriter, fn);
    // Cache tiles, then vector-register tiles.
    if (succeeded(tiled))
      tiled = tileAndFuse(rewriter, *tiled, sizes->cache, scf::SCFTilingOptions::LoopType::ForOp,
                          /*fuseAnchor=*/!sizes->anchorAtWorkgroupLevel);
    if (succeeded(tiled))
      tiled = tileAndFuse(rewriter, *tiled, sizes->vector, scf::SCFTilingOptions::LoopType::ForOp,
                          /*fuseAnchor=*/!sizes->anchorAtWorkgroupLevel);
    if (failed(tiled))
      root->emitWarning() << "could not tile this dispatch; it runs as one "
                             "workgroup of scalar loops";
  }
};

struct PeelPartialTilesPass final
    : public impl::PeelPartialTilesPassBase<PeelPartialTilesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    peelPartialTiles(rewriter, getOperation());
    unitTileDynamicEdges(rewriter, getOperation());
  }
};

struct SelectStrategyPass final : public impl::SelectStrategyPassBase<SelectStrategyPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    TilingInterface root = findTileRoot(fn);
    // A config already there is an override: kept as it is.
    if (!root || root->hasAttr(kLoweringConfigAttrName))
      return;
    TileSizeOptions opts{vectorBits, targetWorkgroups, tileScale, vnni, bf16, maxTapTilePixels};
    TileSizes sizes = selectTileSizes(root, opts);
    if (auto linalgRoot = dyn_cast<linalg::LinalgOp>(root.getOperation());
        linalgRoot && linalgRoot.getNumReductionLoops() > 0) {
      SmallVector<int64_t> reduction = selectReductionTileSizes(linalgRoot, opts);
      if (llvm::any_of(reduction, [](int64_t s) { return s != 0; }))
        sizes.reduction = std::move(reduction);
    }
    root->setAttr(kLoweringConfigAttrName, loweringConfig(&getContext(), sizes));
  }
};

struct TileReductionsPass final : public impl::TileReductionsPassBase<TileReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    TileSizeOptions opts;
    opts.vectorBits = vectorBits;
    opts.vnni = vnni;
    opts.bf16 = bf16;
    tileReductions(rewriter, getOperation(), opts);
  }
};

} // namespace
} // namespace jitrun
