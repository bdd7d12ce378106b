//===- LegalizeMemoryTypes.cpp - i1 and bf16 buffers as i8 and i16 -------===//
//
// See Passes.td. A dialect conversion whose type converter turns
// memref<... x i1> into memref<... x i8> and memref<... x bf16> into
// memref<... x i16>: ops that only pass a buffer along (views, allocations,
// copies) are rebuilt with the new types; ops that move values between
// memory and registers convert what they store and what they load (extui and
// trunci for booleans, bitcasts for bf16). Any op left touching such a
// buffer fails the conversion, loudly, rather than packing bits or reaching
// LLVM's bf16 lowering.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jitrun {
#define GEN_PASS_DEF_LEGALIZEMEMORYTYPESPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The element type that stands for `elt` in memory, or null if none.
static Type storedAs(Type elt) {
  if (elt.isInteger(1))
    return IntegerType::get(elt.getContext(), 8);
  if (elt.isBF16())
    return IntegerType::get(elt.getContext(), 16);
  return nullptr;
}

static bool isNarrow(Type t) { return storedAs(getElementTypeOrSelf(t)) != nullptr; }

static Type widened(Type t) {
  Type stored = storedAs(getElementTypeOrSelf(t));
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(stored);
  return stored;
}

/// `v` (i1 or bf16, scalar or vector) as memory holds it, and back.
static Value toMemory(OpBuilder &b, Location loc, Value v) {
  Type to = widened(v.getType());
  if (getElementTypeOrSelf(v.getType()).isBF16())
    return arith::BitcastOp::create(b, loc, to, v);
  return arith::ExtUIOp::create(b, loc, to, v);
}
static Value fromMemory(OpBuilder &b, Location loc, Type to, Value v) {
  if (getElementTypeOrSelf(to).isBF16())
    return arith::BitcastOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

/// Ops that only pass buffers along: rebuilt as they are, with the
/// converted operand and result types (a prefetch of bf16 weights too). AMX tile loads and stores too: they
/// move a tile's bytes, whatever the buffer's element type says.
struct RetypeBuffers final : public ConversionPattern {
  RetypeBuffers(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!isa<memref::AllocaOp, memref::AllocOp, memref::SubViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::CastOp, memref::ReinterpretCastOp,
             memref::GetGlobalOp, memref::DimOp, memref::CopyOp, memref::DeallocOp,
             memref::AssumeAlignmentOp, memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp, memref::PrefetchOp, amx::TileLoadOp,
             amx::TileStoreOp>(op))
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
      if (!isNarrow(orig.getType()) || !isValueOperand(op, use))
        continue;
      operands[use.getOperandNumber()] = toMemory(rw, loc, operands[use.getOperandNumber()]);
      changed = true;
    }
    SmallVector<Type> types;
    for (Type t : o->getResultTypes()) {
      if (isNarrow(t) && !isa<MemRefType>(t)) {
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
                            : fromMemory(rw, loc, orig.getType(), now));
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
    Type stored = cast<MemRefType>(type).getElementType();
    std::optional<Attribute> init = op.getInitialValue();
    rw.modifyOpInPlace(op, [&] {
      op.setType(cast<MemRefType>(type));
      if (auto dense = init ? dyn_cast<DenseElementsAttr>(*init) : DenseElementsAttr()) {
        if (dense.getElementType().isBF16())
          op.setInitialValueAttr(dense.bitcast(stored));
        else
          op.setInitialValueAttr(cast<DenseIntElementsAttr>(dense).mapValues(
              stored, [](const APInt &v) { return v.zext(8); }));
      }
    });
    return success();
  }
};

struct LegalizeMemoryTypesPass final
    : public impl::LegalizeMemoryTypesPassBase<LegalizeMemoryTypesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) {
      auto touches = [](TypeRange types) {
        return llvm::any_of(types, [](Type t) {
          auto m = dyn_cast<MemRefType>(t);
          return m && storedAs(m.getElementType());
        });
      };
      if (touches(op->getOperandTypes()) || touches(op->getResultTypes()))
        any = true;
      if (auto g = dyn_cast<memref::GlobalOp>(op); g && storedAs(g.getType().getElementType()))
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
      Type stored = storedAs(t.getElementType());
      if (!stored)
        return t;
      return MemRefType::Builder(t).setElementType(stored);
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
