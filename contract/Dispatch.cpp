//===- Dispatch.cpp - the dispatch contract of fusion and codegen -------===//

#include "contract/Dispatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;

namespace jitrun {

Value multiplyAccumulate(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  auto contract = arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::contract);
  Value product = arith::MulFOp::create(b, loc, x, y, contract);
  return arith::AddFOp::create(b, loc, acc, product);
}

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

/// The most input pixels a window whose pad fuses into it may span.
static constexpr int64_t kMaxFusedWindowSpan = 4096;

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
  if (failed(dims) || !dims->inputChannel.empty())
    return false;
  // Codegen pads a border tile on the stack: a window whose span (taps and
  // dilation) covers more than kMaxFusedWindowSpan input pixels would put
  // all of them there for each channel (a 60x80 max pool dilated by 10 spans
  // 591 x 791 pixels: 1.9 MB of stack per channel). Its pad stays on the
  // host, and the window reads the padded image from the arena.
  SmallVector<int64_t> ranges = window.getStaticLoopRanges();
  int64_t span = 1;
  for (auto [i, loop] : llvm::enumerate(dims->filterLoop)) {
    int64_t dilation = i < dims->dilations.size() ? dims->dilations[i] : 1;
    if (ShapedType::isDynamic(ranges[loop]))
      return false;
    span *= (ranges[loop] - 1) * dilation + 1;
    if (span > kMaxFusedWindowSpan)
      return false;
  }
  return true;
}

} // namespace jitrun
