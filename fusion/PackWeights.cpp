//===- PackWeights.cpp - constant weights in the order a kernel reads them ===//
//
// A matmul with a few rows (a classifier, a batch-1 projection), or a 1x1
// convolution of a few pixels (late stages on small images), is bound by
// reading its weights: each element of B is used once per row of A. Split
// along N into workgroups, every workgroup reads a piece of each row of B,
// 128 bytes in every 4 KB: strided runs that the hardware prefetchers do not
// follow (7-8 GB/s on one core of this host, against 19-29 GB/s for the same
// bytes read in order). A matmul with many rows (a transformer's
// projections: 197 or 128 tokens) reads each register tile's 32 columns of
// B the same way, K rows 3-12 KB apart, once per 8 rows of A. A constant B
// is packed here, at compile time, into panels of T columns,
// [ceil(N / T)][K][T] (zero-padded), so that each workgroup's part of B is
// one contiguous run. The matmul becomes a generic contraction over the
// panels; its result is collapsed back, and sliced when N was padded.
// Convolutions' filters: PackConvolutions.cpp, which this pass runs too.
//
//===----------------------------------------------------------------------===//

#include "fusion/PackWeights.h"
#include "fusion/Passes.h"
#include "fusion/PackedConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cstring>
#include <optional>

#define DEBUG_TYPE "jitrun-fusion-pack-weights"

namespace jitrun {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

/// The panel width for N columns and `rows` rows: kPanel (kManyRowsPanel
/// past kMaxRows rows), or half or a quarter of it when that divides N and
/// the full width does not (96 channels: 3 panels of 32 rather than 2 of 64,
/// a third of them zeros), never under 16.
int64_t panelWidth(int64_t n, int64_t rows) {
  int64_t widest = rows > kMaxRows ? kManyRowsPanel : kPanel;
  for (int64_t p = widest; p >= 16; p /= 2)
    if (n % p == 0)
      return p;
  return widest;
}

/// Constant `attr` with dim `dim` zero-padded to `size` (a bias of 1000
/// classes in panels of 32: 1024).
static DenseElementsAttr padDim(DenseElementsAttr attr, int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(attr.getType());
  int64_t outer = 1, inner = 1, n = type.getDimSize(dim);
  for (int64_t i = 0; i < dim; ++i)
    outer *= type.getDimSize(i);
  for (int64_t i = dim + 1; i < type.getRank(); ++i)
    inner *= type.getDimSize(i);
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  Builder b(type.getContext());
  Attribute zero = b.getZeroAttr(type.getElementType());
  SmallVector<Attribute> values(outer * size * inner, zero);
  auto old = llvm::to_vector(attr.getValues<Attribute>());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < n; ++c)
      for (int64_t i = 0; i < inner; ++i)
        values[(o * size + c) * inner + i] = old[(o * n + c) * inner + i];
  return DenseElementsAttr::get(RankedTensorType::get(shape, type.getElementType()), values);
}

/// The most elements of a constant broadcast into padded panels (a bias).
constexpr int64_t kMaxPaddedConstantElements = 1 << 16;

/// The values of constant `v` as a DenseElementsAttr: a resource's bytes (a
/// bias of an imported model) read into one. Null if `v` is no constant,
/// or past kMaxPaddedConstantElements.
static DenseElementsAttr constantValues(Value v) {
  Attribute value;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > kMaxPaddedConstantElements ||
      !matchPattern(v, m_Constant(&value)))
    return nullptr;
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense;
  std::optional<ArrayRef<char>> bytes = constantBytes(value);
  Type elem = type.getElementType();
  if (!bytes || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0 ||
      static_cast<int64_t>(bytes->size()) !=
          type.getNumElements() * (elem.getIntOrFloatBitWidth() / 8))
    return nullptr;
  bool splat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, *bytes, splat))
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, *bytes);
}

/// `init` rebuilt in panels ([rows..., P, T]) when it is a single-use
/// generic that broadcasts lower-rank operands whose last dim read, if they
/// read the channels, is the channels (TOSA's bias broadcast into a
/// convolution's accumulator; ONNX's reads a 64x1x1 bias through (c, 0, 0)):
/// its channel operands are expanded instead, so it stays a broadcast that
/// dispatch formation gives the contraction as initializer. When the panels
/// pad the channels (1000 classes in panels of 32), its channel operands
/// must be constants (attributes or resources), zero-padded. Null otherwise; with `check`, builds
/// nothing and returns `init` when it would succeed.
static Value broadcastInPanels(PatternRewriter &rewriter, Location loc, Value init,
                               int64_t panels, int64_t width, bool check = false) {
  auto g = init.getDefiningOp<linalg::GenericOp>();
  if (!g || !g->hasOneUse() || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
      g.hasIndexSemantics() || g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)) ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return nullptr;
  MLIRContext *ctx = rewriter.getContext();
  unsigned rank = g.getNumLoops(), channel = rank - 1;
  int64_t n = cast<RankedTensorType>(init.getType()).getShape().back();
  bool padded = panels * width != n;
  // Old loop i < channel stays i; the channel loop becomes (p, t).
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (!type || map.getNumResults() >= rank)
      return nullptr;
    // Each result a loop (each loop once), or 0 on a unit dim; after the
    // channels only 0s.
    bool afterChannel = false;
    llvm::SmallBitVector seen(rank);
    for (auto [pos, e] : llvm::enumerate(map.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (c && c.getValue() == 0 && type.getDimSize(pos) == 1)
        continue;
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || afterChannel || seen.test(d.getPosition()))
        return nullptr;
      seen.set(d.getPosition());
      afterChannel = d.getPosition() == channel;
    }
    // Padded: its values (a resource's too: an imported model's bias).
    DenseElementsAttr constant;
    if (padded && seen.test(channel) && !(constant = constantValues(in->get())))
      return nullptr;
    if (check)
      continue;
    SmallVector<AffineExpr> results;
    Value v = in->get();
    for (auto [pos, e] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || dim.getPosition() != channel) {
        results.push_back(e);
        continue;
      }
      results.push_back(getAffineDimExpr(channel, ctx));
      results.push_back(getAffineDimExpr(channel + 1, ctx));
      if (padded) {
        DenseElementsAttr wide = padDim(constant, pos, panels * width);
        v = arith::ConstantOp::create(rewriter, loc, wide.getType(), wide);
        type = cast<RankedTensorType>(wide.getType());
      }
      SmallVector<int64_t> shape(type.getShape().take_front(pos));
      shape.append({panels, width});
      shape.append(type.getShape().begin() + pos + 1, type.getShape().end());
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        int64_t at = i <= static_cast<int64_t>(pos) ? i : i + 1;
        if (i == static_cast<int64_t>(pos))
          groups.push_back({at, at + 1});
        else
          groups.push_back({at});
      }
      v = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
    }
    inputs.push_back(v);
    maps.push_back(AffineMap::get(rank + 1, 0, results, ctx));
  }
  if (check)
    return init;
  auto outType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> shape(outType.getShape().drop_back());
  shape.append({panels, width});
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape, outType.getElementType());
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank + 1, ctx));
  auto bcast = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel));
  rewriter.inlineRegionBefore(g.getRegion(), bcast.getRegion(), bcast.getRegion().begin());
  return bcast.getResult(0);
}

/// The reassociation that splits the last of `rank` dims in two.
SmallVector<ReassociationIndices> lastDimSplit(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i + 1 < rank; ++i)
    groups.push_back({i});
  groups.push_back({rank - 1, rank});
  return groups;
}

/// The accumulator `init` ([rows..., N]) in panels, [rows..., P, T]: a
/// fill refilled in that shape, a bias broadcast rebuilt in it, else an
/// expand_shape of init.
Value accumulatorInPanels(PatternRewriter &rewriter, Location loc, Value init,
                                 int64_t panels, int64_t width) {
  auto cType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> accShape(cType.getShape().drop_back());
  accShape.append({panels, width});
  if (Value acc = refillInShape(rewriter, loc, init,
                                getAsIndexOpFoldResult(rewriter.getContext(), accShape)))
    return acc;
  if (Value acc = broadcastInPanels(rewriter, loc, init, panels, width))
    return acc;
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(accShape, cType.getElementType()), init,
      lastDimSplit(cType.getRank()));
}

/// The body of a contraction of `elem` operands into an `accElem`
/// accumulator: acc + a * b, bf16 or f16 operands widened to f32 first.
void multiplyAccumulateBody(OpBuilder &b, Location l, ValueRange args, Type elem,
                                   Type accElem) {
  Value sum;
  if (isa<FloatType>(elem)) {
    Value x = args[0], y = args[1];
    if (accElem != elem) {
      x = arith::ExtFOp::create(b, l, accElem, x);
      y = arith::ExtFOp::create(b, l, accElem, y);
    }
    sum = multiplyAccumulate(b, l, x, y, args[2]);
  } else {
    Value x = args[0], y = args[1];
    if (accElem != elem) { // int8 into i32 (AMX tiles)
      x = arith::ExtSIOp::create(b, l, accElem, x);
      y = arith::ExtSIOp::create(b, l, accElem, y);
    }
    Value product = arith::MulIOp::create(b, l, x, y);
    sum = arith::AddIOp::create(b, l, args[2], product);
  }
  linalg::YieldOp::create(b, l, sum);
}

/// A contraction's [rows..., P, T] result as `cType` ([rows..., N]):
/// collapsed, and sliced when the panels padded N.
Value collapsePanels(PatternRewriter &rewriter, Location loc, Value result,
                            RankedTensorType cType) {
  int64_t rank = cType.getRank();
  Value collapsed =
      tensor::CollapseShapeOp::create(rewriter, loc, result, lastDimSplit(rank));
  if (cast<RankedTensorType>(collapsed.getType()) == cType)
    return collapsed;
  SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
      ones(rank, rewriter.getIndexAttr(1)), sizes;
  for (int64_t d : cType.getShape())
    sizes.push_back(rewriter.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(rewriter, loc, cType, collapsed, zeros, sizes, ones);
}

/// The contraction of `a` ([rows..., K]) with the constant `bytes` (a K x N
/// row-major matrix of `elem`) over packed panels, accumulated onto `init`
/// ([rows..., N]), as a value of init's type. When N needs padding, init is
/// a fresh fill or a broadcast of constants (packable checks).
Value packedContraction(PatternRewriter &rewriter, Location loc, Value a,
                               ArrayRef<char> bytes, int64_t k, int64_t n, int64_t numRows,
                               Type elem, Value init) {
  int64_t width = panelWidth(n, numRows);
  Value packedB = packedConstant(rewriter, loc, bytes, {k}, n, width, elem);
  return packedContraction(rewriter, loc, a, packedB, n, width, elem, init);
}

/// The same with `packedB` ([P, K, T]) given: packed at compile time, or
/// from a right operand that is no constant at run time.
Value packedContraction(PatternRewriter &rewriter, Location loc, Value a, Value packedB,
                               int64_t n, int64_t width, Type elem, Value init) {
  auto cType = cast<RankedTensorType>(init.getType());
  int64_t rank = cType.getRank();
  int64_t panels = llvm::divideCeil(n, width);
  Value acc = accumulatorInPanels(rewriter, loc, init, panels, width);
  Type accElem = cType.getElementType();
  // c[r..., p, t] += a[r..., kk] * packed[p, kk, t]: loops (r..., p, t, kk).
  MLIRContext *ctx = rewriter.getContext();
  unsigned numLoops = rank + 2;
  SmallVector<AffineExpr> rows, aRes, cRes;
  for (int64_t i = 0; i + 1 < rank; ++i)
    rows.push_back(getAffineDimExpr(i, ctx));
  AffineExpr dp = getAffineDimExpr(rank - 1, ctx), dt = getAffineDimExpr(rank, ctx),
             dk = getAffineDimExpr(rank + 1, ctx);
  aRes = rows;
  aRes.push_back(dk);
  cRes = rows;
  cRes.append({dp, dt});
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, aRes, ctx),
                                 AffineMap::get(numLoops, 0, {dp, dk, dt}, ctx),
                                 AffineMap::get(numLoops, 0, cRes, ctx)};
  SmallVector<utils::IteratorType> iters(numLoops - 1, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{acc.getType()}, ValueRange{a, packedB}, ValueRange{acc}, maps,
      iters, [&](OpBuilder &b, Location l, ValueRange args) {
        multiplyAccumulateBody(b, l, args, elem, accElem);
      });
  generic->setAttr(kPackedPanelsAttrName, rewriter.getUnitAttr());
  return collapsePanels(rewriter, loc, generic.getResult(0), cType);
}

/// acc += a * b over `maps`, its last `reductions` loops reductions, of
/// `elem` operands into init's type, marked for AMX tiles over packed
/// panels (jitrun-codegen-amx-contractions); its [rows..., P, T] result
/// collapsed to `cType`.
Value amxContraction(PatternRewriter &rewriter, Location loc, Value a, Value b,
                            Value acc, ArrayRef<AffineMap> maps, unsigned reductions,
                            Type elem, RankedTensorType cType) {
  unsigned numLoops = maps.front().getNumDims();
  SmallVector<utils::IteratorType> iters(numLoops - reductions, utils::IteratorType::parallel);
  iters.append(reductions, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{acc.getType()}, ValueRange{a, b}, ValueRange{acc}, maps, iters,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        multiplyAccumulateBody(bb, l, args, elem, cType.getElementType());
      });
  generic->setAttr(kPackedPanelsAttrName, rewriter.getUnitAttr());
  generic->setAttr(kAmxTilesAttrName, rewriter.getUnitAttr());
  return collapsePanels(rewriter, loc, generic.getResult(0), cType);
}

/// The contraction of `a` ([rows..., K], bf16 or int8, K a multiple of the
/// VNNI group g) with `packedB`, a K x N matrix of the same type in VNNI
/// panels of `width` columns ([P, K/g, T, g]: vnniPackedConstant's, or
/// packed at run time; with `batchDims` leading batch dims, shared with the
/// rows, before those), accumulated in f32 or i32 onto `init` ([rows...,
/// N]): a ([rows..., K/g, g], a free reshape) times packed[batch..., p, kg,
/// t, v] over loops (rows..., p, t, kg, v), the form AMX tiles compute
/// (marked jitrun.amx_tiles for codegen).
Value vnniPackedContraction(PatternRewriter &rewriter, Location loc, Value a,
                                   Value packedB, int64_t k, int64_t n, int64_t width,
                                   Type elem, Value init, unsigned batchDims) {
  auto cType = cast<RankedTensorType>(init.getType());
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t rank = cType.getRank();
  int64_t panels = llvm::divideCeil(n, width);
  Value acc = accumulatorInPanels(rewriter, loc, init, panels, width);
  SmallVector<int64_t> pairShape(aType.getShape().drop_back());
  pairShape.append({k / vnniGroup(elem), vnniGroup(elem)});
  Value pairs = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(pairShape, elem), a, lastDimSplit(rank));
  MLIRContext *ctx = rewriter.getContext();
  unsigned numLoops = rank + 3;
  SmallVector<AffineExpr> rows;
  for (int64_t i = 0; i + 1 < rank; ++i)
    rows.push_back(getAffineDimExpr(i, ctx));
  AffineExpr dp = getAffineDimExpr(rank - 1, ctx), dt = getAffineDimExpr(rank, ctx),
             dk = getAffineDimExpr(rank + 1, ctx), dv = getAffineDimExpr(rank + 2, ctx);
  SmallVector<AffineExpr> aRes(rows), cRes(rows);
  aRes.append({dk, dv});
  cRes.append({dp, dt});
  // B's leading dims, when it has any, are the batch: the rows' first.
  SmallVector<AffineExpr> bRes(rows.begin(), rows.begin() + batchDims);
  bRes.append({dp, dk, dt, dv});
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, aRes, ctx),
                                 AffineMap::get(numLoops, 0, bRes, ctx),
                                 AffineMap::get(numLoops, 0, cRes, ctx)};
  return amxContraction(rewriter, loc, pairs, packedB, acc, maps, 2, elem, cType);
}

/// True when `result`'s last dim (N), followed through reshapes and the
/// elementwise ops that read it as it is, is split by an expand_shape into
/// rows narrower than `width` or not a multiple of it: a transformer's
/// heads (a 64-wide projection read as 4 heads of 16). Packed in panels of
/// `width`, the contraction's [M, P, T] result could not be reshaped into
/// those heads, and the head transposes that took the matmul's dispatch
/// before would each run as a dispatch of its own (the zoo's test-size
/// MiniLM: 32 dispatches, 38 packed).
static bool splitAcrossPanels(Value result, int64_t width, int depth = 0) {
  constexpr int kMaxDepth = 4;
  if (depth > kMaxDepth)
    return false;
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || type.getRank() == 0)
    return false;
  for (OpOperand &use : result.getUses()) {
    Operation *user = use.getOwner();
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
      int64_t inner = expand.getResultType().getShape().back();
      // (The pairs view of an AMX contraction's rows splits K, not heads.)
      if (llvm::all_of(expand->getUsers(),
                       [](Operation *u) { return u->hasAttr(kAmxTilesAttrName); }))
        continue;
      if (ShapedType::isDynamic(inner) || inner % width != 0)
        return true;
      if (splitAcrossPanels(expand.getResult(), width, depth + 1))
        return true;
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(user)) {
      if (splitAcrossPanels(collapse.getResult(), width, depth + 1))
        return true;
    } else if (auto g = dyn_cast<linalg::GenericOp>(user)) {
      if (!isElementwiseOp(g) || g.getNumDpsInits() != 1 ||
          !g.getMatchingIndexingMap(&use).isIdentity())
        continue;
      if (splitAcrossPanels(g->getResult(0), width, depth + 1))
        return true;
    }
  }
  return false;
}

/// The checks both patterns share: static shapes, one byte-sized element
/// type, a constant right operand with readable bytes, N wide enough to
/// split into two panels (of the width for `rows` rows), and a fresh fill as
/// accumulator when N needs padding (what padded accumulators start from
/// would be unknown).
LogicalResult packable(PatternRewriter &rewriter, Operation *op, Value a, Value b,
                              Value init, int64_t rows, std::optional<ArrayRef<char>> &bytes,
                              bool int8IntoI32) {
  auto aType = dyn_cast<RankedTensorType>(a.getType());
  auto bType = dyn_cast<RankedTensorType>(b.getType());
  auto cType = dyn_cast<RankedTensorType>(init.getType());
  auto cst = b.getDefiningOp<arith::ConstantOp>();
  if (!cst || !aType || !bType || !cType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !cType.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "needs a constant right operand and static shapes");
  // One element type throughout, or bf16 or f16 operands into an f32
  // accumulator (--weights=bf16, AccumulateInF32); i8 x i8 -> i32 only for
  // AMX tiles (`int8IntoI32`): elsewhere it keeps its VNNI path.
  Type elem = bType.getElementType(), acc = cType.getElementType();
  bool widened = ((elem.isBF16() || elem.isF16()) && acc.isF32()) ||
                 (int8IntoI32 && elem.isInteger(8) && acc.isInteger(32));
  if (aType.getElementType() != elem || (acc != elem && !widened) || !elem.isIntOrFloat() ||
      elem.getIntOrFloatBitWidth() % 8 != 0)
    return rewriter.notifyMatchFailure(op, "needs one byte-sized element type");
  int64_t n = cType.getShape().back();
  int64_t width = panelWidth(n, rows);
  if (n < 2 * width)
    return rewriter.notifyMatchFailure(op, "too narrow to split into two panels");
  // Padding N adds its columns' work to every row, and a copy that slices
  // the result: with a bias (a broadcast of constants, padded with it) only
  // when that is at most 1/16 more (a classifier's 1000 classes in panels
  // of 32: SqueezeNet's last 1x1 convolution, 13x13 -> 1000, 3.6 -> 1.1 ms;
  // MobileNetV3's 72-channel ones, padded to 96, ran slower).
  int64_t paddedN = llvm::alignTo(n, width);
  if (paddedN != n && !isFreshFill(init) &&
      (16 * (paddedN - n) > n ||
       !broadcastInPanels(rewriter, op->getLoc(), init, paddedN / width, width,
                          /*check=*/true)))
    return rewriter.notifyMatchFailure(
        op, "padded N needs a fill, or a broadcast of constants and at most 1/16 padding, "
            "as accumulator");
  bytes = constantBytes(cst.getValue());
  if (!bytes || static_cast<int64_t>(bytes->size()) !=
                    bType.getNumElements() * (elem.getIntOrFloatBitWidth() / 8))
    return rewriter.notifyMatchFailure(op, "the weights' bytes are not readable");
  return success();
}

/// A linalg.matmul with a constant B: a few rows (a classifier, a batch-1
/// projection), or many.
struct PackConstantMatmulRhs : public OpRewritePattern<linalg::MatmulOp> {
  PackConstantMatmulRhs(MLIRContext *ctx, bool amxPanels)
      : OpRewritePattern(ctx), amxPanels(amxPanels) {}
  bool amxPanels;
  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return failure();
    Value a = op.getInputs()[0], b = op.getInputs()[1], init = op.getOutputs()[0];
    std::optional<ArrayRef<char>> bytes;
    int64_t m = cast<ShapedType>(init.getType()).getShape().front();
    // Many rows: packed panels run at 90-94 % of the FMA peak where the
    // unpacked matmul ran at 47-72 % (ViT-B/16's 197x768x3072, 1 thread;
    // 197x768x768 1.37x faster, 1024x1024x1024 1.39x). Only when the panels
    // divide N: padding adds work to every row, and a narrow N's B is small
    // enough to stay in cache unpacked (4225x12x72, padded to 96: 1.9x
    // slower).
    int64_t n = cast<ShapedType>(init.getType()).getShape().back(), width = panelWidth(n, m);
    if (m > kMaxRows && n % width != 0)
      return rewriter.notifyMatchFailure(op, "many rows and N not a whole number of panels");
    if (m > kMaxRows && splitAcrossPanels(op->getResult(0), width))
      return rewriter.notifyMatchFailure(op, "many rows and heads narrower than a panel");
    auto bType = cast<RankedTensorType>(b.getType());
    int64_t k = bType.getDimSize(0);
    Type elem = bType.getElementType();
    // bf16 into f32 or int8 into i32 on an AMX host, in a shape its tiles
    // take: AMX's layout (vnniPackedContraction).
    bool amx = amxPanels &&
               amxTypes(getElementTypeOrSelf(a.getType()), elem,
                        getElementTypeOrSelf(init.getType())) &&
               amxShape(m, k, panelWidth(n, m), elem);
    if (failed(packable(rewriter, op, a, b, init, m, bytes, amx)))
      return failure();
    if (amx) {
      int64_t width = panelWidth(n, m);
      Value packedB = vnniPackedConstant(rewriter, op.getLoc(), *bytes, k, n, width, elem);
      rewriter.replaceOp(op, vnniPackedContraction(rewriter, op.getLoc(), a, packedB, k, n,
                                                   width, elem, init));
      return success();
    }
    rewriter.replaceOp(op, packedContraction(rewriter, op.getLoc(), a, *bytes, k,
                                             bType.getDimSize(1), m, elem, init));
    return success();
  }
};

/// `value` ([d..., N], N a multiple of `width`) in panels of `width` of its
/// last dim, packed at run time: [N / width, d..., width] (a reshape, then a
/// transpose: a dispatch of its own, one pass over `value`).
Value panelsAtRunTime(PatternRewriter &rewriter, Location loc, Value value,
                             int64_t width) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank(), panels = type.getShape().back() / width;
  SmallVector<int64_t> split(type.getShape().drop_back()), packed = {panels};
  split.append({panels, width});
  packed.append(type.getShape().begin(), type.getShape().end() - 1);
  packed.push_back(width);
  SmallVector<int64_t> perm = {rank - 1};
  for (int64_t d = 0; d + 1 < rank; ++d)
    perm.push_back(d);
  perm.push_back(rank);
  Value splitValue = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(split, type.getElementType()), value,
      lastDimSplit(rank));
  Value empty = tensor::EmptyOp::create(rewriter, loc, packed, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, splitValue, empty, perm)->getResult(0);
}

/// A matmul's or batch matmul's A, B and accumulator types, when all are
/// static and B is no constant (the operand the run-time packings take).
struct RunTimeOperands {
  Value a, b, init;
  RankedTensorType aType, bType, cType;
};
template <typename MatmulOp>
static FailureOr<RunTimeOperands> runTimeOperands(MatmulOp op, PatternRewriter &rewriter) {
  if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
    return failure();
  RunTimeOperands r{op.getInputs()[0], op.getInputs()[1], op.getOutputs()[0], {}, {}, {}};
  r.aType = dyn_cast<RankedTensorType>(r.a.getType());
  r.bType = dyn_cast<RankedTensorType>(r.b.getType());
  r.cType = dyn_cast<RankedTensorType>(r.init.getType());
  if (!r.aType || !r.bType || !r.cType || !r.aType.hasStaticShape() ||
      !r.bType.hasStaticShape() || !r.cType.hasStaticShape() ||
      r.b.template getDefiningOp<arith::ConstantOp>())
    return rewriter.notifyMatchFailure(op, "needs static shapes and B not a constant");
  return r;
}

/// A bf16 matmul of many rows into f32 (or an int8 one into i32) whose
/// right operand is not a constant (a bf16 model's activations), on an AMX
/// host: B is packed into VNNI panels at run time, [N/T][K/g][T][g] (a
/// reshape and a transpose, a
/// pass over B that is its own dispatch), and the contraction runs on them
/// in AMX tiles as a packed weight's would. Multiplied in registers from B
/// as it lies (vdpbf16ps, its K pairs interleaved by shuffles at every
/// step), the 384x768x768 matmul ran at 0.75x the f32 FLOP rate. A batch
/// matmul (a bf16 transformer's attention) the same, each batch its panels.
template <typename MatmulOp>
struct PackAmxMatmulRhsAtRunTime : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern<MatmulOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op, PatternRewriter &rewriter) const override {
    FailureOr<RunTimeOperands> ops = runTimeOperands(op, rewriter);
    if (failed(ops))
      return failure();
    auto [a, b, init, aType, bType, cType] = *ops;
    if (!amxTypes(aType.getElementType(), bType.getElementType(), cType.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs bf16 x bf16 -> f32 or i8 x i8 -> i32");
    // A batch matmul's batch: B's leading dim, shared with A and C.
    unsigned batch = bType.getRank() - 2;
    int64_t m = cType.getDimSize(batch), n = cType.getDimSize(batch + 1),
            k = bType.getDimSize(batch);
    int64_t width = panelWidth(n, m);
    Type elem = bType.getElementType();
    if (!amxShape(m, k, width, elem) || n % width != 0 ||
        splitAcrossPanels(op->getResult(0), width))
      return rewriter.notifyMatchFailure(op, "not a shape AMX panels take");
    Location loc = op.getLoc();
    int64_t panels = n / width, g = vnniGroup(elem);
    // B[.., g kg + v, p T + t] -> [.., kg, v, p, t] -> packed[.., p, kg, t, v].
    SmallVector<int64_t> splitShape(bType.getShape().take_front(batch));
    splitShape.append({k / g, g, panels, width});
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d < batch; ++d)
      groups.push_back({int64_t(d)});
    groups.push_back({int64_t(batch), int64_t(batch) + 1});
    groups.push_back({int64_t(batch) + 2, int64_t(batch) + 3});
    Value split = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(splitShape, elem), b, groups);
    SmallVector<int64_t> packedShape(bType.getShape().take_front(batch));
    packedShape.append({panels, k / g, width, g});
    SmallVector<int64_t> perm;
    for (unsigned d = 0; d < batch; ++d)
      perm.push_back(d);
    perm.append({batch + 2, batch, batch + 3, batch + 1});
    Value empty = tensor::EmptyOp::create(rewriter, loc, packedShape, elem);
    Value packedB = linalg::TransposeOp::create(rewriter, loc, split, empty, perm)->getResult(0);
    rewriter.replaceOp(op, vnniPackedContraction(rewriter, loc, a, packedB, k, n, width, elem,
                                                 init, batch));
    return success();
  }
};

/// A matmul of many rows whose right operand is no constant and too large
/// to stay in L2 (an activation, a user's matmul): B is packed into panels
/// at run time, [N/T][K][T] (a reshape and a transpose, its own dispatch),
/// and the contraction runs on them as on packed weights. Read in place, a
/// register tile's columns of B lie a row apart (4 KB for 1024 columns),
/// each K step on another page, which the hardware prefetchers do not
/// follow: 1024x1024x1024 in f32 ran at 60-73 GFLOP/s, 0.35-0.43 of oneDNN.
struct PackMatmulRhsAtRunTime : public OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::MatmulOp op, PatternRewriter &rewriter) const override {
    FailureOr<RunTimeOperands> ops = runTimeOperands(op, rewriter);
    if (failed(ops))
      return failure();
    auto [a, b, init, aType, bType, cType] = *ops;
    Type elem = bType.getElementType();
    if (!elem.isF32() || !aType.getElementType().isF32() || !cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs f32");
    int64_t m = cType.getDimSize(0), n = cType.getDimSize(1), k = bType.getDimSize(0);
    int64_t width = panelWidth(n, m);
    if (m < kRunTimePackRows || n % width != 0 || n < 2 * width ||
        k * n * 4 < kRunTimePackBytes || splitAcrossPanels(op->getResult(0), width))
      return rewriter.notifyMatchFailure(op, "small, few rows, or N not whole panels");
    Location loc = op.getLoc();
    Value packedB = panelsAtRunTime(rewriter, loc, b, width);
    rewriter.replaceOp(op, packedContraction(rewriter, loc, a, packedB, n, width, elem, init));
    return success();
  }
};


struct PackWeightsPass final : public impl::PackWeightsPassBase<PackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PackConstantMatmulRhs>(&getContext(), amxPanels);
    patterns.add<PackMatmulRhsAtRunTime>(&getContext());
    if (amxPanels)
      patterns.add<PackAmxMatmulRhsAtRunTime<linalg::MatmulOp>,
                   PackAmxMatmulRhsAtRunTime<linalg::BatchMatmulOp>>(&getContext());
    populatePackConvolutionPatterns(patterns, minConvFilterBytes, amxPanels, bf16Convolutions);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace jitrun
