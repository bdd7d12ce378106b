//===- ConvolutionLayouts.cpp - TOSA's conv layouts to vectorizable ones -===//
//
// TOSA lowers convolutions to linalg.conv_2d_nhwc_fhwc(_q) and depthwise ones
// to linalg.depthwise_conv_2d_nhwc_hwcm(_q); jitrun's codegen decomposes and
// vectorizes the HWCF and HWC forms. Filters are transposed to HWCF (a
// transpose of a constant filter is folded at compile time by elementwise
// fusion), and depthwise convolutions with a channel multiplier of 1 drop the
// multiplier dimension (upstream's simplify-depthwise-conv patterns).
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-fusion-convolution-layouts"

namespace jitrun {
#define GEN_PASS_DEF_CONVOLUTIONLAYOUTSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {
/// conv_2d_nhwc_fhwc(_q) -> linalg.transpose of the filter +
/// conv_2d_nhwc_hwcf(_q).
template <typename ConvOp> struct FilterToHwcf : public OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    return linalg::transposeConv2D(rewriter, op);
  }
};

struct ConvolutionLayoutsPass final
    : public impl::ConvolutionLayoutsPassBase<ConvolutionLayoutsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FilterToHwcf<linalg::Conv2DNhwcFhwcOp>,
                 FilterToHwcf<linalg::Conv2DNhwcFhwcQOp>>(&getContext());
    linalg::populateSimplifyDepthwiseConvPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
} // namespace jitrun
