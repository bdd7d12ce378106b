//===- SoftBf16Conversions.cpp - bf16 conversions without AVX512_BF16 ----===//
//
// See Passes.td: the conversions' fast-math flags cleared, then upstream's
// bf16 expansion patterns (arith-expand's include-bf16 part), applied alone
// so that no other arith op changes form.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jitrun {
#define GEN_PASS_DEF_SOFTBF16CONVERSIONSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {
struct SoftBf16ConversionsPass final
    : public impl::SoftBf16ConversionsPassBase<SoftBf16ConversionsPass> {
  using Base::Base;
  void runOnOperation() override {
    auto isBf16 = [](Type t) { return getElementTypeOrSelf(t).isBF16(); };
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
          !(isBf16(op->getOperand(0).getType()) || isBf16(op->getResult(0).getType())))
        return;
      if (auto fmf = dyn_cast<arith::ArithFastMathInterface>(op))
        op->setAttr(fmf.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(), arith::FastMathFlags::none));
    });
    if (!expand)
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
} // namespace jitrun
