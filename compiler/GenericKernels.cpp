//===- GenericKernels.cpp - one kernel for dispatches that differ in a dim ===//
//
// Dispatch functions that are the same code at different sizes of one dim
// (DenseNet-121: 58 1x1 convolutions and 61 batch norms whose channel
// count grows by 32 per layer) each became a kernel of their own, compiled
// at about 40 ms of LLVM each. Here such functions share one generic
// kernel: the function with that dim dynamic, and the dim a trailing
// `index` argument the host program passes at each call (Command::dim).
//
// Which functions: those whose printed bodies are equal once every dim of
// every tensor type is blanked out (same ops, same attributes, same
// strides), with at least kMinGenericGroup distinct kernels. Across such a
// group, the dims that differ between members fall into clusters (the
// positions, in a walk over the function's values, whose values agree in
// every member: the channel dims of the input, the scale and the result).
// The cluster taking the most values becomes the dynamic dim; the members
// are split by the values of the other clusters (DenseNet's four image
// sizes), so that every other dim stays static and tiles as before.
//
// Only functions of linalg ops, tensor.empty and scalar ops generalize;
// anything whose type the dim reaches besides those (a reshape, a slice,
// a constant; a named convolution or pooling, whose vectorizer takes no
// masks) keeps the members' own kernels, as does a generic kernel that
// fails to compile (Compilation::compileKernels).
//
//===----------------------------------------------------------------------===//

#include "compiler/HostLowering.h"
#include "contract/Dispatch.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <limits>

using namespace mlir;

namespace jitrun {

namespace {

/// Fewest distinct kernels that share a generic one.
constexpr size_t kMinGenericGroup = 3;
/// The size a dynamic dim's generic kernel (CompileOptions::genericShapes)
/// is tiled and split into workgroups for: one value for every size, since
/// it is part of the kernel's code and so of its cache key (a sequence
/// length of a typical request).
constexpr int64_t kShadowWorkHint = 128;

} // namespace

std::string shapelessText(func::FuncOp fn) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Local scope: not the module's printer state (the whole model) per function.
  // Constants whole: members must hold the same values.
  fn->print(os, OpPrintingFlags().useLocalScope());
  // Not the function's name.
  std::string name = ("@" + fn.getSymName()).str();
  if (size_t at = text.find(name); at != std::string::npos)
    text.replace(at, name.size(), "@F");
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool type = false;
    for (llvm::StringRef prefix : {"tensor<", "memref<", "vector<"})
      if (llvm::StringRef(text).substr(i).starts_with(prefix)) {
        out += prefix;
        i += prefix.size();
        type = true;
        break;
      }
    if (!type) {
      out += text[i++];
      continue;
    }
    // The dims: digit runs each followed by 'x', up to the element type.
    while (i < text.size()) {
      size_t j = i;
      while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '?'))
        ++j;
      if (j == i || j >= text.size() || text[j] != 'x')
        break;
      out += "#x";
      i = j + 1;
    }
  }
  return out;
}

namespace {

/// Every shaped value of `fn` in a fixed order: the arguments, then each
/// op's results in a pre-order walk (the same order on every function of
/// the same shapeless text).
SmallVector<Value> shapedValues(func::FuncOp fn) {
  SmallVector<Value> values;
  for (BlockArgument a : fn.getArguments())
    if (isa<RankedTensorType>(a.getType()))
      values.push_back(a);
  fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value r : op->getResults())
      if (isa<RankedTensorType>(r.getType()))
        values.push_back(r);
  });
  return values;
}

} // namespace

std::vector<int64_t> flatDims(func::FuncOp fn) {
  std::vector<int64_t> dims;
  for (Value v : shapedValues(fn))
    llvm::append_range(dims, cast<RankedTensorType>(v.getType()).getShape());
  return dims;
}

namespace {

/// `proto` with the flattened dims at `positions` dynamic and a trailing
/// index argument holding them; null when an op that the dim reaches is not
/// one a generic kernel takes, or the result does not verify.
OwningOpRef<func::FuncOp> generalize(func::FuncOp proto, const std::set<size_t> &positions,
                                     int64_t largest) {
  OwningOpRef<func::FuncOp> fn = cast<func::FuncOp>(proto->clone());
  SmallVector<Value> values = shapedValues(*fn);
  size_t pos = 0;
  llvm::SmallPtrSet<Operation *, 16> touched;
  for (Value v : values) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    bool changed = false;
    for (int64_t &d : shape)
      if (positions.count(pos++)) {
        d = ShapedType::kDynamic;
        changed = true;
      }
    if (!changed)
      continue;
    v.setType(RankedTensorType::get(shape, type.getElementType(), type.getEncoding()));
    if (Operation *def = v.getDefiningOp())
      touched.insert(def);
    for (Operation *user : v.getUsers())
      touched.insert(user);
  }
  // Not named convolutions and pooling: the 1-D convolution vectorizer
  // takes no masks, so a dynamic edge tile of them stays scalar. Nor a
  // contraction for AMX tiles, whose shapes must be static (DenseNet-121's
  // bf16 1x1 convolutions ran in scalar loops, 27x slower than in f32).
  for (Operation *op : touched)
    if (!isa<linalg::LinalgOp, tensor::EmptyOp, func::ReturnOp>(op) ||
        isa<linalg::ConvolutionOpInterface>(op) || op->hasAttr(kAmxTilesAttrName))
      return nullptr;
  Block &entry = fn->front();
  BlockArgument dim = entry.addArgument(IndexType::get(proto.getContext()), proto.getLoc());
  for (Operation *op : touched) {
    auto empty = dyn_cast<tensor::EmptyOp>(op);
    if (!empty)
      continue;
    auto type = cast<RankedTensorType>(empty.getType());
    OpBuilder b(empty);
    SmallVector<Value> sizes(type.getNumDynamicDims(), dim);
    auto replacement = tensor::EmptyOp::create(b, empty.getLoc(), type, sizes);
    empty.replaceAllUsesWith(replacement.getResult());
    empty.erase();
  }
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  fn->setType(FunctionType::get(proto.getContext(), entry.getArgumentTypes(),
                                ret.getOperandTypes()));
  fn->setSymName((proto.getSymName() + "_generic").str());
  Builder b(proto.getContext());
  (*fn)->setAttr(kGenericDimAttrName, b.getI64IntegerAttr(largest));
  // Linalg ops check their operands' shapes against each other; a function
  // that fails is kept specialized, its diagnostics dropped.
  ScopedDiagnosticHandler quiet(proto.getContext(), [](Diagnostic &) { return success(); });
  if (failed(verify(fn->getOperation())))
    return nullptr;
  return fn;
}

} // namespace

void HostLowering::generalizeKernels() {
  if (!comp.options.genericKernels || comp.options.reference)
    return;
  llvm::DenseMap<Operation *, std::string> shapeless;
  auto textOf = [&](func::FuncOp fn) -> const std::string & {
    auto it = shapeless.find(fn);
    if (it == shapeless.end())
      it = shapeless.try_emplace(fn, shapelessText(fn)).first;
    return it->second;
  };
  // The model at other sizes of its dynamic dims (CompileOptions::
  // genericShapes): a dispatch whose dims differ from its twin's there in
  // one dim (every differing position the same pair of values) compiles
  // generic in it. The kernel cache then holds it for every size.
  if (!comp.shadowCalls.empty() && comp.shadowCalls.size() == calls.size()) {
    llvm::DenseMap<Operation *, func::FuncOp> made;
    for (auto [i, site] : llvm::enumerate(calls)) {
      const Compilation::ShadowCall &twin = comp.shadowCalls[i];
      if (textOf(site.callee) != twin.text)
        continue;
      std::vector<int64_t> dims = flatDims(site.callee);
      if (dims.size() != twin.dims.size())
        continue;
      std::set<size_t> positions;
      for (size_t p = 0; p < dims.size(); ++p)
        if (dims[p] != twin.dims[p])
          positions.insert(p);
      if (positions.empty())
        continue;
      size_t first = *positions.begin();
      if (dims[first] < 1 || llvm::any_of(positions, [&](size_t p) {
            return dims[p] != dims[first] || twin.dims[p] != twin.dims[first];
          }))
        continue;
      func::FuncOp &generic = made[site.callee];
      if (!generic) {
        OwningOpRef<func::FuncOp> fn = generalize(site.callee, positions, kShadowWorkHint);
        if (!fn)
          continue;
        generic = *fn;
        genericFunctions.push_back(std::move(fn));
      }
      site.generic = generic;
      site.dim = dims[first];
    }
  }
  // Distinct kernels by group: call sites grouped by shapeless text plus
  // strides, then by kernel key within the group.
  auto stridesText = [](const CallSite &site) {
    std::string s;
    for (const auto *all : {&site.argStrides, &site.resultStrides}) {
      s += "|";
      for (const std::vector<int64_t> &st : *all) {
        s += "[";
        for (int64_t x : st)
          s += std::to_string(x) + ",";
        s += "]";
      }
    }
    return s;
  };
  std::map<std::string, std::map<std::string, std::vector<size_t>>> groups;
  for (auto [i, site] : llvm::enumerate(calls))
    if (!site.generic)
      groups[textOf(site.callee) + stridesText(site)][comp.kernelKey(site.callee)].push_back(i);
  for (auto &[text, byKey] : groups) {
    if (byKey.size() < kMinGenericGroup)
      continue;
    // One member per kernel key, with its flattened dims.
    struct Member {
      func::FuncOp fn;
      std::vector<int64_t> dims;
      const std::vector<size_t> *sites;
    };
    std::vector<Member> members;
    for (auto &[key, sites] : byKey) {
      func::FuncOp fn = calls[sites.front()].callee;
      members.push_back({fn, flatDims(fn), &sites});
    }
    size_t n = members.front().dims.size();
    if (llvm::any_of(members, [&](const Member &m) { return m.dims.size() != n; }))
      continue;
    // Clusters of varying positions: equal values in every member.
    std::map<std::vector<int64_t>, std::set<size_t>> clusters;
    for (size_t pos = 0; pos < n; ++pos) {
      std::vector<int64_t> across;
      for (const Member &m : members)
        across.push_back(m.dims[pos]);
      if (llvm::all_equal(across))
        continue;
      clusters[across].insert(pos);
    }
    if (clusters.empty())
      continue;
    auto distinct = [](const std::vector<int64_t> &v) {
      return std::set<int64_t>(v.begin(), v.end()).size();
    };
    auto dynamicCluster = clusters.begin();
    for (auto it = clusters.begin(); it != clusters.end(); ++it)
      if (distinct(it->first) > distinct(dynamicCluster->first))
        dynamicCluster = it;
    const std::set<size_t> &positions = dynamicCluster->second;
    // Sub-groups: equal in every other cluster.
    std::map<std::vector<int64_t>, std::vector<size_t>> subgroups;
    for (auto [mi, m] : llvm::enumerate(members)) {
      std::vector<int64_t> rest;
      for (auto it = clusters.begin(); it != clusters.end(); ++it)
        if (it != dynamicCluster)
          rest.push_back(m.dims[*it->second.begin()]);
      subgroups[rest].push_back(mi);
    }
    for (auto &[rest, indices] : subgroups) {
      if (indices.size() < kMinGenericGroup)
        continue;
      int64_t largest = 0, smallest = std::numeric_limits<int64_t>::max();
      for (size_t mi : indices) {
        largest = std::max(largest, members[mi].dims[*positions.begin()]);
        smallest = std::min(smallest, members[mi].dims[*positions.begin()]);
      }
      // Generic kernels assume a dim of 1 or more (LowerDispatchABI).
      if (smallest < 1)
        continue;
      OwningOpRef<func::FuncOp> generic =
          generalize(members[indices.front()].fn, positions, largest);
      if (!generic)
        continue;
      for (size_t mi : indices)
        for (size_t si : *members[mi].sites) {
          CallSite &site = calls[si];
          site.generic = *generic;
          site.dim = members[mi].dims[*positions.begin()];
        }
      genericFunctions.push_back(std::move(generic));
    }
  }
}

} // namespace jitrun
