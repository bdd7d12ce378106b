//===- InPlaceWrites.cpp - dispatch results written into their slice ----===//
//
// A concat of branches, or a pad before a convolution, is an insert_slice of
// a dispatch's result into a larger buffer: a copy of every element on the
// host, which does not scale with threads (Inception v3 had 99). Instead the
// dispatch writes its result straight into its box of that buffer: the
// host program binds the result to the buffer at the box's byte offset, and
// the kernel is compiled with the box's strides (jitrun.result_strides).
//
// A kernel's strides are part of its code, so a dispatch body that writes
// boxes of several shapes of buffer becomes several kernels. Each extra
// kernel costs compile time (about 30 ms on one core) once, a copy costs
// its bytes every run: a set of strides that saves less than
// kMinBytesPerKernel of copies per run where it adds a kernel is undone,
// and its insert stays a copy.
//
//===----------------------------------------------------------------------===//

#include "compiler/HostLowering.h"

#include <set>

using namespace mlir;

namespace jitrun {

/// Copies an extra kernel must save per run to be compiled. On Inception v3
/// (2 cores): every write in place removed 60 of 100 copies (1.2 of 1.8 ms
/// of copies per run) for 18 more kernels, 0.5 s more of compile; at 512
/// KiB, 35 copies go for 3 more kernels and no measurable compile time.
static constexpr int64_t kMinBytesPerKernel = 512 << 10;

bool HostLowering::writeInPlace(tensor::InsertSliceOp insert, int out,
                                RankedTensorType storage) {
  RankedTensorType srcType = insert.getSourceType();
  RankedTensorType dstType = storage ? storage : insert.getDestType();
  llvm::ArrayRef<int64_t> offsets = insert.getStaticOffsets();
  int64_t rank = dstType.getRank();
  if (srcType.getRank() != rank || !srcType.hasStaticShape() || !dstType.hasStaticShape() ||
      llvm::any_of(offsets, ShapedType::isDynamic) || insert.getStaticSizes() != srcType.getShape() ||
      llvm::any_of(insert.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return false;
  // The source, through reshapes (which alias on the host), back to a
  // dispatch result of this block that nothing else reads.
  // A part of shared concats is read by each of their inserts, which all
  // put it in the same box of the shared buffer.
  auto sameBoxOfShared = [&](Operation *user) {
    auto other = dyn_cast<tensor::InsertSliceOp>(user);
    return storage && other && other.getSource() == insert.getSource() &&
           bufferOf.lookup(other.getDest()) == out && other.getStaticOffsets() == offsets;
  };
  SmallVector<Operation *> reshapes;
  Value v = insert.getSource();
  for (;;) {
    bool onlyHere = v.hasOneUse() || (v == insert.getSource() &&
                                      llvm::all_of(v.getUsers(), sameBoxOfShared));
    if (!onlyHere || v.getParentBlock() != insert->getBlock())
      return false;
    Operation *def = v.getDefiningOp();
    if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      break;
    reshapes.push_back(def);
    v = def->getOperand(0);
  }
  auto produced = callResult.find(v);
  if (produced == callResult.end())
    return false;
  // The box's strides are the destination's, row-major; then those of each
  // reshape's source, back to the dispatch result's shape.
  std::vector<int64_t> strides = toVector(computeStrides(dstType.getShape()));
  int64_t offset = 0;
  for (int64_t i = 0; i < rank; ++i)
    offset += offsets[i] * strides[i];
  for (Operation *r : reshapes) {
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(r)) {
      // A collapsed dim of stride s: its group, row-major at stride s.
      llvm::ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      std::vector<int64_t> next(shape.size());
      for (auto [j, group] : llvm::enumerate(collapse.getReassociationIndices())) {
        int64_t s = strides[j];
        for (int64_t d : llvm::reverse(group)) {
          next[d] = s;
          s *= shape[d];
        }
      }
      strides = std::move(next);
      continue;
    }
    // An expanded group is one dim of the source only where it is
    // contiguous in the box: each dim's stride its inner neighbour's times
    // that one's size (unit dims aside).
    auto expand = cast<tensor::ExpandShapeOp>(r);
    llvm::ArrayRef<int64_t> shape = expand.getResultType().getShape();
    std::vector<int64_t> next(expand.getSrcType().getRank());
    for (auto [j, group] : llvm::enumerate(expand.getReassociationIndices())) {
      std::optional<int64_t> inner, expected;
      for (int64_t d : llvm::reverse(group)) {
        if (shape[d] == 1)
          continue;
        if (expected && strides[d] != *expected)
          return false;
        if (!inner)
          inner = strides[d];
        expected = strides[d] * shape[d];
      }
      next[j] = inner.value_or(strides[group.back()]);
    }
    strides = std::move(next);
  }

  auto [callIndex, result] = produced->second;
  CallSite &site = calls[callIndex];
  Command &dispatch = p.commands[site.command];
  size_t numInputs = dispatch.bindings.size() - site.resultStrides.size();
  size_t binding = numInputs + result;
  Box box{std::vector<int64_t>(offsets.begin(), offsets.end()),
          std::vector<int64_t>(srcType.getShape().begin(), srcType.getShape().end()),
          static_cast<int64_t>(specBytes(*tensorSpecOf(srcType)))};
  // Writes of `out` by other results of the dispatch or by the commands
  // until this insert stay, if disjoint from the box: they now come before
  // or after the box is written. A fill of `out` (a pad's) skips the box.
  // A read of `out` before the insert would see the box's new values,
  // unless it reads another box (a shared concat's).
  auto otherBoxesDisjoint = [&](size_t command, const Command &c, size_t except) {
    for (size_t i = 0; i < c.bindings.size(); ++i) {
      if (c.bindings[i] != out || i == except)
        continue;
      const Box *other = nullptr;
      if (auto w = inPlace.find({command, i}); w != inPlace.end())
        other = &w->second;
      else if (auto r = viewReads.find({command, i}); r != viewReads.end())
        other = &r->second;
      if (!other || other->overlaps(box.offsets, box.sizes))
        return false;
    }
    return true;
  };
  if (!otherBoxesDisjoint(site.command, dispatch, binding))
    return false;
  std::vector<size_t> borderFills;
  for (size_t k = site.command + 1; k < p.commands.size(); ++k) {
    const Command &c = p.commands[k];
    switch (c.kind) {
    case Command::Dispatch:
      if (!otherBoxesDisjoint(k, c, c.bindings.size()))
        return false;
      break;
    case Command::Fill:
      if (c.dst != out)
        break;
      if (!c.holeSizes.empty() || c.shape.size() != static_cast<size_t>(rank))
        return false;
      borderFills.push_back(k);
      break;
    case Command::Copy: {
      const CopyCommand &cc = c.copy;
      if (cc.src == out)
        return false;
      if (cc.dst == out &&
          (!cc.dstOffsetRegs.empty() || cc.sizes.size() != static_cast<size_t>(rank) ||
           llvm::any_of(cc.dstStrides, [](int64_t s) { return s != 1; }) ||
           box.overlaps(cc.dstOffsets, cc.sizes)))
        return false;
      break;
    }
    case Command::CopyWhole:
    case Command::Extract:
      if (c.src == out || c.dst == out)
        return false;
      break;
    default:
      break;
    }
  }

  for (size_t k : borderFills) {
    Command &fill = p.commands[k];
    fill.holeOffsets = box.offsets;
    fill.holeSizes = box.sizes;
    fill.name += ":border";
  }
  if (dispatch.bindingOffsets.empty())
    dispatch.bindingOffsets.assign(dispatch.bindings.size(), 0);
  // The insert's copy comes next: it stays until finishInPlaceWrites().
  inPlaceWrites.push_back(InPlaceWrite{callIndex, result, binding, dispatch.bindings[binding],
                                       p.commands.size()});
  dispatch.bindings[binding] = out;
  dispatch.bindingOffsets[binding] =
      offset * static_cast<int64_t>(elementSize(*toElementType(srcType.getElementType())));
  site.resultStrides[result] = std::move(strides);
  inPlace[{site.command, binding}] = std::move(box);
  return true;
}

void HostLowering::finishInPlaceWrites() {
  if (inPlaceWrites.empty())
    return;
  // Call sites of equal bodies (equal kernel keys) share kernels.
  auto keyOf = [&](func::FuncOp callee) -> const std::string & { return comp.kernelKey(callee); };
  using Strides = std::vector<std::vector<int64_t>>;
  auto isOwn = [](const Strides &s) {
    return llvm::all_of(s, [](const auto &r) { return r.empty(); });
  };
  // Per body, per set of result strides: the bytes of copies it saves.
  std::map<std::string, std::map<Strides, int64_t>> variants;
  for (const CallSite &site : calls)
    variants[keyOf(site.callee)][site.resultStrides] += 0;
  for (const InPlaceWrite &w : inPlaceWrites) {
    const CallSite &site = calls[w.call];
    variants[keyOf(site.callee)][site.resultStrides] +=
        inPlace.at({site.command, w.binding}).bytes;
  }
  std::set<std::pair<std::string, Strides>> undo;
  for (const auto &[key, byStrides] : variants) {
    bool ownBuffers = false;
    std::vector<const Strides *> cheap;
    for (const auto &[strides, bytes] : byStrides) {
      if (isOwn(strides))
        ownBuffers = true;
      else if (bytes < kMinBytesPerKernel)
        cheap.push_back(&strides);
    }
    // Undoing one set of strides of a body that has no call without
    // strides saves no kernel.
    if (cheap.empty() || (!ownBuffers && cheap.size() == 1))
      continue;
    for (const Strides *s : cheap)
      undo.insert({key, *s});
  }
  std::vector<bool> keep;
  for (const InPlaceWrite &w : inPlaceWrites) {
    const CallSite &site = calls[w.call];
    keep.push_back(!undo.count({keyOf(site.callee), site.resultStrides}));
  }

  std::vector<bool> drop(p.commands.size(), false);
  for (auto [w, kept] : llvm::zip(inPlaceWrites, keep)) {
    CallSite &site = calls[w.call];
    if (kept) {
      drop[w.copy] = true;
      --stats.copies;
      continue;
    }
    Command &dispatch = p.commands[site.command];
    dispatch.bindings[w.binding] = w.ownBuffer;
    dispatch.bindingOffsets[w.binding] = 0;
    site.resultStrides[w.result].clear();
    inPlace.erase({site.command, w.binding});
  }
  inPlaceWrites.clear();

  // The copies of kept writes go; loops and branches keep their extents.
  size_t n = p.commands.size();
  std::vector<size_t> newIndex(n + 1);
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    newIndex[i] = next;
    next += drop[i] ? 0 : 1;
  }
  newIndex[n] = next;
  std::vector<Command> kept;
  kept.reserve(next);
  for (size_t i = 0; i < n; ++i) {
    if (drop[i])
      continue;
    Command c = std::move(p.commands[i]);
    if (c.kind == Command::For || c.kind == Command::While || c.kind == Command::If) {
      c.end = newIndex[c.end];
      if (c.kind != Command::For)
        c.beforeEnd = newIndex[c.beforeEnd];
    }
    kept.push_back(std::move(c));
  }
  p.commands = std::move(kept);
  for (CallSite &site : calls)
    site.command = newIndex[site.command];
  for (auto *boxes : {&inPlace, &viewReads}) {
    std::map<std::pair<size_t, size_t>, Box> moved;
    for (auto &[at, box] : *boxes)
      moved[{newIndex[at.first], at.second}] = std::move(box);
    *boxes = std::move(moved);
  }
}

} // namespace jitrun
