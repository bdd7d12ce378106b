//===- DispatchFormation.cpp - group ops into kernels and outline them ---===//
//
// Roots take the fill that initializes them and the chain of elementwise
// consumers that read their result through a permutation; every other linalg
// op is a dispatch of its own. Each region becomes a private function marked
// `jitrun.dispatch`, called from the host function.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "jitrun-fusion-form-dispatches"

namespace jitrun {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

std::optional<FusionMode> parseFusionMode(llvm::StringRef s) {
  return llvm::StringSwitch<std::optional<FusionMode>>(s)
      .Case("default", FusionMode::Default)
      .Case("aggressive", FusionMode::Aggressive)
      .Case("none", FusionMode::None)
      .Default(std::nullopt);
}

llvm::StringRef fusionModeName(FusionMode mode) {
  switch (mode) {
  case FusionMode::Default:
    return "default";
  case FusionMode::Aggressive:
    return "aggressive";
  case FusionMode::None:
    return "none";
  }
  return "default";
}

namespace {

/// The single elementwise consumer that may join `op`'s dispatch, if any: the
/// only user of `op`'s only result, reading it through a permutation.
static Operation *fusableConsumer(Operation *op,
                                  const llvm::DenseSet<Operation *> &taken) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  OpOperand &use = *op->getResult(0).getUses().begin();
  Operation *user = use.getOwner();
  if (taken.contains(user) || user->getBlock() != op->getBlock() ||
      !isElementwiseOp(user))
    return nullptr;
  auto linalgUser = cast<linalg::LinalgOp>(user);
  if (linalgUser->getNumResults() != 1 || !linalgUser.hasPureTensorSemantics())
    return nullptr;
  if (!linalgUser.getMatchingIndexingMap(&use).isPermutation())
    return nullptr;
  // Reading the root's result as the consumer's init would alias it.
  if (linalgUser.isDpsInit(&use))
    return nullptr;
  return user;
}

/// The fill that initializes `op`'s init operand, when `op` is its only user.
static linalg::FillOp initFill(linalg::LinalgOp op) {
  for (OpOperand &init : op.getDpsInitsMutable())
    if (auto fill = init.get().getDefiningOp<linalg::FillOp>())
      if (fill->hasOneUse() && fill->getBlock() == op->getBlock())
        return fill;
  return nullptr;
}

/// Ops cloned into a dispatch instead of being passed in.
static bool isClonedIntoDispatch(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return !isa<ShapedType>(cst.getType()) ||
           (isa<DenseElementsAttr>(cst.getValue()) &&
            cast<DenseElementsAttr>(cst.getValue()).isSplat());
  return false;
}

/// Outlines the ops of `group` (in block order) into `@name` and replaces them
/// with a call placed where the last one was.
static LogicalResult outline(func::FuncOp host, ArrayRef<Operation *> group,
                             StringRef name, SymbolTable &symbols) {
  llvm::SetVector<Operation *> ops(group.begin(), group.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> cloned;
  for (Operation *op : ops) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && ops.contains(def))
          continue;
        if (def && op->isAncestor(def))
          continue;
        if (!def && op->isAncestor(operand.getParentBlock()->getParentOp()))
          continue;
        if (def && isClonedIntoDispatch(def)) {
          cloned.insert(def);
          continue;
        }
        inputs.insert(operand);
      }
    });
  }
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *u) { return !ops.contains(u); }))
        outputs.push_back(result);

  OpBuilder b(host);
  Location loc = ops.back()->getLoc();
  auto fnType = b.getFunctionType(llvm::to_vector(llvm::map_range(
                                      inputs, [](Value v) { return v.getType(); })),
                                  llvm::to_vector(llvm::map_range(
                                      outputs, [](Value v) { return v.getType(); })));
  auto fn = func::FuncOp::create(b, loc, name, fnType);
  fn.setPrivate();
  fn->setAttr(kDispatchAttrName, b.getUnitAttr());
  Block *body = fn.addEntryBlock();
  IRMapping map;
  for (auto [input, arg] : llvm::zip(inputs, body->getArguments()))
    map.map(input, arg);
  OpBuilder ib = OpBuilder::atBlockEnd(body);
  for (Operation *op : cloned)
    ib.clone(*op, map);
  for (Operation *op : ops)
    ib.clone(*op, map);
  func::ReturnOp::create(ib, loc,
                         llvm::to_vector(llvm::map_range(
                             outputs, [&](Value v) { return map.lookup(v); })));
  symbols.insert(fn);

  OpBuilder hb(ops.back());
  auto call = func::CallOp::create(hb, loc, fn, inputs.getArrayRef());
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return success();
}

struct FormDispatchesPass final
    : public impl::FormDispatchesPassBase<FormDispatchesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<FusionMode> fusion = parseFusionMode(mode);
    if (!fusion) {
      module.emitError() << "unknown fusion mode '" << mode
                         << "'; expected default, aggressive or none";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> hosts;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn->hasAttr(kDispatchAttrName) && !fn.isExternal())
        hosts.push_back(fn);
    for (func::FuncOp host : hosts) {
      SmallVector<SmallVector<Operation *>> groups;
      llvm::DenseSet<Operation *> taken;
      host.walk([&](Operation *op) {
        if (taken.contains(op) || !isa<linalg::LinalgOp>(op) ||
            isa<linalg::FillOp>(op))
          return;
        SmallVector<Operation *> group;
        if (isRootOp(op))
          ++numRoots;
        if (*fusion != FusionMode::None) {
          if (linalg::FillOp fill = initFill(cast<linalg::LinalgOp>(op)))
            group.push_back(fill);
        }
        group.push_back(op);
        if (*fusion != FusionMode::None && isRootOp(op)) {
          for (Operation *cur = op; Operation *next = fusableConsumer(cur, taken);
               cur = next)
            group.push_back(next);
        }
        for (Operation *g : group)
          taken.insert(g);
        groups.push_back(std::move(group));
      });
      unsigned index = 0;
      for (auto &group : groups) {
        std::string name =
            (host.getSymName() + "_dispatch_" + llvm::Twine(index++)).str();
        if (failed(outline(host, group, name, symbols)))
          return signalPassFailure();
        ++numRegions;
      }
    }
  }
};

} // namespace
} // namespace jitrun
