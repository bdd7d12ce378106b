//===- LowerDispatchABI.cpp - buffers in, buffers out, a workgroup id ----===//
//
// Rewrites a tensor-level dispatch function into the kernel ABI so that
// bufferization writes every result straight into the caller's buffer:
// `(memref ins..., memref outs..., index workgroup_id) -> ()`. A generic
// kernel (kGenericDimAttrName) takes its dim after the buffers,
// `(..., index dim, index workgroup_id)`, and views each bare buffer
// pointer as its dynamically shaped memref.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "contract/Dispatch.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <tuple>

#define DEBUG_TYPE "jitrun-codegen-lower-dispatch-abi"

namespace jitrun {
#define GEN_PASS_DEF_LOWERDISPATCHABIPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// The buffer of a tensor: row-major, or with `strides` (elements) when the
/// host program binds it to a box of a larger buffer. A dynamic dim makes
/// the row-major strides outside it dynamic.
static MemRefType bufferType(Type type, llvm::ArrayRef<int64_t> strides = {}) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return nullptr;
  if (strides.empty() && tensor.hasStaticShape())
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  SmallVector<int64_t> s(strides);
  if (s.empty()) {
    s.assign(tensor.getRank(), 1);
    for (int64_t i = tensor.getRank() - 2; i >= 0; --i)
      s[i] = ShapedType::isDynamic(s[i + 1]) || tensor.isDynamicDim(i + 1)
                 ? ShapedType::kDynamic
                 : s[i + 1] * tensor.getDimSize(i + 1);
  }
  return MemRefType::get(tensor.getShape(), tensor.getElementType(),
                         StridedLayoutAttr::get(type.getContext(), 0, s));
}

/// The view of a generic kernel's bare buffer `ptr` as `type` (dynamic dims
/// `dim`; dynamic strides the row-major ones).
static Value viewBuffer(OpBuilder &b, Location loc, Value ptr, MemRefType type, Value dim) {
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t d : type.getShape())
    sizes.push_back(ShapedType::isDynamic(d) ? OpFoldResult(dim) : b.getIndexAttr(d));
  auto layout = cast<StridedLayoutAttr>(type.getLayout());
  strides.assign(type.getRank(), b.getIndexAttr(1));
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    int64_t s = layout.getStrides()[i];
    if (!ShapedType::isDynamic(s)) {
      strides[i] = b.getIndexAttr(s);
      continue;
    }
    std::optional<int64_t> next = getConstantIntValue(strides[i + 1]);
    std::optional<int64_t> size = getConstantIntValue(sizes[i + 1]);
    if (next && size)
      strides[i] = b.getIndexAttr(*next * *size);
    else if (next == 1)
      strides[i] = sizes[i + 1];
    else if (size == 1)
      strides[i] = strides[i + 1];
    else
      strides[i] = arith::MulIOp::create(b, loc,
                                         getValueOrCreateConstantIndexOp(b, loc, strides[i + 1]),
                                         getValueOrCreateConstantIndexOp(b, loc, sizes[i + 1]))
                       .getResult();
  }
  return memref::ReinterpretCastOp::create(b, loc, type, ptr, b.getIndexAttr(0), sizes, strides);
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
    // A generic kernel's dim: its last argument, an index.
    bool generic = fn->hasAttr(kGenericDimAttrName);
    if (generic && (type.getNumInputs() == 0 || !type.getInputs().back().isIndex())) {
      fn.emitOpError() << "is a generic kernel without a trailing index argument";
      return signalPassFailure();
    }
    if (generic)
      type = FunctionType::get(&getContext(), type.getInputs().drop_back(), type.getResults());
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
      if (mt && !mt.hasStaticShape() && !generic)
        mt = nullptr;
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
    // Bare pointers: a dynamically shaped buffer comes as a rank-0 memref,
    // viewed through the dim (the pointer is all a kernel takes).
    SmallVector<Type> paramTypes;
    for (Type t : argTypes) {
      auto mt = cast<MemRefType>(t);
      paramTypes.push_back(mt.hasStaticShape() ? t : MemRefType::get({}, mt.getElementType()));
    }
    SmallVector<Value> params;
    for (unsigned i = 0; i < numIn + numOut; ++i)
      params.push_back(entry.addArgument(paramTypes[i], loc));
    Value dim;
    if (generic) {
      // The host program passes dims of 1 or more (GenericKernels.cpp);
      // said so, so that loops over the dim run at least once and
      // accumulators hoist out of them into registers.
      BlockArgument oldDim = entry.getArgument(numIn);
      Value raw = entry.addArgument(IndexType::get(ctx), loc);
      AffineMap atLeastOne =
          AffineMap::get(1, 0, {getAffineDimExpr(0, ctx), getAffineConstantExpr(1, ctx)}, ctx);
      dim = affine::AffineMaxOp::create(b, loc, atLeastOne, ValueRange{raw});
      oldDim.replaceAllUsesWith(dim);
    }
    SmallVector<Value> buffers;
    for (unsigned i = 0; i < numIn + numOut; ++i)
      buffers.push_back(cast<MemRefType>(argTypes[i]).hasStaticShape()
                            ? params[i]
                            : viewBuffer(b, loc, params[i], cast<MemRefType>(argTypes[i]), dim));
    for (unsigned i = 0; i < numIn; ++i) {
      BlockArgument old = entry.getArgument(i);
      Value mem = buffers[i];
      Value t = bufferization::ToTensorOp::create(b, loc, old.getType(), mem,
                                                  /*restrict=*/true,
                                                  /*writable=*/false);
      old.replaceAllUsesWith(t);
    }
    SmallVector<Value> outs(buffers.begin() + numIn, buffers.end());
    entry.addArgument(IndexType::get(ctx), loc);
    entry.eraseArguments(0, numIn + (generic ? 1 : 0));

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
