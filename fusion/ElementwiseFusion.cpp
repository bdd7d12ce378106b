//===- ElementwiseFusion.cpp - jitrun's elementwise fusion policy --------===//
//
// The upstream elementwise fusion patterns are the mechanism; this file is the
// policy. The control function never duplicates a producer that keeps other
// uses, never fuses into a reduction through a broadcasting map, and caps the
// operand count of the fused op.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "contract/WeightMemo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/InterleavedRange.h"

#include <cstring>

#define DEBUG_TYPE "jitrun-fusion-elementwise"

namespace jitrun {
#define GEN_PASS_DEF_ELEMENTWISEFUSIONPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

std::optional<ArrayRef<char>> constantBytes(Attribute value) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value);
      dense && !dense.isSplat() && dense.getElementType().isIntOrFloat())
    return dense.getRawData();
  return std::nullopt;
}

Value convertConstant(OpBuilder &b, Location loc, arith::ConstantOp cst, Type to,
                      StringRef resourceName,
                      function_ref<void(const char *from, char *to)> convert) {
  auto type = dyn_cast<RankedTensorType>(cst.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return nullptr;
  size_t fromBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  size_t toBytes = to.getIntOrFloatBitWidth() / 8;
  auto newType = RankedTensorType::get(type.getShape(), to);
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()); dense && dense.isSplat()) {
    SmallVector<char, 8> value(toBytes);
    convert(dense.getRawData().data(), value.data());
    return arith::ConstantOp::create(b, loc, newType,
                                     DenseElementsAttr::getFromRawBuffer(newType, value));
  }
  std::optional<ArrayRef<char>> bytes = constantBytes(cst.getValue());
  auto n = static_cast<size_t>(type.getNumElements());
  if (!bytes || bytes->size() != n * fromBytes)
    return nullptr;
  std::string recipe;
  llvm::raw_string_ostream(recipe)
      << "convert " << resourceName << " " << type.getElementType() << " to " << to;
  AsmResourceBlob blob =
      WeightMemo::weight(b.getContext(), *bytes, recipe, n * toBytes, [&](char *out) {
        for (size_t i = 0; i < n; ++i)
          convert(bytes->data() + i * fromBytes, out + i * toBytes);
      });
  return arith::ConstantOp::create(
      b, loc, newType, DenseResourceElementsAttr::get(newType, resourceName, std::move(blob)));
}

bool isFreshFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
}

Value refillInShape(OpBuilder &b, Location loc, Value init, ArrayRef<OpFoldResult> sizes) {
  if (!isFreshFill(init))
    return nullptr;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Value empty = tensor::EmptyOp::create(b, loc, sizes, getElementTypeOrSelf(init.getType()));
  return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty).getResult(0);
}

bool isElementwiseOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || isa<linalg::FillOp>(op))
    return false;
  return linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// A producer that is cheap enough to recompute in each consumer: it reads
/// nothing but scalars (a splat fill or a broadcast of a scalar/constant).
static bool isCheapToRecompute(linalg::GenericOp producer) {
  for (OpOperand *input : producer.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type)
      continue;
    if (type.getNumElements() == 1)
      continue;
    if (auto cst = input->get().getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        if (dense.isSplat())
          continue;
    return false;
  }
  return producer.getNumReductionLoops() == 0;
}

llvm::StringRef elementwiseFusionRefusal(OpOperand *fusedOperand,
                                         unsigned maxOperands) {
  Operation *producerOp = fusedOperand->get().getDefiningOp();
  auto producer = dyn_cast_or_null<linalg::GenericOp>(producerOp);
  auto consumer = dyn_cast<linalg::GenericOp>(fusedOperand->getOwner());
  if (!producer || !consumer)
    return "not-generic";
  if (producer.getNumReductionLoops() > 0)
    return "producer-is-reduction";
  // Fusing into a reduction through a broadcasting (non-permutation) map
  // recomputes the producer once per reduced element.
  AffineMap map = consumer.getMatchingIndexingMap(fusedOperand);
  if (consumer.getNumReductionLoops() > 0 && !map.isPermutation())
    return "reduction-through-broadcast";
  // A producer with other uses would be computed twice; a lower-rank
  // producer read through a broadcast in a higher-rank consumer would be
  // recomputed per broadcast element. Only cheap producers may be.
  bool broadcasting = !map.isPermutation();
  bool singleUse = llvm::all_of(producer->getUsers(),
                                [&](Operation *u) { return u == consumer; });
  if (!isCheapToRecompute(producer)) {
    if (!singleUse)
      return "producer-has-other-uses";
    if (broadcasting)
      return "broadcast-would-recompute";
  }
  unsigned operands = consumer->getNumOperands() - 1 + producer->getNumOperands();
  if (operands > maxOperands)
    return "operand-cap";
  return "";
}

bool shouldFuseElementwise(OpOperand *fusedOperand, unsigned maxOperands) {
  return elementwiseFusionRefusal(fusedOperand, maxOperands).empty();
}

namespace {

/// Generalizes named linalg ops whose loops are all parallel, fills excepted.
struct GeneralizeElementwise
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op) || !isElementwiseOp(op) ||
        !op.hasPureTensorSemantics())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// A transpose (a generic whose body yields its one input, read through a
/// permutation) of a constant, evaluated at compile time by copying bytes.
/// The upstream constant folder takes DenseElementsAttr only, and one
/// element at a time: torch-mlir and the zoo keep weights as resource blobs,
/// and on the resnet18 export's dense weights (the NHWC filter transposes)
/// it took 1.6 s of every start, warm kernel cache or not.
struct FoldResourceTranspose : public OpRewritePattern<linalg::GenericOp> {
  FoldResourceTranspose(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx, /*benefit=*/2), maxElements(maxElements) {}
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
      return failure();
    auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
    if (yield.getNumOperands() != 1 ||
        yield.getOperand(0) != op.getBody()->getArgument(0))
      return failure();
    auto cst = op.getDpsInputOperand(0)->get().getDefiningOp<arith::ConstantOp>();
    if (!cst)
      return failure();
    auto inType = dyn_cast<RankedTensorType>(cst.getType());
    auto outType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!inType || !outType || !inType.hasStaticShape() ||
        inType.getNumElements() > maxElements ||
        inType.getElementType() != outType.getElementType())
      return failure();
    AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (!inMap.isPermutation() || !outMap.isIdentity() || outType.getRank() == 0)
      return failure();
    if (!inType.getElementType().isIntOrFloat())
      return failure();
    unsigned bits = inType.getElementType().getIntOrFloatBitWidth();
    if (bits % 8 != 0)
      return failure();
    size_t eb = bits / 8;
    std::optional<ArrayRef<char>> bytes = constantBytes(cst.getValue());
    if (!bytes)
      return failure();
    ArrayRef<char> data = *bytes;
    std::string key = "folded_transpose";
    if (auto attr = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
      key = (attr.getRawHandle().getKey() + "_t").str();
    int64_t n = inType.getNumElements();
    if (static_cast<int64_t>(data.size()) != n * static_cast<int64_t>(eb))
      return failure();
    // out[i0..ik] = in[inMap(i)]: walk the output in order, keeping the
    // source offset up to date incrementally (an output dim d moves the
    // source by the stride of the input dim that reads it); the innermost
    // dim is a tight strided copy. This runs at every start of a model, warm
    // cache or not.
    int64_t rank = outType.getRank();
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * inType.getDimSize(d + 1);
    SmallVector<int64_t> outStride(rank, 0);
    for (int64_t r = 0; r < rank; ++r)
      outStride[cast<AffineDimExpr>(inMap.getResult(r)).getPosition()] = inStrides[r];
    int64_t inner = outType.getDimSize(rank - 1), innerStride = outStride[rank - 1];
    const char *in = data.data();
    auto transpose = [&](char *dst) {
      SmallVector<int64_t> idx(rank, 0);
      int64_t src = 0;
      for (int64_t flat = 0; flat < n; flat += inner) {
        auto copyRow = [&](auto elem) {
          using T = decltype(elem);
          T *d = reinterpret_cast<T *>(dst + flat * eb);
          for (int64_t i = 0; i < inner; ++i)
            std::memcpy(d + i, in + (src + i * innerStride) * eb, sizeof(T));
        };
        switch (eb) {
        case 1: copyRow(uint8_t{}); break;
        case 2: copyRow(uint16_t{}); break;
        case 4: copyRow(uint32_t{}); break;
        case 8: copyRow(uint64_t{}); break;
        default:
          for (int64_t i = 0; i < inner; ++i)
            std::memcpy(dst + (flat + i) * eb, in + (src + i * innerStride) * eb, eb);
        }
        for (int64_t d = rank - 2; d >= 0; --d) {
          src += outStride[d];
          if (++idx[d] < outType.getDimSize(d))
            break;
          src -= outStride[d] * outType.getDimSize(d);
          idx[d] = 0;
        }
      }
    };
    std::string recipe;
    llvm::raw_string_ostream(recipe) << "transpose " << inType << " " << inMap;
    AsmResourceBlob folded =
        WeightMemo::weight(rewriter.getContext(), data, recipe, data.size(), transpose);
    auto newAttr = DenseResourceElementsAttr::get(outType, key, std::move(folded));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, outType, newAttr);
    return success();
  }
  int64_t maxElements;
};

/// A static, unit-stride tensor.extract_slice of a constant (dense or
/// resource), evaluated at compile time by copying bytes: the filter taps
/// DropPaddingOnlyTaps keeps, which would otherwise be a copy on every run.
struct FoldConstantSlice : public OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto cst = op.getSource().getDefiningOp<arith::ConstantOp>();
    auto inType = dyn_cast<RankedTensorType>(op.getSourceType());
    auto outType = dyn_cast<RankedTensorType>(op.getResultType());
    if (!cst || !inType || !outType || !inType.hasStaticShape() || !outType.hasStaticShape() ||
        !inType.getElementType().isIntOrFloat() ||
        inType.getElementType().getIntOrFloatBitWidth() % 8 != 0 ||
        ShapedType::isDynamicShape(op.getStaticOffsets()) ||
        ShapedType::isDynamicShape(op.getStaticSizes()) ||
        !llvm::all_of(op.getStaticStrides(), [](int64_t v) { return v == 1; }) ||
        op.getStaticSizes().size() != static_cast<size_t>(inType.getRank()))
      return failure();
    std::optional<ArrayRef<char>> bytes = constantBytes(cst.getValue());
    if (!bytes)
      return failure();
    ArrayRef<char> data = *bytes;
    size_t eb = inType.getElementType().getIntOrFloatBitWidth() / 8;
    if (data.size() != static_cast<size_t>(inType.getNumElements()) * eb)
      return failure();
    // Copy row by row along the innermost dim.
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> offsets = op.getStaticOffsets(), sizes = op.getStaticSizes();
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * inType.getDimSize(d + 1);
    int64_t inner = sizes.back(), n = outType.getNumElements();
    std::string recipe;
    llvm::raw_string_ostream(recipe) << "slice " << inType << " at " << llvm::interleaved(offsets)
                                     << " of " << llvm::interleaved(sizes);
    auto slice = [&](char *out) {
      SmallVector<int64_t> idx(rank, 0);
      for (int64_t flat = 0; flat < n; flat += inner) {
        int64_t src = 0;
        for (int64_t d = 0; d < rank; ++d)
          src += (offsets[d] + idx[d]) * inStrides[d];
        std::memcpy(out + flat * eb, data.data() + src * eb, inner * eb);
        for (int64_t d = rank - 2; d >= 0; --d) {
          if (++idx[d] < sizes[d])
            break;
          idx[d] = 0;
        }
      }
    };
    AsmResourceBlob blob =
        WeightMemo::weight(rewriter.getContext(), data, recipe, static_cast<size_t>(n) * eb, slice);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, outType, DenseResourceElementsAttr::get(outType, "folded_slice", std::move(blob)));
    return success();
  }
};

/// 64 Mi elements: 256 MiB of f32.
constexpr int64_t kMaxFoldedConstantElements = int64_t(64) << 20;

/// The body-size cap of the first fusion round (see runOnOperation). The
/// largest fused body in the zoo has 43 ops (deeplab_v3's bilinear resize).
constexpr size_t kFirstRoundBodyOps = 64;

/// Whether fusing across `operand` would make a body of more than `limit`
/// ops (terminators excluded). Counts at most limit + 2 ops.
static bool fusedBodyExceeds(OpOperand *operand, size_t limit) {
  size_t n = 0;
  for (Operation *op : {operand->get().getDefiningOp(), operand->getOwner()})
    for (Operation &inner : op->getRegion(0).front()) {
      (void)inner;
      if (++n > limit + 2)
        return true;
    }
  return false;
}

struct ElementwiseFusionPass final
    : public impl::ElementwiseFusionPassBase<ElementwiseFusionPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    {
      RewritePatternSet patterns(ctx);
      populateGeneralizeElementwisePatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    numGenericBefore = countGenerics(func);
    {
      // Transposes (and other generics) of constants are evaluated here, at
      // compile time, so weights arrive in the layout their consumer reads.
      // The cap bounds the extra constant memory one fold may create.
      RewritePatternSet patterns(ctx);
      linalg::populateConstantFoldLinalgOperations(
          patterns, [](OpOperand *operand) {
            auto type = dyn_cast<ShapedType>(operand->get().getType());
            return type && type.hasStaticShape() &&
                   type.getNumElements() <= kMaxFoldedConstantElements;
          });
      patterns.add<FoldResourceTranspose>(ctx, kMaxFoldedConstantElements);
      patterns.add<FoldConstantSlice>(ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    // A fusion clones both bodies into a new op, so a body that grows with
    // every fusion (a chain of N elementwise ops fused into one) costs
    // O(N^2): 20000 chained ops took two minutes. Fusion runs in rounds
    // instead: the first refuses a fusion whose body would pass
    // kFirstRoundBodyOps ops, each later round doubles the cap, until a round
    // refuses nothing for size. The pieces a round leaves merge pairwise in
    // the next: O(N log N) clones. A model whose bodies stay under the first
    // cap (every zoo model) runs one round, the very run it always had; past
    // it, only the operand cap (counted before operands are deduplicated,
    // so order-dependent) can end fusion elsewhere than one op at a time did.
    RewritePatternSet patterns(ctx);
    unsigned cap = maxOperands;
    size_t bodyCap = kFirstRoundBodyOps;
    bool refusedForSize = false;
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [cap, &bodyCap, &refusedForSize](OpOperand *operand) {
          if (!shouldFuseElementwise(operand, cap))
            return false;
          if (fusedBodyExceeds(operand, bodyCap)) {
            refusedForSize = true;
            return false;
          }
          return true;
        });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    do {
      refusedForSize = false;
      // The greedy driver runs the patterns to a fixed point under this cap.
      if (failed(applyPatternsGreedily(func, frozen)))
        return signalPassFailure();
      bodyCap *= 2;
    } while (refusedForSize);
    numGenericAfter = countGenerics(func);
  }

  static unsigned countGenerics(func::FuncOp func) {
    unsigned n = 0;
    func.walk([&](linalg::GenericOp) { ++n; });
    return n;
  }
};

/// torch-mlir reads size-1 dimensions through a constant 0 ((d0,d1,d2,d3) ->
/// (0,d1,d2,d3)), which makes an identity read look like a broadcast and
/// stops fusion and dispatch formation. When the loop at the same position of
/// the op's first output has extent 1 as well, the constant is replaced by
/// that loop: the same element, now a permutation.
struct NormalizeUnitDimReads : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() == 0 || !op.hasPureTensorSemantics())
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool changed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      AffineMap &map = maps[operand.getOperandNumber()];
      if (!type || map.getNumResults() != outMap.getNumResults())
        continue;
      SmallVector<AffineExpr> results(map.getResults());
      for (auto [pos, expr] : llvm::enumerate(results)) {
        auto c = dyn_cast<AffineConstantExpr>(expr);
        auto d = dyn_cast<AffineDimExpr>(outMap.getResult(pos));
        if (!c || c.getValue() != 0 || !d || type.getDimSize(pos) != 1 ||
            ranges[d.getPosition()] != 1 || map.isFunctionOfDim(d.getPosition()))
          continue;
        expr = d;
        changed = true;
      }
      map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                           op.getContext());
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// A generic that reads nothing and yields one value defined outside its body
/// (TOSA's zero bias of a convolution, once the broadcast of the splat
/// constant is folded) is a fill: it initializes its root like one, or runs
/// on the host as a memset when it stays alone, instead of being a kernel.
struct ConstantGenericToFill : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 0 || op.getNumDpsInits() != 1 ||
        op->getNumResults() != 1 || op.getNumReductionLoops() != 0 ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
      return failure();
    Block &body = op.getRegion().front();
    if (body.getOperations().size() != 1)
      return failure();
    Value value = body.getTerminator()->getOperand(0);
    if (value.getParentRegion() == &op.getRegion())
      return failure();
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, op.getDpsInits()[0]);
    return success();
  }
};

} // namespace

void populateGeneralizeElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<GeneralizeElementwise, NormalizeUnitDimReads, ConstantGenericToFill>(
      patterns.getContext());
}

} // namespace jitrun
