//===- SoftBf16Conversions.cpp - bf16 as integer code --------------------===//
//
// See Passes.td: the conversions' fast-math flags cleared, then upstream's
// bf16 expansion patterns (arith-expand's include-bf16 part), applied alone
// so that no other arith op changes form; then what is left of bf16 (values
// moved, not computed: shuffles, inserts, broadcasts, selects of vectors
// read from bf16 buffers) is retyped to i16, which LLVM lowers for every
// shape.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_SOFTBF16CONVERSIONSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

static bool isBf16(Type t) { return getElementTypeOrSelf(t).isBF16(); }

/// Ops that only move values: the same op on i16 moves the same bits.
static bool movesOnly(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isa<vector::InsertOp, vector::ExtractOp, vector::InsertStridedSliceOp,
              vector::ExtractStridedSliceOp, vector::ShuffleOp, vector::BroadcastOp,
              vector::ShapeCastOp, vector::TransposeOp, vector::FromElementsOp,
              vector::ToElementsOp, vector::InterleaveOp, vector::DeinterleaveOp,
              arith::SelectOp, ub::PoisonOp>(op));
}

/// Rebuilds a value-moving op with its bf16 types as i16.
struct RetypeMoves final : public ConversionPattern {
  RetypeMoves(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!movesOnly(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs());
    rw.replaceOp(op, rw.create(state)->getResults());
    return success();
  }
};

/// bitcast between bf16 and i16: nothing once both are i16.
struct DropBitcast final : public OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Type to = getTypeConverter()->convertType(op.getType());
    if (adaptor.getIn().getType() != to)
      return failure();
    rw.replaceOp(op, adaptor.getIn());
    return success();
  }
};

/// vector.bitcast from bf16 (the bf16 dot products' operands,
/// Bf16Contraction.cpp): from the i16 bits instead, or nothing once both
/// are i16.
struct RetypeVectorBitcast final : public OpConversionPattern<vector::BitCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(vector::BitCastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto to = dyn_cast_if_present<VectorType>(getTypeConverter()->convertType(op.getType()));
    if (!to)
      return failure();
    if (adaptor.getSource().getType() == to)
      rw.replaceOp(op, adaptor.getSource());
    else
      rw.replaceOpWithNewOp<vector::BitCastOp>(op, to, adaptor.getSource());
    return success();
  }
};

/// bf16 constants as the i16 bits they are.
struct RetypeConstant final : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Type to = getTypeConverter()->convertType(op.getType());
    Type i16 = rw.getI16Type();
    TypedAttr value;
    if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
      value = dense.bitcast(i16);
    else if (auto f = dyn_cast<FloatAttr>(op.getValue()))
      value = rw.getIntegerAttr(i16, f.getValue().bitcastToAPInt());
    if (!value || value.getType() != to)
      return failure();
    rw.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct SoftBf16ConversionsPass final
    : public impl::SoftBf16ConversionsPassBase<SoftBf16ConversionsPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
          !(isBf16(op->getOperand(0).getType()) || isBf16(op->getResult(0).getType())))
        return;
      if (auto fmf = dyn_cast<arith::ArithFastMathInterface>(op))
        op->setAttr(fmf.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(), arith::FastMathFlags::none));
    });
    {
      RewritePatternSet patterns(&getContext());
      arith::populateExpandBFloat16Patterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    bool any = false;
    getOperation().walk([&](Operation *op) {
      any |= llvm::any_of(op->getResultTypes(), isBf16) ||
             llvm::any_of(op->getOperandTypes(), isBf16);
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    TypeConverter tc;
    tc.addConversion([](Type t) { return t; });
    tc.addConversion([](BFloat16Type t) -> Type { return IntegerType::get(t.getContext(), 16); });
    tc.addConversion([](VectorType t) -> Type {
      return t.getElementType().isBF16() ? t.clone(IntegerType::get(t.getContext(), 16)) : t;
    });
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) { return tc.isLegal(op); });
    // The bf16 dot products' own operands (llvm.bitcast of i16 to bf16, the
    // intrinsic call): LLVM takes bf16 there.
    target.addLegalDialect<LLVM::LLVMDialect>();
    RewritePatternSet patterns(ctx);
    scf::populateSCFStructuralTypeConversions(tc, patterns);
    patterns.add<RetypeMoves>(tc, ctx);
    patterns.add<DropBitcast, RetypeVectorBitcast, RetypeConstant>(tc, ctx);
    // What is left computes on bf16 (no op here would): a clean failure.
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
} // namespace jitrun
