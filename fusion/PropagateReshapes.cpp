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

/// An input read at index 0 of its size-1 dims (a bias of 256x1x1 read as
/// (d3, 0, 0), the broadcasts ONNX's importer and torch-mlir emit) is read
/// through a collapse_shape that drops those dims instead, so that every
/// map is a projected permutation. Expansion cannot fold a reshape into a
/// generic with constant map results: the 1x1 convolutions of torchvision
/// models kept their bias broadcast as a dispatch of its own, a 3 MB tensor
/// written and read again as the accumulator of the packed convolution.
///
/// Only where it matters, and where the broadcast's shape carries no other
/// meaning: a constant operand (a weight) of a generic whose result is
/// reshaped, keeping at least one dim. (A squeeze-excite gate read as
/// (d0, 0, 0, d3), computed, keeps its map: dispatch formation recognizes
/// it as a broadcast to take into the consumer's dispatch.)
static void dropUnitBroadcastDims(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  func.walk([&](linalg::GenericOp op) {
    bool reshaped = llvm::any_of(op->getUsers(), [](Operation *user) {
      return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user);
    });
    if (!reshaped)
      return;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool changed = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(in->get().getType());
      AffineMap map = maps[in->getOperandNumber()];
      if (!type || type.getRank() != map.getNumResults() ||
          !matchPattern(in->get(), m_Constant()))
        continue;
      SmallVector<bool> drop;
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto c = dyn_cast<AffineConstantExpr>(expr);
        drop.push_back(c && c.getValue() == 0 && type.getDimSize(d) == 1);
      }
      if (llvm::none_of(drop, [](bool b) { return b; }) ||
          llvm::all_of(drop, [](bool b) { return b; }))
        continue;
      // Dropped dims join the group of the kept dim before them (or after,
      // at the front); all dropped: a rank-0 tensor.
      SmallVector<ReassociationIndices> groups;
      SmallVector<AffineExpr> kept;
      ReassociationIndices leading;
      for (auto [d, dropped] : llvm::enumerate(drop)) {
        if (dropped) {
          if (groups.empty())
            leading.push_back(static_cast<int64_t>(d));
          else
            groups.back().push_back(static_cast<int64_t>(d));
          continue;
        }
        groups.push_back(leading);
        leading.clear();
        groups.back().push_back(static_cast<int64_t>(d));
        kept.push_back(map.getResult(d));
      }
      rewriter.setInsertionPoint(op);
      Value collapsed =
          tensor::CollapseShapeOp::create(rewriter, op.getLoc(), in->get(), groups);
      in->set(collapsed);
      maps[in->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), kept, op.getContext());
      changed = true;
    }
    if (changed)
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

} // namespace

std::optional<SmallVector<ReassociationIndices>> unitReshapeGroups(Operation *reshape,
                                                                   ShapedType &wide) {
  SmallVector<ReassociationIndices> groups;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(reshape)) {
    groups = e.getReassociationIndices();
    wide = e.getResultType();
  } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(reshape)) {
    groups = c.getReassociationIndices();
    wide = c.getSrcType();
  } else {
    return std::nullopt;
  }
  for (const ReassociationIndices &g : groups)
    if (llvm::count_if(g, [&](int64_t d) { return wide.getDimSize(d) != 1; }) > 1)
      return std::nullopt;
  return groups;
}

namespace {

/// An elementwise generic reading an expand_shape or collapse_shape that
/// only inserts or drops unit dims reads the reshape's source instead, with
/// the reshape folded into its indexing map (a unit dim is index 0). A
/// keep-dims reduction (TOSA's reduce_max and reduce_sum in a softmax) then
/// reaches the consumer that broadcasts it without a reshape between them,
/// and they share a dispatch. Neither expansion nor sinking can do this: the
/// consumer reads the unit dim at the constant index 0, not through a loop.
struct FoldUnitReshapeIntoConsumer final : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseOp(op))
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      Operation *reshape = input->get().getDefiningOp();
      ShapedType wide;
      std::optional<SmallVector<ReassociationIndices>> groups =
          reshape ? unitReshapeGroups(reshape, wide) : std::nullopt;
      if (!groups)
        continue;
      bool expand = isa<tensor::ExpandShapeOp>(reshape);
      AffineMap map = op.getMatchingIndexingMap(input);
      // A read through loops only is left to sinking, which collapses the
      // consumer so that it still reads a root's result through a
      // permutation.
      if (map.isProjectedPermutation())
        continue;
      MLIRContext *ctx = op.getContext();
      AffineExpr zero = getAffineConstantExpr(0, ctx);
      // Expand: one source dim per group of the read (expanded) dims, its
      // index that of the group's non-unit dim. Collapse: each source dim of
      // a group takes the read dim's index if it is the non-unit one.
      SmallVector<AffineExpr> results;
      for (auto [i, g] : llvm::enumerate(*groups)) {
        auto nonUnit = llvm::find_if(g, [&](int64_t d) { return wide.getDimSize(d) != 1; });
        if (expand) {
          results.push_back(nonUnit == g.end() ? zero : map.getResult(*nonUnit));
        } else {
          for (int64_t d : g)
            results.push_back(nonUnit != g.end() && *nonUnit == d ? map.getResult(i)
                                                                  : zero);
        }
      }
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[input->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, ctx);
      rewriter.modifyOpInPlace(op, [&] {
        input->set(reshape->getOperand(0));
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// The root `v` is a reshape of (through at most one more reshape), null
/// otherwise.
static Operation *rootBehindReshapes(Value v) {
  for (int hops = 0; hops < 2; ++hops) {
    auto reshape = v.getDefiningOp();
    if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(reshape))
      break;
    v = reshape->getOperand(0);
    if (Operation *def = v.getDefiningOp(); def && isRootOp(def))
      return def;
  }
  return nullptr;
}

/// expand_shape(collapse_shape(root)) where no dim is both merged by the
/// collapse and split by the expand is the same reshape in the other order:
/// collapse_shape(expand_shape(root)). A packed contraction's [M, P, T]
/// result collapsed to [M, N] and expanded to ConvNeXt's [1, H, W, N]
/// becomes [1, H, W, P, T] collapsed to [1, H, W, N]: expansion then folds
/// the collapse into the elementwise consumer, which reads the root through
/// one expand_shape, as it read the unpacked matmul, and joins its dispatch.
/// Static shapes only.
struct SwapExpandOfRootCollapse final : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto collapse = expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !collapse.getSrc().getDefiningOp() ||
        collapse.getSrc().getDefiningOp() != rootBehindReshapes(expand.getSrc()) ||
        !collapse.getSrcType().hasStaticShape() || !expand.getResultType().hasStaticShape())
      return failure();
    SmallVector<ReassociationIndices> merged = collapse.getReassociationIndices();
    SmallVector<ReassociationIndices> split = expand.getReassociationIndices();
    ArrayRef<int64_t> src = collapse.getSrcType().getShape();
    ArrayRef<int64_t> out = expand.getResultType().getShape();
    // The middle shape's dim j: merged from merged[j], split into split[j].
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> first, second;
    int64_t y = 0;
    for (auto [m, e] : llvm::zip_equal(merged, split)) {
      if (m.size() > 1 && e.size() > 1)
        return failure();
      if (m.size() == 1) {
        // One source dim split into e.size() dims, each its own result dim.
        ReassociationIndices group;
        for (int64_t d : e) {
          shape.push_back(out[d]);
          group.push_back(y);
          second.push_back({y++});
        }
        first.push_back(group);
      } else {
        // Source dims kept whole, then merged into one result dim.
        ReassociationIndices group;
        for (int64_t d : m) {
          shape.push_back(src[d]);
          first.push_back({y});
          group.push_back(y++);
        }
        second.push_back(group);
      }
    }
    if (llvm::all_of(merged, [](const ReassociationIndices &g) { return g.size() == 1; }))
      return failure();
    Location loc = expand.getLoc();
    auto wide = RankedTensorType::get(shape, expand.getResultType().getElementType());
    Value widened =
        tensor::ExpandShapeOp::create(rewriter, loc, wide, collapse.getSrc(), first);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(expand, expand.getResultType(), widened,
                                                         second);
    return success();
  }
};

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
    dropUnitBroadcastDims(func);
    // 1. By expansion.
    auto expand = [&](linalg::ControlFusionFn allow) {
      RewritePatternSet patterns(ctx);
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, allow);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
      return applyPatternsGreedily(func, std::move(patterns), config);
    };
    if (failed(expand(control)))
      return signalPassFailure();
    // 2. Sink what remains: elementwise consumers of a reshape that only
    // inserts or drops unit dims read its source (FoldUnitReshapeIntoConsumer);
    // those of another expand_shape work on its source shape.
    {
      RewritePatternSet patterns(ctx);
      patterns.add<FoldUnitReshapeIntoConsumer>(ctx, /*benefit=*/2);
      linalg::populateFoldReshapeOpsByCollapsingPatterns(
          patterns, [](OpOperand *operand) {
            auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
            Operation *owner = operand->getOwner();
            if (!expand || !isa<linalg::GenericOp>(owner) || !isElementwiseOp(owner))
              return false;
            // Not a bias broadcast in weight panels: collapsed, it would be
            // an expand_shape away from the packed contraction it
            // initializes, and a dispatch of its own.
            if (owner->hasOneUse() &&
                (*owner->getUsers().begin())->hasAttr(kPackedPanelsAttrName))
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
    // 3. Expansion again, on what sinking uncovered: a consumer that read
    // an expand_shape of a collapse_shape (a packed matmul's [M, P, T]
    // result collapsed to [M, N], then ONNX's [1, M, N]) reads the
    // collapse_shape alone once sunk, and expands to the root's shape
    // (ViT-B/16's bias adds and GELUs joined their matmuls' dispatches).
    // Only a root's collapse_shape into its consumers: an expand_shape of a
    // sunk consumer's result stays where sinking put it, and a collapsed
    // function argument stays collapsed (a layer norm's reductions read it).
    // A root's expand_shape of a collapse_shape is swapped first
    // (SwapExpandOfRootCollapse), and its collapse_shape then folds into the
    // consumer the same way.
    {
      RewritePatternSet patterns(ctx);
      patterns.add<SwapExpandOfRootCollapse>(ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
        return signalPassFailure();
    }
    if (failed(expand([&](OpOperand *operand) {
          return operand->get().getDefiningOp<tensor::CollapseShapeOp>() &&
                 rootBehindReshapes(operand->get()) &&
                 isa<linalg::GenericOp>(operand->getOwner()) &&
                 isFoldableEnd(operand->getOwner());
        })))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
