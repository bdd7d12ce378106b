//===- DecomposeHostOps.cpp - pad and concat as fills and slice copies ---===//
//
// tensor.pad becomes tensor.empty + linalg.fill + tensor.insert_slice and
// tensor.concat a chain of insert_slices, which the host program runs as
// memset- and memcpy-like commands.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-decompose-host-ops"

namespace jitrun {
#define GEN_PASS_DEF_DECOMPOSEHOSTOPSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {
struct DecomposeHostOpsPass final
    : public impl::DecomposeHostOpsPassBase<DecomposeHostOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposePadPatterns(patterns);
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
} // namespace jitrun
