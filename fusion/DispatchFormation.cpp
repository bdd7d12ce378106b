//===- DispatchFormation.cpp - group ops into kernels and outline them ---===//
//
// Roots take the fill that initializes them (a depthwise convolution or
// pooling also its input's padding) and the chain of elementwise
// consumers that read their result through a permutation; every other linalg
// op is a dispatch of its own. Each region becomes a private function marked
// `jitrun.dispatch`, called from the host function.
//
//===----------------------------------------------------------------------===//

#include "contract/Location.h"
#include "fusion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

#define DEBUG_TYPE "jitrun-fusion-form-dispatches"

namespace jitrun {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

namespace {

/// A root this many times cheaper than the consumer that broadcasts it (or
/// cheaper still) joins the consumer's dispatch (isCheapBroadcastRoot).
constexpr int64_t kCheapRootWorkRatio = 4;
/// The most ops (terminator included) of an epilogue that reads only
/// lower-rank inputs and still joins its root's dispatch.
constexpr size_t kMaxLowRankEpilogueOps = 9;

/// The elementwise consumer that may join a dispatch whose last op is `op`:
/// it reads `op`'s result through a permutation (so each element is computed
/// once per tile) and is in the same block. In default mode `op`'s result
/// must have no other use, so the dispatch keeps one result; in aggressive
/// mode other uses are allowed and the result leaves the dispatch as an
/// extra output: the producer fuses into the consumer that follows all of
/// its uses in the chain instead of splitting it.
/// A row reduction (not a contraction or convolution): its consumers may
/// read its result through a broadcast, since a workgroup computes whole rows.
static bool isRowReduction(Operation *op) {
  auto l = dyn_cast<linalg::LinalgOp>(op);
  return l && isRootOp(op) && !linalg::isaContractionOpInterface(l) &&
         !isa<linalg::ConvolutionOpInterface>(op) && op->getNumResults() == 1;
}

/// The consumer that a contraction's dispatch reaches through a reshape:
/// `op`'s only use is a tensor.expand_shape whose only use is an elementwise
/// generic reading it through a permutation (a transformer's per-head
/// transpose after the Q and V projections). Returns {reshape, consumer}.
/// Codegen propagates the expand_shape up through the epilogue into the
/// contraction (expandReshapesIntoContraction), so the consumer reads the
/// root's result through a permutation like any other.
static std::pair<Operation *, Operation *>
consumerThroughExpand(Operation *op, const llvm::DenseSet<Operation *> &taken,
                      Operation *root) {
  auto contraction = dyn_cast<linalg::LinalgOp>(root);
  if (!contraction || !linalg::isaContractionOpInterface(contraction) ||
      op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return {};
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*op->getResult(0).getUsers().begin());
  if (!expand || expand->getBlock() != op->getBlock() || !expand->getResult(0).hasOneUse())
    return {};
  OpOperand &use = *expand->getResult(0).getUses().begin();
  auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!user || taken.contains(user) || user->getBlock() != op->getBlock() ||
      !isElementwiseOp(user) || user->getNumResults() != 1 || user.isDpsInit(&use) ||
      !user.getMatchingIndexingMap(&use).isPermutation() ||
      llvm::count(user->getOperands(), expand.getResult()) != 1)
    return {};
  return {expand, user};
}

/// A root that is cheap next to `consumer`, which broadcasts its result: the
/// squeeze-excite gate of EfficientNet and MobileNetV3, x * sigmoid(conv(se))
/// over H x W x C, where the 1x1 convolution on the pooled 1x1xC vector has
/// at most 4x as many multiply-adds as the gate has elements (MobileNetV3's
/// 7x7x576 gate after a 144 -> 576 convolution: 2.9x). The dispatch's
/// workgroups split the consumer along the dims it shares with the root, so
/// the root runs once (codegen splits the broadcast dims only when
/// recomputing the root per piece is a small fraction of the work,
/// selectTileSizes); inside a workgroup the root is tiled as a whole, not
/// register-blocked, which costs little on work this small. A matmul or
/// convolution with real reuse has far more work than its consumer and
/// keeps its own dispatch and tiling.
static bool isCheapBroadcastRoot(Operation *root, Operation *consumer) {
  int64_t rootWork = staticWork(root).value_or(0),
          consumerWork = staticWork(consumer).value_or(0);
  return isRootOp(root) && rootWork > 0 && consumerWork > 0 &&
         rootWork <= kCheapRootWorkRatio * consumerWork;
}

/// True when `consumer` may read `root`'s result (or an elementwise op on it)
/// through a broadcast and still join its dispatch: the root is a row
/// reduction (a workgroup computes whole rows) or cheap next to the consumer.
static bool mayBroadcastRootResult(Operation *root, Operation *consumer) {
  return root && (isRowReduction(root) || isCheapBroadcastRoot(root, consumer));
}

static Operation *fusableConsumer(Operation *op,
                                  const llvm::DenseSet<Operation *> &taken,
                                  bool aggressive, Operation *root) {
  if (op->getNumResults() != 1 || op->getResult(0).use_empty())
    return nullptr;
  Value result = op->getResult(0);
  if (!aggressive && !result.hasOneUse())
    return nullptr;
  // The candidate: the first elementwise user in block order.
  Operation *user = nullptr;
  OpOperand *use = nullptr;
  for (OpOperand &u : result.getUses()) {
    Operation *owner = u.getOwner();
    if (owner->getBlock() != op->getBlock() || taken.contains(owner) ||
        !isElementwiseOp(owner))
      continue;
    if (!user || owner->isBeforeInBlock(user)) {
      user = owner;
      use = &u;
    }
  }
  if (!user)
    return nullptr;
  auto linalgUser = cast<linalg::LinalgOp>(user);
  if (linalgUser->getNumResults() != 1 || !linalgUser.hasPureTensorSemantics())
    return nullptr;
  for (OpOperand &u : user->getOpOperands()) {
    if (u.get() != result)
      continue;
    // Reading the root's result as the consumer's init would alias it.
    if (linalgUser.isDpsInit(&u))
      return nullptr;
    AffineMap map = linalgUser.getMatchingIndexingMap(&u);
    // A row reduction's or a cheap root's result (or an elementwise op on
    // it, same shape) may be read through a broadcast.
    bool broadcastOk = mayBroadcastRootResult(root, user) &&
                     cast<ShapedType>(result.getType()).getRank() ==
                         cast<ShapedType>(root->getResult(0).getType()).getRank();
    if (!map.isPermutation() &&
        !(broadcastOk && map.isProjectedPermutation(/*allowZeroInResults=*/true)))
      return nullptr;
  }
  (void)use;
  return user;
}

/// A linalg.generic that broadcasts lower-rank inputs into its result (its
/// body yields one of them, or a few arith ops on them, never its own init):
/// how TOSA's convolutions and fully connected layers start their
/// accumulator from the bias. Like a fill, it
/// writes each element of the accumulator once and reads next to nothing.
static bool isBroadcastInit(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInits() != 1 || g->getNumResults() != 1 ||
      g.getNumReductionLoops() != 0 || g.getNumDpsInputs() == 0 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  for (OpOperand *in : g.getDpsInputOperands()) {
    // A bias of one element read at index 0 ((d0, d1, d2, d3) -> (0), TOSA's
    // broadcast of a single output channel) is a broadcast too.
    AffineMap map = g.getMatchingIndexingMap(in);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        map.getNumResults() >= g.getNumLoops())
      return false;
  }
  // Reading only lower-rank inputs, it may also compute (a quantized
  // convolution's bias plus its zero-point correction): the work is per
  // output element whether or not it joins the root, and small.
  Block &body = g.getRegion().front();
  if (body.getOperations().size() > kMaxLowRankEpilogueOps)
    return false;
  for (Operation &op : body.without_terminator())
    if (!isa<arith::ArithDialect>(op.getDialect()))
      return false;
  return body.getArgument(g.getNumDpsInputs()).use_empty();
}

/// The fill (or broadcast of a bias, isBroadcastInit) that initializes
/// `op`'s init operand. One shared by several ops (CSE merges identical
/// fills) is cloned for each: recomputing it is cheaper than reading its
/// result from memory.
static Operation *initProducer(linalg::LinalgOp op) {
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Operation *def = init.get().getDefiningOp();
    if (!def || def->getBlock() != op->getBlock() ||
        !(isa<linalg::FillOp>(def) || isBroadcastInit(def)))
      continue;
    if (def->hasOneUse())
      return def;
    OpBuilder b(op);
    Operation *clone = b.clone(*def);
    init.set(clone->getResult(0));
    return clone;
  }
  return nullptr;
}

/// Ops cloned into a dispatch instead of being passed in: tensor.empty,
/// scalar and splat constants, and a dynamic program's shape computations
/// (tensor.dim, scalar arithmetic on dims: a mean's 1/n), the dispatch
/// taking the tensors they measure.
static bool isClonedIntoDispatch(Operation *op) {
  if (isa<tensor::EmptyOp, tensor::DimOp>(op))
    return true;
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return !isa<ShapedType>(cst.getType()) ||
           (isa<DenseElementsAttr>(cst.getValue()) &&
            cast<DenseElementsAttr>(cst.getValue()).isSplat());
  return op->getNumRegions() == 0 && op->getNumResults() > 0 && isPure(op) &&
         isa<arith::ArithDialect, affine::AffineDialect>(op->getDialect()) &&
         llvm::all_of(op->getResultTypes(), [](Type t) { return t.isIntOrIndexOrFloat(); });
}

/// `def` can be cloned into a dispatch placed where `available` says its
/// values are: cloned itself, with the same true of its operands' defs.
static bool recomputable(Operation *def, llvm::function_ref<bool(Value)> available) {
  if (!isClonedIntoDispatch(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) {
    Operation *d = v.getDefiningOp();
    return available(v) || (d && recomputable(d, available));
  });
}

/// Outlines the ops of `group` (in block order) into `@name` and replaces them
/// with one call.
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
  // What the cloned ops read (a dynamic tensor.empty's sizes, the tensor a
  // tensor.dim measures) is cloned too, or passed in.
  for (size_t i = 0; i < cloned.size(); ++i)
    for (Value operand : cloned[i]->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && ops.contains(def))
        continue;
      if (def && isClonedIntoDispatch(def))
        cloned.insert(def);
      else
        inputs.insert(operand);
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
  // Each op after the ops whose values it reads (a tensor.dim may measure
  // a result of the group).
  llvm::DenseSet<Operation *> done;
  std::function<void(Operation *)> cloneInOrder = [&](Operation *op) {
    if (!done.insert(op).second)
      return;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && def != op && (cloned.contains(def) || ops.contains(def)))
          cloneInOrder(def);
    });
    ib.clone(*op, map);
  };
  for (Operation *op : cloned)
    cloneInOrder(op);
  for (Operation *op : ops)
    cloneInOrder(op);
  func::ReturnOp::create(ib, loc,
                         llvm::to_vector(llvm::map_range(
                             outputs, [&](Value v) { return map.lookup(v); })));
  symbols.insert(fn);

  // The call goes where the first op that is not a fill was: every input is
  // defined before it (dispatch formation only adds consumers whose other
  // operands are), and every use of an output comes after it.
  // With producers in the group, that is the root: the producers' inputs
  // are defined before them, hence before it.
  Operation *anchor = ops.front();
  for (Operation *op : ops)
    if (!isa<linalg::FillOp>(op)) {
      anchor = op;
      break;
    }
  for (Operation *op : ops)
    if (isRootOp(op)) {
      anchor = op;
      break;
    }
  OpBuilder hb(anchor);
  auto call = func::CallOp::create(hb, loc, fn, inputs.getArrayRef());
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return success();
}

/// "file:line:col" of `loc`, looking inside names, call sites and fusions.
static std::string formatLoc(Location loc) {
  std::string at = sourcePosition(loc);
  return at.empty() ? "unknown" : at;
}

/// Looks through reshapes and casts to the op that computes `v`.
static Value throughReshapes(Value v, bool &sawReshape) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(def))
      break;
    sawReshape = true;
    v = def->getOperand(0);
  }
  return v;
}

/// Why `consumer` (reading `operand`, computed by `producer`) did not join
/// the producer's dispatch. `producerGroup` is the producer's dispatch.
static std::string whyNotFused(Operation *producer, OpOperand &operand,
                               ArrayRef<Operation *> producerGroup,
                               FusionMode mode, bool sawReshape) {
  Operation *consumer = operand.getOwner();
  if (mode == FusionMode::None)
    return "fusion-none: fusion mode none keeps one op per dispatch";
  if (producer->getBlock() != consumer->getBlock())
    return "different-region: the consumer is inside another region (loop or branch)";
  bool producerRoot = isRootOp(producer), consumerRoot = isRootOp(consumer);
  if (producerRoot && consumerRoot)
    return "root-to-root: two roots (contraction, convolution, pooling, "
           "reduction) never share a dispatch";
  if (consumerRoot)
    return "root-takes-no-producers: a root only takes its fill or bias broadcast; its other "
           "producers run as dispatches of their own";
  if (sawReshape)
    return "reshape-between: a reshape separates them and was not propagated";
  bool groupHasRoot = llvm::any_of(producerGroup, isRootOp);
  if (!groupHasRoot) {
    llvm::StringRef rule = elementwiseFusionRefusal(&operand, FusionOptions().maxOperands);
    if (rule.empty())
      rule = "elementwise-fusion-not-applicable";
    std::string detail;
    if (rule == "producer-has-other-uses")
      detail = ": fusing would compute the producer once per use";
    else if (rule == "broadcast-would-recompute")
      detail = ": the consumer reads it through a broadcast and would recompute "
               "it per broadcast element";
    else if (rule == "reduction-through-broadcast")
      detail = ": a reduction never absorbs a producer through a broadcasting map";
    else if (rule == "operand-cap")
      detail = ": the fused op would exceed the operand cap";
    return (rule + detail).str();
  }
  auto linalgConsumer = dyn_cast<linalg::LinalgOp>(consumer);
  if (!isElementwiseOp(consumer) || !linalgConsumer)
    return "consumer-not-elementwise: only elementwise consumers join a root's dispatch";
  if (linalgConsumer.isDpsInit(&operand))
    return "result-is-consumer-init: the consumer would overwrite the value it reads";
  Operation *groupRoot = nullptr;
  for (Operation *op : producerGroup)
    if (isRootOp(op))
      groupRoot = op;
  if (!linalgConsumer.getMatchingIndexingMap(&operand).isPermutation() &&
      !(mayBroadcastRootResult(groupRoot, consumer) &&
        linalgConsumer.getMatchingIndexingMap(&operand).isProjectedPermutation(
            /*allowZeroInResults=*/true)))
    return "consumer-reads-through-broadcast: a tile of the consumer would need "
           "more than the root's tile, and the root is no row reduction and has "
           "more than 4x the consumer's work";
  if (producer != producerGroup.back())
    return "producer-chain-continued-elsewhere: the producer's dispatch took "
           "another consumer first";
  if (!producer->getResult(0).hasOneUse() && mode == FusionMode::Default)
    return "producer-has-other-uses: default mode keeps one result per "
           "dispatch (aggressive fusion returns several)";
  return "operand-defined-after-root: the consumer reads a value computed after "
         "the root, so it cannot run in the root's dispatch";
}

static void explainUnfused(ArrayRef<SmallVector<Operation *>> groups, FusionMode mode) {
  llvm::DenseMap<Operation *, unsigned> groupOf;
  for (auto [i, group] : llvm::enumerate(groups))
    for (Operation *op : group)
      groupOf[op] = i;
  for (auto [i, group] : llvm::enumerate(groups)) {
    for (Operation *consumer : group) {
      if (isa<linalg::FillOp>(consumer))
        continue;
      for (OpOperand &operand : consumer->getOpOperands()) {
        bool sawReshape = false;
        Value v = throughReshapes(operand.get(), sawReshape);
        Operation *producer = v.getDefiningOp();
        if (!producer || !isa<linalg::LinalgOp>(producer) ||
            isa<linalg::FillOp>(producer))
          continue;
        auto it = groupOf.find(producer);
        if (it == groupOf.end() || it->second == i)
          continue;
        consumer->emitRemark()
            << "not fused: " << formatLoc(producer->getLoc()) << " "
            << producer->getName() << " -> " << formatLoc(consumer->getLoc())
            << " " << consumer->getName() << ": "
            << whyNotFused(producer, operand, groups[it->second], mode, sawReshape);
      }
    }
  }
}

struct FormDispatchesPass final
    : public impl::FormDispatchesPassBase<FormDispatchesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<FusionMode> fusion = parseFusionMode(mode);
    if (!fusion) {
      module.emitError() << "unknown fusion mode '" << mode
                         << "'; expected " << kFusionModeNames;
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
      // Each op's initializer (fill or bias broadcast) is claimed first: a
      // broadcast comes before the root it initializes in block order and
      // would otherwise become a dispatch of its own.
      llvm::DenseMap<Operation *, Operation *> initOf;
      llvm::DenseSet<Operation *> reservedInits;
      if (*fusion != FusionMode::None)
        host.walk([&](linalg::LinalgOp op) {
          if (isa<linalg::FillOp>(op) || reservedInits.contains(op))
            return;
          if (Operation *init = initProducer(op)) {
            initOf[op] = init;
            reservedInits.insert(init);
          }
        });
      host.walk([&](Operation *op) {
        if (taken.contains(op) || reservedInits.contains(op) ||
            !isa<linalg::LinalgOp>(op) || isa<linalg::FillOp>(op))
          return;
        SmallVector<Operation *> group;
        if (isRootOp(op))
          ++numRoots;
        if (*fusion != FusionMode::None) {
          if (Operation *init = initOf.lookup(op))
            group.push_back(init);
        }
        // A reduction root (not a contraction or convolution) takes the
        // elementwise producers that feed only it, through a permutation:
        // (x - mean)^2 and its sum become one kernel. Producers come first,
        // in block order.
        if (*fusion != FusionMode::None && isRootOp(op) &&
            !linalg::isaContractionOpInterface(cast<linalg::LinalgOp>(op)) &&
            !isa<linalg::ConvolutionOpInterface>(op)) {
          SmallVector<Operation *> producers;
          auto root = cast<linalg::LinalgOp>(op);
          for (OpOperand *input : root.getDpsInputOperands()) {
            Operation *def = input->get().getDefiningOp();
            if (!def || taken.contains(def) || def->getBlock() != op->getBlock() ||
                !isa<linalg::GenericOp>(def) || !isElementwiseOp(def) ||
                def->getNumResults() != 1 || !def->getResult(0).hasOneUse() ||
                !root.getMatchingIndexingMap(input).isPermutation() ||
                llvm::is_contained(producers, def))
              continue;
            producers.push_back(def);
          }
          llvm::sort(producers, [](Operation *a, Operation *b) {
            return a->isBeforeInBlock(b);
          });
          group.insert(group.begin(), producers.begin(), producers.end());
          for (Operation *p : producers)
            taken.insert(p);
        }
        // A depthwise convolution or pooling reads its padding inside the
        // kernel (isFusedWindowPad): the pad joins its dispatch first.
        if (auto window = cast<linalg::LinalgOp>(op);
            *fusion != FusionMode::None && isRootOp(op) && window.getNumDpsInputs() > 0)
          if (auto pad = window.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>();
              pad && isFusedWindowPad(pad) && !taken.contains(pad)) {
            group.insert(group.begin(), pad);
            taken.insert(pad);
          }
        group.push_back(op);
        // In aggressive mode an elementwise op left as a dispatch of its own
        // (elementwise fusion refused it: it has several uses) takes its
        // consumers too, returning its result as an extra output: an LSTM
        // step's cell state c, read by the hidden state h and carried to
        // the next step, is computed in h's dispatch.
        bool aggressive = *fusion == FusionMode::Aggressive;
        bool chainHead = isRootOp(op) || (aggressive && isa<linalg::GenericOp>(op) &&
                                          isElementwiseOp(op));
        if (*fusion != FusionMode::None && chainHead) {
          Operation *cur = op;
          while (true) {
            Operation *next = fusableConsumer(cur, taken, aggressive, op);
            Operation *reshape = nullptr;
            if (!next)
              std::tie(reshape, next) = consumerThroughExpand(cur, taken, op);
            if (!next)
              break;
            // Every operand the consumer reads must be available where the
            // dispatch is placed: defined before the root, or in the group.
            // A tensor.empty or scalar constant is cloned into the dispatch:
            // where the host defines it does not matter.
            // A reshape of such a value (a bias expanded into packed weight
            // panels by reshape propagation) moves before the root.
            auto before = [&](Operation *def) {
              return def->getBlock() != op->getBlock() || def->isBeforeInBlock(op);
            };
            SmallVector<Operation *> hoist;
            // Its operands and what its body reads from outside.
            llvm::SetVector<Value> reads;
            next->walk([&](Operation *nested) {
              for (Value v : nested->getOperands())
                if (Operation *d = v.getDefiningOp(); !d || !next->isAncestor(d))
                  if (!next->isAncestor(v.getParentBlock()->getParentOp()))
                    reads.insert(v);
            });
            bool ready = llvm::all_of(reads, [&](Value v) {
              Operation *def = v.getDefiningOp();
              auto available = [&](Value w) {
                Operation *d = w.getDefiningOp();
                return !d || before(d) || llvm::is_contained(group, d);
              };
              if (!def || available(v) || def == reshape || recomputable(def, available))
                return true;
              if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
                return false;
              // It moves: what it reads (its source, a dynamic result
              // shape's dims) must be defined before the root.
              if (!llvm::all_of(def->getOperands(), [&](Value w) {
                    Operation *d = w.getDefiningOp();
                    return !d || before(d);
                  }))
                return false;
              hoist.push_back(def);
              return true;
            });
            if (!ready)
              break;
            for (Operation *h : hoist)
              h->moveBefore(op);
            if (reshape) {
              group.push_back(reshape);
              taken.insert(reshape);
            }
            group.push_back(next);
            taken.insert(next);
            cur = next;
          }
        }
        for (Operation *g : group)
          taken.insert(g);
        groups.push_back(std::move(group));
      });
      if (explain)
        explainUnfused(groups, *fusion);
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
