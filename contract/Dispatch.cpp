//===- Dispatch.cpp - the dispatch contract of fusion and codegen -------===//

#include "contract/Dispatch.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;

namespace jitrun {

bool isRootOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || isa<linalg::FillOp>(op))
    return false;
  return linalgOp.getNumReductionLoops() > 0;
}

Operation *dispatchRootOp(func::FuncOp dispatch) {
  Operation *root = nullptr, *firstCompute = nullptr, *first = nullptr;
  dispatch.walk([&](linalg::LinalgOp linalgOp) {
    Operation *op = linalgOp.getOperation();
    if (!first)
      first = op;
    if (!firstCompute && !isa<linalg::FillOp>(op))
      firstCompute = op;
    if (!root && isRootOp(op))
      root = op;
  });
  return root ? root : firstCompute ? firstCompute : first;
}

std::optional<int64_t> staticWork(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  int64_t work = 1;
  for (int64_t r : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    work *= r;
  }
  return work;
}

bool isFusedWindowPad(tensor::PadOp pad) {
  if (!pad.getConstantPaddingValue() || !pad.getSourceType().hasStaticShape() ||
      !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty() || !pad.getResult().hasOneUse())
    return false;
  OpOperand &use = *pad.getResult().getUses().begin();
  auto window = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!window || !isa<linalg::ConvolutionOpInterface>(window.getOperation()) ||
      window.getNumDpsInputs() != 2 || use.getOperandNumber() != 0 ||
      window->getBlock() != pad->getBlock())
    return false;
  FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(window);
  return succeeded(dims) && dims->inputChannel.empty();
}

} // namespace jitrun
