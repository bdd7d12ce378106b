//===- SharedConcats.cpp - concats that are prefixes of a larger one -----===//
//
// DenseNet's layers each concatenate every feature map before them: the
// input of layer k is the input of layer k-1 plus one more part. As copies,
// that is quadratic in the layers (DenseNet-121: 590 slice copies, 4 ms of
// a 47 ms run on one core, and they do not scale with threads). Instead the
// concats of such a family share the buffer of the largest one: each part
// is written there once (by its dispatch, in place, where it can), and a
// dispatch reads a smaller concat as its box of the shared buffer, through
// argument strides compiled into its kernel (jitrun.arg_strides).
//
// A family: concat chains (a tensor.empty, then links of insert_slice each
// read only by the next) of the entry block whose last link only
// dispatches read, where the largest concat holds every part of each
// other one at the same offsets, parts that do not overlap, and each other
// concat is smaller along one dim. A concat reads nothing but its parts,
// which never change once written, so it may see the shared buffer at any
// time after its own inserts.
//
//===----------------------------------------------------------------------===//

#include "compiler/HostLowering.h"

using namespace mlir;

namespace jitrun {

namespace {
struct Chain {
  RankedTensorType type;
  SmallVector<Value> values; // the empty, then each link
  SmallVector<std::pair<Value, SmallVector<int64_t>>> parts; // source, offsets
};
} // namespace

/// The concat chain starting at `empty`, if every link is a static insert
/// of a whole source and only dispatches read the last link.
static std::optional<Chain> concatChain(tensor::EmptyOp empty) {
  auto type = dyn_cast<RankedTensorType>(empty.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Chain chain{type, {empty.getResult()}, {}};
  Value v = empty.getResult();
  while (v.hasOneUse()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(*v.getUsers().begin());
    if (!insert || insert.getDest() != v)
      break;
    if (insert.getSourceType().getRank() != type.getRank() ||
        llvm::any_of(insert.getStaticOffsets(), ShapedType::isDynamic) ||
        insert.getStaticSizes() != insert.getSourceType().getShape() ||
        llvm::any_of(insert.getStaticStrides(), [](int64_t s) { return s != 1; }))
      return std::nullopt;
    llvm::ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    chain.parts.push_back({insert.getSource(), SmallVector<int64_t>(offsets)});
    v = insert.getResult();
    chain.values.push_back(v);
  }
  if (chain.parts.empty() || v.use_empty() ||
      !llvm::all_of(v.getUsers(), [](Operation *u) { return isa<func::CallOp>(u); }))
    return std::nullopt;
  return chain;
}

/// `big` holds every part of `small` at its offsets and is larger along
/// exactly one dim.
static bool contains(const Chain &big, const Chain &small) {
  if (big.type.getElementType() != small.type.getElementType() ||
      big.type.getRank() != small.type.getRank())
    return false;
  int grown = 0;
  for (auto [b, s] : llvm::zip(big.type.getShape(), small.type.getShape())) {
    if (s > b)
      return false;
    grown += s < b ? 1 : 0;
  }
  return grown == 1 && llvm::all_of(small.parts, [&](const auto &part) {
           return llvm::is_contained(big.parts, part);
         });
}

/// No two parts of `chain` overlap.
static bool disjointParts(const Chain &chain) {
  auto box = [](const auto &part) {
    llvm::ArrayRef<int64_t> shape = cast<RankedTensorType>(part.first.getType()).getShape();
    return Box{std::vector<int64_t>(part.second.begin(), part.second.end()),
               std::vector<int64_t>(shape.begin(), shape.end())};
  };
  for (size_t i = 0; i < chain.parts.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      Box b = box(chain.parts[j]);
      if (box(chain.parts[i]).overlaps(b.offsets, b.sizes))
        return false;
    }
  return true;
}

void HostLowering::planSharedConcats(Block &block) {
  std::vector<Chain> chains;
  for (Operation &op : block)
    if (auto empty = dyn_cast<tensor::EmptyOp>(op))
      if (std::optional<Chain> chain = concatChain(empty))
        chains.push_back(std::move(*chain));
  // A concat of concats is left alone: its parts are not buffers of their
  // own.
  llvm::DenseSet<Value> inChains;
  for (const Chain &c : chains)
    inChains.insert(c.values.begin(), c.values.end());
  llvm::erase_if(chains, [&](const Chain &c) {
    return llvm::any_of(c.parts, [&](const auto &part) { return inChains.contains(part.first); });
  });
  // Each chain's largest container, followed to the top.
  auto largest = [&](size_t i) {
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t j = 0; j < chains.size(); ++j)
        if (j != i && contains(chains[j], chains[i]) &&
            chains[j].type.getNumElements() > chains[i].type.getNumElements()) {
          i = j;
          grew = true;
          break;
        }
    }
    return i;
  };
  std::map<size_t, std::vector<size_t>> families;
  for (size_t i = 0; i < chains.size(); ++i)
    if (size_t top = largest(i); top != i)
      families[top].push_back(i);
  for (auto &[top, members] : families) {
    if (!disjointParts(chains[top]))
      continue;
    int buffer = newIntermediate(chains[top].values.back());
    members.push_back(top);
    for (size_t m : members)
      for (Value v : chains[m].values) {
        bufferOf[v] = buffer;
        sharedStorage[v] = chains[top].type;
      }
  }
}

llvm::Error HostLowering::lowerSharedInsert(Operation &op, tensor::InsertSliceOp insert) {
  int buffer = bufferOf.lookup(insert.getDest());
  RankedTensorType storage = sharedStorage.lookup(insert.getDest());
  bufferOf[insert.getResult()] = buffer;
  llvm::ArrayRef<int64_t> offsets = insert.getStaticOffsets();
  if (!sharedWritten
           .insert({buffer, insert.getSource().getAsOpaquePointer(),
                    std::vector<int64_t>(offsets.begin(), offsets.end())})
           .second)
    return llvm::Error::success(); // an earlier concat of the family wrote it
  writeInPlace(insert, buffer, storage);
  return makeCopy(op, insert.getSource(), insert.getSourceType(), insert.getResult(), storage,
                  offsets, insert.getStaticSizes(), insert.getStaticStrides(),
                  insert.getOffsets(), /*sliceIsSource=*/false);
}

} // namespace jitrun
