//===- ScalefExp.cpp - exp of f32 vectors in fewer instructions on AVX-512 ===//
//
// math.exp on f32 vectors, for AVX-512 hosts: x = k ln 2 + r with k the
// nearest integer to x / ln 2 (one vrndscaleps) and |r| <= ln 2 / 2 (two
// FMAs, ln 2 in two parts), e^r by Cephes' polynomial (six FMAs, a product
// and an add), then e^r * 2^k by vscalefps, which also gives +inf past
// the largest float and subnormals or zero below the smallest normal. The
// general approximation builds 2^k from the exponent bits, which needs k
// clamped and selects around it: about 19 instructions a register where
// this takes 15. EfficientNet-B0 spends about a fifth of its time in exp
// (its SiLU gates).
//
// Arguments are first clamped to [-104, 89], which keeps k finite (an
// infinite k would make r NaN) and leaves the results unchanged (e^x is 0
// in f32 below -104 and +inf above 89); the clamps compare so that a NaN
// argument passes through them, and so does its result. Accuracy: within 2
// ulp over the whole range (tests/codegen/scalef_exp.mlir sweeps it).
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace jitrun {
namespace {

constexpr int64_t kLanes = 16;

struct ScalefExp final : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable() ||
        type.getNumElements() % kLanes != 0)
      return rewriter.notifyMatchFailure(op, "not an f32 vector of whole registers");
    Location loc = op.getLoc();
    int64_t n = type.getNumElements();
    auto flat = VectorType::get({n}, rewriter.getF32Type());
    auto constant = [&](float v) {
      return createScalarOrSplatConstant(rewriter, loc, flat, APFloat(v));
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    Value x = vector::ShapeCastOp::create(rewriter, loc, flat, op.getOperand());
    // x = hi < x ? hi : x, then x < lo ? lo : x: vminps and vmaxps with the
    // argument second, which pass a NaN through.
    Value hi = constant(89.0f), lo = constant(-104.0f);
    x = arith::SelectOp::create(
        rewriter, loc, arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, hi, x),
        hi, x);
    x = arith::SelectOp::create(
        rewriter, loc, arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, x, lo),
        lo, x);
    Value k = math::RoundEvenOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, x, constant(1.44269504088896341f)));
    // r = x - k ln 2, ln 2 as 0.693359375 - 2.12194440e-4 (the first part
    // in few bits, so that k times it is exact).
    Value r = fma(k, constant(-0.693359375f), x);
    r = fma(k, constant(2.12194440e-4f), r);
    Value p = constant(1.9875691500e-4f);
    for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f,
                    5.0000001201e-1f})
      p = fma(p, r, constant(c));
    Value r2 = arith::MulFOp::create(rewriter, loc, r, r);
    Value y = arith::AddFOp::create(rewriter, loc, fma(p, r2, r), constant(1.0f));
    // y * 2^k, a register at a time.
    auto lane = VectorType::get({kLanes}, rewriter.getF32Type());
    StringAttr scalef = rewriter.getStringAttr("llvm.x86.avx512.mask.scalef.ps.512");
    Value allLanes = arith::ConstantOp::create(rewriter, loc, rewriter.getI16IntegerAttr(-1));
    // _MM_FROUND_CUR_DIRECTION.
    Value rounding = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(4));
    Value result = y;
    for (int64_t at = 0; at < n; at += kLanes) {
      auto slice = [&](Value v) -> Value {
        return vector::ExtractStridedSliceOp::create(rewriter, loc, v, ArrayRef<int64_t>{at},
                                                     ArrayRef<int64_t>{kLanes},
                                                     ArrayRef<int64_t>{1});
      };
      Value ys = slice(y);
      Value scaled = LLVM::CallIntrinsicOp::create(rewriter, loc, lane, scalef,
                                                   ValueRange{ys, slice(k), ys, allLanes, rounding})
                         .getResult(0);
      result = vector::InsertStridedSliceOp::create(rewriter, loc, scaled, result,
                                                    ArrayRef<int64_t>{at}, ArrayRef<int64_t>{1});
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, type, result);
    return success();
  }
};

} // namespace

void populateScalefExpPatterns(RewritePatternSet &patterns) {
  // Ahead of the general polynomial approximation of exp.
  patterns.add<ScalefExp>(patterns.getContext(), /*benefit=*/2);
}

} // namespace jitrun
