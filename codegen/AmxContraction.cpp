//===- AmxContraction.cpp - bf16 and int8 contractions in AMX tiles ------===//
//
// On a host with AMX (Sapphire Rapids and later Intel cores), a bf16 x bf16
// -> f32 matmul over VNNI panels (jitrun-fusion-pack-weights with
// amx-panels: packed[p][kp][t][v] = B[2 kp + v][p T + t], marked
// jitrun.amx_tiles) runs in tile registers: tdpbf16ps multiplies a tile of
// 16 rows x 32 bf16 of A by a tile of 16 pairs x 16 columns of B into a
// tile of 16 x 16 f32, 8192 multiply-adds per instruction, where AVX-512's
// vdpbf16ps does 32 (and issues at the FMA rate on these cores, so bf16
// weights ran 1.6x slower than f32 without tiles).
//
// The strategy leaves the marked contraction untiled along K and
// unvectorized, on a register tile of up to 32 rows x one panel of 16 or 32
// columns (jitrun-codegen-select-strategy). After bufferization this pass
// replaces it, on its buffers, by: the accumulator tiles loaded from the
// init buffer (up to 2 x 2 of 16 x 16 f32), one loop over K in steps of 32
// (16 pairs) that loads up to two tiles of A and two of B and multiplies
// each pair into its accumulator, the tiles carried by the loop (LLVM
// keeps them in tile registers: 4 tile loads and 4 tdpbf16ps per step; K
// is two or more whole steps), and the accumulators stored back. The
// epilogue then reads the result like any other.
//
// tdpbf16ps rounds its sums as f32 FMAs would, but treats denormal bf16
// inputs and f32 results as zero (values under 1.2e-38).
//
// An int8 x int8 -> i32 matmul over VNNI panels of quads (packed[p][kq][t]
// [v] = B[4 kq + v][p T + t]) takes the same tiles with tdpbssd: 64 int8 of
// K per step (16 quads), 16384 multiply-adds per instruction, exact.
//
// So does a KxK convolution over per-tap panels (out[n, h, w, p, t] +=
// in[n, h sh + kh dh, w sw + kw dw, cq, v] * filter[kh, kw, p, cq, t, v]:
// int8, or bf16 under --weights=bf16): the tile rows are up to 32 pixels of
// one output row, whose input pixels lie sw * C elements apart (the tile
// load's stride), and loops over the taps, also not unrolled, carry the
// accumulator tiles around the K loop (one step a tap at 64 int8 or 32
// bf16 channels).
//
// LLVM configures the tiles itself (ldtilecfg from the shapes of the
// intrinsics); jitrun-codegen-amx-to-llvm lowers the tile ops together
// with the branches that carry tiles, which upstream's control-flow
// lowering cannot type.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "contract/Dispatch.h"

#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/AMX/Transforms.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace jitrun {
#define GEN_PASS_DEF_AMXCONTRACTIONSPASS
#define GEN_PASS_DEF_AMXTOLLVMPASS
#include "codegen/Passes.h.inc"

namespace {

/// Rows of every AMX tile; bytes of each tile row.
constexpr int64_t kTileRows = 16;
constexpr int64_t kTileRowBytes = 64;
/// f32 or i32 columns of an accumulator tile; VNNI groups of a K step (4
/// bytes each: bf16 pairs or int8 quads).
constexpr int64_t kTileColumns = kTileRowBytes / 4;
constexpr int64_t kPairsPerStep = kTileRowBytes / 4;
/// Accumulator tiles per side: 2 x 2 of the 8 tile registers, the other 4
/// for two tiles of A and two of B.
constexpr int64_t kMaxTilesPerSide = 2;

/// Where each operand's loops are in a marked contraction, and its extents;
/// `group`: the elements of a VNNI group (2 bf16, 4 int8); `taps`: a
/// convolution's filter loops (each a loop around the K loop).
struct AmxShape {
  unsigned rowLoop, colLoop, pairLoop, vnniLoop;
  int64_t rows, cols, pairs, group;
  bool integer;
  SmallVector<unsigned> taps;
};

/// The coefficient of loop `loop` in `e`, a sum of loops times constants
/// (an input's image index, h * sh + kh * dh), or nullopt.
static std::optional<int64_t> coefficientOf(AffineExpr e, unsigned loop) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() == loop ? 1 : 0;
  if (isa<AffineConstantExpr>(e))
    return 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  if (bin.getKind() == AffineExprKind::Add) {
    std::optional<int64_t> l = coefficientOf(bin.getLHS(), loop),
                           r = coefficientOf(bin.getRHS(), loop);
    if (!l || !r)
      return std::nullopt;
    return *l + *r;
  }
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (std::optional<int64_t> l = coefficientOf(bin.getLHS(), loop))
        return *l * c.getValue();
  return std::nullopt;
}

/// The loop roles of `op` (A (rows..., kp, v), B (..., kp, t, v), C
/// (rows..., ..., t): packed panels, maybe expanded by a reshape the
/// dispatch propagated into it) when every loop but one row loop, the
/// columns and K is a unit and the tiles fit; failure otherwise.
static FailureOr<AmxShape> amxShape(linalg::GenericOp op) {
  // A multiply-accumulate body (widened operands, acc + a * b), the only one
  // tdpbf16ps and tdpbssd compute: a contraction, or a convolution whose
  // input is read at h * sh + kh * dh (jitrun-fusion-pack-weights makes
  // both, with that body).
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return failure();
  bool contraction = linalg::isaContractionOpInterface(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap a = maps[0], b = maps[1], c = maps[2];
  if (a.getNumResults() < 3 || b.getNumResults() < 3 || c.getNumResults() < 2 ||
      (contraction && !a.isProjectedPermutation()) || !b.isProjectedPermutation() ||
      !c.isProjectedPermutation())
    return failure();
  unsigned na = a.getNumResults(), nb = b.getNumResults(), nc = c.getNumResults();
  auto dimAt = [](AffineMap m, unsigned i) -> std::optional<unsigned> {
    if (auto d = dyn_cast<AffineDimExpr>(m.getResult(i)))
      return d.getPosition();
    return std::nullopt;
  };
  std::optional<unsigned> vnni = dimAt(a, na - 1), pair = dimAt(a, na - 2);
  if (!vnni || !pair)
    return failure();
  AmxShape s;
  s.vnniLoop = *vnni;
  s.pairLoop = *pair;
  s.colLoop = c.getDimPosition(nc - 1);
  if (b.getDimPosition(nb - 3) != s.pairLoop || b.getDimPosition(nb - 2) != s.colLoop ||
      b.getDimPosition(nb - 1) != s.vnniLoop)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return failure();
  // The rows: the first `count` dims of `m`, at most one of them not a
  // unit (that one, else the last).
  auto rowsOf = [&](AffineMap m, unsigned count) -> std::optional<unsigned> {
    unsigned row = m.getDimPosition(count - 1);
    int nonUnit = 0;
    for (unsigned d = 0; d < count; ++d)
      if (unsigned loop = m.getDimPosition(d); ranges[loop] != 1) {
        row = loop;
        ++nonUnit;
      }
    return nonUnit > 1 ? std::nullopt : std::optional<unsigned>(row);
  };
  if (contraction) {
    // A's loops before K's.
    std::optional<unsigned> row = rowsOf(a, na - 2);
    if (!row || !c.isFunctionOfDim(*row))
      return failure();
    s.rowLoop = *row;
  } else {
    // A convolution: the body multiplies and adds, and nothing else.
    if (llvm::any_of(op.getBlock()->without_terminator(), [](Operation &o) {
          return !isa<arith::ExtSIOp, arith::ExtFOp, arith::MulIOp, arith::MulFOp,
                      arith::AddIOp, arith::AddFOp>(o);
        }))
      return failure();
    // Its rows: C's loops before the panel's (an output row's pixels); its
    // taps: B's loops before the panel's ([kh, kw, p, cq, t, v]), reductions.
    std::optional<unsigned> row = rowsOf(c, nc - 2);
    if (!row)
      return failure();
    s.rowLoop = *row;
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    for (unsigned d = 0; d + 4 < nb; ++d) {
      unsigned loop = b.getDimPosition(d);
      if (iters[loop] != utils::IteratorType::reduction)
        return failure();
      s.taps.push_back(loop);
    }
  }
  for (auto [i, r] : llvm::enumerate(ranges))
    if (i != s.rowLoop && i != s.colLoop && i != s.pairLoop && i != s.vnniLoop &&
        !llvm::is_contained(s.taps, i) && r != 1)
      return failure();
  s.rows = ranges[s.rowLoop];
  s.cols = ranges[s.colLoop];
  s.pairs = ranges[s.pairLoop];
  // K in two or more whole steps: LLVM's tile register allocation ran out
  // of registers on a short last step and on a single step (see
  // jitrun-fusion-pack-weights, which packs for AMX only such K). A
  // convolution's taps are loops of their own around it: one step each.
  if (s.pairs % kPairsPerStep != 0 || (s.taps.empty() && s.pairs < 2 * kPairsPerStep))
    return failure();
  auto elem = [&](unsigned i) { return getElementTypeOrSelf(op->getOperand(i).getType()); };
  s.integer = elem(0).isInteger(8) && elem(1).isInteger(8) && elem(2).isInteger(32);
  if (!s.integer && (!elem(0).isBF16() || !elem(1).isBF16() || !elem(2).isF32()))
    return failure();
  s.group = s.integer ? 4 : 2;
  if (ranges[s.vnniLoop] != s.group || s.rows > kMaxTilesPerSide * kTileRows ||
      s.cols % kTileColumns != 0 || s.cols > kMaxTilesPerSide * kTileColumns)
    return failure();
  // int8 products summed as tdpbssd sums them: sign-extended operands.
  if (s.integer) {
    bool signedCasts = true;
    op.getBlock()->walk([&](Operation *o) {
      if (isa<arith::ExtUIOp, arith::UIToFPOp>(o))
        signedCasts = false;
    });
    if (!signedCasts)
      return failure();
  }
  return s;
}

/// The static strides of `v`'s memref, or none.
static std::optional<SmallVector<int64_t>> staticStrides(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// How far operand `i`'s element moves when loop `loop` steps by one: the
/// strides of the dims its indexing map reads the loop in, times the loop's
/// coefficients there (an input's w * sw + kw * dw: sw times W's stride);
/// -1 where an index is no sum of loops times constants.
static int64_t strideOfLoop(linalg::GenericOp op, unsigned i, ArrayRef<int64_t> strides,
                            unsigned loop) {
  AffineMap map = op.getIndexingMapsArray()[i];
  int64_t stride = 0;
  for (unsigned d = 0; d < map.getNumResults(); ++d) {
    std::optional<int64_t> k = coefficientOf(map.getResult(d), loop);
    if (!k)
      return -1;
    stride += *k * strides[d];
  }
  return stride;
}

/// Replaces the marked contraction `op` by AMX tile code; false (and `op`
/// left as it is, for the scalar loops) when its shape or layout does not
/// fit the tiles.
static bool rewriteToTiles(RewriterBase &rewriter, linalg::GenericOp op) {
  FailureOr<AmxShape> shape = amxShape(op);
  if (failed(shape))
    return false;
  Value a = op.getDpsInputOperand(0)->get(), b = op.getDpsInputOperand(1)->get(),
        c = op.getDpsInitOperand(0)->get();
  std::optional<SmallVector<int64_t>> sa = staticStrides(a), sb = staticStrides(b),
                                      sc = staticStrides(c);
  if (!sa || !sb || !sc)
    return false;
  // Tile rows are contiguous runs: K pairs then pair elements in A, the
  // columns' pairs in B, the columns in C.
  if (strideOfLoop(op, 0, *sa, shape->vnniLoop) != 1 ||
      strideOfLoop(op, 0, *sa, shape->pairLoop) != shape->group ||
      strideOfLoop(op, 1, *sb, shape->vnniLoop) != 1 ||
      strideOfLoop(op, 1, *sb, shape->colLoop) != shape->group ||
      strideOfLoop(op, 2, *sc, shape->colLoop) != 1)
    return false;
  int64_t aRowStride = strideOfLoop(op, 0, *sa, shape->rowLoop);
  int64_t bRowStride = strideOfLoop(op, 1, *sb, shape->pairLoop);
  int64_t cRowStride = strideOfLoop(op, 2, *sc, shape->rowLoop);
  if (aRowStride < 0 || (shape->rows > 1 && (aRowStride == 0 || cRowStride == 0)))
    return false;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // Index constants, each made once at the top of the op's block, where
  // they dominate the tile code and its loop.
  llvm::SmallDenseMap<int64_t, Value> constants;
  auto index = [&](int64_t v) -> Value {
    auto [it, inserted] = constants.try_emplace(v);
    if (inserted) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(op->getBlock());
      it->second = arith::ConstantIndexOp::create(rewriter, loc, v);
    }
    return it->second;
  };
  Value zero = index(0);
  unsigned numLoops = op.getNumLoops();
  // Operand `i`'s indices with the row, column and pair loops at `row`,
  // `col` and `pair`, a convolution's taps at `taps`, every other loop at 0.
  auto indices = [&](OpBuilder &bld, unsigned i, Value row, Value col, Value pair,
                     ValueRange taps = {}) {
    SmallVector<Value> at(numLoops, zero);
    at[shape->rowLoop] = row;
    at[shape->colLoop] = col;
    at[shape->pairLoop] = pair;
    for (auto [loop, v] : llvm::zip(shape->taps, taps))
      at[loop] = v;
    AffineMap map = op.getIndexingMapsArray()[i];
    SmallVector<Value> r;
    for (AffineExpr e : map.getResults())
      r.push_back(isa<AffineDimExpr>(e) ? at[cast<AffineDimExpr>(e).getPosition()]
                                        : affine::expandAffineExpr(bld, loc, e, at, {}));
    return r;
  };
  int64_t g = shape->group;
  Type elem = getElementTypeOrSelf(a.getType());
  Type accElem = getElementTypeOrSelf(c.getType());
  int64_t rowTiles = llvm::divideCeil(shape->rows, kTileRows);
  int64_t colTiles = shape->cols / kTileColumns;
  auto tileRows = [&](int64_t i) { return std::min(kTileRows, shape->rows - i * kTileRows); };
  auto accType = [&](int64_t i) {
    return amx::TileType::get({tileRows(i), kTileColumns}, accElem);
  };
  Value aStride = index(aRowStride), bStride = index(bRowStride), cStride = index(cRowStride);

  SmallVector<Value> accs;
  for (int64_t i = 0; i < rowTiles; ++i)
    for (int64_t j = 0; j < colTiles; ++j)
      accs.push_back(amx::TileLoadOp::create(
          rewriter, loc, accType(i), c,
          indices(rewriter, 2, index(i * kTileRows), index(j * kTileColumns), zero), cStride));

  // One K step of `pairs` pairs at pair `k` (and the taps at `taps`): the
  // accumulators after it.
  auto step = [&](OpBuilder &bld, Value k, ValueRange taps, ValueRange in) {
    int64_t pairs = kPairsPerStep;
    SmallVector<Value> lhs, rhs, out;
    for (int64_t i = 0; i < rowTiles; ++i)
      lhs.push_back(amx::TileLoadOp::create(
          bld, loc, amx::TileType::get({tileRows(i), g * pairs}, elem), a,
          indices(bld, 0, index(i * kTileRows), zero, k, taps), aStride));
    for (int64_t j = 0; j < colTiles; ++j)
      rhs.push_back(amx::TileLoadOp::create(
          bld, loc, amx::TileType::get({pairs, g * kTileColumns}, elem), b,
          indices(bld, 1, zero, index(j * kTileColumns), k, taps), bStride));
    for (int64_t i = 0; i < rowTiles; ++i)
      for (int64_t j = 0; j < colTiles; ++j) {
        Value acc = in[i * colTiles + j];
        // tdpbssd: signed x signed; tdpbf16ps.
        out.push_back(shape->integer
                          ? amx::TileMulIOp::create(bld, loc, accType(i), lhs[i], rhs[j], acc,
                                                    /*isZextLhs=*/false, /*isZextRhs=*/false)
                                .getResult()
                          : amx::TileMulFOp::create(bld, loc, accType(i), lhs[i], rhs[j], acc)
                                .getResult());
      }
    return out;
  };
  // Not unrolled by LLVM: straight-line steps let its scheduler load the
  // tiles of later steps early, and the tile registers ran out (ViT-B/16's
  // edge tile of 5 rows, 24 steps). Nor a convolution's tap loops around
  // the K loop (whose one step, at 64 channels, LLVM folds).
  MLIRContext *ctx = op.getContext();
  auto noUnroll =
      LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {}, {}, {}, {}, {}, {});
  auto annotation = LLVM::LoopAnnotationAttr::get(ctx, {}, {}, {}, noUnroll, {}, {}, {}, {},
                                                  {}, {}, {}, {}, {}, {}, {});
  // The tap loops (outermost first), then the K loop, carrying the tiles.
  std::function<SmallVector<Value>(OpBuilder &, SmallVector<Value>, ValueRange)> nest =
      [&](OpBuilder &bld, SmallVector<Value> taps, ValueRange in) -> SmallVector<Value> {
    bool kLoop = taps.size() == shape->taps.size();
    int64_t extent = kLoop ? shape->pairs
                           : op.getStaticLoopRanges()[shape->taps[taps.size()]];
    auto loop = scf::ForOp::create(
        bld, loc, zero, index(extent), index(kLoop ? kPairsPerStep : 1), in,
        [&](OpBuilder &inner, Location, Value iv, ValueRange iter) {
          SmallVector<Value> more(taps);
          if (!kLoop)
            more.push_back(iv);
          scf::YieldOp::create(inner, loc,
                               kLoop ? step(inner, iv, taps, iter) : nest(inner, more, iter));
        });
    loop->setAttr("loop_annotation", annotation);
    return SmallVector<Value>(loop.getResults());
  };
  accs = nest(rewriter, {}, accs);
  for (int64_t i = 0; i < rowTiles; ++i)
    for (int64_t j = 0; j < colTiles; ++j)
      amx::TileStoreOp::create(
          rewriter, loc, c,
          indices(rewriter, 2, index(i * kTileRows), index(j * kTileColumns), zero),
          accs[i * colTiles + j], cStride);
  rewriter.eraseOp(op);
  return true;
}

struct AmxContractionsPass final
    : public impl::AmxContractionsPassBase<AmxContractionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> marked;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g->hasAttr(kAmxTilesAttrName))
        marked.push_back(g);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp g : marked)
      if (!rewriteToTiles(rewriter, g))
        g.emitRemark("bf16 or int8 contraction left to scalar loops: its shape, layout or body "
                     "does not fit AMX tiles");
  }
};

struct AmxToLLVMPass final : public impl::AmxToLLVMPassBase<AmxToLLVMPass> {
  void runOnOperation() override {
    bool any = false;
    getOperation().walk([&](Operation *op) {
      if (isa<amx::AMXDialect>(op->getDialect()))
        any = true;
    });
    if (!any)
      return;
    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    populateAMXLegalizeForLLVMExportPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(getContext());
    configureAMXLegalizeForExportTarget(target);
    target.addIllegalDialect<cf::ControlFlowDialect>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
