//===- BufferizeDispatch.cpp - one-shot bufferization of a kernel --------===//
//
// The kernel ABI already has buffers at its boundary, so one-shot
// bufferization runs inside functions only; each temporary it needs becomes
// a stack allocation, measured afterwards by the stack-allocation check.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#define DEBUG_TYPE "jitrun-codegen-bufferize"

namespace jitrun {
#define GEN_PASS_DEF_BUFFERIZEDISPATCHPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// True when `a` and `b` name the same memory: the same value, or subviews
/// with equal offsets, sizes and strides of views that are themselves the same.
static Value throughLoops(Value v) {
  // A loop result whose body yields its own iteration argument unchanged is
  // the loop's initial value.
  auto result = dyn_cast<OpResult>(v);
  auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : scf::ForOp();
  if (!loop)
    return v;
  unsigned i = result.getResultNumber();
  if (throughLoops(loop.getYieldedValues()[i]) != loop.getRegionIterArgs()[i])
    return v;
  return throughLoops(loop.getInitArgs()[i]);
}

static bool isSameView(Value a, Value b) {
  a = throughLoops(a);
  b = throughLoops(b);
  if (a == b)
    return true;
  auto sa = a.getDefiningOp<memref::SubViewOp>();
  auto sb = b.getDefiningOp<memref::SubViewOp>();
  if (!sa || !sb || sa.getType() != sb.getType() ||
      !isSameView(sa.getSource(), sb.getSource()))
    return false;
  auto same = [](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    return x.size() == y.size() &&
           llvm::all_of(llvm::zip(x, y), [](auto p) {
             return isEqualConstantIntOrValue(std::get<0>(p), std::get<1>(p));
           });
  };
  return same(sa.getMixedOffsets(), sb.getMixedOffsets()) &&
         same(sa.getMixedSizes(), sb.getMixedSizes()) &&
         same(sa.getMixedStrides(), sb.getMixedStrides());
}

/// A tensor.empty with dynamic sizes (an edge tile) becomes a slice of a
/// static one of its upper-bound shape, so that its buffer is a fixed-size
/// stack allocation created outside any vector.mask.
static void boundDynamicEmpties(Operation *fn) {
  // A slice of an empty tensor is an empty tensor: written in place without
  // a conflict between loop iterations.
  {
    RewritePatternSet patterns(fn->getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    (void)applyPatternsGreedily(fn, std::move(patterns));
  }
  SmallVector<tensor::EmptyOp> empties;
  fn->walk([&](tensor::EmptyOp e) {
    if (!e.getType().hasStaticShape())
      empties.push_back(e);
  });
  IRRewriter rewriter(fn->getContext());
  for (tensor::EmptyOp e : empties) {
    RankedTensorType type = e.getType();
    SmallVector<int64_t> bound(type.getShape());
    bool ok = true;
    for (int64_t i = 0; i < type.getRank() && ok; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(e, i),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      ok = succeeded(ub);
      if (ok)
        bound[i] = *ub;
    }
    if (!ok)
      continue;
    rewriter.setInsertionPoint(e);
    auto full = tensor::EmptyOp::create(rewriter, e.getLoc(), bound,
                                        type.getElementType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = e.getMixedSizes();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(e, type, full, offsets,
                                                        sizes, strides);
  }
}

/// A stack buffer of dynamic shape whose dims have constant upper bounds
/// (an edge tile copied out of place: a matmul tile of a partial workgroup
/// before its fused epilogue) as a view of a fixed-size byte buffer of the
/// bound shape; nullopt when some dim has no bound.
static std::optional<Value> boundedAlloca(OpBuilder &b, Location loc, MemRefType type,
                                          ValueRange dynShape) {
  if (dynShape.empty() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t elements = 1;
  size_t next = 0;
  for (int64_t d : type.getShape()) {
    int64_t extent = d;
    if (ShapedType::isDynamic(d)) {
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(dynShape[next++]),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(ub) || *ub < 0)
        return std::nullopt;
      extent = *ub;
    }
    elements *= extent;
  }
  int64_t bytes = elements * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  auto raw = memref::AllocaOp::create(
      b, loc, MemRefType::get({std::max<int64_t>(bytes, 1)}, b.getI8Type()), ValueRange(),
      b.getI64IntegerAttr(64));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return memref::ViewOp::create(b, loc, type, raw, zero, dynShape).getResult();
}

struct BufferizeDispatchPass final
    : public impl::BufferizeDispatchPassBase<BufferizeDispatchPass> {
  using Base::Base;
  void runOnOperation() override {
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = false;
    options.allowReturnAllocsFromLoops = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.allocationFn = [](OpBuilder &b, Location loc, MemRefType type,
                              ValueRange dynShape,
                              unsigned alignment) -> FailureOr<Value> {
      if (std::optional<Value> bounded = boundedAlloca(b, loc, type, dynShape))
        return *bounded;
      return memref::AllocaOp::create(b, loc, type, dynShape,
                                      b.getI64IntegerAttr(64))
          .getResult();
    };
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    boundDynamicEmpties(getOperation());
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotBufferize(getOperation(), options, state)))
      return signalPassFailure();
    // Static stack buffers move to the entry block: an alloca inside a loop
    // would take more stack on every iteration.
    getOperation()->walk([&](func::FuncOp fn) {
      if (fn.isExternal())
        return;
      Block &entry = fn.getBody().front();
      SmallVector<memref::AllocaOp> allocas;
      fn.walk([&](memref::AllocaOp a) {
        if (a->getBlock() != &entry && a.getDynamicSizes().empty() &&
            a.getSymbolOperands().empty())
          allocas.push_back(a);
      });
      for (memref::AllocaOp a : allocas)
        a->moveBefore(&entry, entry.begin());
    });
    // Storing a tile into the buffer it was computed in leaves a copy of a
    // view onto itself: drop it. Other copies that bufferization inserted
    // (out-of-place tiles) are vector code too when their shapes are static.
    SmallVector<linalg::CopyOp> copies;
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](linalg::CopyOp copy) {
      if (isSameView(copy.getInputs()[0], copy.getOutputs()[0]))
        rewriter.eraseOp(copy);
      else if (!copy.hasDynamicShape() &&
               cast<ShapedType>(copy.getInputs()[0].getType()).getNumElements() <=
                   maxVectorCopyElements)
        copies.push_back(copy);
    });
    for (linalg::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      if (succeeded(linalg::vectorize(rewriter, copy)))
        rewriter.eraseOp(copy);
    }
  }
};
} // namespace
} // namespace jitrun
