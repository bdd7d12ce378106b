//===- PrefetchWeights.cpp - software prefetch of streamed weight panels ---===//
//
// A packed convolution or contraction on a small map (ResNet-50's 7x7
// stage, Inception v3's 8x8 one, BERT's 128-row projections) reads each
// weight panel a few times per workgroup, once per tile of output rows, the
// first time from main memory: a model's weights (ResNet-50: 102 MB) do not
// stay in cache between runs. The hardware prefetchers stop at every 4 KB
// page, so that first pass waits on memory about once per page, at a third
// of the FMA rate. Where the passes are loops that do not index the
// weights, each step prefetches (to L2) a line of the next workgroup's
// region, spread over all passes, so that the next workgroup starts from
// L2; a buffer read once per workgroup gets the line `distance` bytes
// further along instead.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "jitrun-codegen-prefetch-weights"

namespace jitrun {
#define GEN_PASS_DEF_PREFETCHWEIGHTSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

constexpr int64_t kCacheLineBytes = 64;

/// The kernel argument `read` streams: a buffer of at least `minBytes`,
/// read one whole innermost row per iteration of the innermost loop around
/// the read (the loop's induction variable indexes the next-to-last dim,
/// step 1), so that consecutive iterations read consecutive memory. Null
/// otherwise.
static BlockArgument streamedArgument(vector::TransferReadOp read, func::FuncOp fn,
                                      int64_t minBytes) {
  auto loop = dyn_cast<scf::ForOp>(read->getParentOp());
  if (!loop || !loop.getBody()->getOps<scf::ForOp>().empty() ||
      !matchPattern(loop.getStep(), m_One()))
    return nullptr;
  auto arg = dyn_cast<BlockArgument>(read.getBase());
  if (!arg || arg.getOwner() != &fn.getBody().front())
    return nullptr;
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getElementType().isIntOrFloat() || type.getElementTypeBitWidth() % 8 != 0)
    return nullptr;
  int64_t rank = type.getRank();
  VectorType vector = read.getVectorType();
  if (read.getMask() || !read.getPermutationMap().isMinorIdentity() ||
      vector.getNumElements() != type.getShape().back() ||
      read.getIndices()[rank - 2] != loop.getInductionVar() ||
      !matchPattern(read.getIndices()[rank - 1], m_Zero()))
    return nullptr;
  if (type.getNumElements() * (type.getElementTypeBitWidth() / 8) < minBytes)
    return nullptr;
  return arg;
}

/// The values `roots` are computed from (themselves included).
static llvm::DenseSet<Value> computedFrom(ValueRange roots) {
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return seen;
}

/// Iteration numbers of `loops` (constant bounds), linearized.
static Value iterationIndex(OpBuilder &b, Location loc, ArrayRef<scf::ForOp> loops) {
  SmallVector<Value> ivs;
  SmallVector<int64_t> trips;
  for (scf::ForOp loop : loops) {
    int64_t lb = *getConstantIntValue(loop.getLowerBound());
    int64_t step = *getConstantIntValue(loop.getStep());
    int64_t ub = *getConstantIntValue(loop.getUpperBound());
    AffineExpr d0 = getAffineDimExpr(0, b.getContext());
    ivs.push_back(lb == 0 && step == 1
                      ? loop.getInductionVar()
                      : affine::AffineApplyOp::create(b, loc,
                                                      AffineMap::get(1, 0, (d0 - lb).floorDiv(step)),
                                                      loop.getInductionVar()));
    trips.push_back(llvm::divideCeil(ub - lb, step));
  }
  if (ivs.empty())
    return arith::ConstantIndexOp::create(b, loc, 0);
  if (ivs.size() == 1)
    return ivs.front();
  return affine::AffineLinearizeIndexOp::create(b, loc, ivs, trips, /*disjoint=*/true);
}

/// `v`'s value where the values in `known` have theirs, computed through
/// constants, affine.apply and arith's folders (which do not change the op);
/// nullopt through anything else.
static std::optional<int64_t> evaluate(Value v, llvm::DenseMap<Value, int64_t> &known,
                                       unsigned depth = 0) {
  if (auto it = known.find(v); it != known.end())
    return it->second;
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (auto split = dyn_cast_or_null<affine::AffineDelinearizeIndexOp>(def)) {
    // Result i: the index divided by the product of the basis after i,
    // modulo basis i (the first one unbounded without an outer bound).
    std::optional<int64_t> x = evaluate(split.getLinearIndex(), known, depth + 1);
    SmallVector<OpFoldResult> basis = split.getPaddedBasis();
    unsigned result = cast<OpResult>(v).getResultNumber();
    if (!x || *x < 0)
      return std::nullopt;
    int64_t inner = 1;
    for (unsigned i = basis.size(); i-- > result + 1;) {
      std::optional<int64_t> b = getConstantIntValue(basis[i]);
      if (!b || *b <= 0)
        return std::nullopt;
      inner *= *b;
    }
    int64_t value = *x / inner;
    if (basis[result]) {
      std::optional<int64_t> b = getConstantIntValue(basis[result]);
      if (!b || *b <= 0)
        return std::nullopt;
      value %= *b;
    }
    return known[v] = value;
  }
  if (!def || depth > 64 ||
      !(isa<affine::AffineApplyOp>(def) || isa<arith::ArithDialect>(def->getDialect())))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value o : def->getOperands()) {
    std::optional<int64_t> x = evaluate(o, known, depth + 1);
    if (!x || !o.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(IntegerAttr::get(o.getType(), *x));
  }
  std::optional<int64_t> value;
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    SmallVector<Attribute> results;
    if (succeeded(apply.getAffineMap().constantFold(operands, results)) && results.size() == 1)
      if (auto i = dyn_cast<IntegerAttr>(results.front()))
        value = i.getValue().getSExtValue();
  } else {
    SmallVector<OpFoldResult> results;
    if (failed(def->fold(operands, results)) || results.size() != def->getNumResults())
      return std::nullopt;
    OpFoldResult r = results[cast<OpResult>(v).getResultNumber()];
    if (auto attr = dyn_cast<Attribute>(r)) {
      if (auto i = dyn_cast<IntegerAttr>(attr))
        value = i.getValue().getSExtValue();
    } else {
      value = evaluate(cast<Value>(r), known, depth + 1);
    }
  }
  if (value)
    known[v] = *value;
  return value;
}

/// Whether the workgroup after each (which the same thread runs next, see
/// support/ThreadPool.cpp) reads the next region or the same one, and at
/// least one the next: the regions' starts (every loop at its first
/// iteration) evaluated for each workgroup id. The next one's region is
/// then worth prefetching (ResNet-50's 14x14 3x3 convolutions: two
/// workgroups of rows per panel). Not where workgroups only split one
/// region's rows (deeplab_v3's large maps: the same weights for all).
static bool workgroupsReadNextRegions(vector::TransferReadOp read, func::FuncOp fn,
                                      MemRefType type, int64_t region,
                                      const llvm::DenseMap<Value, int64_t> &firstIteration) {
  auto workgroups = fn->getAttrOfType<IntegerAttr>(kWorkgroupsAttrName);
  if (!workgroups || workgroups.getInt() < 2 || workgroups.getInt() > 4096 ||
      fn.getNumArguments() == 0)
    return false;
  Value id = fn.getArguments().back();
  if (!id.getType().isIndex())
    return false;
  auto startOf = [&](int64_t w) -> std::optional<int64_t> {
    llvm::DenseMap<Value, int64_t> known = firstIteration;
    known[id] = w;
    int64_t at = 0;
    for (auto [index, size] : llvm::zip(read.getIndices(), type.getShape())) {
      std::optional<int64_t> i = evaluate(index, known);
      if (!i)
        return std::nullopt;
      at = at * size + *i;
    }
    return at;
  };
  bool next = false;
  std::optional<int64_t> previous = startOf(0);
  for (int64_t w = 1; w < workgroups.getInt(); ++w) {
    std::optional<int64_t> start = startOf(w);
    if (!previous || !start || (*start != *previous && *start - *previous != region))
      return false;
    next |= *start != *previous;
    previous = start;
  }
  return next;
}

/// A region read again and again: the loops around `read` that do not
/// index the buffer (the passes: a tile of output rows each) and those that
/// do, which read `rows` rows of the buffer per pass; each step prefetches
/// `perStep` elements of the next region (a row over the passes, rounded
/// up).
struct Passes {
  int64_t rows = 1, count = 1, perStep = 1;
  SmallVector<scf::ForOp> passLoops, rowLoops;
};

/// `read`'s passes, where its loops have constant bounds, it reads its
/// region at least twice, the next workgroups read the next regions
/// (workgroupsReadNextRegions) and `count` passes' prefetches fit in the
/// buffer.
static std::optional<Passes> panelPasses(vector::TransferReadOp read, func::FuncOp fn,
                                         MemRefType type) {
  Passes p;
  llvm::DenseSet<Value> sources = computedFrom(read.getIndices());
  llvm::DenseMap<Value, int64_t> firstIteration;
  SmallVector<scf::ForOp> loops;
  for (Operation *op = read->getParentOp(); op && op != fn; op = op->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(op))
      loops.push_back(loop);
  for (scf::ForOp loop : llvm::reverse(loops)) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || *ub <= *lb)
      return std::nullopt;
    firstIteration[loop.getInductionVar()] = *lb;
    int64_t trips = llvm::divideCeil(*ub - *lb, *step);
    if (sources.contains(loop.getInductionVar())) {
      p.rows *= trips;
      p.rowLoops.push_back(loop);
    } else if (trips > 1) {
      p.passLoops.push_back(loop);
      p.count *= trips;
    }
  }
  int64_t rowElements = type.getShape().back();
  p.perStep = llvm::divideCeil(rowElements, p.count);
  if (p.count < 2 || p.count * p.rows * p.perStep > type.getNumElements() ||
      !workgroupsReadNextRegions(read, fn, type, p.rows * rowElements, firstIteration))
    return std::nullopt;
  return p;
}

/// The linear index `read` reads at the first iteration of `loops`: its
/// index computation cloned at the read with their induction variables at
/// their lower bounds (and the values `first` maps already replaced).
static Value firstIndexOf(OpBuilder &b, Location loc, vector::TransferReadOp read,
                          ArrayRef<scf::ForOp> loops, MemRefType type, IRMapping first = {}) {
  for (scf::ForOp loop : loops)
    first.map(loop.getInductionVar(), loop.getLowerBound());
  std::function<Value(Value)> remap = [&](Value v) -> Value {
    if (Value known = first.lookupOrNull(v))
      return known;
    Operation *def = v.getDefiningOp();
    Value result = v;
    if (def && def->getNumRegions() == 0 && isPure(def)) {
      SmallVector<Value> operands = llvm::map_to_vector(def->getOperands(), remap);
      if (!llvm::equal(operands, def->getOperands())) {
        IRMapping ops;
        ops.map(def->getOperands(), operands);
        result = b.clone(*def, ops)->getResult(cast<OpResult>(v).getResultNumber());
      }
    }
    first.map(v, result);
    return result;
  };
  SmallVector<Value> indices = llvm::map_to_vector(read.getIndices(), remap);
  return affine::AffineLinearizeIndexOp::create(b, loc, indices, type.getShape(),
                                                /*disjoint=*/true);
}

struct PrefetchWeightsPass final : public impl::PrefetchWeightsPassBase<PrefetchWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    struct Stream {
      vector::TransferReadOp read;
      BlockArgument arg;
      std::optional<Passes> passes;
    };
    SmallVector<Stream> streams;
    fn.walk([&](vector::TransferReadOp read) {
      BlockArgument arg = streamedArgument(read, fn, std::min<int64_t>(minBytes, regionMinBytes));
      if (!arg)
        return;
      auto type = cast<MemRefType>(arg.getType());
      int64_t bytes = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
      std::optional<Passes> passes;
      if (bytes >= regionMinBytes)
        passes = panelPasses(read, fn, type);
      if (passes)
        streams.push_back({read, arg, passes});
      else if (bytes >= minBytes)
        streams.push_back({read, arg, std::nullopt});
    });
    if (streams.empty())
      return;
    MLIRContext *ctx = &getContext();
    // Each streamed buffer once as a flat view, to prefetch across rows.
    llvm::DenseMap<Value, Value> flat;
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    for (auto &[read, arg, passes] : streams) {
      auto type = cast<MemRefType>(arg.getType());
      Value &view = flat[arg];
      if (!view)
        view = memref::CollapseShapeOp::create(
            entry, arg.getLoc(), arg,
            SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
      OpBuilder b(read);
      Location loc = read.getLoc();
      int64_t elementBytes = type.getElementTypeBitWidth() / 8;
      int64_t rowBytes = type.getShape().back() * elementBytes;
      int64_t last = type.getNumElements() - 1;
      AffineExpr d0 = getAffineDimExpr(0, ctx);
      if (passes) {
        // Each step fetches `perStep` elements of the next region, spread
        // over the passes: pass * (rows * perStep) + step * perStep into it,
        // from a base clamped so that the last workgroup's stay in the
        // buffer. Affine in the loops' induction variables: LLVM makes it a
        // pointer bumped once per step.
        int64_t n = passes->count, perStep = passes->perStep;
        int64_t perPass = passes->rows * perStep;
        int64_t lineElements = kCacheLineBytes / elementBytes;
        int64_t lines = llvm::divideCeil(perStep, lineElements);
        // The next workgroup's region: its indices with the workgroup id
        // one more.
        IRMapping nextWorkgroup;
        Value id = fn.getArguments().back();
        nextWorkgroup.map(id, affine::AffineApplyOp::create(
                                  b, loc, AffineMap::get(1, 0, d0 + 1), ValueRange{id}));
        Value start = firstIndexOf(b, loc, read, passes->rowLoops, type, nextWorkgroup);
        Value base = affine::AffineMinOp::create(
            b, loc,
            AffineMap::get(1, 0, {d0, getAffineConstantExpr(last + 1 - n * perPass, ctx)}, ctx),
            ValueRange{start});
        Value step = iterationIndex(b, loc, passes->rowLoops);
        Value pass = iterationIndex(b, loc, passes->passLoops);
        AffineExpr d1 = getAffineDimExpr(1, ctx), d2 = getAffineDimExpr(2, ctx);
        for (int64_t line = 0; line < lines; ++line) {
          Value index = affine::AffineApplyOp::create(
              b, loc,
              AffineMap::get(3, 0, d0 + d1 * perPass + d2 * perStep + line * lineElements),
              ValueRange{base, pass, step});
          memref::PrefetchOp::create(b, loc, view, ValueRange{index}, /*isWrite=*/false,
                                     /*localityHint=*/2, /*isDataCache=*/true);
        }
        continue;
      }
      Value at = affine::AffineLinearizeIndexOp::create(b, loc, read.getIndices(),
                                                        type.getShape(), /*disjoint=*/true);
      for (int64_t line = 0; line < rowBytes; line += kCacheLineBytes) {
        int64_t ahead = (distance + line) / elementBytes;
        // Clamped to the buffer's last element: the last rows prefetch it again.
        Value index = affine::AffineMinOp::create(
            b, loc, AffineMap::get(1, 0, {d0 + ahead, getAffineConstantExpr(last, ctx)}, ctx),
            ValueRange{at});
        memref::PrefetchOp::create(b, loc, view, ValueRange{index}, /*isWrite=*/false,
                                   /*localityHint=*/2, /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
} // namespace jitrun
