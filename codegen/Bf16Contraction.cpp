//===- Bf16Contraction.cpp - bf16 x bf16 -> f32 contractions on AVX512_BF16 -===//
//
// A vector.contract of bf16 operands into f32 accumulators (the register
// tile of a bf16 matmul: m rows x n lanes x k, k a multiple of two) becomes
// vdpbf16ps: each f32 lane adds the two products of a pair of bf16,
//
//   acc[j] += a[2j] * b[2j] + a[2j + 1] * b[2j + 1]
//
// exactly (the products of bf16 are exact in f32; the sums round as f32
// FMAs would, in pairs). The right operand (k x n, n in lanes) is
// interleaved in registers, k pairs next to each other in each lane; a row
// of the left operand is read one pair (32 bits) at a time and broadcast.
// One instruction does the work of two FMAs, twice the f32 peak.
//
// Everything that moves bf16 bits here is typed i16 or i32 (the later bf16
// emulation retypes moved bf16 values to i16 anyway, and refuses a
// vector.bitcast to bf16); only the dot product's own operands are bf16,
// made by llvm.bitcast, which that emulation leaves alone.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace jitrun {
namespace {

/// The bf16 vector `v` is, or was widened from; null otherwise.
static Value bf16Source(Value v) {
  if (getElementTypeOrSelf(v.getType()).isBF16())
    return v;
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    if (getElementTypeOrSelf(ext.getIn().getType()).isBF16())
      return ext.getIn();
  return nullptr;
}

struct ContractToBf16Dot final : OpRewritePattern<vector::ContractionOp> {
  /// 512-bit registers: 16 f32 lanes, 32 bf16.
  static constexpr int64_t lanes = 16;
  ContractToBf16Dot(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    // Unit parallel loops too: a packed contraction's panel.
    FailureOr<RegisterTile> tile =
        matchRegisterTile(op, rewriter.getF32Type(), rewriter, /*unitParallelLoops=*/true);
    if (failed(tile))
      return failure();
    Value lhs16 = bf16Source(op.getLhs()), rhs16 = bf16Source(op.getRhs());
    if (!lhs16 || !rhs16)
      return rewriter.notifyMatchFailure(op, "operands are not bf16");

    int64_t kSize = tile->kSize, nSize = tile->nSize, mSize = tile->mSize;
    if (kSize % 2 != 0 || nSize % lanes != 0)
      return rewriter.notifyMatchFailure(op, "k not even or n not a multiple of the lanes");
    int64_t pairs = kSize / 2, chunks = nSize / lanes;

    Location loc = op.getLoc();
    Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type(), bf16 = rewriter.getBF16Type();
    auto laneType = VectorType::get({lanes}, rewriter.getF32Type());
    auto wordsType = VectorType::get({lanes}, i32);
    auto dotType = VectorType::get({2 * lanes}, bf16);
    auto dotBitsType = VectorType::get({2 * lanes}, i16);
    StringAttr dpbf16ps = rewriter.getStringAttr("llvm.x86.avx512bf16.dpbf16ps.512");

    // The right operand's rows as i16 lanes.
    Value rhs = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({kSize, nSize}, bf16), rhs16);
    rhs = vector::BitCastOp::create(rewriter, loc, VectorType::get({kSize, nSize}, i16), rhs);
    SmallVector<Value> rhsRows;
    for (int64_t r = 0; r < kSize; ++r)
      rhsRows.push_back(vector::ExtractOp::create(rewriter, loc, rhs, ArrayRef<int64_t>{r}));
    // The left operand as m rows of k/2 pairs, each pair one 32-bit word.
    Value lhs = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({mSize, kSize}, bf16), lhs16);
    lhs = vector::BitCastOp::create(rewriter, loc, VectorType::get({mSize, kSize}, i16), lhs);
    lhs = vector::BitCastOp::create(rewriter, loc, VectorType::get({mSize, pairs}, i32), lhs);
    // (bf16 -> i16 then i16 -> i32: the bf16 emulation drops the first.)
    Value acc = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({mSize, nSize}, rewriter.getF32Type()), op.getAcc());

    // Interleave: lane j of pair p holds rhs[2p][j], rhs[2p + 1][j].
    SmallVector<int64_t> zipMask;
    for (int64_t j = 0; j < lanes; ++j) {
      zipMask.push_back(j);
      zipMask.push_back(lanes + j);
    }
    Value result = acc;
    for (int64_t c = 0; c < chunks; ++c) {
      SmallVector<Value> packed;
      for (int64_t p = 0; p < pairs; ++p) {
        auto cols = [&](int64_t row) {
          return vector::ExtractStridedSliceOp::create(
              rewriter, loc, rhsRows[row], ArrayRef<int64_t>{c * lanes},
              ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
        };
        Value zipped = vector::ShuffleOp::create(rewriter, loc, dotBitsType, cols(2 * p),
                                                 cols(2 * p + 1), zipMask);
        packed.push_back(LLVM::BitcastOp::create(rewriter, loc, dotType, zipped));
      }
      for (int64_t m = 0; m < mSize; ++m) {
        Value row = vector::ExtractOp::create(rewriter, loc, acc, ArrayRef<int64_t>{m});
        Value sum = vector::ExtractStridedSliceOp::create(
            rewriter, loc, row, ArrayRef<int64_t>{c * lanes}, ArrayRef<int64_t>{lanes},
            ArrayRef<int64_t>{1});
        for (int64_t p = 0; p < pairs; ++p) {
          Value word = vector::ExtractOp::create(rewriter, loc, lhs, ArrayRef<int64_t>{m, p});
          Value splat = vector::BroadcastOp::create(rewriter, loc, wordsType, word);
          Value pair = LLVM::BitcastOp::create(rewriter, loc, dotType, splat);
          sum = LLVM::CallIntrinsicOp::create(rewriter, loc, laneType, dpbf16ps,
                                              ValueRange{sum, packed[p], pair})
                    .getResult(0);
        }
        result = vector::InsertStridedSliceOp::create(rewriter, loc, sum, result,
                                                      ArrayRef<int64_t>{m, c * lanes},
                                                      ArrayRef<int64_t>{1});
      }
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, op.getAccType(), result);
    return success();
  }
};

} // namespace

void populateBf16DotPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToBf16Dot>(patterns.getContext());
}

} // namespace jitrun
