//===- LowerDispatchABI.cpp - buffers in, buffers out, a workgroup id ----===//
//
// Rewrites a tensor-level dispatch function into the kernel ABI so that
// bufferization writes every result straight into the caller's buffer:
// `(memref ins..., memref outs..., index workgroup_id) -> ()`.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "contract/Dispatch.h"

#include <tuple>

#define DEBUG_TYPE "jitrun-codegen-lower-dispatch-abi"

namespace jitrun {
#define GEN_PASS_DEF_LOWERDISPATCHABIPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The buffer of a static tensor: row-major, or with `strides` (elements)
/// when the host program binds it to a box of a larger buffer.
static MemRefType bufferType(Type type, llvm::ArrayRef<int64_t> strides = {}) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return nullptr;
  if (strides.empty())
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  return MemRefType::get(tensor.getShape(), tensor.getElementType(),
                         StridedLayoutAttr::get(type.getContext(), 0, strides));
}

/// Follows destination-passing-style inits from `result` back to the operand
/// that holds the root of its destination chain.
static OpOperand *destinationRoot(Value result) {
  OpOperand *root = nullptr;
  Value v = result;
  while (auto res = dyn_cast<OpResult>(v)) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(res.getOwner());
    if (!dps)
      break;
    root = dps.getTiedOpOperand(res);
    v = root->get();
  }
  return root;
}

struct LowerDispatchABIPass final
    : public impl::LowerDispatchABIPassBase<LowerDispatchABIPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (!fn->hasAttr(kDispatchAttrName) || fn.isExternal())
      return;
    FunctionType type = fn.getFunctionType();
    auto argStrides = fn->getAttrOfType<ArrayAttr>(kArgStridesAttrName);
    auto resultStrides = fn->getAttrOfType<ArrayAttr>(kResultStridesAttrName);
    for (auto [all, count, what] : {std::tuple{argStrides, type.getNumInputs(), "argument"},
                                     std::tuple{resultStrides, type.getNumResults(), "result"}})
      if (all && all.size() != count) {
        fn.emitOpError() << "has " << all.size() << " " << what << " strides for " << count
                         << " " << what << "s";
        return signalPassFailure();
      }
    SmallVector<Type> argTypes;
    for (auto [i, t] :
         llvm::enumerate(llvm::concat<const Type>(type.getInputs(), type.getResults()))) {
      llvm::ArrayRef<int64_t> strides;
      bool input = i < type.getNumInputs();
      ArrayAttr all = input ? argStrides : resultStrides;
      if (all)
        if (auto s = dyn_cast<DenseI64ArrayAttr>(all[input ? i : i - type.getNumInputs()]))
          strides = s.asArrayRef();
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          tensor && !strides.empty() && strides.size() != static_cast<size_t>(tensor.getRank())) {
        fn.emitOpError() << "has " << strides.size() << " strides for an operand of type " << t;
        return signalPassFailure();
      }
      MemRefType mt = bufferType(t, strides);
      if (!mt) {
        fn.emitOpError() << "dispatch operand of type " << t
                         << " is not a statically shaped tensor; jitrun kernels "
                            "take static shapes only";
        return signalPassFailure();
      }
      argTypes.push_back(mt);
    }
    MLIRContext *ctx = &getContext();
    Location loc = fn.getLoc();
    Block &entry = fn.front();
    unsigned numIn = type.getNumInputs(), numOut = type.getNumResults();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    for (unsigned i = 0; i < numIn; ++i) {
      BlockArgument old = entry.getArgument(i);
      Value mem = entry.addArgument(argTypes[i], old.getLoc());
      Value t = bufferization::ToTensorOp::create(b, loc, old.getType(), mem,
                                                  /*restrict=*/true,
                                                  /*writable=*/false);
      old.replaceAllUsesWith(t);
    }
    SmallVector<Value> outs;
    for (unsigned i = 0; i < numOut; ++i)
      outs.push_back(entry.addArgument(argTypes[numIn + i], loc));
    entry.addArgument(IndexType::get(ctx), loc);
    entry.eraseArguments(0, numIn);

    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    llvm::DenseSet<OpOperand *> rooted;
    for (auto [result, out] : llvm::zip(ret.getOperands(), outs)) {
      OpOperand *root = destinationRoot(result);
      if (root && !rooted.contains(root)) {
        rooted.insert(root);
        OpBuilder rb(root->getOwner());
        Value dest = bufferization::ToTensorOp::create(
            rb, loc, root->get().getType(), out, /*restrict=*/true,
            /*writable=*/true);
        Value init = root->get();
        if (!init.getDefiningOp<tensor::EmptyOp>()) {
          // The destination holds data that the op reads: copy it into the
          // output buffer first, as part of the tiled computation.
          dest = linalg::CopyOp::create(rb, loc, init, dest).getResult(0);
        }
        root->set(dest);
      }
      OpBuilder eb(ret);
      bufferization::MaterializeInDestinationOp::create(
          eb, loc, TypeRange{}, result, out, /*restrict=*/true,
          /*writable=*/true);
    }
    OpBuilder eb(ret);
    func::ReturnOp::create(eb, loc);
    ret.erase();
    fn.setType(FunctionType::get(ctx, entry.getArgumentTypes(), {}));
    // The host program never passes one buffer as both an input and an
    // output of a dispatch, nor two outputs that overlap: every buffer
    // argument is `noalias`, so LLVM keeps accumulators in registers across
    // the reduction loop instead of storing them to the output each step.
    for (unsigned i = 0; i < numIn + numOut; ++i)
      fn.setArgAttr(i, "llvm.noalias", UnitAttr::get(ctx));
  }
};

} // namespace
} // namespace jitrun
