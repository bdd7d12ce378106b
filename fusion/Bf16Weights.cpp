//===- Bf16Weights.cpp - f32 matmul weights stored as bf16 ----------------===//
//
// --weights=bf16: a matmul of f32 into f32 against a constant right operand
// becomes a matmul of bf16 operands into the same f32 accumulator. The
// constant is rounded to bf16 here, once (half the bytes to stream per
// run); the left operand is rounded by an elementwise generic that fusion
// takes into whatever produces it. Weight-bound and compute-bound matmuls
// both gain: half the weight bytes, and on AVX512_BF16 twice the rate.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>

namespace jitrun {
#define GEN_PASS_DEF_BF16WEIGHTSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// f32 to bf16 bits, rounded to nearest even (NaN stays a quiet NaN).
static uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// The constant f32 `cst` rounded to bf16, of the same shape; null if its
/// bytes cannot be read.
static Value bf16Constant(OpBuilder &b, Location loc, arith::ConstantOp cst) {
  if (!getElementTypeOrSelf(cst.getType()).isF32())
    return nullptr;
  return convertConstant(b, loc, cst, b.getBF16Type(), "bf16_weights",
                         [](const char *from, char *to) {
                           float f;
                           std::memcpy(&f, from, 4);
                           uint16_t bits = toBf16(f);
                           std::memcpy(to, &bits, 2);
                         });
}

/// An f32 NHWC convolution into f32 with a constant filter whose shape AMX
/// tiles take after jitrun-fusion-pack-weights packs it (input channels in
/// steps of 32 bf16, two or more for a 1x1 filter; output channels in two
/// or more panels of 32; more than 8 pixels): the same convolution of the
/// input and the filter rounded to bf16, into the same f32 accumulator. Not
/// without AMX, where
/// bf16 convolutions ran at half the f32 rate (vdpbf16ps).
struct Bf16AmxConvolution : public OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  // Before the f32 convolution's own packing (PackWeights).
  Bf16AmxConvolution(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInputs()[0], w = op.getInputs()[1], init = op.getOutputs()[0];
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    auto outType = dyn_cast<RankedTensorType>(init.getType());
    auto cst = w.getDefiningOp<arith::ConstantOp>();
    if (!op.hasPureTensorSemantics() || !cst || !xType || !wType || !outType ||
        !xType.hasStaticShape() || !wType.hasStaticShape() || !outType.hasStaticShape() ||
        !xType.getElementType().isF32() || !wType.getElementType().isF32() ||
        !outType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs f32, static shapes, a constant filter");
    int64_t c = wType.getDimSize(2), f = wType.getDimSize(3);
    int64_t pixels = outType.getDimSize(0) * outType.getDimSize(1) * outType.getDimSize(2);
    bool pointwise = wType.getDimSize(0) == 1 && wType.getDimSize(1) == 1;
    if (c % 32 != 0 || (pointwise && c < 64) || f % 32 != 0 || f < 64 || pixels <= 8)
      return rewriter.notifyMatchFailure(op, "a shape AMX tiles do not take");
    Location loc = op.getLoc();
    Value filter = bf16Constant(rewriter, loc, cst);
    if (!filter)
      return rewriter.notifyMatchFailure(op, "the filter's bytes are not readable");
    Type bf16 = rewriter.getBF16Type();
    Value input;
    // A zero-padded input (a pad, or its slice inserted into a zero fill, as
    // fusion sees it): the source is rounded, and the box padded in bf16.
    auto insert = x.getDefiningOp<tensor::InsertSliceOp>();
    auto fill = insert ? insert.getDest().getDefiningOp<linalg::FillOp>() : nullptr;
    Attribute padValue;
    if (fill && fill->hasOneUse() && matchPattern(fill.value(), m_Constant(&padValue)) &&
        isa<FloatAttr>(padValue) && cast<FloatAttr>(padValue).getValue().isZero()) {
      Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(bf16));
      Value box = linalg::FillOp::create(
                      rewriter, loc, zero,
                      ValueRange{tensor::EmptyOp::create(rewriter, loc, xType.getShape(), bf16)})
                      .getResult(0);
      input = tensor::InsertSliceOp::create(
          rewriter, loc, castElementwise(rewriter, loc, insert.getSource(), bf16), box,
          insert.getMixedOffsets(), insert.getMixedSizes(), insert.getMixedStrides());
    } else {
      input = castElementwise(rewriter, loc, x, bf16);
    }
    rewriter.replaceOpWithNewOp<linalg::Conv2DNhwcHwcfOp>(
        op, TypeRange{init.getType()}, ValueRange{input, filter}, ValueRange{init},
        op.getStrides(), op.getDilations());
    return success();
  }
};

struct Bf16WeightsPass final : public impl::Bf16WeightsPassBase<Bf16WeightsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        candidates.push_back(op);
    });
    OpBuilder b(&getContext());
    for (linalg::LinalgOp op : candidates) {
      Value lhs = op.getDpsInputOperand(0)->get(), rhs = op.getDpsInputOperand(1)->get();
      Value init = op.getDpsInitOperand(0)->get();
      auto isF32 = [](Value v) { return getElementTypeOrSelf(v.getType()).isF32(); };
      auto cst = rhs.getDefiningOp<arith::ConstantOp>();
      if (!cst || !isF32(lhs) || !isF32(rhs) || !isF32(init))
        continue;
      // Matmuls with default indexing only (no transposed or broadcast maps).
      bool userMaps = false;
      if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation()))
        userMaps = mm.hasUserDefinedMaps();
      if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
        userMaps = bmm.hasUserDefinedMaps();
      if (userMaps || !op.hasPureTensorSemantics() || op->getNumResults() != 1)
        continue;
      b.setInsertionPoint(op);
      Value weights = bf16Constant(b, op.getLoc(), cst);
      if (!weights)
        continue;
      Value acts = castElementwise(b, op.getLoc(), lhs, b.getBF16Type());
      // A named op's body is built for its operand types: built anew, it
      // widens the bf16 operands to f32 before multiplying.
      Operation *replacement =
          isa<linalg::MatmulOp>(op.getOperation())
              ? linalg::MatmulOp::create(b, op.getLoc(), TypeRange{init.getType()},
                                         ValueRange{acts, weights}, ValueRange{init})
                    .getOperation()
              : linalg::BatchMatmulOp::create(b, op.getLoc(), TypeRange{init.getType()},
                                              ValueRange{acts, weights}, ValueRange{init})
                    .getOperation();
      op->replaceAllUsesWith(replacement->getResults());
      op->erase();
      if (cst->use_empty())
        cst->erase();
    }
  }
};

} // namespace

void populateBf16ConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<Bf16AmxConvolution>(patterns.getContext());
}

} // namespace jitrun
