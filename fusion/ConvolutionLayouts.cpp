//===- ConvolutionLayouts.cpp - TOSA's conv layouts to vectorizable ones -===//
//
// TOSA lowers convolutions to linalg.conv_2d_nhwc_fhwc(_q) and depthwise ones
// to linalg.depthwise_conv_2d_nhwc_hwcm(_q); jitrun's codegen decomposes and
// vectorizes the HWCF and HWC forms. Filters are transposed to HWCF (a
// transpose of a constant filter is folded at compile time by elementwise
// fusion), and depthwise convolutions with a channel multiplier of 1 drop the
// multiplier dimension (upstream's simplify-depthwise-conv patterns). A 1x1
// NCHW convolution of one image becomes a matmul over the flattened image.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
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

/// The i8 values of a constant (dense or dense_resource) tensor, row-major.
static std::optional<std::vector<int8_t>> constantI8(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!cst || !type || !type.hasStaticShape() || !type.getElementType().isInteger(8))
    return std::nullopt;
  std::vector<int8_t> out;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue())) {
    for (const APInt &x : dense.getValues<APInt>())
      out.push_back(static_cast<int8_t>(x.getSExtValue()));
    return out;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != static_cast<size_t>(type.getNumElements()))
      return std::nullopt;
    for (char c : blob->getData())
      out.push_back(static_cast<int8_t>(c));
    return out;
  }
  return std::nullopt;
}

/// A quantized convolution whose filter is a constant and whose zero points
/// are constants, the filter's 0 (TFLite's symmetric int8 weights):
///   sum (x - zx) w = sum x w - zx sum w,
/// so it is the plain convolution (which codegen decomposes and vectorizes)
/// plus -zx * sum w, one constant per output channel computed here from the
/// weights. Exact in i32: padding holds zx, which the
/// correction cancels as the quantized form does.
/// FHWC: sum w over (kh, kw, c) per f; HWCM depthwise: over (kh, kw) per
/// (c, m).
template <typename QOp, typename PlainOp>
struct QuantizedConvToPlain : public OpRewritePattern<QOp> {
  QuantizedConvToPlain(MLIRContext *ctx) : OpRewritePattern<QOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(QOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    std::optional<int64_t> zx = getConstantIntValue(op.getInputs()[2]);
    std::optional<int64_t> zw = getConstantIntValue(op.getInputs()[3]);
    std::optional<std::vector<int8_t>> weights = constantI8(w);
    auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!zx || !zw || *zw != 0 || !weights || !outType || !outType.getElementType().isInteger(32))
      return rewriter.notifyMatchFailure(op, "needs constant i8 weights, constant zero "
                                             "points (the weights' 0) and an i32 result");
    ArrayRef<int64_t> ws = cast<RankedTensorType>(w.getType()).getShape();
    constexpr bool depthwise = std::is_same_v<QOp, linalg::DepthwiseConv2DNhwcHwcmQOp>;
    // The correction's shape and, for each filter element, its slot.
    SmallVector<int64_t> corrShape =
        depthwise ? SmallVector<int64_t>{ws[2], ws[3]} : SmallVector<int64_t>{ws[0]};
    int64_t inner = depthwise ? ws[2] * ws[3] : ws[1] * ws[2] * ws[3];
    std::vector<int32_t> corr(depthwise ? ws[2] * ws[3] : ws[0], 0);
    for (size_t i = 0; i < weights->size(); ++i) {
      size_t slot = depthwise ? i % inner : i / inner;
      corr[slot] -= static_cast<int32_t>(*zx) * (*weights)[i];
    }
    Location loc = op.getLoc();
    auto corrType = RankedTensorType::get(corrShape, rewriter.getI32Type());
    Value corrValue = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(corrType, ArrayRef<int32_t>(corr)));
    // conv(x, w, init) + corr[f] (or corr[c, m]), broadcast over n, oh, ow:
    // an elementwise consumer, which joins the convolution's dispatch with
    // the requantization after it.
    unsigned rank = outType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap bcast = depthwise
                          ? AffineMap::get(rank, 0,
                                           {getAffineDimExpr(3, ctx), getAffineDimExpr(4, ctx)}, ctx)
                          : AffineMap::get(rank, 0, {getAffineDimExpr(3, ctx)}, ctx);
    auto plain = PlainOp::create(rewriter, loc, TypeRange{outType}, ValueRange{x, w},
                                 ValueRange{op.getOutputs()[0]}, op.getStrides(),
                                 op.getDilations());
    Value empty = tensor::EmptyOp::create(rewriter, loc, outType.getShape(), rewriter.getI32Type());
    auto corrected = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{plain->getResult(0), corrValue},
        ValueRange{empty}, ArrayRef<AffineMap>{id, bcast, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          Value sum = arith::AddIOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, corrected->getResults());
    return success();
  }
};

/// A 1x1 NCHW convolution of one image is a matmul: out[f, hw] = sum_c
/// w[f, c] x[c, hw] over the collapsed image. As a linalg.batch_matmul of
/// one it gets the
/// contraction strategy (8 output channels x 32 pixels of the flattened
/// image per register tile, edges peeled), where the convolution's vector
/// lanes ran along one image row: 7 or 14 pixels wide in late ResNet
/// stages. The result is expanded back; reshape propagation moves the
/// expand_shape past the elementwise consumers so that they join the
/// matmul's dispatch.
struct Conv1x1NchwToMatmul : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto xType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto wType = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
    auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!xType || !wType || !outType || !xType.hasStaticShape() ||
        !wType.hasStaticShape() || !outType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (xType.getDimSize(0) != 1 || wType.getDimSize(2) != 1 || wType.getDimSize(3) != 1 ||
        !llvm::all_of(op.getStrides().getValues<int64_t>(), [](int64_t v) { return v == 1; }))
      return rewriter.notifyMatchFailure(op, "needs one image, a 1x1 filter, stride 1");
    if (xType.getDimSize(2) != outType.getDimSize(2) ||
        xType.getDimSize(3) != outType.getDimSize(3))
      return rewriter.notifyMatchFailure(op, "input and output images differ");
    Location loc = op.getLoc();
    // A batch of one: the elementwise consumers (batch norm, relu) keep the
    // unit batch dimension when reshape propagation collapses them (their
    // per-channel operands stop it from merging into the channels), so the
    // result must have it too to reach them without a reshape.
    SmallVector<ReassociationIndices> image = {{0}, {1}, {2, 3}}, filter = {{0}, {1, 2, 3}},
                                      batch = {{0, 1}, {2}};
    Value x = tensor::CollapseShapeOp::create(rewriter, loc, op.getInputs()[0], image);
    Value w2 = tensor::CollapseShapeOp::create(rewriter, loc, op.getInputs()[1], filter);
    auto w2Type = cast<RankedTensorType>(w2.getType());
    auto wType3 = RankedTensorType::get({1, w2Type.getDimSize(0), w2Type.getDimSize(1)},
                                        w2Type.getElementType());
    Value w = tensor::ExpandShapeOp::create(rewriter, loc, wType3, w2, batch);
    // A fill of an empty tensor (the usual accumulator) is made afresh in the
    // new shape, so that it stays a fill the dispatch takes, not an input.
    Value init;
    auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
    auto collapsedType = tensor::CollapseShapeOp::inferCollapsedType(outType, image);
    if (fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, collapsedType.getShape(),
                                            collapsedType.getElementType());
      init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
    } else {
      init = tensor::CollapseShapeOp::create(rewriter, loc, op.getOutputs()[0], image);
    }
    auto mm = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                            ValueRange{w, x}, ValueRange{init});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, mm.getResult(0), image);
    return success();
  }
};

struct ConvolutionLayoutsPass final
    : public impl::ConvolutionLayoutsPassBase<ConvolutionLayoutsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FilterToHwcf<linalg::Conv2DNhwcFhwcOp>,
                 FilterToHwcf<linalg::Conv2DNhwcFhwcQOp>>(&getContext());
    patterns.add<QuantizedConvToPlain<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcFhwcOp>,
                 QuantizedConvToPlain<linalg::DepthwiseConv2DNhwcHwcmQOp,
                                      linalg::DepthwiseConv2DNhwcHwcmOp>>(&getContext());
    patterns.add<Conv1x1NchwToMatmul>(&getContext());
    linalg::populateSimplifyDepthwiseConvPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
} // namespace jitrun
