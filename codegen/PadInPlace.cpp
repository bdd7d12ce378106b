//===- PadInPlace.cpp - a fused pad read from the unpadded input ---------===//
//
// A depthwise convolution or pooling whose tensor.pad joined its dispatch
// (isFusedWindowPad) reads each vector tile of the padded input straight
// from the unpadded input when the tile lies inside it, and pads on the
// stack only the tiles that touch the border: the pass
// jitrun-codegen-read-padding-in-place, after jitrun-codegen-tile.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_READPADDINGINPLACEPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

static bool hasUnitStrides(tensor::ExtractSliceOp s) {
  return s.getSourceType().getRank() == s.getResultType().getRank() &&
         llvm::all_of(s.getMixedStrides(),
                      [](OpFoldResult st) { return isConstantIntValue(st, 1); });
}

/// The tensor.pad at the function's top level that `slice` reads through a
/// chain of unit-stride extract_slices, if it is one readPaddingInPlace
/// takes: constant padding value, static padding and source.
static tensor::PadOp paddedSource(tensor::ExtractSliceOp slice) {
  Value source = slice.getSource();
  for (auto s = slice; s; s = source.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!hasUnitStrides(s))
      return {};
    source = s.getSource();
  }
  auto pad = source.getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getConstantPaddingValue() || !pad.getLow().empty() ||
      !pad.getHigh().empty() || !pad.getSourceType().hasStaticShape() ||
      !isa<func::FuncOp>(pad->getParentOp()))
    return {};
  return pad;
}

/// `slice`'s offsets into the result of the pad its chain of slices reads.
static SmallVector<OpFoldResult> offsetsIntoPad(RewriterBase &rewriter,
                                                tensor::ExtractSliceOp slice) {
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  for (auto outer = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>(); outer;
       outer = outer.getSource().getDefiningOp<tensor::ExtractSliceOp>())
    for (auto [off, outerOff] : llvm::zip(offsets, outer.getMixedOffsets()))
      off = affine::makeComposedFoldedAffineApply(rewriter, slice.getLoc(), d0 + d1,
                                                  {outerOff, off});
  return offsets;
}

/// Replaces `slice` and the ops after it in its block by
/// `scf.if cond { interior } else { border }`: each branch gets its own
/// copy of those ops, reading the tile that its builder returns (built at
/// the start of the branch) in place of the slice, and yields what the
/// block's terminator uses of them.
static void versionBlockTail(RewriterBase &rewriter, tensor::ExtractSliceOp slice, Value cond,
                             function_ref<Value()> interior, function_ref<Value()> border) {
  Location loc = slice.getLoc();
  Block *block = slice->getBlock();
  SmallVector<Operation *> moved;
  for (Operation *op = slice->getNextNode(); op != block->getTerminator(); op = op->getNextNode())
    moved.push_back(op);
  llvm::DenseSet<Operation *> movedSet(moved.begin(), moved.end());
  auto outsideMoved = [&](OpOperand &use) {
    Operation *owner = block->findAncestorOpInBlock(*use.getOwner());
    return !owner || !movedSet.contains(owner);
  };
  llvm::SetVector<Value> escaping;
  for (Operation *op : moved)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUses(), outsideMoved))
        escaping.insert(result);
  rewriter.setInsertionPoint(slice);
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(escaping.getArrayRef()), cond,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  for (auto [branch, tileBuilder] :
       {std::pair{ifOp.thenBlock(), interior}, std::pair{ifOp.elseBlock(), border}}) {
    if (!branch->empty())
      rewriter.eraseOp(branch->getTerminator());
    rewriter.setInsertionPointToStart(branch);
    IRMapping map;
    map.map(slice.getResult(), tileBuilder());
    for (Operation *op : moved)
      rewriter.clone(*op, map);
    scf::YieldOp::create(rewriter, loc,
                         llvm::to_vector(llvm::map_range(
                             escaping, [&](Value v) { return map.lookupOrDefault(v); })));
  }
  for (auto [v, r] : llvm::zip(escaping, ifOp.getResults()))
    rewriter.replaceUsesWithIf(v, r, outsideMoved);
  for (Operation *op : llvm::reverse(moved))
    rewriter.eraseOp(op);
  rewriter.eraseOp(slice);
}

/// Largest number of rows (the product of a tile's outer dimensions) that
/// maskedRowsTile unrolls.
constexpr int64_t kMaxUnrolledPadRows = 64;

/// A border tile of `tileType` at `srcOffsets` in the input (the offsets into
/// the padded input minus the low padding), its innermost dimension not
/// padded (NHWC: channels): each row is one vector read under a mask that is
/// all on when the row lies inside the input and all off (the padding value,
/// no memory touched) when it does not, at row indices clamped into the
/// input. The rows are unrolled: no loop, no fill before, no per-row branch;
/// with constant positions in the tile, LLVM keeps the tile in registers.
static Value maskedRowsTile(RewriterBase &rewriter, Location loc, tensor::PadOp pad,
                            RankedTensorType tileType, ArrayRef<OpFoldResult> srcOffsets) {
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  ArrayRef<int64_t> srcShape = pad.getSourceType().getShape();
  unsigned rank = tileType.getRank();
  SmallVector<int64_t> outerShape(tileType.getShape().drop_back());
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Per dimension and position in the tile: the input index (clamped into
  // the input) and whether it lies inside; shared by all rows.
  SmallVector<SmallVector<Value>> index(rank - 1), inside(rank - 1);
  for (unsigned d = 0; d + 1 < rank; ++d)
    for (int64_t p = 0; p < outerShape[d]; ++p) {
      Value v = getValueOrCreateConstantIndexOp(
          rewriter, loc,
          affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + p, {srcOffsets[d]}));
      if (low[d] == 0 && high[d] == 0) {
        index[d].push_back(v);
        inside[d].push_back(Value());
        continue;
      }
      Value n = arith::ConstantIndexOp::create(rewriter, loc, srcShape[d]);
      inside[d].push_back(arith::AndIOp::create(
          rewriter, loc, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, v, c0),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, v, n)));
      Value last = arith::ConstantIndexOp::create(rewriter, loc, srcShape[d] - 1);
      index[d].push_back(arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, v, c0), last));
    }
  SmallVector<Value> positions;
  int64_t maxExtent = outerShape.empty() ? 0 : *llvm::max_element(outerShape);
  for (int64_t p = 0; p < maxExtent; ++p)
    positions.push_back(arith::ConstantIndexOp::create(rewriter, loc, p));
  auto rowType = VectorType::get({tileType.getShape().back()}, tileType.getElementType());
  auto maskType = VectorType::get({tileType.getShape().back()}, rewriter.getI1Type());
  Value innerOffset = getValueOrCreateConstantIndexOp(rewriter, loc, srcOffsets.back());
  Value tile =
      tensor::EmptyOp::create(rewriter, loc, tileType.getShape(), tileType.getElementType());
  SmallVector<int64_t> strides = computeStrides(outerShape);
  SmallVector<bool> rowInBounds = {true};
  for (int64_t r = 0, rows = computeProduct(outerShape); r < rows; ++r) {
    SmallVector<int64_t> pos = delinearize(r, strides);
    SmallVector<Value> src, dst;
    Value rowInside;
    for (unsigned d = 0; d + 1 < rank; ++d) {
      src.push_back(index[d][pos[d]]);
      dst.push_back(positions[pos[d]]);
      if (Value in = inside[d][pos[d]])
        rowInside = rowInside ? arith::AndIOp::create(rewriter, loc, rowInside, in) : in;
    }
    if (!rowInside)
      rowInside = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    src.push_back(innerOffset);
    dst.push_back(c0);
    Value mask = vector::BroadcastOp::create(rewriter, loc, maskType, rowInside);
    Value row = vector::TransferReadOp::create(
        rewriter, loc, rowType, pad.getSource(), src,
        AffineMapAttr::get(AffineMap::getMinorIdentityMap(srcShape.size(), 1,
                                                          rewriter.getContext())),
        pad.getConstantPaddingValue(), mask, rewriter.getBoolArrayAttr(rowInBounds));
    tile = vector::TransferWriteOp::create(
               rewriter, loc, row, tile, dst,
               AffineMapAttr::get(AffineMap::getMinorIdentityMap(rank, 1, rewriter.getContext())),
               Value(), rewriter.getBoolArrayAttr(rowInBounds))
               .getResult();
  }
  return tile;
}

/// A border tile of `tileType` at `srcOffsets` in the input, any dimension
/// padded (NCHW: the innermost, width): the tile is filled with the padding
/// value, then each row of the box that lies inside the input is copied as
/// one masked vector at its offset in the tile.
static Value copiedRowsTile(RewriterBase &rewriter, Location loc, tensor::PadOp pad,
                            RankedTensorType tileType, ArrayRef<OpFoldResult> srcOffsets,
                            ArrayRef<OpFoldResult> sizes) {
  ArrayRef<int64_t> srcShape = pad.getSourceType().getShape();
  unsigned rank = tileType.getRank();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  AffineExpr zero = rewriter.getAffineConstantExpr(0);
  // The part of the tile inside the input: [max(o, 0), min(o + size, n))
  // with o = offset - low, placed at its distance from the tile's start.
  SmallVector<OpFoldResult> inOffsets, inSizes, placeAt;
  for (unsigned d = 0; d < rank; ++d) {
    AffineExpr extent = rewriter.getAffineConstantExpr(srcShape[d]);
    OpFoldResult start = affine::makeComposedFoldedAffineMin(
        rewriter, loc, AffineMap::get(1, 0, {d0, extent}, ctx),
        {affine::makeComposedFoldedAffineMax(rewriter, loc,
                                             AffineMap::get(1, 0, {d0, zero}, ctx),
                                             {srcOffsets[d]})});
    OpFoldResult stop = affine::makeComposedFoldedAffineMin(
        rewriter, loc, AffineMap::get(2, 0, {d0 + d1, extent}, ctx), {srcOffsets[d], sizes[d]});
    inOffsets.push_back(start);
    inSizes.push_back(affine::makeComposedFoldedAffineMax(
        rewriter, loc, AffineMap::get(2, 0, {d1 - d0, zero}, ctx), {start, stop}));
    placeAt.push_back(
        affine::makeComposedFoldedAffineApply(rewriter, loc, d0 - d1, {start, srcOffsets[d]}));
  }
  Value padValue = pad.getConstantPaddingValue();
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, tileType.getShape(), tileType.getElementType());
  SmallVector<Value> zeros(rank, arith::ConstantIndexOp::create(rewriter, loc, 0));
  Value splat = vector::BroadcastOp::create(
      rewriter, loc, VectorType::get(tileType.getShape(), tileType.getElementType()), padValue);
  SmallVector<bool> inBounds(rank, true);
  Value filled =
      vector::TransferWriteOp::create(rewriter, loc, splat, empty, zeros, ArrayRef<bool>(inBounds))
          .getResult();
  auto rowType = VectorType::get({tileType.getShape().back()}, tileType.getElementType());
  Value rowMask = vector::CreateMaskOp::create(
      rewriter, loc, VectorType::get({tileType.getShape().back()}, rewriter.getI1Type()),
      ValueRange{getValueOrCreateConstantIndexOp(rewriter, loc, inSizes.back())});
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned d = 0; d + 1 < rank; ++d) {
    lbs.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, placeAt[d]));
    ubs.push_back(getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1, {placeAt[d], inSizes[d]})));
    steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
  }
  Value lastSrc = getValueOrCreateConstantIndexOp(rewriter, loc, inOffsets.back());
  Value lastDst = getValueOrCreateConstantIndexOp(rewriter, loc, placeAt.back());
  SmallVector<bool> rowInBounds = {true};
  scf::LoopNest rows = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, ValueRange{filled},
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) -> scf::ValueVector {
        SmallVector<Value> src, dst;
        for (unsigned d = 0; d + 1 < rank; ++d) {
          src.push_back(getValueOrCreateConstantIndexOp(
              b, l,
              affine::makeComposedFoldedAffineApply(b, l, d0 + d1 - d2,
                                                    {inOffsets[d], ivs[d], placeAt[d]})));
          dst.push_back(ivs[d]);
        }
        src.push_back(lastSrc);
        dst.push_back(lastDst);
        Value row = vector::TransferReadOp::create(
            b, l, rowType, pad.getSource(), src,
            AffineMapAttr::get(AffineMap::getMinorIdentityMap(srcShape.size(), 1, ctx)),
            padValue, rowMask, b.getBoolArrayAttr(rowInBounds));
        return {vector::TransferWriteOp::create(
                    b, l, row, args.front(), dst,
                    AffineMapAttr::get(AffineMap::getMinorIdentityMap(rank, 1, ctx)), rowMask,
                    b.getBoolArrayAttr(rowInBounds))
                    .getResult()};
      });
  return rows.results.front();
}

/// A depthwise convolution or pooling whose input is padded (the pad joins
/// the dispatch, fusion's isFusedWindowPad) reads each innermost tile of the
/// padded input through `slice`. Most tiles lie inside the unpadded input:
/// the rest of the tile's block is versioned on that, the interior copy
/// reading the input in place and the border copy padding just its tile on
/// the stack (maskedRowsTile, else copiedRowsTile). No host fill and copy of
/// the whole padded activation remains; before, the copy was a third of a
/// 3x3 depthwise convolution's time.
static void readPaddingInPlace(RewriterBase &rewriter, tensor::ExtractSliceOp slice,
                               tensor::PadOp pad) {
  Location loc = slice.getLoc();
  rewriter.setInsertionPoint(slice);
  SmallVector<OpFoldResult> offsets = offsetsIntoPad(rewriter, slice);
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  ArrayRef<int64_t> srcShape = pad.getSourceType().getShape();
  // Inside: low <= offset and offset + size <= low + source size, on every
  // padded dimension.
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  Value inside = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  SmallVector<OpFoldResult> srcOffsets;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    srcOffsets.push_back(
        affine::makeComposedFoldedAffineApply(rewriter, loc, d0 - low[d], {offsets[d]}));
    if (low[d] == 0 && high[d] == 0)
      continue;
    Value off = getValueOrCreateConstantIndexOp(rewriter, loc, offsets[d]);
    Value end = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1, {offsets[d], sizes[d]}));
    Value lo = arith::ConstantIndexOp::create(rewriter, loc, low[d]);
    Value hi = arith::ConstantIndexOp::create(rewriter, loc, low[d] + srcShape[d]);
    inside = arith::AndIOp::create(
        rewriter, loc, inside,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, off, lo));
    inside = arith::AndIOp::create(
        rewriter, loc, inside,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, end, hi));
  }
  RankedTensorType tileType = slice.getResultType();
  versionBlockTail(
      rewriter, slice, inside,
      [&]() -> Value {
        return tensor::ExtractSliceOp::create(rewriter, loc, tileType, pad.getSource(),
                                              srcOffsets, sizes, slice.getMixedStrides());
      },
      [&]() -> Value {
        if (low.back() == 0 && high.back() == 0 &&
            computeProduct(tileType.getShape().drop_back()) <= kMaxUnrolledPadRows)
          return maskedRowsTile(rewriter, loc, pad, tileType, srcOffsets);
        return copiedRowsTile(rewriter, loc, pad, tileType, srcOffsets, sizes);
      });
}

static void readPaddingInPlace(RewriterBase &rewriter, func::FuncOp fn) {
  // Peeled tiles' slices have constant sizes but dynamic types until
  // canonicalized: static first, since the border tiles are built by shape.
  {
    RewritePatternSet patterns(fn.getContext());
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, fn.getContext());
    tensor::CastOp::getCanonicalizationPatterns(patterns, fn.getContext());
    (void)applyPatternsGreedily(fn, std::move(patterns));
  }
  SmallVector<std::pair<tensor::ExtractSliceOp, tensor::PadOp>> slices;
  fn.walk([&](tensor::ExtractSliceOp slice) {
    if (!slice.getResultType().hasStaticShape())
      return;
    if (llvm::none_of(slice->getUsers(),
                      [](Operation *u) { return isa<tensor::ExtractSliceOp>(u); }))
      if (tensor::PadOp pad = paddedSource(slice))
        slices.push_back({slice, pad});
  });
  for (auto [slice, pad] : slices)
    readPaddingInPlace(rewriter, slice, pad);
}

struct ReadPaddingInPlacePass final
    : public impl::ReadPaddingInPlacePassBase<ReadPaddingInPlacePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    readPaddingInPlace(rewriter, getOperation());
  }
};

} // namespace
} // namespace jitrun
