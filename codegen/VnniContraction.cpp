//===- VnniContraction.cpp - i8 x i8 -> i32 contractions on AVX-512 VNNI -===//
//
// A vector.contract of i8 operands into i32 accumulators (the register tile
// of an int8 matmul or of a decomposed int8 convolution) becomes vpdpbusd:
// each 32-bit lane adds four u8 x s8 products. VNNI has no s8 x s8 form on
// AVX-512, so one operand must be made unsigned, x ^ 0x80 = x + 128.
//
// The right operand, w (k x n, n in lanes), is the one made unsigned
// (shiftInt8RhsForVnni, on linalg before tiling):
//
//   sum_k a[m, k] w[k, n] = sum_k a[m, k] (w[k, n] + 128) - 128 sum_k a[m, k]
//
// The flip of w runs once per interleaved register of w, which serves a
// whole column of accumulators; the left operand, signed, is broadcast
// straight from memory into the dot product; the row sums of a are computed
// once per workgroup and taken from the accumulators' initial values.
// Flipping the left operand instead costs an xor per dot product (one per
// broadcast word): int8 matmul 384x768x768 went from 1.43 to 1.01 ms.
//
// A convolution's row sums are box sums, over each output pixel's window,
// of its input pixels' channel sums (a 1x1 convolution is taken as the
// contraction it is). int8 3x3 convolution 1x56x56x64->64: 0.60 -> 0.82-0.85
// of oneDNN; 1x1 ->256: 0.73 -> 0.93-0.98.
//
// A contraction left signed on both sides still becomes dot products: the
// left operand is flipped per broadcast word and the excess
// 128 * sum_k w[k, n] is subtracted per contraction: dynamic shapes,
// channels not in lanes of 16, a padded input (each workgroup would pad the
// whole input to sum it).
//
// The right operand is interleaved in registers into VNNI order, four
// consecutive k of a column next to each other; a row of the left operand is
// read four bytes at a time and broadcast.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "codegen/Strategy.h"
#include "contract/Dispatch.h"

#include <optional>
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace jitrun {
namespace {

/// The i8 vector `v` was sign-extended from, or null.
static Value signExtendedFromI8(Value v) {
  auto type = cast<VectorType>(v.getType());
  if (type.getElementType().isInteger(8))
    return v;
  if (auto ext = v.getDefiningOp<arith::ExtSIOp>()) {
    auto from = cast<VectorType>(ext.getIn().getType());
    if (from.getElementType().isInteger(8))
      return ext.getIn();
  }
  return nullptr;
}

/// The i8 vector `v` was zero-extended from (an unsigned operand), or null.
static Value zeroExtendedFromI8(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtUIOp>()) {
    auto from = cast<VectorType>(ext.getIn().getType());
    if (from.getElementType().isInteger(8))
      return ext.getIn();
  }
  return nullptr;
}

/// True when `v` (an i8 vector, perhaps sign-extended) is read from memory
/// with 0 as the padding of masked-off or out-of-bounds elements.
static bool isZeroPaddedRead(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    v = ext.getIn();
  Operation *def = v.getDefiningOp();
  if (auto mask = dyn_cast_or_null<vector::MaskOp>(def))
    def = mask.getMaskableOp();
  auto read = dyn_cast_or_null<vector::TransferReadOp>(def);
  return read && matchPattern(read.getPadding(), m_Zero());
}

/// A masked i8 contraction (an edge tile) whose operands are zero-padded
/// reads computes the same in-bounds results without its mask: masked-off
/// products are 0 x something, and the outputs outside the mask are not
/// stored. Unmasked, it can become VNNI dot products.
struct UnmaskInt8Contraction final : OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MaskOp mask,
                                PatternRewriter &rewriter) const override {
    auto op = dyn_cast_or_null<vector::ContractionOp>(mask.getMaskableOp());
    if (!op || mask.hasPassthru() || mask->getNumResults() != 1)
      return failure();
    // Signed x signed needs both reads zero-padded (the excess is summed
    // over w); signed x unsigned only the left one.
    bool signedRhs = signExtendedFromI8(op.getRhs()) != nullptr;
    if (!signExtendedFromI8(op.getLhs()) || (!signedRhs && !zeroExtendedFromI8(op.getRhs())) ||
        !isZeroPaddedRead(op.getLhs()) || (signedRhs && !isZeroPaddedRead(op.getRhs())))
      return rewriter.notifyMatchFailure(mask, "not a contraction of zero-padded i8 reads");
    rewriter.setInsertionPoint(mask);
    Operation *plain = rewriter.clone(*op.getOperation());
    rewriter.replaceOp(mask, plain->getResults());
    return success();
  }
};

struct ContractToVnni final : OpRewritePattern<vector::ContractionOp> {
  /// 512-bit registers: 16 i32 lanes, 64 bytes.
  static constexpr int64_t lanes = 16;
  ContractToVnni(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<RegisterTile> tile = matchRegisterTile(op, rewriter.getI32Type(), rewriter);
    if (failed(tile))
      return failure();
    auto accType = cast<VectorType>(op.getAccType());
    int64_t kSize = tile->kSize, nSize = tile->nSize, mSize = tile->mSize;
    Value lhs8 = signExtendedFromI8(op.getLhs());
    Value rhs8 = signExtendedFromI8(op.getRhs());
    // An unsigned right operand (shiftInt8RhsForVnni) is vpdpbusd's own
    // u8 x s8: no flip of the left operand, no excess.
    bool unsignedRhs = !rhs8;
    if (unsignedRhs)
      rhs8 = zeroExtendedFromI8(op.getRhs());
    if (!lhs8 || !rhs8)
      return rewriter.notifyMatchFailure(op, "operands are not i8 (signed x signed or unsigned)");

    auto rhsType = cast<VectorType>(rhs8.getType());
    if (rhsType.getRank() != 2) {
      rhsType = VectorType::get({kSize, nSize}, rhsType.getElementType());
      rhs8 = vector::ShapeCastOp::create(rewriter, op.getLoc(), rhsType, rhs8);
    }
    if (kSize % 4 != 0 || nSize % lanes != 0)
      return rewriter.notifyMatchFailure(op, "k not a multiple of 4 or n of the lanes");
    int64_t groups = kSize / 4, chunks = nSize / lanes;

    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
    auto laneType = VectorType::get({lanes}, i32);
    auto bytesType = VectorType::get({lanes * 4}, i8);
    StringAttr dpbusd = rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512");
    auto dot = [&](Value acc, Value u8, Value s8) -> Value {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, laneType, dpbusd,
                                           ValueRange{acc, u8, s8})
          .getResult(0);
    };

    // Left operand as m rows of k/4 words of four bytes. Each word is
    // broadcast and then made unsigned (so that LLVM broadcasts it straight
    // from memory instead of keeping whole rows in registers).
    auto lhs2Type = VectorType::get({mSize, kSize}, i8);
    Value lhs = vector::ShapeCastOp::create(rewriter, loc, lhs2Type, lhs8);
    lhs = vector::BitCastOp::create(rewriter, loc,
                                    VectorType::get({mSize, groups}, i32), lhs);
    Value signBits = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(bytesType, rewriter.getIntegerAttr(i8, -128)));
    Value acc = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({mSize, nSize}, i32), op.getAcc());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(laneType, rewriter.getI32IntegerAttr(0)));

    // Interleave: lane j of group g holds rhs[4g + t][j] for t = 0..3.
    auto halfType = VectorType::get({2 * lanes}, i8);
    SmallVector<int64_t> catMask, vnniMask;
    for (int64_t i = 0; i < 2 * lanes; ++i)
      catMask.push_back(i);
    for (int64_t j = 0; j < lanes; ++j)
      for (int64_t t = 0; t < 4; ++t)
        vnniMask.push_back(t * lanes + j);
    SmallVector<Value> rhsRows;
    for (int64_t r = 0; r < kSize; ++r)
      rhsRows.push_back(vector::ExtractOp::create(rewriter, loc, rhs8, ArrayRef<int64_t>{r}));

    Value result = acc;
    for (int64_t c = 0; c < chunks; ++c) {
      SmallVector<Value> packed;
      Value excess = zero;
      for (int64_t g = 0; g < groups; ++g) {
        SmallVector<Value> cols;
        for (int64_t t = 0; t < 4; ++t)
          cols.push_back(vector::ExtractStridedSliceOp::create(
              rewriter, loc, rhsRows[4 * g + t], ArrayRef<int64_t>{c * lanes},
              ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1}));
        Value lo = vector::ShuffleOp::create(rewriter, loc, halfType, cols[0], cols[1], catMask);
        Value hi = vector::ShuffleOp::create(rewriter, loc, halfType, cols[2], cols[3], catMask);
        packed.push_back(
            vector::ShuffleOp::create(rewriter, loc, bytesType, lo, hi, vnniMask));
        if (!unsignedRhs)
          excess = dot(excess, signBits, packed.back());
      }
      for (int64_t m = 0; m < mSize; ++m) {
        Value row = vector::ExtractOp::create(rewriter, loc, acc, ArrayRef<int64_t>{m});
        Value sum = vector::ExtractStridedSliceOp::create(
            rewriter, loc, row, ArrayRef<int64_t>{c * lanes}, ArrayRef<int64_t>{lanes},
            ArrayRef<int64_t>{1});
        for (int64_t g = 0; g < groups; ++g) {
          Value word = vector::ExtractOp::create(rewriter, loc, lhs, ArrayRef<int64_t>{m, g});
          Value splat = vector::BroadcastOp::create(rewriter, loc, laneType, word);
          Value bytes = vector::BitCastOp::create(rewriter, loc, bytesType, splat);
          if (unsignedRhs) {
            // The signed operand, broadcast from memory into the instruction.
            sum = dot(sum, packed[g], bytes);
            continue;
          }
          bytes = arith::XOrIOp::create(rewriter, loc, bytes, signBits);
          sum = dot(sum, bytes, packed[g]);
        }
        if (!unsignedRhs)
          sum = arith::SubIOp::create(rewriter, loc, sum, excess);
        result = vector::InsertStridedSliceOp::create(
            rewriter, loc, sum, result, ArrayRef<int64_t>{m, c * lanes},
            ArrayRef<int64_t>{1});
      }
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, accType, result);
    return success();
  }
};

} // namespace

/// The cast of block argument `arg` in `body` when it is its only use.
template <typename CastOp>
static CastOp onlyCastOf(Block &body, unsigned arg) {
  Value v = body.getArgument(arg);
  if (!v.hasOneUse())
    return nullptr;
  return dyn_cast<CastOp>(*v.getUsers().begin());
}

/// A named convolution whose window is one tap (1x1, any stride) as the
/// contraction it is: a generic over its loops but the taps, reading the
/// filter's (c, f) slice; or failure.
static FailureOr<linalg::GenericOp> unitConvAsContraction(RewriterBase &rewriter,
                                                          linalg::LinalgOp op) {
  if (!isa<linalg::ConvolutionOpInterface>(op.getOperation()) || op.getNumDpsInputs() != 2)
    return failure();
  FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(op);
  if (failed(dims) || dims->inputChannel.empty() || !dims->depth.empty())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(dims->filterLoop, [&](unsigned f) { return ranges[f] != 1; }))
    return failure();
  MLIRContext *ctx = op->getContext();
  unsigned numLoops = op.getNumLoops(), kept = 0;
  SmallVector<AffineExpr> repl;
  SmallVector<utils::IteratorType> iters;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (llvm::is_contained(dims->filterLoop, d)) {
      repl.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    repl.push_back(getAffineDimExpr(kept++, ctx));
    iters.push_back(it);
  }
  // Each map without the taps; the filter's tap dims (now constant 0) are
  // dropped by a rank-reducing slice of the filter.
  SmallVector<AffineMap> maps;
  for (AffineMap map : op.getIndexingMapsArray()) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.replaceDimsAndSymbols(repl, {}, kept, 0).getResults())
      results.push_back(simplifyAffineExpr(e, kept, 0));
    maps.push_back(AffineMap::get(kept, 0, results, ctx));
  }
  AffineMap &filterMap = maps[1];
  auto filterType = cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<AffineExpr> filterResults;
  SmallVector<int64_t> sliceShape;
  for (auto [i, e] : llvm::enumerate(filterMap.getResults())) {
    offsets.push_back(rewriter.getIndexAttr(0));
    strides.push_back(rewriter.getIndexAttr(1));
    sizes.push_back(rewriter.getIndexAttr(filterType.getDimSize(i)));
    if (isa<AffineConstantExpr>(e))
      continue;
    filterResults.push_back(e);
    sliceShape.push_back(filterType.getDimSize(i));
  }
  filterMap = AffineMap::get(kept, 0, filterResults, ctx);
  if (!llvm::all_of(maps, [](AffineMap m) { return m.isProjectedPermutation(); }))
    return failure();
  rewriter.setInsertionPoint(op);
  Value filter = tensor::ExtractSliceOp::create(
      rewriter, op.getLoc(), RankedTensorType::get(sliceShape, filterType.getElementType()),
      op.getDpsInputOperand(1)->get(), offsets, sizes, strides);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(),
      ValueRange{op.getDpsInputOperand(0)->get(), filter},
      ValueRange{op.getDpsInitOperand(0)->get()}, maps, iters);
  rewriter.inlineRegionBefore(op->getRegion(0), generic.getRegion(), generic.getRegion().begin());
  rewriter.replaceOp(op, generic->getResults());
  return generic;
}

/// The operands of `op` (a contraction or convolution) allow the flip of
/// the right operand: both sign-extended; the lanes' loop n innermost in w
/// and in the output and absent from a; the reduction next to n in w in
/// groups of four, n in whole registers of 16 and at least 64.
static bool isShiftableInt8Contraction(linalg::LinalgOp op) {
  // Both operands sign-extended (a named op's default, or such a generic).
  Block *block = op.getBlock();
  if (!onlyCastOf<arith::ExtSIOp>(*block, 0) || !onlyCastOf<arith::ExtSIOp>(*block, 1))
    return false;
  AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap rhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() || rhsMap.getNumResults() < 2)
    return false;
  // The lanes' loop n: innermost in w and in the output, absent from a.
  // The reduction next to it in w comes in groups of four.
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto lastDim = [](AffineMap map, unsigned fromEnd) -> int {
    auto d = dyn_cast<AffineDimExpr>(map.getResult(map.getNumResults() - 1 - fromEnd));
    return d ? static_cast<int>(d.getPosition()) : -1;
  };
  int n = lastDim(rhsMap, 0), k = lastDim(rhsMap, 1);
  if (n < 0 || k < 0 || lastDim(outMap, 0) != n || lhsMap.isFunctionOfDim(n) ||
      iters[k] != utils::IteratorType::reduction || ranges[k] % 4 != 0 || ranges[n] % 16 != 0)
    return false;
  // Under 64 output channels the row sums (per workgroup, whatever n) cost
  // more than the flips they save: person_detect's 1x1 convolutions 16->32
  // and 32->32 at 24x24 ran 1.3-1.4x slower with them, 32->64 faster.
  return ranges[n] >= 64;
}

static FailureOr<linalg::GenericOp> shiftInt8Rhs(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!isInt8Contraction(op) || op.hasDynamicShape() || op.getNumLoops() == 0)
    return failure();
  if (!isShiftableInt8Contraction(op))
    return failure();
  // A 1x1 convolution is taken as the contraction it is. One with a wider
  // window gets box sums, over each output pixel's window, of the input's
  // sums over channels as its row sums. Its
  // input's channels must be innermost and in lanes of 16; a padded input
  // (its pad computed whole by each workgroup) keeps the left-operand flip.
  int windowChannel = -1;
  if (!linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(op);
    auto lhsLast = dyn_cast<AffineDimExpr>(
        op.getMatchingIndexingMap(op.getDpsInputOperand(0)).getResults().back());
    auto lhsType = cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
    if (!isa<linalg::ConvolutionOpInterface>(op.getOperation()) || failed(dims) ||
        dims->inputChannel.size() != 1 || !lhsLast ||
        lhsLast.getPosition() != dims->inputChannel.front() ||
        lhsType.getShape().back() % 16 != 0 ||
        op.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>())
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::all_of(dims->filterLoop, [&](unsigned f) { return ranges[f] == 1; })) {
      FailureOr<linalg::GenericOp> asContraction = unitConvAsContraction(rewriter, op);
      if (failed(asContraction) || !linalg::isaContractionOpInterface(*asContraction))
        return failure();
      op = *asContraction;
    } else {
      windowChannel = static_cast<int>(dims->inputChannel.front());
    }
  }
  OpOperand *initOperand = op.getDpsInitOperand(0);
  AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(initOperand);
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> loopRanges = op.getStaticLoopRanges();
  // Loops of the row sums: all but the parallel ones a does not read (and,
  // for a window, but the channels, summed first).
  unsigned numLoops = op.getNumLoops();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> toSumDims;
  SmallVector<utils::IteratorType> sumIters;
  SmallVector<AffineExpr> windowDims;
  SmallVector<int64_t> windowShape;
  for (unsigned d = 0; d < numLoops; ++d) {
    if ((iters[d] == utils::IteratorType::parallel && !lhsMap.isFunctionOfDim(d)) ||
        static_cast<int>(d) == windowChannel) {
      toSumDims.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    toSumDims.push_back(getAffineDimExpr(sumIters.size(), ctx));
    if (windowChannel >= 0 && iters[d] == utils::IteratorType::reduction) {
      windowDims.push_back(toSumDims.back());
      windowShape.push_back(loopRanges[d]);
    }
    sumIters.push_back(iters[d]);
  }
  unsigned sumLoops = sumIters.size();
  auto initType = cast<RankedTensorType>(initOperand->get().getType());
  SmallVector<AffineExpr> sumOutResults, sumReadResults;
  SmallVector<int64_t> sumShape;
  for (auto [pos, e] : llvm::enumerate(outMap.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (!lhsMap.isFunctionOfDim(d))
      continue;
    sumOutResults.push_back(toSumDims[d]);
    sumReadResults.push_back(getAffineDimExpr(pos, ctx));
    sumShape.push_back(initType.getDimSize(pos));
  }

  // Read before generalizing: generalizeNamedOp erases a named `op`.
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic = isa<linalg::GenericOp>(op.getOperation())
                                             ? cast<linalg::GenericOp>(op.getOperation())
                                             : linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return failure();
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  rewriter.setInsertionPoint(*generic);
  Value lhs = generic->getDpsInputOperand(0)->get();
  Value rhs = generic->getDpsInputOperand(1)->get();
  Value init = generic->getDpsInitOperand(0)->get();
  auto parallel = [](unsigned rank) {
    return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
  };

  // w + 128, as unsigned bytes: the sign bit flipped.
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  AffineMap rhsId = rewriter.getMultiDimIdentityMap(rhsType.getRank());
  Value rhsEmpty = tensor::EmptyOp::create(rewriter, loc, rhsType.getShape(), i8);
  auto flip = linalg::GenericOp::create(
      rewriter, loc, TypeRange{rhsType}, ValueRange{rhs}, ValueRange{rhsEmpty},
      ArrayRef<AffineMap>{rhsId, rhsId}, parallel(rhsType.getRank()),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value sign = arith::ConstantOp::create(b, l, b.getIntegerAttr(i8, -128));
        linalg::YieldOp::create(b, l, ValueRange{arith::XOrIOp::create(b, l, args[0], sign)});
      });
  flip->setAttr(kFuseIntoReductionAttrName, rewriter.getUnitAttr());

  // The row sums of a, per workgroup. When a's rows are contiguous in
  // groups of 16 (a matmul's k), in two steps: sums of each lane of 16
  // (a's last dim split into k/16 x 16; vector adds, lanes kept), then of
  // the 16 lanes. Summed along the innermost dim at once, every tile of a
  // would be transposed first (16 x 32 bytes: some 60 shuffles).
  auto sumBody = [&](OpBuilder &b, Location l, ValueRange args) {
    Value wide = args[0];
    if (!wide.getType().isInteger(32))
      wide = arith::ExtSIOp::create(b, l, i32, wide);
    linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, args[1], wide)});
  };
  auto zeroFilled = [&](ArrayRef<int64_t> shape) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, i32);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
    return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  };
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  AffineMap sumLhsMap = lhsMap.replaceDimsAndSymbols(toSumDims, {}, sumLoops, 0);
  AffineMap sumOutMap = AffineMap::get(sumLoops, 0, sumOutResults, ctx);
  auto lastLhs = dyn_cast<AffineDimExpr>(lhsMap.getResults().back());
  constexpr int64_t kLanes = 16;
  auto atWorkgroupLevel = [&](linalg::GenericOp op) {
    op->setAttr(kWorkgroupLevelAttrName, rewriter.getUnitAttr());
    return op.getResult(0);
  };
  // a with its last dim split into (dim / 16, 16).
  auto inLanes = [&]() -> Value {
    int64_t r = lhsType.getRank();
    SmallVector<int64_t> split(lhsType.getShape());
    split.back() /= kLanes;
    split.push_back(kLanes);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i + 1 < r; ++i)
      groups.push_back({i});
    groups.push_back({r - 1, r});
    return tensor::ExpandShapeOp::create(rewriter, loc, RankedTensorType::get(split, i8), lhs,
                                         groups);
  };
  // Partial sums (..., 16) summed across their lanes.
  auto acrossLanes = [&](Value partial) -> Value {
    auto type = cast<RankedTensorType>(partial.getType());
    unsigned rank = type.getRank() - 1;
    SmallVector<utils::IteratorType> laneIters(rank, utils::IteratorType::parallel);
    laneIters.push_back(utils::IteratorType::reduction);
    AffineMap in = rewriter.getMultiDimIdentityMap(rank + 1);
    return atWorkgroupLevel(linalg::GenericOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(type.getShape().drop_back(), i32)},
        ValueRange{partial}, ValueRange{zeroFilled(type.getShape().drop_back())},
        ArrayRef<AffineMap>{in, in.dropResult(rank)}, laneIters, sumBody));
  };
  Value rowSums;
  if (windowChannel >= 0) {
    // Channel sums of the input, in lanes of 16 then across them.
    unsigned r = lhsType.getRank();
    SmallVector<int64_t> partialShape(lhsType.getShape().drop_back());
    partialShape.push_back(kLanes);
    SmallVector<utils::IteratorType> partialIters(r + 1, utils::IteratorType::parallel);
    partialIters[r - 1] = utils::IteratorType::reduction;
    AffineMap partialIn = rewriter.getMultiDimIdentityMap(r + 1);
    Value pixels = acrossLanes(atWorkgroupLevel(linalg::GenericOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(partialShape, i32)},
        ValueRange{inLanes()}, ValueRange{zeroFilled(partialShape)},
        ArrayRef<AffineMap>{partialIn, partialIn.dropResult(r - 1)}, partialIters, sumBody)));
    // Box sums over each output pixel's window (the window's shape rides
    // along as an operand, as a pooling op's does).
    AffineMap boxIn = sumLhsMap.dropResult(sumLhsMap.getNumResults() - 1);
    Value window = tensor::EmptyOp::create(rewriter, loc, windowShape, i32);
    rowSums = atWorkgroupLevel(linalg::GenericOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(sumShape, i32)},
        ValueRange{pixels, window}, ValueRange{zeroFilled(sumShape)},
        ArrayRef<AffineMap>{boxIn, AffineMap::get(sumLoops, 0, windowDims, ctx), sumOutMap},
        sumIters, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, args[2], args[0])});
        }));
  } else if (lastLhs && iters[lastLhs.getPosition()] == utils::IteratorType::reduction &&
             lhsType.getShape().back() % kLanes == 0) {
    AffineExpr lane = getAffineDimExpr(sumLoops, ctx);
    SmallVector<AffineExpr> inResults(sumLhsMap.getResults()), outResults(sumOutResults);
    inResults.push_back(lane);
    outResults.push_back(lane);
    SmallVector<utils::IteratorType> partialIters(sumIters);
    partialIters.push_back(utils::IteratorType::parallel);
    SmallVector<int64_t> partialShape(sumShape);
    partialShape.push_back(kLanes);
    rowSums = acrossLanes(atWorkgroupLevel(linalg::GenericOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(partialShape, i32)},
        ValueRange{inLanes()}, ValueRange{zeroFilled(partialShape)},
        ArrayRef<AffineMap>{AffineMap::get(sumLoops + 1, 0, inResults, ctx),
                            AffineMap::get(sumLoops + 1, 0, outResults, ctx)},
        partialIters, sumBody)));
  } else {
    rowSums = atWorkgroupLevel(linalg::GenericOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(sumShape, i32)}, ValueRange{lhs},
        ValueRange{zeroFilled(sumShape)}, ArrayRef<AffineMap>{sumLhsMap, sumOutMap}, sumIters,
        sumBody));
  }

  // init - 128 * rowsum (a shift: no vector multiply), broadcast along n.
  unsigned outRank = initType.getRank();
  AffineMap outId = rewriter.getMultiDimIdentityMap(outRank);
  auto corrected = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType}, ValueRange{rowSums}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(outRank, 0, sumReadResults, ctx), outId},
      parallel(outRank), [&](OpBuilder &b, Location l, ValueRange args) {
        Value seven = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(7));
        Value excess = arith::ShLIOp::create(b, l, args[0], seven);
        linalg::YieldOp::create(b, l, ValueRange{arith::SubIOp::create(b, l, args[1], excess)});
      });

  rewriter.modifyOpInPlace(*generic, [&] {
    generic->getDpsInputOperand(1)->set(flip.getResult(0));
    generic->getDpsInitOperand(0)->set(corrected.getResult(0));
  });
  auto ext = onlyCastOf<arith::ExtSIOp>(*generic->getBlock(), 1);
  rewriter.setInsertionPoint(ext);
  rewriter.replaceOpWithNewOp<arith::ExtUIOp>(ext, ext.getType(), ext.getIn());
  return *generic;
}

bool shiftInt8RhsForVnni(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<linalg::LinalgOp> ops;
  fn.walk([&](linalg::LinalgOp op) {
    // (Not one AMX tiles take: tdpbssd multiplies int8 by int8 as it is.)
    if (op.getNumReductionLoops() > 0 && isInt8Contraction(op) &&
        !op->hasAttr(kAmxTilesAttrName))
      ops.push_back(op);
  });
  bool changed = false;
  for (linalg::LinalgOp op : ops)
    changed |= succeeded(shiftInt8Rhs(rewriter, op));
  return changed;
}

FailureOr<RegisterTile> matchRegisterTile(vector::ContractionOp op, Type accElement,
                                          PatternRewriter &rewriter, bool unitParallelLoops) {
  if (op.getKind() != vector::CombiningKind::ADD || isa<vector::MaskOp>(op->getParentOp()))
    return rewriter.notifyMatchFailure(op, "not a plain add contraction");
  auto accVector = dyn_cast<VectorType>(op.getAccType());
  if (!accVector || accVector.getElementType() != accElement || accVector.isScalable())
    return rewriter.notifyMatchFailure(op, "not a vector accumulator of the dot product's type");
  // Loops: one reduction k; rhs (k, n), acc (p..., n), lhs (p..., k).
  // Other reductions of one step (the filter taps of a strided
  // convolution's tile) may lead rhs.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto iters = op.getIteratorTypesArray();
  auto accType = cast<VectorType>(op.getAccType());
  // Each loop's extent, from an operand that indexes it by itself.
  SmallVector<int64_t> bounds(iters.size(), 1);
  SmallVector<Type> types = {op.getLhsType(), op.getRhsType(), accType};
  for (auto [map, type] : llvm::zip(maps, types))
    for (auto [pos, e] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e))
        bounds[d.getPosition()] = cast<VectorType>(type).getDimSize(pos);
  int k = -1;
  for (auto [i, it] : llvm::enumerate(iters)) {
    if (it != vector::IteratorType::reduction || (bounds[i] == 1 && k >= 0))
      continue;
    if (k >= 0 && bounds[k] != 1)
      return rewriter.notifyMatchFailure(op, "several reduction loops");
    k = static_cast<int>(i);
  }
  if (k < 0)
    return failure();
  auto dimOf = [](AffineExpr e) {
    auto d = dyn_cast<AffineDimExpr>(e);
    return d ? static_cast<int>(d.getPosition()) : -1;
  };
  AffineMap lhsMap = maps[0], rhsMap = maps[1], accMap = maps[2];
  // Unit reduction loops may lead rhs (a convolution's filter taps). With
  // `unitParallelLoops`, unit parallel loops too, also among acc's rows (a
  // packed contraction's panel: rhs (p, k, t), acc (rows..., p, t)): they
  // change no element's place in the row-major [k, n], [m, k] and [m, n]
  // views the rewrites take.
  unsigned rhsRank = rhsMap.getNumResults();
  for (unsigned i = 0; i + 2 < rhsRank; ++i) {
    int d = dimOf(rhsMap.getResult(i));
    if (d < 0 || d == k || bounds[d] != 1 ||
        (!unitParallelLoops && iters[d] != vector::IteratorType::reduction))
      return rewriter.notifyMatchFailure(op, "rhs is not (unit loops..., k, n)");
  }
  if (rhsRank < 2 || dimOf(rhsMap.getResult(rhsRank - 2)) != k)
    return rewriter.notifyMatchFailure(op, "rhs is not (k, n)");
  int n = dimOf(rhsMap.getResult(rhsRank - 1));
  unsigned accRank = accMap.getNumResults(), lhsRank = lhsMap.getNumResults();
  if (n < 0 || accRank < 1 || lhsRank < 1 || dimOf(accMap.getResult(accRank - 1)) != n ||
      dimOf(lhsMap.getResult(lhsRank - 1)) != k)
    return rewriter.notifyMatchFailure(op, "acc is not (p..., n) or lhs not (p..., k)");
  // The rows: acc's and lhs's leading loops, unit ones aside, in one order.
  auto rows = [&](AffineMap map) -> std::optional<SmallVector<int>> {
    SmallVector<int> out;
    for (unsigned i = 0; i + 1 < map.getNumResults(); ++i) {
      int d = dimOf(map.getResult(i));
      if (d < 0)
        return std::nullopt;
      if (bounds[d] != 1 || !unitParallelLoops)
        out.push_back(d);
    }
    return out;
  };
  std::optional<SmallVector<int>> accRows = rows(accMap), lhsRows = rows(lhsMap);
  if (!accRows || !lhsRows || *accRows != *lhsRows)
    return rewriter.notifyMatchFailure(op, "lhs and acc rows differ");
  RegisterTile tile;
  tile.kSize = bounds[k];
  tile.nSize = bounds[n];
  tile.mSize = accType.getNumElements() / tile.nSize;
  return tile;
}

void populateVnniContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToVnni>(patterns.getContext());
  patterns.add<UnmaskInt8Contraction>(patterns.getContext());
}

} // namespace jitrun
