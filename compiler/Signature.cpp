//===- Signature.cpp - a model's inputs and outputs, and their shapes -----===//
//
// The entry function's signature as the API shows it (element types,
// shapes, the names tying dynamic dims across inputs), and its arguments
// specialized to a run's shapes before import.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compilation.h"

#include "onnx/Import.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace jitrun {

std::optional<ElementType> toElementType(Type t) {
  if (t.isF32())
    return ElementType::F32;
  if (t.isF64())
    return ElementType::F64;
  if (t.isF16())
    return ElementType::F16;
  if (t.isBF16())
    return ElementType::BF16;
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.isUnsigned())
      return i.getWidth() == 8 ? std::optional(ElementType::U8) : std::nullopt;
    switch (i.getWidth()) {
    case 1:
      return ElementType::I1;
    case 8:
      return ElementType::I8;
    case 16:
      return ElementType::I16;
    case 32:
      return ElementType::I32;
    case 64:
      return ElementType::I64;
    }
  }
  return std::nullopt;
}

std::optional<TensorSpec> tensorSpecOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return std::nullopt;
  std::optional<ElementType> et = toElementType(rt.getElementType());
  if (!et)
    return std::nullopt;
  return TensorSpec{*et, std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end())};
}

/// True when some of `types` is a shaped type with a dynamic dim.
bool hasDynamicShape(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && !shaped.hasStaticShape();
  });
}

/// For each argument, then each result, of `entry`: a name per dim. Dynamic
/// dims that the entry's ops force to be equal (the loop a linalg op maps
/// them to, tensor.dim into tensor.empty, casts, elementwise ops) share a
/// name, "d0", "d1", ... in the order they first appear among the
/// arguments; static dims, and dynamic ones tied to no argument's, get "".
/// A run whose inputs disagree on a shared dim is refused before any
/// compile, with a message that names both inputs.
static std::vector<std::vector<std::string>> dimTies(func::FuncOp entry) {
  if (entry.isExternal())
    return {};
  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> ids;
  std::vector<unsigned> parent;
  auto node = [&](Value v, unsigned d) {
    auto [it, inserted] = ids.try_emplace({v, d}, static_cast<unsigned>(parent.size()));
    if (inserted)
      parent.push_back(it->second);
    return it->second;
  };
  auto find = [&](unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  };
  auto unite = [&](unsigned a, unsigned b) { parent[find(a)] = find(b); };
  auto rankOf = [](Value v) -> int64_t {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : -1;
  };
  auto uniteShapes = [&](Value a, Value b) {
    if (rankOf(a) < 0 || rankOf(a) != rankOf(b))
      return;
    for (unsigned d = 0; d < rankOf(a); ++d)
      unite(node(a, d), node(b, d));
  };
  // Index values that are a dim of a tensor (tensor.dim with a constant).
  llvm::DenseMap<Value, unsigned> dimValues;
  entry.walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      llvm::DenseMap<unsigned, unsigned> loops;
      for (OpOperand &o : op->getOpOperands()) {
        if (rankOf(o.get()) < 0)
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&o);
        for (auto [r, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
            unsigned n = node(o.get(), static_cast<unsigned>(r));
            auto [it, inserted] = loops.try_emplace(dim.getPosition(), n);
            if (!inserted)
              unite(n, it->second);
          }
      }
      for (auto [result, init] : llvm::zip(op->getResults(), linalgOp.getDpsInits()))
        uniteShapes(result, init);
    } else if (auto dimOp = dyn_cast<tensor::DimOp>(op)) {
      if (std::optional<int64_t> index = dimOp.getConstantIndex();
          index && *index >= 0 && *index < rankOf(dimOp.getSource()))
        dimValues[dimOp.getResult()] = node(dimOp.getSource(), static_cast<unsigned>(*index));
    } else if (auto assertOp = dyn_cast<cf::AssertOp>(op)) {
      // torch-mlir's shape checks: cf.assert (arith.cmpi eq, dim, dim).
      auto cmp = assertOp.getArg().getDefiningOp<arith::CmpIOp>();
      if (cmp && cmp.getPredicate() == arith::CmpIPredicate::eq) {
        auto lhs = dimValues.find(cmp.getLhs()), rhs = dimValues.find(cmp.getRhs());
        if (lhs != dimValues.end() && rhs != dimValues.end())
          unite(lhs->second, rhs->second);
      }
    } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      for (unsigned d = 0; d < empty.getType().getRank(); ++d)
        if (empty.getType().isDynamicDim(d))
          if (auto it = dimValues.find(empty.getDynamicSize(d)); it != dimValues.end())
            unite(node(empty.getResult(), d), it->second);
    } else if (isa<tensor::CastOp>(op) || op->hasTrait<OpTrait::Elementwise>() ||
               op->hasTrait<OpTrait::SameOperandsAndResultShape>()) {
      Value first;
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
        if (rankOf(v) < 0)
          continue;
        if (first)
          uniteShapes(first, v);
        else
          first = v;
      }
    }
  });
  std::vector<std::vector<std::string>> names;
  llvm::DenseMap<unsigned, std::string> groupNames;
  auto namesOf = [&](Value v, bool create) {
    std::vector<std::string> dims;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    for (unsigned d = 0; t && d < t.getRank(); ++d) {
      std::string name;
      if (t.isDynamicDim(d)) {
        unsigned g = find(node(v, d));
        auto it = groupNames.find(g);
        if (it != groupNames.end())
          name = it->second;
        else if (create)
          name = groupNames[g] = "d" + std::to_string(groupNames.size());
      }
      dims.push_back(name);
    }
    return dims;
  };
  for (BlockArgument arg : entry.getArguments())
    names.push_back(namesOf(arg, true));
  Operation *ret = entry.getBody().front().getTerminator();
  for (Value v : ret ? ret->getOperands() : ValueRange())
    names.push_back(namesOf(v, false));
  return names;
}

llvm::Error Compilation::readSignature(func::FuncOp entry) {
  stats.function = entry.getSymName().str();
  FunctionType type = entry.getFunctionType();
  // Dim names matter only for dynamic dims (a static signature has none).
  std::vector<std::vector<std::string>> ties;
  if (hasDynamicShape(type.getInputs()))
    ties = dimTies(entry);
  auto spec = [&](Type t, DictionaryAttr attrs, const llvm::Twine &what,
                  const std::vector<std::string> *tied) -> llvm::Expected<TensorSpec> {
    auto rt = dyn_cast<RankedTensorType>(t);
    std::optional<ElementType> et = rt ? toElementType(rt.getElementType()) : std::nullopt;
    if (!et) {
      // A dynamic ONNX model's output of unknown rank: known after a run.
      if (auto unranked = dyn_cast<UnrankedTensorType>(t);
          unranked && toElementType(unranked.getElementType()))
        return TensorSpec{*toElementType(unranked.getElementType()), {}};
      return compileError("entry function '" + entry.getSymName() + "' " + what +
                          " is not a tensor jitrun can run");
    }
    TensorSpec s{*et, {}};
    for (int64_t d : rt.getShape())
      s.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
    if (auto name = attrs ? attrs.getAs<StringAttr>(kTensorNameAttrName) : StringAttr())
      s.name = name.str();
    if (s.dynamic()) {
      s.dimNames.assign(s.shape.size(), "");
      if (auto names = attrs ? attrs.getAs<ArrayAttr>(kDimNamesAttrName) : ArrayAttr();
          names && names.size() == s.shape.size()) {
        for (auto [i, n] : llvm::enumerate(names))
          if (auto str = dyn_cast<StringAttr>(n); str && s.shape[i] < 0)
            s.dimNames[i] = str.str();
      } else if (tied && tied->size() == s.shape.size()) {
        s.dimNames = *tied;
      }
    }
    return s;
  };
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    llvm::Expected<TensorSpec> s = spec(t, entry.getArgAttrDict(i), "argument " + llvm::Twine(i),
                                        i < ties.size() ? &ties[i] : nullptr);
    if (!s)
      return s.takeError();
    program.inputSpecs.push_back(std::move(*s));
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    size_t slot = type.getNumInputs() + i;
    llvm::Expected<TensorSpec> s = spec(t, entry.getResultAttrDict(i), "result " + llvm::Twine(i),
                                        slot < ties.size() ? &ties[slot] : nullptr);
    if (!s)
      return s.takeError();
    program.outputSpecs.push_back(std::move(*s));
  }
  return llvm::Error::success();
}

llvm::Error Compilation::specializeArguments(func::FuncOp entry,
                                             llvm::ArrayRef<std::vector<int64_t>> shapes) {
  FunctionType type = entry.getFunctionType();
  auto mismatch = [&](const llvm::Twine &msg) {
    return makeError(ErrorCode::ShapeMismatch, "'" + entry.getSymName() + "': " + msg);
  };
  if (shapes.size() != type.getNumInputs())
    return mismatch("the function takes " + llvm::Twine(type.getNumInputs()) + " inputs; " +
                    llvm::Twine(shapes.size()) + " shapes were given");
  OpBuilder b(entry.getBody());
  SmallVector<Type> inputs;
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    const std::vector<int64_t> &shape = shapes[i];
    auto shapeText = [&] {
      std::string text;
      for (int64_t d : shape)
        text += (text.empty() ? "" : "x") + std::to_string(d);
      return text.empty() ? std::string("a scalar") : text;
    };
    if (!rt || rt.getRank() != static_cast<int64_t>(shape.size()) ||
        llvm::any_of(shape, [](int64_t d) { return d < 0; }))
      return mismatch("input " + llvm::Twine(i) + " cannot have shape " + shapeText());
    for (auto [d, want] : llvm::enumerate(rt.getShape()))
      if (!ShapedType::isDynamic(want) && want != shape[d])
        return mismatch("input " + llvm::Twine(i) + " has " + llvm::Twine(want) + " in dim " +
                        llvm::Twine(d) + ", not " + llvm::Twine(shape[d]));
    auto specialized = RankedTensorType::get(shape, rt.getElementType(), rt.getEncoding());
    inputs.push_back(specialized);
    if (specialized == rt)
      continue;
    // The argument takes its static type; its users see it through a cast
    // to the dynamic one until canonicalization folds the cast into them.
    BlockArgument arg = entry.getArgument(static_cast<unsigned>(i));
    arg.setType(specialized);
    auto cast = tensor::CastOp::create(b, arg.getLoc(), rt, arg);
    arg.replaceAllUsesExcept(cast.getResult(), cast);
  }
  entry.setFunctionType(FunctionType::get(entry.getContext(), inputs, type.getResults()));
  return llvm::Error::success();
}

void Compilation::refineResultTypes(func::FuncOp entry) {
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  for (OpOperand &o : ret->getOpOperands())
    while (auto cast = o.get().getDefiningOp<tensor::CastOp>()) {
      auto from = dyn_cast<RankedTensorType>(cast.getSource().getType());
      if (!from || !from.hasStaticShape())
        break;
      o.set(cast.getSource());
      if (cast->use_empty())
        cast->erase();
    }
  entry.setFunctionType(FunctionType::get(entry.getContext(), entry.getArgumentTypes(),
                                          ret->getOperandTypes()));
}

} // namespace jitrun
