//===- CheckStackAllocation.cpp - the static stack-allocation limit ------===//
//
// Kernels run on worker threads with bounded stacks; every temporary that
// bufferization placed on the stack is summed here and checked against the
// limit, so that an oversized tile fails at compile time, not at run time.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#define DEBUG_TYPE "jitrun-codegen-check-stack-allocation"

namespace jitrun {
#define GEN_PASS_DEF_CHECKSTACKALLOCATIONPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

static uint64_t allocaBytes(memref::AllocaOp op) {
  MemRefType type = op.getType();
  Type elt = type.getElementType();
  uint64_t bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
  uint64_t eltBytes = std::max<uint64_t>(1, (bits + 7) / 8);
  if (auto vec = dyn_cast<VectorType>(elt))
    eltBytes = vec.getNumElements() *
               std::max<uint64_t>(1, (vec.getElementTypeBitWidth() + 7) / 8);
  return type.getNumElements() * eltBytes;
}

struct CheckStackAllocationPass final
    : public impl::CheckStackAllocationPassBase<CheckStackAllocationPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    uint64_t total = 0;
    memref::AllocaOp largest;
    uint64_t largestBytes = 0;
    bool dynamic = false;
    fn.walk([&](memref::AllocaOp op) {
      if (!op.getType().hasStaticShape()) {
        op.emitOpError() << "has a dynamic size; kernels may only allocate "
                            "statically sized stack buffers (use static tile "
                            "sizes)";
        dynamic = true;
        return;
      }
      uint64_t bytes = allocaBytes(op);
      total += bytes;
      if (bytes > largestBytes) {
        largestBytes = bytes;
        largest = op;
      }
    });
    if (dynamic)
      return signalPassFailure();
    fn->setAttr(kStackBytesAttrName,
                IntegerAttr::get(IntegerType::get(&getContext(), 64), total));
    if (total <= limit)
      return;
    InFlightDiagnostic diag =
        fail ? fn.emitError() : fn.emitWarning();
    diag << "exceeded stack allocation limit of " << static_cast<uint64_t>(limit)
         << " bytes for dispatch '" << fn.getSymName() << "': got " << total
         << " bytes";
    diag.attachNote(largest.getLoc())
        << "largest allocation (" << largestBytes << " bytes): "
        << *largest.getOperation();
    diag.attachNote() << "raise the stack allocation limit, or make exceeding it "
                         "a warning";
    if (fail) {
      // The kernel compiler retiles on this failure, told by the attribute
      // (not by the message's text).
      fn->setAttr(kStackLimitExceededAttrName, UnitAttr::get(fn.getContext()));
      signalPassFailure();
    }
  }
};

} // namespace
} // namespace jitrun
