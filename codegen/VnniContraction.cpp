//===- VnniContraction.cpp - i8 x i8 -> i32 contractions on AVX-512 VNNI -===//
//
// A vector.contract of sign-extended i8 operands into i32 accumulators (the
// register tile of an int8 matmul or of a decomposed int8 convolution)
// becomes vpdpbusd: each 32-bit lane adds four u8 x s8 products. VNNI has
// no s8 x s8 form on AVX-512, so the left operand is shifted to unsigned
// (x + 128, an xor of the sign bit) and the excess, 128 * sum_k w[k, n], is
// subtracted once per contraction; that sum is itself one vpdpbusd per group
// of four k with 128 as the unsigned operand.
//
// The right operand (k x n, n in lanes) is interleaved in registers into
// VNNI order, four consecutive k of a column next to each other; a row of
// the left operand is read four bytes at a time and broadcast.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
    if (!signExtendedFromI8(op.getLhs()) || !signExtendedFromI8(op.getRhs()) ||
        !isZeroPaddedRead(op.getLhs()) || !isZeroPaddedRead(op.getRhs()))
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
    if (op.getKind() != vector::CombiningKind::ADD ||
        isa<vector::MaskOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "not a plain add contraction");
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || !accType.getElementType().isInteger(32) || accType.isScalable())
      return rewriter.notifyMatchFailure(op, "not an i32 vector accumulator");
    Value lhs8 = signExtendedFromI8(op.getLhs());
    Value rhs8 = signExtendedFromI8(op.getRhs());
    if (!lhs8 || !rhs8)
      return rewriter.notifyMatchFailure(op, "operands are not sign-extended i8");

    // Loops: one reduction k; rhs (k, n), acc (p..., n), lhs (p..., k).
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto iters = op.getIteratorTypesArray();
    int k = -1;
    for (auto [i, it] : llvm::enumerate(iters)) {
      if (it == vector::IteratorType::reduction) {
        if (k >= 0)
          return rewriter.notifyMatchFailure(op, "several reduction loops");
        k = i;
      }
    }
    if (k < 0)
      return failure();
    auto dimOf = [](AffineExpr e) {
      auto d = dyn_cast<AffineDimExpr>(e);
      return d ? static_cast<int>(d.getPosition()) : -1;
    };
    AffineMap lhsMap = maps[0], rhsMap = maps[1], accMap = maps[2];
    if (rhsMap.getNumResults() != 2 || dimOf(rhsMap.getResult(0)) != k)
      return rewriter.notifyMatchFailure(op, "rhs is not (k, n)");
    int n = dimOf(rhsMap.getResult(1));
    unsigned accRank = accMap.getNumResults();
    if (n < 0 || accRank < 1 || dimOf(accMap.getResult(accRank - 1)) != n ||
        lhsMap.getNumResults() != accRank ||
        dimOf(lhsMap.getResult(accRank - 1)) != k)
      return rewriter.notifyMatchFailure(op, "acc is not (p..., n) or lhs not (p..., k)");
    for (unsigned i = 0; i + 1 < accRank; ++i)
      if (dimOf(accMap.getResult(i)) < 0 ||
          dimOf(accMap.getResult(i)) != dimOf(lhsMap.getResult(i)))
        return rewriter.notifyMatchFailure(op, "lhs and acc rows differ");

    auto rhsType = cast<VectorType>(rhs8.getType());
    int64_t kSize = rhsType.getDimSize(0), nSize = rhsType.getDimSize(1);
    int64_t mSize = accType.getNumElements() / nSize;
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
          bytes = arith::XOrIOp::create(rewriter, loc, bytes, signBits);
          sum = dot(sum, bytes, packed[g]);
        }
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

void populateVnniContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToVnni>(patterns.getContext());
  patterns.add<UnmaskInt8Contraction>(patterns.getContext());
}

} // namespace jitrun
