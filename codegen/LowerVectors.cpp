//===- LowerVectors.cpp - vector ops toward LLVM, accumulators in registers ===//
//
// After bufferization: hoists loop-invariant transfers (so a contraction's
// accumulator stays in registers across its reduction loop), lowers
// contractions to outer products and FMAs, and the remaining n-D vector ops
// to forms the LLVM conversion handles well. Math functions become
// polynomial approximations that vectorize.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <cmath>
#include <type_traits>

#define DEBUG_TYPE "jitrun-codegen-lower-vectors"

namespace jitrun {
#define GEN_PASS_DEF_LOWERVECTORSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// Masked tiles: upstream hoisting leaves a read/write pair alone when it
/// carries a mask, so the K loop of every partial (edge) tile reloads and
/// stores its accumulators each iteration, and LLVM cannot promote masked
/// loads. Nor does it move transfers of a view, which is how a generic
/// kernel sees every buffer (LowerDispatchABI: its one reinterpret_cast of
/// a bare pointer), so the K loop of its contractions stored its
/// accumulators at every step (attention's Q.K^T at 1000 tokens: 3.5x the
/// exact kernel). This hoists a pair of `scf.for`'s body that reads and
/// writes the same loop-invariant tile (same buffer, indices, mask and
/// type) when no other op of the loop touches that buffer (kernel buffers
/// are distinct, noalias arguments or allocas): the read goes before the
/// loop, the value becomes an iter_arg, the write goes after the loop.
/// Unmasked pairs of arguments and allocas stay upstream's.
static bool hoistTransferPair(RewriterBase &rewriter, scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto read : body->getOps<vector::TransferReadOp>()) {
    Value base = read.getBase();
    // Views of the buffer inside the loop would be other accesses (below).
    auto view = base.getDefiningOp<memref::ReinterpretCastOp>();
    bool ownView = view && isa<BlockArgument>(view.getSource()) && view.getSource().hasOneUse();
    bool buffer = isa<BlockArgument>(base) ||
                  isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(base.getDefiningOp());
    if (!ownView && (!buffer || !read.getMask()))
      continue;
    auto invariant = [&](Value v) { return !v || loop.isDefinedOutsideOfLoop(v); };
    if (!invariant(base) || !invariant(read.getMask()) || !invariant(read.getPadding()) ||
        !llvm::all_of(read.getIndices(), invariant))
      continue;
    vector::TransferWriteOp write;
    bool other = false;
    for (OpOperand &use : base.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isAncestor(user) || user == read.getOperation())
        continue;
      auto w = dyn_cast<vector::TransferWriteOp>(user);
      if (w && !write && w->getBlock() == body && read->isBeforeInBlock(w) &&
          w.getIndices() == read.getIndices() && w.getMask() == read.getMask() &&
          w.getVectorType() == read.getVectorType() &&
          w.getPermutationMap() == read.getPermutationMap() &&
          w.getInBounds() == read.getInBounds())
        write = w;
      else
        other = true;
    }
    if (!write || other)
      continue;
    rewriter.moveOpBefore(read, loop);
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{read.getResult()}, /*replaceInitOperandUsesInLoop=*/true,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{write.getVector()};
        });
    if (failed(grown))
      return false;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    rewriter.moveOpAfter(write, newLoop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(newLoop.getResults().back());
    });
    return true;
  }
  return false;
}

static void hoistTransferPairs(func::FuncOp fn) {
  IRRewriter rewriter(fn.getContext());
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<scf::ForOp> loops;
    fn.walk([&](scf::ForOp loop) { loops.push_back(loop); }); // innermost first
    for (scf::ForOp loop : loops)
      if (hoistTransferPair(rewriter, loop)) {
        changed = true;
        break; // the loop was replaced: walk again
      }
  }
}

/// Integer sums along the innermost dim of R rows of L lanes (L a power of
/// two: the row sums of a VNNI contraction, 16 lanes of i32) as a tree of
/// log2(L) levels over blocks of L rows: each level pairs registers, moves
/// the low and high halves of every row's partial sums into two registers
/// and adds them, so that one register ends with the sums of L rows, in
/// order. About 2L shuffles and L adds per L rows; the generic lowering
/// transposes the rows first (some 450 instructions for 14 x 16 lanes).
/// Integers only: the order of a float sum would change.
struct LaneSumTree final : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    int64_t rank = type.getRank();
    if (isa<vector::MaskOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "masked: left to the generic lowering");
    if (op.getKind() != vector::CombiningKind::ADD || rank < 2 || type.isScalable() ||
        !type.getElementType().isInteger() || op.getReductionDims().size() != 1 ||
        op.getReductionDims()[0] != rank - 1 || !isa<VectorType>(op.getAcc().getType()))
      return failure();
    int64_t lanes = type.getShape().back();
    int64_t rows = type.getNumElements() / lanes;
    if (lanes < 2 || !llvm::isPowerOf2_64(lanes) || lanes > 64)
      return failure();
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    auto laneType = VectorType::get({lanes}, elem);
    Value flat = vector::ShapeCastOp::create(rewriter, loc, VectorType::get({rows, lanes}, elem),
                                             op.getSource());
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(laneType));
    SmallVector<Value> sums;
    for (int64_t r0 = 0; r0 < rows; r0 += lanes) {
      SmallVector<Value> level;
      for (int64_t r = r0; r < r0 + lanes; ++r)
        level.push_back(r < rows ? vector::ExtractOp::create(rewriter, loc, flat,
                                                             ArrayRef<int64_t>{r})
                                       .getResult()
                                 : zero);
      for (int64_t blocks = 1; level.size() > 1; blocks *= 2) {
        int64_t width = lanes / blocks, half = width / 2;
        SmallVector<int64_t> lo, hi;
        for (int64_t i = 0; i < 2 * blocks; ++i) {
          int64_t base = (i < blocks ? 0 : lanes) + (i % blocks) * width;
          for (int64_t t = 0; t < half; ++t) {
            lo.push_back(base + t);
            hi.push_back(base + half + t);
          }
        }
        SmallVector<Value> next;
        for (size_t i = 0; i < level.size(); i += 2) {
          Value a = vector::ShuffleOp::create(rewriter, loc, laneType, level[i], level[i + 1], lo);
          Value b = vector::ShuffleOp::create(rewriter, loc, laneType, level[i], level[i + 1], hi);
          next.push_back(arith::AddIOp::create(rewriter, loc, a, b));
        }
        level = std::move(next);
      }
      sums.push_back(level.front());
    }
    // The sums of all rows, in order, as one vector (the last block cut
    // to the rows there are).
    Value all = sums.front();
    int64_t have = lanes;
    for (size_t i = 1; i < sums.size(); ++i) {
      SmallVector<int64_t> cat;
      for (int64_t t = 0; t < have + lanes; ++t)
        cat.push_back(t);
      all = vector::ShuffleOp::create(rewriter, loc,
                                      VectorType::get({have + lanes}, elem), all, sums[i], cat);
      have += lanes;
    }
    if (have != rows) {
      SmallVector<int64_t> cut;
      for (int64_t t = 0; t < rows; ++t)
        cut.push_back(t);
      all = vector::ShuffleOp::create(rewriter, loc, VectorType::get({rows}, elem), all, all, cut);
    }
    Value result = vector::ShapeCastOp::create(rewriter, loc, op.getAcc().getType(), all);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, result, op.getAcc());
    return success();
  }
};

/// A contraction whose operands are narrower than its accumulator (i8 x i8
/// -> i32, f16 x f16 -> f32) that the VNNI patterns did not take: its
/// operands are widened first (sign-extended, as linalg's named contractions
/// read integers) when it has batch dimensions: the outer-product lowering
/// handles mixed types only without them (a unit-batch i8 batch_matmul, what
/// every int8 tosa.matmul becomes, failed to translate to LLVM IR), or bf16
/// operands (LLVM cannot lower bf16 vector arithmetic). Other plain matmuls
/// keep their narrow operands: widened, an f16 one crashed upstream's
/// vector.extract folder.
struct WidenMixedContraction final : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    Type acc = getElementTypeOrSelf(op.getAccType());
    auto accType = dyn_cast<VectorType>(op.getAccType());
    bool bf16 = getElementTypeOrSelf(op.getLhsType()).isBF16() ||
                getElementTypeOrSelf(op.getRhsType()).isBF16();
    if (!accType || (accType.getRank() < 3 && !bf16))
      return failure();
    auto widen = [&](Value v) -> Value {
      auto type = cast<VectorType>(v.getType());
      Type elt = type.getElementType();
      if (elt == acc)
        return v;
      VectorType wide = type.clone(acc);
      if (isa<FloatType>(elt) && isa<FloatType>(acc) &&
          elt.getIntOrFloatBitWidth() < acc.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(rewriter, op.getLoc(), wide, v);
      if (elt.isSignlessInteger() && acc.isSignlessInteger() &&
          elt.getIntOrFloatBitWidth() < acc.getIntOrFloatBitWidth())
        return arith::ExtSIOp::create(rewriter, op.getLoc(), wide, v);
      return nullptr;
    };
    if (getElementTypeOrSelf(op.getLhsType()) == acc &&
        getElementTypeOrSelf(op.getRhsType()) == acc)
      return failure();
    // A masked contraction is the only op its vector.mask may hold.
    if (auto mask = dyn_cast<vector::MaskOp>(op->getParentOp()))
      rewriter.setInsertionPoint(mask);
    Value lhs = widen(op.getLhs()), rhs = widen(op.getRhs());
    if (!lhs || !rhs)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getLhsMutable().assign(lhs);
      op.getRhsMutable().assign(rhs);
    });
    return success();
  }
};

/// Upstream's LLVM lowering of the math ops with an integer operand or
/// result (absi, ctlz, cttz, ipowi, fpowi, isnan, isinf, isfinite) takes
/// 1-D vectors only; on an n-D tile the op stayed and the kernel failed to
/// translate ("failed to translate a kernel module to LLVM IR": the
/// differential fuzzer's abs of an int8 convolution's 3x5 tile). Such an op
/// on n-D vectors runs on them flattened to one dimension. Float-only math
/// ops lower n-D vectors row by row already and are left alone.
struct FlattenIntegerMathOp final : RewritePattern {
  explicit FlattenIntegerMathOp(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto resultType = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!resultType || resultType.getRank() < 2 || resultType.isScalable())
      return failure();
    bool integer = false;
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
      auto vt = dyn_cast<VectorType>(t);
      if (!vt || vt.getShape() != resultType.getShape() || vt.isScalable())
        return failure();
      integer |= isa<IntegerType>(vt.getElementType());
    }
    if (!integer)
      return failure();
    Location loc = op->getLoc();
    int64_t n = resultType.getNumElements();
    auto flat = [&](Type t) {
      return VectorType::get({n}, cast<VectorType>(t).getElementType());
    };
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(vector::ShapeCastOp::create(rewriter, loc, flat(v.getType()), v));
    OperationState state(loc, op->getName(), operands, {flat(resultType)}, op->getAttrs());
    Operation *flatOp = rewriter.create(state);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, resultType, flatOp->getResult(0));
    return success();
  }
};

/// A multiply marked fastmath<contract> (the multiply-accumulates fusion
/// builds, contract/Dispatch.h) whose one use is an add becomes an FMA with
/// it. Their tiles reduce one tap and channel per step, so the vectorizer
/// leaves a multiply and an add where a named convolution's contraction
/// lowers to FMAs; LLVM contracts them only when both carry the flag, and
/// on Intel hosts the two take the FMA ports twice (ResNet-50's packed
/// 3x3 convolutions ran at 45 % of the FMA peak there).
struct FuseContractedMultiplyAdd final : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add, PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto mul = add->getOperand(i).getDefiningOp<arith::MulFOp>();
      if (!mul || !mul->hasOneUse() ||
          !bitEnumContainsAll(mul.getFastmath(), arith::FastMathFlags::contract))
        continue;
      rewriter.replaceOpWithNewOp<math::FmaOp>(add, mul.getLhs(), mul.getRhs(),
                                               add->getOperand(1 - i));
      rewriter.eraseOp(mul);
      return success();
    }
    return failure();
  }
};

/// The flags that let LLVM divide by a reciprocal estimate and a Newton
/// step (a denominator known finite and nonzero).
constexpr arith::FastMathFlags kReciprocalEstimate =
    arith::FastMathFlags::arcp | arith::FastMathFlags::ninf | arith::FastMathFlags::contract;

/// The logistic function's division, c / (1 + exp(y)) in f32 with a finite
/// constant c (ONNX's Sigmoid, TOSA's sigmoid, the gate of SiLU and of
/// squeeze-excite blocks): the denominator is at least 1, so LLVM may take
/// its reciprocal estimate refined by one Newton step (vrcp14ps or vrcpps
/// and three FMAs, within 2 ulp) instead of vdivps, which takes about 10
/// cycles a register. It does so for a division marked `arcp` and `ninf`.
/// The denominator must then be finite (the refined estimate of 1/inf is
/// NaN): exp's argument is capped at 88, so 1 + exp(y) is at most 1.7e38,
/// and where the exact quotient is smaller than c / 1.7e38 (below 6e-39
/// for c = 1) the result is that or zero.
struct LogisticReciprocal final : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp div, PatternRewriter &rewriter) const override {
    Type type = div.getType();
    if (!getElementTypeOrSelf(type).isF32() ||
        bitEnumContainsAll(div.getFastmath(), arith::FastMathFlags::arcp))
      return failure();
    APFloat c(0.0f);
    if (!matchPattern(div.getLhs(), m_ConstantFloat(&c)) || !c.isFinite())
      return failure();
    auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
    if (!add)
      return failure();
    for (unsigned i = 0; i < 2; ++i) {
      auto exp = add->getOperand(1 - i).getDefiningOp<math::ExpOp>();
      if (!exp || !matchPattern(add->getOperand(i), m_OneFloat()))
        continue;
      Location loc = div.getLoc();
      Value cap = createScalarOrSplatConstant(rewriter, loc, type, APFloat(88.0f));
      // cap < y ? cap : y, one vminps that passes a NaN y through (then a
      // NaN quotient, as the exact division gives); arith.minimumf would
      // add a compare and a blend for it.
      Value y = exp.getOperand();
      Value capped = arith::SelectOp::create(
          rewriter, loc,
          arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, cap, y), cap, y);
      Value e = math::ExpOp::create(rewriter, loc, capped);
      Value d = arith::AddFOp::create(rewriter, loc, add->getOperand(i), e);
      rewriter.replaceOpWithNewOp<arith::DivFOp>(div, div.getLhs(), d, kReciprocalEstimate);
      return success();
    }
    return failure();
  }
};

/// A float's trip through an integer and back, sitofp/uitofp(trunci(fptosi(v))),
/// where v is an integer already inside the narrow type's range: a
/// quantize-dequantize pair (ONNX's QDQ models: clamp(roundeven(x / s) +
/// zp, 0, 255), to uint8 and back) whose 8-bit value nothing else reads.
/// The trip returns v itself (NaN aside, for which fptosi gives poison), so
/// it goes: four instructions a register (vcvttps2dq, vpmovdb, vpmovzxbd,
/// vcvtdq2ps). A signed range may hold -0.0, which the trip makes +0.0, as
/// adding +0.0 does.
template <typename CastOp>
struct IntegerRoundTrip final : OpRewritePattern<CastOp> {
  using OpRewritePattern<CastOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op, PatternRewriter &rewriter) const override {
    constexpr bool isSigned = std::is_same_v<CastOp, arith::SIToFPOp>;
    Value in = op.getIn();
    unsigned bits = getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth();
    if (auto trunc = in.getDefiningOp<arith::TruncIOp>())
      in = trunc.getIn();
    auto toInt = in.getDefiningOp<arith::FPToSIOp>();
    if (!toInt || toInt.getIn().getType() != op.getType() || bits > 32)
      return failure();
    double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    Value v = toInt.getIn();
    if (!clampedInteger(v, lo, hi))
      return failure();
    if (isSigned) {
      auto element = cast<FloatType>(getElementTypeOrSelf(v.getType()));
      Value zero = createScalarOrSplatConstant(rewriter, op.getLoc(), v.getType(),
                                               APFloat::getZero(element.getFloatSemantics()));
      v = arith::AddFOp::create(rewriter, op.getLoc(), v, zero);
    }
    rewriter.replaceOp(op, v);
    return success();
  }

  /// A constant (scalar or splat) with an integer value.
  static std::optional<double> integerConstant(Value v) {
    APFloat c(0.0f);
    if (!matchPattern(v, m_ConstantFloat(&c)) || !c.isFinite() || !c.isInteger())
      return std::nullopt;
    return c.convertToDouble();
  }
  /// roundeven(x), or it plus an integer constant.
  static bool integral(Value v) {
    if (v.getDefiningOp<math::RoundEvenOp>())
      return true;
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!add)
      return false;
    for (unsigned i = 0; i < 2; ++i)
      if (add->getOperand(i).template getDefiningOp<math::RoundEvenOp>() &&
          integerConstant(add->getOperand(1 - i)))
        return true;
    return false;
  }
  /// min(max(w, a), b) or max(min(w, b), a) of an integral w, with integer
  /// bounds inside [lo, hi].
  static bool clampedInteger(Value v, double lo, double hi) {
    auto bound = [](Operation *op, Value &inner) -> std::optional<double> {
      for (unsigned i = 0; i < 2; ++i)
        if (std::optional<double> c = integerConstant(op->getOperand(i))) {
          inner = op->getOperand(1 - i);
          return c;
        }
      return std::nullopt;
    };
    Operation *outer = v.getDefiningOp();
    if (!outer || !isa<arith::MinimumFOp, arith::MaximumFOp>(outer))
      return false;
    Value mid, w;
    std::optional<double> first = bound(outer, mid);
    Operation *innerOp = mid ? mid.getDefiningOp() : nullptr;
    if (!first || !innerOp || innerOp->getName() == outer->getName() ||
        !isa<arith::MinimumFOp, arith::MaximumFOp>(innerOp))
      return false;
    std::optional<double> second = bound(innerOp, w);
    if (!second)
      return false;
    double low = isa<arith::MaximumFOp>(outer) ? *first : *second;
    double high = isa<arith::MinimumFOp>(outer) ? *first : *second;
    return lo <= low && low <= high && high <= hi && integral(w);
  }
};

/// A read whose innermost vector dim runs along a source dim followed only
/// by unit dims, other vector dims broadcast: ONNX's per-channel constants
/// of an NCHW model (a batch norm's scale as 448x1x1), read across the
/// channels of its NHWC image. The permutation lowering took the read for a
/// transposed one and built each vector from 32 scalar loads and inserts
/// (LLVM's InstCombine merged them back into one load, at a cost: DenseNet-121
/// has 135 such reads). Collapsing the source's trailing unit dims into that
/// dim makes it a contiguous read plus a broadcast.
struct ReadAcrossTrailingUnitDims final : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    AffineMap map = read.getPermutationMap();
    if (!type || read.getMask() || map.getNumResults() == 0)
      return failure();
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    int64_t rank = type.getRank();
    if (!last || static_cast<int64_t>(last.getPosition()) == rank - 1)
      return failure();
    unsigned along = last.getPosition();
    for (int64_t d = along + 1; d < rank; ++d)
      if (type.getDimSize(d) != 1)
        return failure();
    for (AffineExpr e : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (dim ? dim.getPosition() > along : !isa<AffineConstantExpr>(e))
        return failure();
    }
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d < along; ++d)
      groups.push_back({static_cast<int64_t>(d)});
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(along, rank)));
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups))
      return failure();
    Value collapsed =
        memref::CollapseShapeOp::create(rewriter, read.getLoc(), read.getBase(), groups);
    SmallVector<Value> indices(read.getIndices().begin(),
                               read.getIndices().begin() + along + 1);
    AffineMap collapsedMap = AffineMap::get(along + 1, 0, map.getResults(), getContext());
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), collapsed, indices, AffineMapAttr::get(collapsedMap),
        read.getPadding(), /*mask=*/Value(), read.getInBoundsAttr());
    return success();
  }
};

struct LowerVectorsPass final
    : public impl::LowerVectorsPassBase<LowerVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(fn, std::move(patterns));
    };
    // 1. Keep accumulators in registers across reduction loops. The
    // accumulator tile is a subview of the output buffer, and the hoisting
    // never moves transfers of a view: fold the subviews into the transfers'
    // indices first, so that the K loop carries the tile as a vector.
    // The folded indices are recomputed at each transfer: hoist them out of
    // the loops and merge equal ones, so that a read and a write of the
    // same tile have the same loop-invariant indices.
    // Not converging is no error here: the folds are an optimization, and
    // a 3-D read through an expand_shape (the lane sums of a VNNI row sum)
    // makes them report a change they did not make.
    (void)apply([&](RewritePatternSet &p) { memref::populateFoldMemRefAliasOpPatterns(p); });
    fn.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    {
      IRRewriter rewriter(ctx);
      DominanceInfo dom(fn);
      eliminateCommonSubExpressions(rewriter, dom, fn);
    }
    linalg::hoistRedundantVectorTransfers(fn, /*verifyNonZeroTrip=*/true);
    hoistTransferPairs(fn);
    // 2a. With VNNI, i8 x i8 -> i32 register tiles become vpdpbusd.
    if (vnni && failed(apply([&](RewritePatternSet &p) {
          populateVnniContractionPatterns(p);
        })))
      return signalPassFailure();
    // 2b. With AVX512_BF16, bf16 x bf16 -> f32 register tiles become vdpbf16ps.
    if (bf16 && failed(apply([&](RewritePatternSet &p) { populateBf16DotPatterns(p); })))
      return signalPassFailure();
    // 2. Contractions to outer products and FMAs; reductions and masks.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          p.add<WidenMixedContraction>(ctx, /*benefit=*/3);
          vector::populateVectorOuterProductLoweringPatterns(p);
          p.add<LaneSumTree>(ctx, /*benefit=*/2);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })))
      return signalPassFailure();
    // 3. Unit dimensions (a tile of one pixel, one channel or one tap) go
    // away, so elementwise vector ops work on whole registers instead of
    // being unrolled into one-element vectors.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateDropUnitDimWithShapeCastPatterns(p);
          vector::ShapeCastOp::getCanonicalizationPatterns(p, ctx);
          vector::BroadcastOp::getCanonicalizationPatterns(p, ctx);
          p.add<FuseContractedMultiplyAdd, LogisticReciprocal, IntegerRoundTrip<arith::SIToFPOp>,
                IntegerRoundTrip<arith::UIToFPOp>>(ctx);
        })))
      return signalPassFailure();
    // 4. Transfers with permutations, transposes, broadcasts, shape casts.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          p.add<ReadAcrossTrailingUnitDims>(ctx, /*benefit=*/2);
          vector::populateVectorTransposeLoweringPatterns(
              p, vector::VectorTransposeLowering::Shuffle16x16);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorShapeCastLoweringPatterns(p);
          vector::populateVectorGatherLoweringPatterns(p);
          vector::populateVectorStepLoweringPatterns(p);
          p.add<FlattenIntegerMathOp>(ctx);
        })))
      return signalPassFailure();
    // 5. Vectorizable polynomial approximations of exp, tanh, log, erf, ...
    // Their rational ones (tanh, erf) divide by a polynomial of a clamped
    // argument, finite and away from zero: those divisions may take LLVM's
    // refined reciprocal estimate, as the logistic function's do (GELU of
    // 197x3072, erf: 0.52 -> 0.47 ms at one thread on an Intel host).
    llvm::DenseSet<Operation *> divisions;
    fn.walk([&](arith::DivFOp d) { divisions.insert(d); });
    if (failed(apply([&](RewritePatternSet &p) {
          if (avx512)
            populateScalefExpPatterns(p);
          populateMathPolynomialApproximationPatterns(p);
        })))
      return signalPassFailure();
    fn.walk([&](arith::DivFOp d) {
      if (!divisions.contains(d) && getElementTypeOrSelf(d.getType()).isF32())
        d.setFastmath(d.getFastmath() | kReciprocalEstimate);
    });
  }
};

} // namespace
} // namespace jitrun
