//===- BufferizeDispatch.cpp - one-shot bufferization of a kernel --------===//
//
// The kernel ABI already has buffers at its boundary, so one-shot
// bufferization runs inside functions only; each temporary it needs becomes
// a stack allocation, measured afterwards by the stack-allocation check.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

#define DEBUG_TYPE "jitrun-codegen-bufferize"

namespace jitrun {
#define GEN_PASS_DEF_BUFFERIZEDISPATCHPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {
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
      return memref::AllocaOp::create(b, loc, type, dynShape,
                                      b.getI64IntegerAttr(64))
          .getResult();
    };
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotBufferize(getOperation(), options, state)))
      return signalPassFailure();
    // Copies that bufferization inserted (out-of-place tiles) are vector
    // code too when their shapes are static.
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](linalg::CopyOp copy) {
      if (!copy.hasDynamicShape())
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      if (succeeded(linalg::vectorize(rewriter, copy)))
        rewriter.eraseOp(copy);
    }
  }
};
} // namespace
} // namespace jitrun
