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
#include "mlir/IR/Matchers.h"
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

/// Pixels from which a 1x1 NCHW convolution is a matmul rather than an NHWC
/// convolution: the matmul's lanes run along the flattened image, two
/// registers of it per tile.
constexpr int64_t kMinMatmulPixels = 32;

/// Why `op` is not a 1x1 convolution of one large image at stride 1 (see
/// Conv1x1NchwToMatmul); empty when it is.
static StringRef notLargeImage1x1(linalg::Conv2DNchwFchwOp op) {
  auto xType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto wType = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!xType || !wType || !outType || !xType.hasStaticShape() ||
      !wType.hasStaticShape() || !outType.hasStaticShape())
    return "needs static shapes";
  if (xType.getDimSize(0) != 1 || wType.getDimSize(2) != 1 || wType.getDimSize(3) != 1 ||
      !llvm::all_of(op.getStrides().getValues<int64_t>(), [](int64_t v) { return v == 1; }))
    return "needs one image, a 1x1 filter, stride 1";
  if (xType.getDimSize(2) != outType.getDimSize(2) ||
      xType.getDimSize(3) != outType.getDimSize(3))
    return "input and output images differ";
  if (outType.getDimSize(2) * outType.getDimSize(3) < kMinMatmulPixels)
    return "the image is too small for the matmul's lanes";
  return "";
}

/// A 1x1 NCHW convolution of one image is a matmul: out[f, hw] = sum_c
/// w[f, c] x[c, hw] over the collapsed image. As a linalg.batch_matmul of
/// one it gets the
/// contraction strategy (8 output channels x 32 pixels of the flattened
/// image per register tile, edges peeled), where the convolution's vector
/// lanes ran along one image row: 7 or 14 pixels wide in late ResNet
/// stages. The result is expanded back; reshape propagation moves the
/// expand_shape past the elementwise consumers so that they join the
/// matmul's dispatch. Images under kMinMatmulPixels go to ConvNchwToNhwc,
/// and so does every convolution of a function whose other convolutions run
/// in NHWC (see nhwcGraph; the pass leaves this pattern out there).
struct Conv1x1NchwToMatmul : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    if (StringRef why = notLargeImage1x1(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    auto outType = cast<RankedTensorType>(op.getResult(0).getType());
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
    auto collapsedType = tensor::CollapseShapeOp::inferCollapsedType(outType, image);
    Value init = refillInShape(rewriter, loc, op.getOutputs()[0],
                               getAsIndexOpFoldResult(getContext(), collapsedType.getShape()));
    if (!init)
      init = tensor::CollapseShapeOp::create(rewriter, loc, op.getOutputs()[0], image);
    auto mm = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                            ValueRange{w, x}, ValueRange{init});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, mm.getResult(0), image);
    return success();
  }
};

/// True when some convolution of `func` goes to NHWC whatever the others do
/// (a window wider than 1x1, a stride, a small image, a depthwise one). Then
/// the whole graph runs NHWC: a 1x1 convolution kept as an NCHW matmul
/// between NHWC neighbours would put a transpose on each side of it, where
/// in NHWC the neighbours' transposes cancel. ResNet-50 at 224x224: 71 -> 58
/// dispatches, 11 scalar transpose kernels gone, the same latency.
static bool nhwcGraph(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        if (isa<linalg::DepthwiseConv2DNchwChwOp>(op))
          return WalkResult::interrupt();
        auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
        return conv && !notLargeImage1x1(conv).empty() ? WalkResult::interrupt()
                                                        : WalkResult::advance();
      })
      .wasInterrupted();
}

/// `v` transposed: result dim i is v's dim perm[i].
static Value transposed(PatternRewriter &rewriter, Location loc, Value v,
                        ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, v);
  SmallVector<OpFoldResult> permuted;
  for (int64_t p : perm)
    permuted.push_back(sizes[p]);
  Value empty = tensor::EmptyOp::create(rewriter, loc, permuted, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, v, empty, perm).getResult()[0];
}

/// Marks the transposes ConvNchwToNhwc puts after a convolution, the ones
/// SinkTransposeBackToNchw moves down.
constexpr StringLiteral kBackToNchwAttrName = "jitrun.back_to_nchw";

/// The NCHW form of an NHWC result, marked for sinking.
static Value backToNchw(PatternRewriter &rewriter, Location loc, Value y) {
  Value t = transposed(rewriter, loc, y, {0, 3, 1, 2});
  t.getDefiningOp()->setAttr(kBackToNchwAttrName, rewriter.getUnitAttr());
  return t;
}

/// The NHWC form of an NCHW image `x`. A constant pad of x becomes a pad of
/// the transposed image, so that the pad still decomposes into a border fill
/// and a copy (or joins a depthwise dispatch) and the transpose reads the
/// unpadded image.
static Value toNhwc(PatternRewriter &rewriter, Location loc, Value x) {
  const int64_t perm[] = {0, 2, 3, 1};
  auto pad = x.getDefiningOp<tensor::PadOp>();
  if (pad && pad->hasOneUse() && pad.getConstantPaddingValue() &&
      pad.getStaticLow().size() == 4 && !llvm::is_contained(pad.getStaticLow(), ShapedType::kDynamic) &&
      !llvm::is_contained(pad.getStaticHigh(), ShapedType::kDynamic)) {
    Value source = transposed(rewriter, loc, pad.getSource(), perm);
    SmallVector<OpFoldResult> low, high;
    for (int64_t p : perm) {
      low.push_back(rewriter.getIndexAttr(pad.getStaticLow()[p]));
      high.push_back(rewriter.getIndexAttr(pad.getStaticHigh()[p]));
    }
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> lowI, highI;
    for (int64_t p : perm) {
      lowI.push_back(pad.getStaticLow()[p]);
      highI.push_back(pad.getStaticHigh()[p]);
    }
    auto type = tensor::PadOp::inferResultType(sourceType, lowI, highI);
    return tensor::PadOp::create(rewriter, loc, type, source, low, high,
                                 pad.getConstantPaddingValue());
  }
  return transposed(rewriter, loc, x, perm);
}

/// The NHWC accumulator of an NCHW convolution: a fresh fill when the NCHW
/// one is a fill of an empty tensor (it stays a fill the dispatch takes),
/// else the transposed init.
static Value accumulatorNhwc(PatternRewriter &rewriter, Location loc, Value init) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, init);
  if (Value fill = refillInShape(rewriter, loc, init, {sizes[0], sizes[2], sizes[3], sizes[1]}))
    return fill;
  return transposed(rewriter, loc, init, {0, 2, 3, 1});
}

/// Replaces the NCHW convolution `op` by `NhwcOp` on the NHWC image, the
/// filter transposed by `filterPerm`, and the result transposed back.
template <typename NhwcOp, typename NchwOp>
static void replaceInNhwc(PatternRewriter &rewriter, NchwOp op, ArrayRef<int64_t> filterPerm) {
  Location loc = op.getLoc();
  Value x = toNhwc(rewriter, loc, op.getInputs()[0]);
  Value w = transposed(rewriter, loc, op.getInputs()[1], filterPerm);
  Value init = accumulatorNhwc(rewriter, loc, op.getOutputs()[0]);
  auto conv = NhwcOp::create(rewriter, loc, TypeRange{init.getType()}, ValueRange{x, w},
                             ValueRange{init}, op.getStrides(), op.getDilations());
  rewriter.replaceOp(op, backToNchw(rewriter, loc, conv->getResult(0)));
}

/// An NCHW convolution computed in NHWC: the image is transposed to NHWC,
/// the filter to HWCF (folded at compile time when it is a constant), and
/// the result back to NCHW. In NCHW the vector lanes run along an image row:
/// 14 of 16 used at width 56, 7, 4 or 2 in late ResNet stages (3.8 GFLOP/s
/// on resnet18's 256-channel 2x2 convolutions). In NHWC they run along the
/// output channels, and the transpose back joins the convolution's dispatch
/// as its consumer, written from the register tile. Elementwise fusion
/// composes the transposes with the elementwise ops between two
/// convolutions. Not for a 1x1 stride-1 convolution of a large image in a
/// graph that is not going NHWC anyway, which Conv1x1NchwToMatmul takes as a
/// matmul with no transposes.
struct ConvNchwToNhwc : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  ConvNchwToNhwc(MLIRContext *context, bool nhwcGraph)
      : OpRewritePattern(context), nhwcGraph(nhwcGraph) {}
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    if (!nhwcGraph && notLargeImage1x1(op).empty())
      return rewriter.notifyMatchFailure(op, "a 1x1 convolution of a large image is a matmul");
    replaceInNhwc<linalg::Conv2DNhwcHwcfOp>(rewriter, op, {2, 3, 1, 0});
    return success();
  }
  bool nhwcGraph;
};

/// The same for an NCHW depthwise convolution (MobileNet's): CHW filter to
/// HWC, and the NHWC depthwise convolution vectorizes along the channels.
struct DepthwiseNchwToNhwc : public OpRewritePattern<linalg::DepthwiseConv2DNchwChwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::DepthwiseConv2DNchwChwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    replaceInNhwc<linalg::DepthwiseConv2DNhwcHwcOp>(rewriter, op, {1, 2, 0});
    return success();
  }
};

/// A grouped NCHW convolution ([N, G, C, H, W] x [G, F, C, KH, KW], the
/// image an expand_shape of an NCHW image's channels; ONNX's Conv with
/// groups, RegNet's and ResNeXt's) computed in NHWC as a generic
/// convolution over [N, H, W, G, C] x [G, KH, KW, C, F] -> [N, OH, OW, G, F]:
/// the image transposed to NHWC and split into groups, the filter with the
/// output channels innermost (the lanes), the result collapsed back to
/// [N, OH, OW, G * F] and transposed back to NCHW, so that it sinks and
/// folds like any convolution's. The named NCHW op had no vectorizer: its
/// kernels ran scalar, at a tenth of bandwidth (RegNet-Y 400MF: 3 of 9.5 ms).
struct GroupedConvNchwToNhwc : public OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto expand = op.getInputs()[0].getDefiningOp<tensor::ExpandShapeOp>();
    auto xType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto wType = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
    auto oType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!expand || !xType || !wType || !oType || !xType.hasStaticShape() ||
        !wType.hasStaticShape() || !oType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a static image split into groups");
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    if (groups.size() != 4 || groups[1] != ReassociationIndices{1, 2})
      return rewriter.notifyMatchFailure(op, "the image is not NCHW with C split into groups");
    SmallVector<int64_t> strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    Location loc = op.getLoc();
    int64_t n = xType.getDimSize(0), g = xType.getDimSize(1), c = xType.getDimSize(2);
    int64_t h = xType.getDimSize(3), w = xType.getDimSize(4);
    int64_t f = wType.getDimSize(1), kh = wType.getDimSize(3), kw = wType.getDimSize(4);
    int64_t oh = oType.getDimSize(3), ow = oType.getDimSize(4);
    Type et = xType.getElementType();
    // [N, H, W, G * C] -> [N, H, W, G, C].
    Value xNhwc = toNhwc(rewriter, loc, expand.getSrc());
    Value x = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, h, w, g, c}, et), xNhwc,
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    // [G, F, C, KH, KW] -> [G, KH, KW, C, F].
    Value filter = transposed(rewriter, loc, op.getInputs()[1], {0, 3, 4, 2, 1});
    // [N, G, F, OH, OW] -> [N, OH, OW, G, F].
    Value init = op.getOutputs()[0];
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(n), rewriter.getIndexAttr(oh),
                                       rewriter.getIndexAttr(ow), rewriter.getIndexAttr(g),
                                       rewriter.getIndexAttr(f)};
    Value acc = refillInShape(rewriter, loc, init, sizes);
    if (!acc)
      acc = transposed(rewriter, loc, init, {0, 3, 4, 1, 2});
    // Loops (n, oh, ow, g, f, kh, kw, c).
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr dn, doh, dow, dg, df, dkh, dkw, dc;
    bindDims(ctx, dn, doh, dow, dg, df, dkh, dkw, dc);
    auto map = [&](ArrayRef<AffineExpr> results) { return AffineMap::get(8, 0, results, ctx); };
    SmallVector<AffineMap> maps = {
        map({dn, doh * strides[0] + dkh * dilations[0], dow * strides[1] + dkw * dilations[1],
             dg, dc}),
        map({dg, dkh, dkw, dc, df}), map({dn, doh, dow, dg, df})};
    using IT = utils::IteratorType;
    SmallVector<IT> iters = {IT::parallel,  IT::parallel,  IT::parallel,  IT::parallel,
                             IT::parallel,  IT::reduction, IT::reduction, IT::reduction};
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{acc.getType()}, ValueRange{x, filter}, ValueRange{acc}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, multiplyAccumulate(b, l, args[0], args[1], args[2]));
        });
    // [N, OH, OW, G, F] -> [N, OH, OW, G * F] -> NCHW -> [N, G, F, OH, OW].
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, conv.getResult(0), SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    Value nchw = backToNchw(rewriter, loc, flat);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, oType, nchw, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    return success();
  }
};

/// True when `x`, or the image a constant pad pads, is a convolution's result
/// on its way back to NCHW (kBackToNchwAttrName).
static bool comesBackFromNhwc(Value x) {
  if (auto pad = x.getDefiningOp<tensor::PadOp>())
    x = pad.getSource();
  Operation *def = x.getDefiningOp();
  return def && def->hasAttr(kBackToNchwAttrName);
}

/// NCHW pooling of a convolution's result (through its padding): pooled in
/// NHWC, where the transpose to NHWC folds into the convolution's transpose
/// back and the vector lanes run along the channels; the transpose back
/// moves below the pooling.
template <typename NchwOp, typename NhwcOp>
struct PoolingNchwToNhwc : public OpRewritePattern<NchwOp> {
  using OpRewritePattern<NchwOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(NchwOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !comesBackFromNhwc(op.getInputs()[0]))
      return failure();
    Location loc = op.getLoc();
    Value x = toNhwc(rewriter, loc, op.getInputs()[0]);
    Value init = accumulatorNhwc(rewriter, loc, op.getOutputs()[0]);
    auto pool = NhwcOp::create(rewriter, loc, TypeRange{init.getType()},
                               ValueRange{x, op.getInputs()[1]}, ValueRange{init},
                               op.getStrides(), op.getDilations());
    rewriter.replaceOp(op, backToNchw(rewriter, loc, pool->getResult(0)));
    return success();
  }
};

/// A transpose that moves only unit dimensions (NCHW to NHWC of one channel,
/// MNIST's image) copies nothing: it is a reshape, through the flat shape.
struct UnitDimTransposeToReshape : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!op.hasPureTensorSemantics() || !inType || !outType || !inType.hasStaticShape() ||
        inType.getRank() < 2)
      return failure();
    // The non-unit dimensions must keep their order.
    int64_t last = -1;
    for (int64_t p : op.getPermutation()) {
      if (inType.getDimSize(p) == 1)
        continue;
      if (p < last)
        return rewriter.notifyMatchFailure(op, "moves a dimension of size > 1");
      last = p;
    }
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> all(1);
    for (int64_t i = 0; i < inType.getRank(); ++i)
      all[0].push_back(i);
    Value flat = tensor::CollapseShapeOp::create(rewriter, loc, op.getInput(), all);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, flat, all);
    return success();
  }
};

/// The filter taps along one image dim that read the unpadded image for
/// some output: [first, last], or none when there are gaps between them.
/// `low` and `extent` place the image in the padded input.
static std::optional<std::pair<int64_t, int64_t>>
liveTaps(int64_t taps, int64_t outputs, int64_t stride, int64_t dilation, int64_t low,
         int64_t extent) {
  int64_t first = -1, last = -1;
  for (int64_t k = 0; k < taps; ++k) {
    bool live = false;
    for (int64_t o = 0; o < outputs && !live; ++o) {
      int64_t row = o * stride + k * dilation;
      live = row >= low && row < low + extent;
    }
    if (!live)
      continue;
    if (last >= 0 && last != k - 1)
      return std::nullopt;
    if (first < 0)
      first = k;
    last = k;
  }
  if (first < 0)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// An NHWC convolution of a zero-padded image whose filter has taps that
/// read only the padding for every output (a 3x3 filter over a 1x1 image
/// padded by 1: 8 of its 9 taps) keeps only the taps that read the image,
/// over the part of the padded image they read. The dropped taps add only
/// products with zeros; their weights are never read (resnet18's 512-channel
/// 3x3 convolutions of a 1x1 image read a 9.4 MB filter for 1 MB of it; the
/// rest become 1x1 convolutions, which pack-weights packs).
struct DropPaddingOnlyTaps : public OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto pad = op.getInputs()[0].getDefiningOp<tensor::PadOp>();
    Value w = op.getInputs()[1];
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!pad || !wType || !outType || !wType.hasStaticShape() || !outType.hasStaticShape())
      return failure();
    Value padValue = pad.getConstantPaddingValue();
    auto srcType = dyn_cast<RankedTensorType>(pad.getSource().getType());
    if (!padValue || !(matchPattern(padValue, m_AnyZeroFloat()) || matchPattern(padValue, m_Zero())) ||
        !srcType || !srcType.hasStaticShape() ||
        llvm::is_contained(pad.getStaticLow(), ShapedType::kDynamic) ||
        llvm::is_contained(pad.getStaticHigh(), ShapedType::kDynamic))
      return rewriter.notifyMatchFailure(op, "needs a static zero pad");
    SmallVector<int64_t> strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    // Per image dim (H, W): the live taps, and the padded rows they read.
    SmallVector<int64_t> tapOffsets(4, 0), tapSizes(wType.getShape());
    SmallVector<int64_t> srcOffsets(4, 0), srcSizes(srcType.getShape());
    SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
    bool dropped = false;
    for (int dim = 0; dim < 2; ++dim) {
      int64_t taps = wType.getDimSize(dim), outputs = outType.getDimSize(1 + dim);
      int64_t s = strides[dim], d = dilations[dim], lo = pad.getStaticLow()[1 + dim];
      int64_t extent = srcType.getDimSize(1 + dim);
      auto live = liveTaps(taps, outputs, s, d, lo, extent);
      if (!live)
        return rewriter.notifyMatchFailure(op, "no taps, or taps with gaps, read the image");
      auto [first, last] = *live;
      if (first == 0 && last == taps - 1)
        continue;
      dropped = true;
      int64_t kept = last - first + 1;
      tapOffsets[dim] = first;
      tapSizes[dim] = kept;
      // Padded rows [begin, end) the kept taps read.
      int64_t begin = first * d, end = begin + (outputs - 1) * s + (kept - 1) * d + 1;
      low[1 + dim] = std::max<int64_t>(0, lo - begin);
      high[1 + dim] = std::max<int64_t>(0, end - (lo + extent));
      srcOffsets[1 + dim] = std::max<int64_t>(0, begin - lo);
      srcSizes[1 + dim] = std::min<int64_t>(extent, end - lo) - srcOffsets[1 + dim];
    }
    if (!dropped)
      return failure();
    Location loc = op.getLoc();
    auto attrs = [&](ArrayRef<int64_t> v) {
      return llvm::map_to_vector(v, [&](int64_t x) -> OpFoldResult {
        return rewriter.getIndexAttr(x);
      });
    };
    SmallVector<OpFoldResult> ones(4, rewriter.getIndexAttr(1));
    Value src = tensor::ExtractSliceOp::create(rewriter, loc, pad.getSource(),
                                               attrs(srcOffsets), attrs(srcSizes), ones);
    Value input = src;
    if (llvm::any_of(llvm::concat<int64_t>(low, high), [](int64_t v) { return v != 0; })) {
      auto type = tensor::PadOp::inferResultType(cast<RankedTensorType>(src.getType()), low, high);
      input = tensor::PadOp::create(rewriter, loc, type, src, attrs(low), attrs(high), padValue);
    }
    Value filter = tensor::ExtractSliceOp::create(rewriter, loc, w, attrs(tapOffsets),
                                                  attrs(tapSizes), ones);
    rewriter.replaceOpWithNewOp<linalg::Conv2DNhwcHwcfOp>(
        op, TypeRange{outType}, ValueRange{input, filter}, ValueRange{op.getOutputs()[0]},
        op.getStrides(), op.getDilations());
    return success();
  }
};

/// The permutation a transpose reads its input through (result index ->
/// input index): a linalg.transpose, or a generic that yields its one input,
/// read through a permutation, into an identity output.
static std::optional<AffineMap> transposeReadMap(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<linalg::TransposeOp, linalg::GenericOp>(op) ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getNumReductionLoops() != 0 || !linalgOp.hasPureTensorSemantics())
    return std::nullopt;
  Block *body = linalgOp.getBlock();
  if (body->getTerminator()->getOperand(0) != body->getArgument(0))
    return std::nullopt;
  AffineMap in = linalgOp.getMatchingIndexingMap(linalgOp.getDpsInputOperand(0));
  AffineMap out = linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  if (!in.isPermutation() || !out.isIdentity())
    return std::nullopt;
  return in;
}

/// A transpose of a transpose that undoes it is its input.
struct FoldInverseTransposes : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<AffineMap> outer = transposeReadMap(op);
    if (!outer)
      return failure();
    Value mid = op.getDpsInputOperand(0)->get();
    std::optional<AffineMap> inner = transposeReadMap(mid.getDefiningOp());
    if (!inner)
      return failure();
    Value source = cast<linalg::LinalgOp>(mid.getDefiningOp()).getDpsInputOperand(0)->get();
    // out[d] = mid[outer(d)] = source[inner(outer(d))].
    if (!inner->compose(*outer).isIdentity() || source.getType() != op->getResult(0).getType())
      return failure();
    rewriter.replaceOp(op, source);
    return success();
  }
};

/// True when `op` reads `operand` at its own loop indices: an identity map,
/// up to torch-mlir's constant 0 for a loop of extent 1. A constant 0 over a
/// longer loop is a broadcast, not an elementwise read (squeeze-excite's
/// 1xCx1x1 gate read through (0, d1, 0, 0) into a 1xCxHxW image): the
/// operand holds fewer elements than the loops visit, so the transpose's
/// input cannot stand in for it at an identity map.
static bool readsElementwise(linalg::GenericOp op, OpOperand *operand) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  auto type = dyn_cast<RankedTensorType>(operand->get().getType());
  if (!type || map.getNumResults() != map.getNumDims())
    return false;
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(expr); d && d.getPosition() == i)
      continue;
    auto c = dyn_cast<AffineConstantExpr>(expr);
    if (!c || c.getValue() != 0 || type.getDimSize(i) != 1 || loops[i] != 1)
      return false;
  }
  return true;
}

/// Moves a transpose back to NCHW (kBackToNchwAttrName) below an elementwise
/// op that reads it: the op runs in NHWC, reading the transpose's input
/// directly and its other operands through permuted maps, and its result is
/// transposed back instead. Sunk step by step through batch norm, relu and
/// residual adds, the transpose meets the next convolution's transpose to
/// NHWC and both fold away; it stays only before ops with no NHWC form here
/// (pooling, reshapes) and results.
struct SinkTransposeBackToNchw : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 || transposeReadMap(op) || op.hasIndexSemantics() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return failure();
    // The transposes it reads elementwise, all through the same permutation.
    std::optional<AffineMap> sigma;
    SmallVector<bool> direct(op.getNumDpsInputs(), false);
    for (OpOperand *in : op.getDpsInputOperands()) {
      Operation *def = in->get().getDefiningOp();
      std::optional<AffineMap> read = transposeReadMap(def);
      if (!read || !def->hasAttr(kBackToNchwAttrName) || !readsElementwise(op, in))
        continue;
      if (sigma && *sigma != *read)
        return rewriter.notifyMatchFailure(op, "reads transposes of two layouts");
      sigma = read;
      direct[in->getOperandNumber()] = true;
    }
    if (!sigma)
      return failure();
    // New loops e = sigma(d): the NHWC index. Operands read at M(d) are read
    // at M(inverse(e)); the transposes' inputs at e.
    Location loc = op.getLoc();
    AffineMap inverse = inversePermutation(*sigma);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (direct[in->getOperandNumber()]) {
        inputs.push_back(
            cast<linalg::LinalgOp>(in->get().getDefiningOp()).getDpsInputOperand(0)->get());
        maps.push_back(AffineMap::getMultiDimIdentityMap(inverse.getNumDims(), getContext()));
      } else {
        inputs.push_back(in->get());
        maps.push_back(op.getMatchingIndexingMap(in).compose(inverse));
      }
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(inverse.getNumDims(), getContext()));
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // The init's sizes: dims of the result would be queried from a value
    // that `back` replaces after them (a dynamic batch).
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getDpsInitOperand(0)->get());
    SmallVector<OpFoldResult> permuted;
    for (AffineExpr e : sigma->getResults())
      permuted.push_back(sizes[cast<AffineDimExpr>(e).getPosition()]);
    Value empty = tensor::EmptyOp::create(rewriter, loc, permuted, resultType.getElementType());
    auto nhwc = linalg::GenericOp::create(rewriter, loc, TypeRange{empty.getType()}, inputs,
                                          ValueRange{empty}, maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), nhwc.getRegion(), nhwc.getRegion().begin());
    // Back to the old layout: out[d] = nhwc[sigma(d)].
    Value backEmpty = tensor::EmptyOp::create(rewriter, loc, sizes, resultType.getElementType());
    auto back = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{nhwc.getResult(0)},
        ValueRange{backEmpty},
        ArrayRef<AffineMap>{*sigma, AffineMap::getMultiDimIdentityMap(sigma->getNumDims(),
                                                                      getContext())},
        op.getIteratorTypesArray(), [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    back->setAttr(kBackToNchwAttrName, rewriter.getUnitAttr());
    rewriter.replaceOp(op, back.getResults());
    return success();
  }
};

/// Moves transposes back to NCHW below a concatenation of their results
/// along the channels: the branches of an Inception block are concatenated
/// in NHWC (along the last dim) and the one transpose back to NCHW meets
/// the next convolutions' and poolings' transposes to NHWC, which fold
/// away. Otherwise every branch went back to NCHW to be concatenated, and
/// the block after it pooled in NCHW, lanes along 35- and 17-pixel rows.
struct SinkTransposeBackThroughConcat : public OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.getRank() != 4 || op.getDim() != 1 || !type.hasStaticShape())
      return failure();
    SmallVector<Value> nhwc;
    for (Value in : op.getInputs()) {
      Operation *def = in.getDefiningOp();
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(def);
      if (!linalgOp || !def->hasAttr(kBackToNchwAttrName) || linalgOp.getNumDpsInputs() != 1)
        return rewriter.notifyMatchFailure(op, "an input does not come back from NHWC");
      Value source = linalgOp.getDpsInputOperand(0)->get();
      auto nchwType = cast<RankedTensorType>(in.getType());
      auto sourceType = dyn_cast<RankedTensorType>(source.getType());
      SmallVector<int64_t> expected = {nchwType.getDimSize(0), nchwType.getDimSize(2),
                                       nchwType.getDimSize(3), nchwType.getDimSize(1)};
      if (!sourceType || sourceType.getShape() != ArrayRef<int64_t>(expected))
        return rewriter.notifyMatchFailure(op, "an input is not an NHWC image transposed");
      nhwc.push_back(source);
    }
    Value concat = tensor::ConcatOp::create(rewriter, op.getLoc(), /*dim=*/3, nhwc);
    rewriter.replaceOp(op, backToNchw(rewriter, op.getLoc(), concat));
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
    bool nhwc = nhwcGraph(getOperation());
    if (!nhwc)
      patterns.add<Conv1x1NchwToMatmul>(&getContext());
    patterns.add<ConvNchwToNhwc>(&getContext(), nhwc);
    patterns.add<DepthwiseNchwToNhwc, GroupedConvNchwToNhwc,
                 FoldInverseTransposes, SinkTransposeBackToNchw, SinkTransposeBackThroughConcat,
                 UnitDimTransposeToReshape,
                 DropPaddingOnlyTaps,
                 PoolingNchwToNhwc<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
                 PoolingNchwToNhwc<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>>(
        &getContext());
    linalg::populateSimplifyDepthwiseConvPatterns(patterns);
    // A grouped convolution's result is expanded into groups and collapsed
    // back by the importer: the pair folds, so its transpose back sinks on.
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    bool changed = false;
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), {}, &changed)))
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
} // namespace jitrun
