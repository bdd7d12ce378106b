//===- PackConvolutions.cpp - convolution filters in the order kernels read ===//
//
// The convolution half of jitrun-fusion-pack-weights (PackWeights.cpp has
// the matmuls and the pass): a 1x1 convolution's constant filter packed as
// a matmul's weights, a large KxK filter in panels per tap, int8 filters in
// VNNI panels for AMX tiles, and under --weights=bf16 the f32 convolutions
// that then read bf16 filters and inputs.
//
//===----------------------------------------------------------------------===//

#include "fusion/PackWeights.h"
#include "fusion/PackedConstants.h"
#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#define DEBUG_TYPE "jitrun-fusion-pack-weights"

using namespace mlir;

namespace jitrun {
namespace {

/// A convolution's input, filter and accumulator, with their ranked types
/// (null where a type is not ranked).
struct ConvOperands {
  Value x, w, init;
  RankedTensorType xType, wType, outType;
  explicit ConvOperands(linalg::Conv2DNhwcHwcfOp op)
      : x(op.getInputs()[0]), w(op.getInputs()[1]), init(op.getOutputs()[0]),
        xType(dyn_cast<RankedTensorType>(x.getType())),
        wType(dyn_cast<RankedTensorType>(w.getType())),
        outType(dyn_cast<RankedTensorType>(init.getType())) {}
};

/// A 1x1 NHWC convolution with a constant filter: the same contraction with
/// the pixels as rows and the filter's 1x1xCxF bytes as C x F, for any
/// number of pixels. Few pixels (late MobileNet and ResNet stages on small
/// images; 1x1 576->96 on a 2x2 image took 0.08 ms for 0.4 MFLOP) are
/// weight-bound; with many, the unpacked filter's rows are C x 4 bytes
/// apart, 4 KB for 1024 channels, and every step of the reduction misses
/// (ResNet-50's 14x14 256->1024 at 28% of the FMA peak, 86% packed). A
/// strided convolution reads its pixels through a strided slice, a copy of
/// a quarter of the image, and is then the same contraction (ResNet-50's
/// projections, 29-36% of peak). It stays 4-D, so TOSA's bias broadcast into
/// its accumulator still initializes it in its dispatch.
struct PackConstantConv1x1Filter : public OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  PackConstantConv1x1Filter(MLIRContext *ctx, bool amxPanels)
      : OpRewritePattern(ctx), amxPanels(amxPanels) {}
  bool amxPanels;
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto [x, w, init, xType, wType, outType] = ConvOperands(op);
    if (!xType || !wType || !outType || !xType.hasStaticShape() || !wType.hasStaticShape() ||
        !outType.hasStaticShape() || wType.getDimSize(0) != 1 || wType.getDimSize(1) != 1)
      return rewriter.notifyMatchFailure(op, "needs a 1x1 filter and static shapes");
    SmallVector<int64_t> strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    // Output pixel (h, w) reads input pixel (h * sh, w * sw).
    for (int d : {1, 2})
      if ((outType.getDimSize(d) - 1) * strides[d - 1] + 1 > xType.getDimSize(d) ||
          (strides[d - 1] == 1 && xType.getDimSize(d) != outType.getDimSize(d)))
        return rewriter.notifyMatchFailure(op, "the output is not the strided input's image");
    int64_t pixels = outType.getDimSize(0) * outType.getDimSize(1) * outType.getDimSize(2);
    int64_t c = wType.getDimSize(2), n = wType.getDimSize(3);
    Type elem = wType.getElementType();
    std::optional<ArrayRef<char>> bytes;
    int64_t width = panelWidth(n, pixels);
    // int8 into i32 on an AMX host (a quantized model's pointwise
    // convolutions), in a shape its tiles take: VNNI panels of quads, the
    // pixels as the tiles' rows.
    bool amx = amxPanels &&
               amxTypes(xType.getElementType(), elem, outType.getElementType()) &&
               amxShape(pixels, c, width, elem) && n % width == 0;
    if (w.getDefiningOp<arith::ConstantOp>()) {
      if (failed(packable(rewriter, op, x, w, init, pixels, bytes, amx)))
        return failure();
    } else if (!elem.isF32() || !xType.getElementType().isF32() ||
               !outType.getElementType().isF32() || pixels <= kMaxRows || n % width != 0 ||
               n < 2 * width || c * n * 4 < kRunTimePackBytes || n * 4 < kRunTimePackRowBytes) {
      // A filter that is an input: packed at run time as a matmul's B is
      // (PackMatmulRhsAtRunTime), when each tile of pixel rows would read
      // it again with its rows far apart (1x1 512 -> 2048 on a 7x7 map ran
      // at 0.43 of oneDNN, 0.55 packed; 256 -> 1024 on 14x14, 0.79 -> 0.87).
      // Rows 1 KB apart read well enough in place (1024 -> 256 on 14x14:
      // 0.87-0.89 of oneDNN, 0.77-0.79 with the pass that packs them).
      return rewriter.notifyMatchFailure(
          op, "a run-time filter packs in f32, whole panels, past 8 pixels, 1 MB and 2 KB rows");
    }
    if (strides[0] != 1 || strides[1] != 1) {
      auto picked = RankedTensorType::get({outType.getDimSize(0), outType.getDimSize(1),
                                           outType.getDimSize(2), xType.getDimSize(3)},
                                          xType.getElementType());
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0)), sizes, steps;
      for (int64_t d : picked.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      for (int64_t st : {int64_t(1), strides[0], strides[1], int64_t(1)})
        steps.push_back(rewriter.getIndexAttr(st));
      x = tensor::ExtractSliceOp::create(rewriter, op.getLoc(), picked, x, offsets, sizes, steps);
    }
    Location loc = op.getLoc();
    if (bytes && amx) {
      Value packedB = vnniPackedConstant(rewriter, loc, *bytes, c, n, width, elem);
      rewriter.replaceOp(op,
                         vnniPackedContraction(rewriter, loc, x, packedB, c, n, width, elem, init));
      return success();
    }
    if (bytes) {
      rewriter.replaceOp(op, packedContraction(rewriter, loc, x, *bytes, c, n, pixels, elem, init));
      return success();
    }
    // [1, 1, C, F] as [C, F], in panels [P, C, T].
    Value packedB = panelsAtRunTime(
        rewriter, loc,
        tensor::CollapseShapeOp::create(rewriter, loc, w,
                                        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}),
        width);
    rewriter.replaceOp(op, packedContraction(rewriter, loc, x, packedB, n, width, elem, init));
    return success();
  }
};

/// A KxK NHWC convolution (not 1x1) with a filter too large to stay in L2
/// between the rows of its output (a constant, packed at compile time; an
/// input, at run time). The HWCF filter's 32 output
/// channels of a register tile lie F x 4 bytes apart at every tap and input
/// channel (2 KB for 512 channels): each row of output pixels streams that
/// strided slab again from memory (ResNet-50's 3x3 512 -> 512 on 7x7 maps,
/// a 9.4 MB filter, ran at 40-50 % of the FMA peak). Packed into panels of
/// T output channels, [F / T][KH][KW][C][T], each register tile's slab is one
/// contiguous run. The convolution becomes a generic one over the panels,
/// out[n, h, w, p, t] += in[n, h * sh + kh * dh, w * sw + kw * dw, c] *
/// filter[p, kh, kw, c, t], collapsed back to [n, h, w, F]. Only when the
/// panels divide F (padding adds work to every pixel), and for filters of
/// at least min-conv-filter-bytes (default 768 KB, three quarters of this
/// host class's 1 MB L2): ResNet-50's 2.4 MB 3x3 256 -> 256 filters on
/// 14x14 maps went from 67-79 % to 87 % of the FMA peak packed, its 9.4 MB
/// ones on 7x7 maps from 42-53 % to 75-79 %, and Inception v3's 1 MB 1x7
/// 192 -> 192 made that model 2 % faster; ResNet-50's 590 KB 3x3
/// 128 -> 128 filters on 28x28 maps, which stay in L2, ran 2 % slower.
/// On an AMX host, an int8 one with a constant filter of any size and
/// channels in steps of 64 packs per tap into VNNI panels for tdpbssd
/// (amxConvolution): QDQ ResNet-50 at 0.56x its VNNI time at one thread,
/// QDQ ResNet-18 at 0.27x, bit for bit the same.
struct PackConstantConvFilter : public OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  PackConstantConvFilter(MLIRContext *ctx, int64_t minFilterBytes, bool amxPanels)
      : OpRewritePattern(ctx), minFilterBytes(minFilterBytes), amxPanels(amxPanels) {}
  /// The smallest filter packed (PackWeightsPass's min-conv-filter-bytes).
  int64_t minFilterBytes;
  bool amxPanels;
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto [x, w, init, xType, wType, outType] = ConvOperands(op);
    if (!wType || !outType || !wType.hasStaticShape() || !outType.hasStaticShape() ||
        (wType.getDimSize(0) == 1 && wType.getDimSize(1) == 1))
      return rewriter.notifyMatchFailure(op, "needs a static filter larger than 1x1");
    Type elem = wType.getElementType(), accElem = outType.getElementType();
    // int8 into i32 on an AMX host (a quantized model's KxK convolutions),
    // or bf16 into f32 (--weights=bf16), whatever the filter's size: each
    // tap a matmul of the pixels of an output row (the tiles' rows, C
    // elements apart in the input) by the tap's C x F matrix in VNNI panels
    // of quads (pairs), C in whole tile steps of 64 bytes.
    int64_t c = wType.getDimSize(2);
    bool amx = amxPanels && xType && (elem.isInteger(8) || elem.isBF16()) &&
               amxTypes(xType.getElementType(), elem, accElem) &&
               w.getDefiningOp<arith::ConstantOp>() && c % amxStepK(elem) == 0;
    int64_t filterBytes =
        wType.getNumElements() * std::max<int64_t>(1, wType.getElementTypeBitWidth() / 8);
    if (filterBytes < minFilterBytes && !amx)
      return rewriter.notifyMatchFailure(op, "a filter that stays in cache");
    int64_t pixels = outType.getDimSize(0) * outType.getDimSize(1) * outType.getDimSize(2);
    int64_t n = outType.getDimSize(3), width = panelWidth(n, pixels);
    if (n % width != 0)
      return rewriter.notifyMatchFailure(op, "output channels not a whole number of panels");
    Location loc = op.getLoc();
    int64_t panels = n / width;
    SmallVector<int64_t> strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    Value filter;
    if (w.getDefiningOp<arith::ConstantOp>()) {
      std::optional<ArrayRef<char>> bytes;
      if (failed(packable(rewriter, op, x, w, init, pixels, bytes, amx)))
        return failure();
      if (amx) {
        rewriter.replaceOp(op, amxConvolution(rewriter, op, x, *bytes, width, strides, dilations));
        return success();
      }
      filter = packedConstant(rewriter, loc, *bytes,
                              {wType.getDimSize(0), wType.getDimSize(1), wType.getDimSize(2)},
                              n, width, elem);
    } else {
      // A filter that is an input (a user's convolution of two tensors):
      // the same panels, packed at run time (a reshape and a transpose, its
      // own dispatch, one pass over the filter). Read in place, 3x3
      // 512 -> 512 on a 7x7 map ran at 0.35 of oneDNN.
      auto xType = dyn_cast<RankedTensorType>(x.getType());
      if (!xType || !xType.hasStaticShape() || !elem.isF32() || !accElem.isF32() ||
          !xType.getElementType().isF32() || n < 2 * width)
        return rewriter.notifyMatchFailure(op, "a run-time filter packs in f32, two panels on");
      filter = panelsAtRunTime(rewriter, loc, w, width); // [P, KH, KW, C, T]
    }
    Value acc = accumulatorInPanels(rewriter, loc, init, panels, width);
    // Loops (n, h, w, p, t, kh, kw, c).
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 8; ++i)
      d.push_back(getAffineDimExpr(i, ctx));
    const unsigned H = 1, W = 2, P = 3;
    SmallVector<AffineMap> maps = {
        AffineMap::get(8, 0,
                       {d[0], d[H] * strides[0] + d[5] * dilations[0],
                        d[W] * strides[1] + d[6] * dilations[1], d[7]},
                       ctx),
        AffineMap::get(8, 0, {d[P], d[5], d[6], d[7], d[4]}, ctx),
        AffineMap::get(8, 0, {d[0], d[H], d[W], d[P], d[4]}, ctx)};
    SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
    iters.append(3, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{acc.getType()}, ValueRange{x, filter}, ValueRange{acc}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          multiplyAccumulateBody(b, l, args, elem, accElem);
        });
    rewriter.replaceOp(op, collapsePanels(rewriter, loc, generic.getResult(0), outType));
    return success();
  }

  /// `op` over its filter `bytes` in VNNI panels of `width` columns per
  /// tap, [KH][KW][P][C/4][T][4]: out[n, h, w, p, t] += in[n, h * sh + kh *
  /// dh, w * sw + kw * dw, cq, v] * filter[kh, kw, p, cq, t, v], the input
  /// viewed as quads of channels, marked for AMX tiles
  /// (jitrun-codegen-amx-contractions); collapsed back to [n, h, w, F].
  static Value amxConvolution(PatternRewriter &rewriter, linalg::Conv2DNhwcHwcfOp op, Value x,
                              ArrayRef<char> bytes, int64_t width, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations) {
    Location loc = op.getLoc();
    Value init = op.getOutputs()[0];
    auto wType = cast<RankedTensorType>(op.getInputs()[1].getType());
    auto xType = cast<RankedTensorType>(x.getType());
    auto outType = cast<RankedTensorType>(init.getType());
    Type elem = wType.getElementType();
    int64_t c = wType.getDimSize(2), n = wType.getDimSize(3), g = vnniGroup(elem);
    Value filter = vnniPackedConstant(rewriter, loc, bytes, c, n, width, elem,
                                      {wType.getDimSize(0), wType.getDimSize(1)});
    Value acc = accumulatorInPanels(rewriter, loc, init, n / width, width);
    SmallVector<int64_t> quadShape(xType.getShape().drop_back());
    quadShape.append({c / g, g});
    Value quads = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(quadShape, elem), x, lastDimSplit(4));
    // Loops (n, h, w, p, t, kh, kw, cq, v).
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 9; ++i)
      d.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(9, 0,
                       {d[0], d[1] * strides[0] + d[5] * dilations[0],
                        d[2] * strides[1] + d[6] * dilations[1], d[7], d[8]},
                       ctx),
        AffineMap::get(9, 0, {d[5], d[6], d[3], d[7], d[4], d[8]}, ctx),
        AffineMap::get(9, 0, {d[0], d[1], d[2], d[3], d[4]}, ctx)};
    return amxContraction(rewriter, loc, quads, filter, acc, maps, 4, elem, outType);
  }
};

/// --weights=bf16 (bf16-convolutions): an f32 NHWC convolution into f32 with
/// a constant filter becomes the same convolution of the input and the
/// filter rounded to bf16, into the same f32 accumulator, which
/// PackConstantConvFilter or PackConstantConv1x1Filter then packs:
/// - on an AMX host (amx-panels), for the tiles, where their shape rule
///   takes it in bf16: input channels in whole steps, two or more for a 1x1
///   filter, as amxShape asks; output channels in two or more panels of 32,
///   the width measured; more than kMaxRows pixels;
/// - else (no AMX, or a shape the tiles refuse: AVX512_BF16's vdpbf16ps), a
///   1x1 filter with input channels in pairs and output channels in two or
///   more panels of 32: a matmul over bf16 panels at twice the f32 rate
///   (ResNet-50 on a Zen 5 host 0.78x the time, MobileNetV2 0.75x). KxK
///   convolutions stay f32 there: in bf16 they ran at 0.67x the f32 rate,
///   and not at all vectorized over packed panels.
struct Bf16Convolution : public OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  // Before the f32 convolution's own packing (PackWeights).
  Bf16Convolution(MLIRContext *ctx, bool amx)
      : OpRewritePattern(ctx, /*benefit=*/2), amx(amx) {}
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    auto [x, w, init, xType, wType, outType] = ConvOperands(op);
    auto cst = w.getDefiningOp<arith::ConstantOp>();
    if (!op.hasPureTensorSemantics() || !cst || !xType || !wType || !outType ||
        !xType.hasStaticShape() || !wType.hasStaticShape() || !outType.hasStaticShape() ||
        !xType.getElementType().isF32() || !wType.getElementType().isF32() ||
        !outType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs f32, static shapes, a constant filter");
    Type bf16 = rewriter.getBF16Type();
    int64_t c = wType.getDimSize(2), f = wType.getDimSize(3);
    int64_t pixels = outType.getDimSize(0) * outType.getDimSize(1) * outType.getDimSize(2);
    bool pointwise = wType.getDimSize(0) == 1 && wType.getDimSize(1) == 1;
    if (f % kManyRowsPanel != 0 || f < 2 * kManyRowsPanel)
      return rewriter.notifyMatchFailure(op, "fewer than two panels of output channels");
    bool tiles = amx && pixels > kMaxRows &&
                 (pointwise ? amxShape(pixels, c, kManyRowsPanel, bf16) : c % amxStepK(bf16) == 0);
    if (!tiles && (!pointwise || c % 2 != 0))
      return rewriter.notifyMatchFailure(
          op, "neither a shape AMX tiles take nor a 1x1 filter of channel pairs");
    Location loc = op.getLoc();
    Value filter = bf16Constant(rewriter, loc, cst);
    if (!filter)
      return rewriter.notifyMatchFailure(op, "the filter's bytes are not readable");
    Value input;
    // A zero-padded input (a pad, or its slice inserted into a zero fill, as
    // fusion sees it): the source is rounded, and the box padded in bf16.
    auto insert = x.getDefiningOp<tensor::InsertSliceOp>();
    auto fill = insert ? insert.getDest().getDefiningOp<linalg::FillOp>() : nullptr;
    Attribute padValue;
    if (fill && fill->hasOneUse() && matchPattern(fill.value(), m_Constant(&padValue)) &&
        isa<FloatAttr>(padValue) && cast<FloatAttr>(padValue).getValue().isZero()) {
      Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(bf16));
      Value box = linalg::FillOp::create(
                      rewriter, loc, zero,
                      ValueRange{tensor::EmptyOp::create(rewriter, loc, xType.getShape(), bf16)})
                      .getResult(0);
      input = tensor::InsertSliceOp::create(
          rewriter, loc, castElementwise(rewriter, loc, insert.getSource(), bf16), box,
          insert.getMixedOffsets(), insert.getMixedSizes(), insert.getMixedStrides());
    } else {
      input = castElementwise(rewriter, loc, x, bf16);
    }
    rewriter.replaceOpWithNewOp<linalg::Conv2DNhwcHwcfOp>(
        op, TypeRange{init.getType()}, ValueRange{input, filter}, ValueRange{init},
        op.getStrides(), op.getDilations());
    return success();
  }

private:
  bool amx;
};

} // namespace

void populatePackConvolutionPatterns(RewritePatternSet &patterns, int64_t minConvFilterBytes,
                                     bool amxPanels, bool bf16Convolutions) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<PackConstantConv1x1Filter>(ctx, amxPanels);
  patterns.add<PackConstantConvFilter>(ctx, minConvFilterBytes, amxPanels);
  if (bf16Convolutions)
    patterns.add<Bf16Convolution>(ctx, amxPanels);
}

} // namespace jitrun
