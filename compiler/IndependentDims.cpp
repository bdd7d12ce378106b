//===- IndependentDims.cpp - dims a model computes slice by slice --------===//
//
// Whether a model computes each index of a dynamic dim (the batch, say) on
// its own: result slice b depends only on the inputs' slices b along that
// dim. Then a run at a new size can be split into runs at sizes already
// compiled (CompiledModel's tiered and split shape policies).
//
// The analysis follows the dim through the imported entry function (static
// shapes, before fusion) as a position in each value's type, with the
// factors reshapes merged around it: after a collapse of S x N x D into
// S*N x D (ViT's attention), the dim is the middle factor of a dim of
// S*N*... elements. It holds through linalg ops that iterate it as a
// parallel loop read by every operand carrying it at that one position,
// and by no other operand unless that one holds the same values at every
// index of it (a bias broadcast to the batch, transposed and reshaped);
// through reshapes that keep it whole in one dim, casts, and slices and
// pads that take it whole. Anything else that touches a value carrying it
// (a reduction over it, a gather, control flow, an op not listed) and the
// answer is no. It runs on a specialization of size 2 or more: at size 1
// a reduction over the dim can fold away.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compilation.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace jitrun {

namespace {

/// Where a value carries the dim: its position, and how reshapes merged
/// other dims into that position around it: index = (o * size + b) *
/// inner + i for index b of the dim, o < outer, i < inner.
struct Carry {
  int64_t pos = 0;
  int64_t inner = 1, outer = 1;
  bool operator==(const Carry &o) const {
    return pos == o.pos && inner == o.inner && outer == o.outer;
  }
};

/// True when `op`'s body reads the index of loop `loop`.
bool readsIndex(linalg::LinalgOp op, unsigned loop) {
  bool indexed = false;
  op->walk([&](linalg::IndexOp index) { indexed |= index.getDim() == loop; });
  return indexed;
}

/// The sizes of `v`'s dims `group`.
SmallVector<int64_t> sizesOf(Value v, ArrayRef<int64_t> group) {
  SmallVector<int64_t> sizes;
  for (int64_t d : group)
    sizes.push_back(cast<RankedTensorType>(v.getType()).getDimSize(d));
  return sizes;
}

/// The dim at index `at` of a group of dims of `sizes`, carried with
/// `inner` and `outer`, once the group is merged into one dim.
Carry merge(ArrayRef<int64_t> sizes, size_t at, Carry c) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i < at)
      c.outer *= sizes[i];
    if (i > at)
      c.inner *= sizes[i];
  }
  return c;
}

/// A dim carried as `c` split into dims of `sizes`: the one that holds the
/// dim whole (as an index into `sizes`, in Carry::pos), if one does.
std::optional<Carry> split(ArrayRef<int64_t> sizes, Carry c, int64_t size) {
  int64_t before = 1;
  for (size_t j = 0; j < sizes.size(); ++j) {
    int64_t after = 1;
    for (size_t k = j + 1; k < sizes.size(); ++k)
      after *= sizes[k];
    if (c.inner % after == 0) {
      int64_t inner = c.inner / after, n = sizes[j];
      if (n % (size * inner) == 0 && before * (n / (size * inner)) == c.outer)
        return Carry{int64_t(j), inner, n / (size * inner)};
    }
    before *= sizes[j];
  }
  return std::nullopt;
}

class Tracker {
public:
  explicit Tracker(int64_t size) : size(size) {}

  std::optional<Carry> carry(Value v) const {
    auto it = carried.find(v);
    if (it == carried.end())
      return std::nullopt;
    return it->second;
  }
  void set(Value v, Carry c) { carried[v] = c; }

  /// Follows the dim through `op`; false if the dim may mix there.
  bool visit(Operation *op) {
    bool touches = llvm::any_of(op->getOperands(), [&](Value v) { return carried.count(v); });
    // Values captured by regions count as operands.
    op->walk([&](Operation *inner) {
      if (inner != op)
        for (Value v : inner->getOperands())
          if (carried.count(v))
            touches = true;
    });
    if (!touches)
      return true;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return visitLinalg(linalgOp);
    if (auto cast = dyn_cast<tensor::CastOp>(op))
      return same(cast.getSource(), cast.getResult());
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      return visitCollapse(collapse);
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
      return visitExpand(expand);
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      return visitPad(pad);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return visitExtract(slice);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return visitInsert(insert);
    return false;
  }

private:
  int64_t size;
  llvm::DenseMap<Value, Carry> carried;

  /// A tensor that holds the same values at every index of the dim, where
  /// `c` places it (or holds nothing yet): an empty tensor, a fill, a
  /// splat, or what linalg ops and reshapes make of those without reading
  /// anything else along it (a bias broadcast, transposed and reshaped).
  bool uniformAlong(Value v, Carry c, int depth = 0) const {
    while (auto cast = v.getDefiningOp<tensor::CastOp>())
      v = cast.getSource();
    if (v.getDefiningOp<tensor::EmptyOp>() || v.getDefiningOp<linalg::FillOp>())
      return true;
    DenseElementsAttr dense;
    if (matchPattern(v, m_Constant(&dense)))
      return dense.isSplat();
    if (depth > 16)
      return false;
    if (auto e = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      for (auto [g, group] : llvm::enumerate(e.getReassociationIndices()))
        if (llvm::is_contained(group, c.pos))
          return uniformAlong(e.getSrc(),
                              merge(sizesOf(e.getResult(), group),
                                    llvm::find(group, c.pos) - group.begin(),
                                    Carry{int64_t(g), c.inner, c.outer}),
                              depth + 1);
      return false;
    }
    if (auto m = v.getDefiningOp<tensor::CollapseShapeOp>()) {
      ReassociationIndices group = m.getReassociationIndices()[c.pos];
      std::optional<Carry> at = split(sizesOf(m.getSrc(), group), c, size);
      return at && uniformAlong(m.getSrc(), Carry{group[at->pos], at->inner, at->outer},
                                depth + 1);
    }
    auto op = v.getDefiningOp<linalg::LinalgOp>();
    if (!op || !op.hasPureTensorSemantics())
      return false;
    auto r = cast<OpResult>(v);
    auto d = dyn_cast<AffineDimExpr>(op.getIndexingMapMatchingResult(r).getResult(c.pos));
    if (!d)
      return false;
    if (readsIndex(op, d.getPosition()))
      return false;
    // Each operand reads the loop only where it is uniform itself.
    for (OpOperand &o : op->getOpOperands())
      for (auto [i, e] : llvm::enumerate(op.getMatchingIndexingMap(&o).getResults()))
        if (e.isFunctionOfDim(d.getPosition()) &&
            (!isa<AffineDimExpr>(e) ||
             !uniformAlong(o.get(), Carry{int64_t(i), c.inner, c.outer}, depth + 1)))
          return false;
    return true;
  }

  static int64_t dimOf(Value v, int64_t d) {
    return cast<RankedTensorType>(v.getType()).getDimSize(d);
  }

  bool same(Value from, Value to) {
    std::optional<Carry> c = carry(from);
    if (!c || cast<RankedTensorType>(from.getType()).getRank() !=
                  cast<RankedTensorType>(to.getType()).getRank())
      return false;
    set(to, *c);
    return true;
  }

  bool visitLinalg(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return false;
    std::optional<unsigned> loop;
    std::optional<Carry> first;
    for (OpOperand &o : op->getOpOperands()) {
      std::optional<Carry> c = carry(o.get());
      AffineMap map = op.getMatchingIndexingMap(&o);
      if (!c)
        continue;
      auto d = dyn_cast<AffineDimExpr>(map.getResult(c->pos));
      if (!d || (loop && *loop != d.getPosition()) ||
          (first && (first->inner != c->inner || first->outer != c->outer)))
        return false;
      loop = d.getPosition();
      first = c;
    }
    if (!loop || op.getIteratorTypesArray()[*loop] != utils::IteratorType::parallel)
      return false;
    // Every operand reads the loop at its carried position, or not at all,
    // or holds the same values at every index of the dim (a bias broadcast).
    for (OpOperand &o : op->getOpOperands()) {
      std::optional<Carry> c = carry(o.get());
      AffineMap map = op.getMatchingIndexingMap(&o);
      for (auto [i, e] : llvm::enumerate(map.getResults()))
        if (e.isFunctionOfDim(*loop) &&
            (c ? int64_t(i) != c->pos
               : !isa<AffineDimExpr>(e) ||
                     !uniformAlong(o.get(), Carry{int64_t(i), first->inner, first->outer})))
          return false;
    }
    if (readsIndex(op, *loop))
      return false;
    for (OpResult r : op->getResults()) {
      AffineMap map = op.getIndexingMapMatchingResult(r);
      std::optional<unsigned> pos = map.getResultPosition(getAffineDimExpr(*loop, op.getContext()));
      if (!pos)
        return false;
      set(r, Carry{int64_t(*pos), first->inner, first->outer});
    }
    return true;
  }

  bool visitCollapse(tensor::CollapseShapeOp op) {
    std::optional<Carry> c = carry(op.getSrc());
    if (!c)
      return false;
    for (auto [g, group] : llvm::enumerate(op.getReassociationIndices()))
      if (llvm::is_contained(group, c->pos)) {
        Carry at{int64_t(g), c->inner, c->outer};
        set(op.getResult(), merge(sizesOf(op.getSrc(), group),
                                  llvm::find(group, c->pos) - group.begin(), at));
        return true;
      }
    return false;
  }

  bool visitExpand(tensor::ExpandShapeOp op) {
    std::optional<Carry> c = carry(op.getSrc());
    if (!c)
      return false;
    ReassociationIndices group = op.getReassociationIndices()[c->pos];
    std::optional<Carry> at = split(sizesOf(op.getResult(), group), *c, size);
    if (!at)
      return false;
    set(op.getResult(), Carry{group[at->pos], at->inner, at->outer});
    return true;
  }

  bool visitPad(tensor::PadOp op) {
    std::optional<Carry> c = carry(op.getSource());
    if (!c)
      return false;
    std::optional<int64_t> lo = getConstantIntValue(op.getMixedLowPad()[c->pos]);
    std::optional<int64_t> hi = getConstantIntValue(op.getMixedHighPad()[c->pos]);
    if (lo != 0 || hi != 0)
      return false;
    set(op.getResult(), *c);
    return true;
  }

  /// A slice that takes position `pos` of `full` whole.
  static bool whole(OffsetSizeAndStrideOpInterface op, Value full, int64_t pos) {
    return getConstantIntValue(op.getMixedOffsets()[pos]) == 0 &&
           getConstantIntValue(op.getMixedStrides()[pos]) == 1 &&
           getConstantIntValue(op.getMixedSizes()[pos]) == dimOf(full, pos);
  }

  bool visitExtract(tensor::ExtractSliceOp op) {
    std::optional<Carry> c = carry(op.getSource());
    if (!c || op.getType().getRank() != op.getSourceType().getRank() ||
        !whole(op, op.getSource(), c->pos))
      return false;
    set(op.getResult(), *c);
    return true;
  }

  bool visitInsert(tensor::InsertSliceOp op) {
    std::optional<Carry> src = carry(op.getSource()), dst = carry(op.getDest());
    if (op.getSourceType().getRank() != op.getType().getRank())
      return false;
    std::optional<Carry> c = src ? src : dst;
    if ((src && dst && !(*src == *dst)) || !whole(op, op.getDest(), c->pos))
      return false;
    set(op.getResult(), *c);
    return true;
  }
};

} // namespace

std::optional<std::vector<int64_t>> independentOutputDims(func::FuncOp entry,
                                                          llvm::ArrayRef<int64_t> inputDims,
                                                          int64_t size) {
  if (size < 2 || !entry.getBody().hasOneBlock())
    return std::nullopt;
  Tracker t(size);
  for (auto [arg, d] : llvm::zip(entry.getArguments(), inputDims)) {
    if (d < 0)
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || d >= type.getRank() || type.getDimSize(d) != size)
      return std::nullopt;
    t.set(arg, Carry{d, 1});
  }
  Block &body = entry.getBody().front();
  for (Operation &op : body.without_terminator())
    if (!t.visit(&op))
      return std::nullopt;
  std::vector<int64_t> outputs;
  for (Value v : body.getTerminator()->getOperands()) {
    std::optional<Carry> c = t.carry(v);
    if (!c || c->inner != 1 || c->outer != 1)
      return std::nullopt;
    outputs.push_back(c->pos);
  }
  return outputs;
}

} // namespace jitrun
