//===- StoreI1AsBytes.cpp - one byte per boolean in memory ---------------===//
//
// See Passes.td. A dialect conversion whose type converter turns
// memref<... x i1> into memref<... x i8>: ops that only pass a buffer along
// (views, allocations, copies) are rebuilt with the new types; ops that move
// booleans between memory and registers widen what they store and narrow
// what they load. Any op left touching an i1 buffer fails the conversion,
// loudly, rather than packing bits.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jitrun {
#define GEN_PASS_DEF_STOREI1ASBYTESPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

static bool isI1(Type t) { return getElementTypeOrSelf(t).isInteger(1); }

static Type widened(Type t) {
  Type i8 = IntegerType::get(t.getContext(), 8);
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(i8);
  return i8;
}

/// Ops that only pass buffers along: rebuilt as they are, with the
/// converted operand and result types.
struct RetypeBuffers final : public ConversionPattern {
  RetypeBuffers(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!isa<memref::AllocaOp, memref::AllocOp, memref::SubViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::CastOp, memref::ReinterpretCastOp,
             memref::GetGlobalOp, memref::DimOp, memref::CopyOp, memref::DeallocOp,
             memref::AssumeAlignmentOp, memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp>(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs(),
                         op->getSuccessors());
    Operation *repl = rw.create(state);
    rw.replaceOp(op, repl->getResults());
    return success();
  }
};

/// Loads and stores of booleans: `valueOperand` (when >= 0) is widened with
/// extui before the op, i1 results are narrowed with trunci after it.
template <typename OpTy>
struct WidenAccess final : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult matchAndRewrite(OpTy op, Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Operation *o = op.getOperation();
    Location loc = o->getLoc();
    SmallVector<Value> operands(adaptor.getOperands());
    bool changed = false;
    for (OpOperand &use : o->getOpOperands()) {
      Value orig = use.get();
      if (!isI1(orig.getType()) || !isValueOperand(op, use))
        continue;
      operands[use.getOperandNumber()] =
          arith::ExtUIOp::create(rw, loc, widened(orig.getType()), operands[use.getOperandNumber()]);
      changed = true;
    }
    SmallVector<Type> types;
    for (Type t : o->getResultTypes()) {
      if (isI1(t) && !isa<MemRefType>(t)) {
        types.push_back(widened(t));
        changed = true;
      } else {
        types.push_back(t);
      }
    }
    bool buffersChanged = llvm::any_of(llvm::zip(o->getOperands(), operands), [](auto p) {
      return std::get<0>(p).getType() != std::get<1>(p).getType();
    });
    if (!changed && !buffersChanged)
      return failure();
    OperationState state(loc, o->getName(), operands, types, o->getAttrs());
    Operation *repl = rw.create(state);
    SmallVector<Value> results;
    for (auto [orig, now] : llvm::zip(o->getResults(), repl->getResults()))
      results.push_back(orig.getType() == now.getType()
                            ? now
                            : arith::TruncIOp::create(rw, loc, orig.getType(), now).getResult());
    rw.replaceOp(o, results);
    return success();
  }

  /// Whether `use` carries boolean data to memory (not a mask, not a buffer).
  static bool isValueOperand(OpTy op, OpOperand &use) {
    Operation *o = op.getOperation();
    if (isa<MemRefType>(use.get().getType()))
      return false;
    if constexpr (std::is_same_v<OpTy, memref::StoreOp> || std::is_same_v<OpTy, vector::StoreOp> ||
                  std::is_same_v<OpTy, vector::TransferWriteOp>)
      return use.getOperandNumber() == 0;
    if constexpr (std::is_same_v<OpTy, vector::MaskedStoreOp> ||
                  std::is_same_v<OpTy, vector::MaskedLoadOp>)
      return use.getOperandNumber() == o->getNumOperands() - 1;
    if constexpr (std::is_same_v<OpTy, vector::TransferReadOp>)
      return use.get() == op.getPadding();
    return false;
  }
};

struct RetypeGlobal final : public OpConversionPattern<memref::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(memref::GlobalOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || type == op.getType())
      return failure();
    Type i8 = rw.getI8Type();
    std::optional<Attribute> init = op.getInitialValue();
    rw.modifyOpInPlace(op, [&] {
      op.setType(cast<MemRefType>(type));
      if (init) {
        if (auto dense = dyn_cast<DenseIntElementsAttr>(*init))
          op.setInitialValueAttr(dense.mapValues(i8, [](const APInt &v) { return v.zext(8); }));
      }
    });
    return success();
  }
};

struct StoreI1AsBytesPass final : public impl::StoreI1AsBytesPassBase<StoreI1AsBytesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) {
      auto touches = [](TypeRange types) {
        return llvm::any_of(types, [](Type t) {
          auto m = dyn_cast<MemRefType>(t);
          return m && m.getElementType().isInteger(1);
        });
      };
      if (touches(op->getOperandTypes()) || touches(op->getResultTypes()))
        any = true;
      if (auto g = dyn_cast<memref::GlobalOp>(op); g && g.getType().getElementType().isInteger(1))
        any = true;
      if (auto f = dyn_cast<func::FuncOp>(op); f && touches(f.getArgumentTypes()))
        any = true;
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    TypeConverter tc;
    tc.addConversion([](Type t) { return t; });
    tc.addConversion([](MemRefType t) -> Type {
      if (!t.getElementType().isInteger(1))
        return t;
      return MemRefType::Builder(t).setElementType(IntegerType::get(t.getContext(), 8));
    });
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto f = dyn_cast<func::FuncOp>(op))
        return tc.isSignatureLegal(f.getFunctionType());
      if (auto g = dyn_cast<memref::GlobalOp>(op))
        return tc.isLegal(g.getType());
      return tc.isLegal(op);
    });
    RewritePatternSet patterns(ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, tc);
    scf::populateSCFStructuralTypeConversions(tc, patterns);
    patterns.add<RetypeBuffers>(tc, ctx);
    patterns.add<RetypeGlobal, WidenAccess<memref::LoadOp>, WidenAccess<memref::StoreOp>,
                 WidenAccess<vector::LoadOp>, WidenAccess<vector::StoreOp>,
                 WidenAccess<vector::MaskedLoadOp>, WidenAccess<vector::MaskedStoreOp>,
                 WidenAccess<vector::TransferReadOp>, WidenAccess<vector::TransferWriteOp>>(
        tc, ctx);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
