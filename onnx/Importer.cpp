//===- Importer.cpp - the ONNX graph walk and the importer's builders -----===//

#include "onnx/Importer.h"
#include "onnx/Wire.h"
#include "support/Files.h"
#include "support/Tensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace jitrun {
namespace onnximport {

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  return axis < 0 || axis >= std::max<int64_t>(rank, 1) ? -1 : axis;
}

Type elementTypeOf(MLIRContext *ctx, int onnxType) {
  Builder b(ctx);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

/// Unsigned integers are carried signless (MLIR's arith is signless); the
/// ops that care (Cast, QuantizeLinear) read the ONNX type themselves.
static Type signless(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

/// `t`'s type (its element type signless) and its size in bytes.
static FailureOr<std::pair<RankedTensorType, size_t>>
tensorType(MLIRContext *ctx, const onnx::TensorProto &t, std::string &error) {
  Type et = elementTypeOf(ctx, t.data_type());
  if (!et) {
    error = "tensor '" + t.name() + "' has an unsupported data type (" +
            std::to_string(t.data_type()) + ")";
    return failure();
  }
  Shape shape(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && n > std::numeric_limits<int64_t>::max() / 8 / d)) {
      error = "tensor '" + t.name() + "' has a negative or absurd dim";
      return failure();
    }
    n *= d;
  }
  unsigned bits = et.isInteger(1) ? 8 : et.getIntOrFloatBitWidth();
  return std::make_pair(RankedTensorType::get(shape, signless(et)),
                        static_cast<size_t>(n) * (bits / 8));
}

/// The bytes of `t`'s raw or external data (moved out of `t`), when it has
/// them and they are too many to fold: nullopt for any other tensor.
static FailureOr<std::optional<std::string>>
takeLargeData(onnx::TensorProto &t, RankedTensorType type, size_t bytes, StringRef baseDir,
              std::string &error) {
  bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  if (type.getNumElements() <= kFoldLimit || type.getElementType().isInteger(1) ||
      (!external && !t.has_raw_data()))
    return std::optional<std::string>();
  std::string data;
  if (external) {
    FailureOr<std::string> read = externalData(t, baseDir, bytes, error);
    if (failed(read))
      return failure();
    data = std::move(*read);
  } else {
    data = std::move(*t.mutable_raw_data());
    t.clear_raw_data();
  }
  if (data.size() != bytes) {
    error = "tensor '" + t.name() + "' holds " + std::to_string(data.size()) +
            " bytes of data, not " + std::to_string(bytes);
    return failure();
  }
  return std::optional<std::string>(std::move(data));
}

/// True when `data` repeats its first `elementBytes` throughout: one pass,
/// which stops at the first difference (at once for real weights).
static bool allElementsEqual(StringRef data, size_t elementBytes) {
  return data.size() >= elementBytes &&
         std::memcmp(data.data() + elementBytes, data.data(), data.size() - elementBytes) == 0;
}

/// A dense_resource of `type` whose blob owns `data`: no copy when the
/// string's bytes are aligned for its elements (a heap string's are), and
/// no hash of them, which a uniqued DenseElementsAttr would take.
static DenseResourceElementsAttr resourceOf(RankedTensorType type, std::string data,
                                            StringRef name) {
  auto owned = std::make_unique<std::string>(std::move(data));
  size_t elementBytes = std::max<size_t>(1, type.getElementTypeBitWidth() / 8);
  size_t align = 64;
  while (align > 1 && reinterpret_cast<uintptr_t>(owned->data()) % align != 0)
    align /= 2;
  AsmResourceBlob blob;
  if (align >= elementBytes) {
    ArrayRef<char> bytes(owned->data(), owned->size());
    auto free = [held = owned.release()](void *, size_t, size_t) { delete held; };
    blob = AsmResourceBlob(bytes, align, free, /*dataIsMutable=*/true);
  } else {
    blob = newBlob(owned->size());
    std::memcpy(blob.getMutableData().data(), owned->data(), owned->size());
  }
  return DenseResourceElementsAttr::get(type, name.empty() ? "onnx_initializer" : name,
                                        std::move(blob));
}

FailureOr<DenseElementsAttr> tensorAttr(MLIRContext *ctx, const onnx::TensorProto &t,
                                        std::string &error, StringRef baseDir) {
  FailureOr<std::pair<RankedTensorType, size_t>> typed = tensorType(ctx, t, error);
  if (failed(typed))
    return failure();
  auto [type, bytes] = *typed;
  Type et = type.getElementType();
  int64_t n = type.getNumElements();
  std::string external;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    FailureOr<std::string> data = externalData(t, baseDir, bytes, error);
    if (failed(data))
      return failure();
    external = std::move(*data);
  }
  if (t.has_raw_data() || t.data_location() == onnx::TensorProto::EXTERNAL) {
    const std::string &raw = t.has_raw_data() ? t.raw_data() : external;
    if (raw.size() != bytes) {
      error = "tensor '" + t.name() + "' holds " + std::to_string(raw.size()) +
              " bytes of data, not " + std::to_string(bytes);
      return failure();
    }
    if (et.isInteger(1)) {
      SmallVector<bool> v(raw.begin(), raw.end());
      return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(v));
    }
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), bytes));
  }
  // Typed fields: float_data (float, and f16/bf16 bits in int32_data),
  // int32_data (int8/16/32, bool, uint8), int64_data, double_data.
  auto count = [&](int have) -> LogicalResult {
    if (have == n)
      return success();
    error = "tensor '" + t.name() + "' holds " + std::to_string(have) + " values, not " +
            std::to_string(n);
    return failure();
  };
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    if (failed(count(t.float_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<float>(t.float_data().data(), n));
  case onnx::TensorProto::DOUBLE:
    if (failed(count(t.double_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<double>(t.double_data().data(), n));
  case onnx::TensorProto::INT64:
    if (failed(count(t.int64_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<int64_t>(t.int64_data().data(), n));
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    if (failed(count(t.int32_data_size())))
      return failure();
    SmallVector<APFloat> v;
    const llvm::fltSemantics &sem = cast<FloatType>(et).getFloatSemantics();
    for (int32_t bits16 : t.int32_data())
      v.push_back(APFloat(sem, APInt(16, static_cast<uint16_t>(bits16))));
    return DenseElementsAttr::get(type, v);
  }
  default: {
    if (failed(count(t.int32_data_size())))
      return failure();
    SmallVector<APInt> v;
    unsigned width = et.getIntOrFloatBitWidth();
    for (int32_t x : t.int32_data())
      v.push_back(APInt(width, static_cast<uint64_t>(static_cast<int64_t>(x)), true));
    return DenseElementsAttr::get(type, v);
  }
  }
}

//===----------------------------------------------------------------------===//
// The graph walk
//===----------------------------------------------------------------------===//

Importer::Importer(MLIRContext &ctx, StringRef fileName, const OnnxImportOptions &options)
    : context(&ctx), b(&ctx), loc(UnknownLoc::get(&ctx)), fileName(fileName),
      options(options) {}

LogicalResult Importer::fail(const Twine &message) {
  emitError(loc) << message;
  return failure();
}

LogicalResult Importer::importInitializer(onnx::TensorProto &t) {
  std::string error;
  StringRef baseDir = llvm::sys::path::parent_path(fileName);
  FailureOr<std::pair<RankedTensorType, size_t>> typed = tensorType(context, t, error);
  if (failed(typed))
    return fail(error);
  auto [type, bytes] = *typed;
  size_t elementBytes = std::max<size_t>(1, type.getElementTypeBitWidth() / 8);
  // Weights: their bytes become a blob as they are (raw data the parse left
  // where they lie, Wire.h, or the protobuf's copy given up); small tensors
  // stay dense attributes, which folding reads.
  std::optional<StringRef> raw;
  std::optional<std::string> owned;
  if (auto it = rawData->find(&t); it != rawData->end()) {
    if (it->second.size() != bytes)
      return fail("tensor '" + t.name() + "' holds " + std::to_string(it->second.size()) +
                  " bytes of data, not " + std::to_string(bytes));
    if (type.getNumElements() > kFoldLimit && !type.getElementType().isInteger(1))
      raw = it->second;
    else
      t.set_raw_data(it->second.str()); // folded from a dense attribute, below
  } else {
    FailureOr<std::optional<std::string>> large = takeLargeData(t, type, bytes, baseDir, error);
    if (failed(large))
      return fail(error);
    owned = std::move(*large);
    if (owned)
      raw = StringRef(*owned);
  }
  Value v;
  if (raw && allElementsEqual(*raw, elementBytes)) {
    // All one value (a large initializer of zeros or ones): a splat, which
    // folds and takes no memory, not a blob.
    v = constant(
        DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw->data(), elementBytes)));
  } else if (owned) {
    v = constant(resourceOf(type, std::move(*owned), t.name()));
  } else if (raw) {
    v = constant(DenseResourceElementsAttr::get(
        type, t.name().empty() ? "onnx_initializer" : StringRef(t.name()),
        rawDataBlob(*raw, options.weightsInPlace)));
  } else {
    FailureOr<DenseElementsAttr> attr = tensorAttr(context, t, error, baseDir);
    if (failed(attr))
      return fail(error);
    v = constant(*attr);
  }
  if (t.data_type() == onnx::TensorProto::UINT8)
    markUnsigned(v);
  values[t.name()] = v;
  return success();
}

/// The shape given for non-initializer input `position` named `name`:
/// by position (OnnxImportOptions::argumentShapes), else by name.
static const std::vector<int64_t> *givenShape(const OnnxImportOptions &options, size_t position,
                                              const std::string &name) {
  if (position < options.argumentShapes.size())
    return &options.argumentShapes[position];
  for (const auto &[n, dims] : options.inputShapes)
    if (n == name)
      return &dims;
  return nullptr;
}

/// True when some input has a symbolic or unknown dim and no shape given.
static bool isDynamicWithoutShapes(const onnx::GraphProto &g,
                                   const llvm::StringSet<> &initializerNames,
                                   const OnnxImportOptions &options) {
  size_t position = 0;
  for (const onnx::ValueInfoProto &v : g.input()) {
    if (initializerNames.contains(v.name()))
      continue;
    if (!givenShape(options, position++, v.name()) && v.type().has_tensor_type() &&
        v.type().tensor_type().has_shape())
      for (const auto &d : v.type().tensor_type().shape().dim())
        if (!d.has_dim_value() || d.dim_value() < 0)
          return true;
  }
  return false;
}

/// `v`'s tensor type with `?` for symbolic dims (unranked without a shape)
/// and the dims' names (dim_param; "" for a static or unnamed dim); null
/// with an error for an element type jitrun does not take.
static Type dynamicTypeOf(MLIRContext *context, const onnx::ValueInfoProto &v,
                          const std::vector<int64_t> *given, Attribute &dimNames) {
  Builder b(context);
  const onnx::TypeProto::Tensor &tt = v.type().tensor_type();
  Type et = v.type().has_tensor_type() ? elementTypeOf(context, tt.elem_type()) : Type();
  if (!et) {
    emitError(UnknownLoc::get(context))
        << "'" << v.name() << "' is not a tensor of an element type jitrun supports";
    return {};
  }
  SmallVector<int64_t> shape;
  SmallVector<Attribute> names;
  if (given) {
    shape.assign(given->begin(), given->end());
    names.assign(shape.size(), b.getStringAttr(""));
  } else if (tt.has_shape()) {
    for (const auto &d : tt.shape().dim()) {
      bool symbolic = !d.has_dim_value() || d.dim_value() < 0;
      shape.push_back(symbolic ? ShapedType::kDynamic : d.dim_value());
      names.push_back(b.getStringAttr(symbolic && d.has_dim_param() ? d.dim_param() : ""));
    }
  } else {
    dimNames = b.getArrayAttr({});
    return UnrankedTensorType::get(et);
  }
  dimNames = b.getArrayAttr(names);
  return RankedTensorType::get(shape, et);
}

/// Makes `fn` a declaration of the model's signature, with `?` dims where
/// the inputs and outputs have symbolic ones and each tensor's name and its
/// dims' names as attributes; false after an error.
static bool declareDynamicSignature(MLIRContext *context, const onnx::GraphProto &g,
                                    const llvm::StringSet<> &initializerNames,
                                    const OnnxImportOptions &options, func::FuncOp fn) {
  Builder b(context);
  SmallVector<Type> args, results;
  SmallVector<std::pair<std::string, Attribute>> argAttrs, resultAttrs;
  for (const onnx::ValueInfoProto &v : g.input()) {
    if (initializerNames.contains(v.name()))
      continue;
    Attribute dims;
    Type t = dynamicTypeOf(context, v, givenShape(options, args.size(), v.name()), dims);
    if (!t)
      return false;
    args.push_back(t);
    argAttrs.push_back({v.name(), dims});
  }
  for (const onnx::ValueInfoProto &v : g.output()) {
    Attribute dims;
    Type t = dynamicTypeOf(context, v, nullptr, dims);
    if (!t)
      return false;
    results.push_back(t);
    resultAttrs.push_back({v.name(), dims});
  }
  fn.setFunctionType(b.getFunctionType(args, results));
  for (auto [i, a] : llvm::enumerate(argAttrs)) {
    fn.setArgAttr(i, kTensorNameAttrName, b.getStringAttr(a.first));
    fn.setArgAttr(i, kDimNamesAttrName, a.second);
  }
  for (auto [i, a] : llvm::enumerate(resultAttrs)) {
    fn.setResultAttr(i, kTensorNameAttrName, b.getStringAttr(a.first));
    fn.setResultAttr(i, kDimNamesAttrName, a.second);
  }
  return true;
}

OwningOpRef<ModuleOp>
Importer::run(onnx::ModelProto &model,
              const llvm::DenseMap<const onnx::TensorProto *, StringRef> &raw) {
  rawData = &raw;
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  // Initializers and file-level errors have no node to point at.
  loc = UnknownLoc::get(context);
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  if (!model.has_graph()) {
    emitError(UnknownLoc::get(context)) << "'" << fileName << "' is not an ONNX model (no graph)";
    return {};
  }
  const onnx::GraphProto &g = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, fileLoc, "main", b.getFunctionType({}, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);

  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : g.initializer())
    initializerNames.insert(t.name());
  // A shape given for a name that is no input is a typo, not a no-op.
  for (const auto &given : options.inputShapes) {
    bool known = llvm::any_of(g.input(), [&](const onnx::ValueInfoProto &v) {
      return v.name() == given.first && !initializerNames.contains(v.name());
    });
    if (!known) {
      std::string names;
      for (const onnx::ValueInfoProto &v : g.input())
        if (!initializerNames.contains(v.name()))
          names += (names.empty() ? "" : ", ") + v.name();
      emitError(UnknownLoc::get(context)) << "a shape is given for '" << given.first
                                          << "', which is no input of the model (its inputs: "
                                          << names << ")";
      return {};
    }
  }
  // An input with symbolic dims and no shape given: the model is dynamic,
  // and what comes back is its signature alone (a declaration of @main with
  // `?` dims), which jitrun specializes to each run's shapes.
  if (isDynamicWithoutShapes(g, initializerNames, options)) {
    fn.getBody().getBlocks().clear();
    if (!declareDynamicSignature(context, g, initializerNames, options, fn))
      return {};
    return module;
  }
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer())
    if (failed(importInitializer(t)))
      return {};
  // Inputs (initializers listed as inputs are constants, not arguments).
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &v : g.input()) {
    if (initializerNames.contains(v.name()))
      continue;
    if (!v.type().has_tensor_type()) {
      emitError(UnknownLoc::get(context)) << "input '" << v.name() << "' is not a tensor";
      return {};
    }
    const onnx::TypeProto::Tensor &tt = v.type().tensor_type();
    Type et = elementTypeOf(context, tt.elem_type());
    if (!et) {
      emitError(UnknownLoc::get(context)) << "input '" << v.name() << "' has an unsupported element type ("
                     << tt.elem_type() << ")";
      return {};
    }
    Shape shape;
    auto given = llvm::find_if(options.inputShapes,
                               [&](const auto &p) { return p.first == v.name(); });
    size_t position = argTypes.size();
    if (position < options.argumentShapes.size()) {
      shape.assign(options.argumentShapes[position].begin(),
                   options.argumentShapes[position].end());
      if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(shape.size())) {
        emitError(UnknownLoc::get(context)) << "input '" << v.name() << "' has rank " << tt.shape().dim_size()
                       << "; the shape given for it has rank " << shape.size();
        return {};
      }
    } else if (given != options.inputShapes.end()) {
      shape.assign(given->second.begin(), given->second.end());
      if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(shape.size())) {
        emitError(UnknownLoc::get(context)) << "input '" << v.name() << "' has rank " << tt.shape().dim_size()
                       << "; the shape given for it has rank " << shape.size();
        return {};
      }
    } else {
      if (!tt.has_shape()) {
        emitError(UnknownLoc::get(context)) << "input '" << v.name()
                       << "' has no shape; give it one with --input-shape=" << v.name()
                       << ":DIMS (e.g. 1x3x224x224)";
        return {};
      }
      // Symbolic dims without a shape made the model dynamic (above).
      for (const auto &d : tt.shape().dim())
        shape.push_back(d.dim_value());
    }
    // uint8 arguments stay ui8 at the boundary (the caller passes uint8
    // data) and are seen as i8 bits inside.
    argTypes.push_back(RankedTensorType::get(shape, et));
    argNames.push_back(v.name());
  }
  for (auto [type, name] : llvm::zip(argTypes, argNames)) {
    Value arg = entry->addArgument(type, fileLoc);
    auto rt = cast<RankedTensorType>(type);
    if (rt.getElementType().isUnsignedInteger()) {
      arg = tensor::BitcastOp::create(b, fileLoc, rt.clone(signless(rt.getElementType())), arg);
      markUnsigned(arg);
    }
    values[name] = arg;
  }

  for (auto [i, n] : llvm::enumerate(g.node()))
    if (failed(importNode(n, static_cast<int>(i))))
      return {};

  SmallVector<Value> results;
  b.setInsertionPointToEnd(entry);
  for (const onnx::ValueInfoProto &v : g.output()) {
    auto it = values.find(v.name());
    if (it == values.end()) {
      emitError(UnknownLoc::get(context)) << "output '" << v.name() << "' is not computed by any node";
      return {};
    }
    Value r = it->second;
    if (isUnsigned(r)) {
      auto rt = typeOf(r);
      r = tensor::BitcastOp::create(
          b, fileLoc, rt.clone(IntegerType::get(context, rt.getElementTypeBitWidth(),
                                                 IntegerType::Unsigned)),
          r);
    }
    results.push_back(r);
  }
  if (results.empty()) {
    emitError(UnknownLoc::get(context)) << "'" << fileName << "' has no outputs";
    return {};
  }
  func::ReturnOp::create(b, fileLoc, results);
  // What folded shape arithmetic left behind: constants nothing reads.
  SmallVector<Operation *> dead;
  for (Operation &op : *entry)
    if (isa<arith::ConstantOp>(op) && op.use_empty())
      dead.push_back(&op);
  for (Operation *op : dead)
    op->erase();
  fn.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(argNames))
    fn.setArgAttr(i, kTensorNameAttrName, b.getStringAttr(name));
  for (auto [i, v] : llvm::enumerate(g.output()))
    fn.setResultAttr(i, kTensorNameAttrName, b.getStringAttr(v.name()));
  return module;
}

static const OpTable &opTable() {
  static const OpTable table = [] {
    OpTable t;
    addElementwiseOps(t);
    addNeuralNetOps(t);
    addShapeOps(t);
    addResizeOps(t);
    addQuantizedOps(t);
    addRecurrentOps(t);
    return t;
  }();
  return table;
}

LogicalResult Importer::importNode(const onnx::NodeProto &n, int index) {
  node = &n;
  std::string label = n.name().empty() ? n.op_type() : n.name();
  loc = NameLoc::get(b.getStringAttr(label),
                     FileLineColLoc::get(context, fileName, index + 1, 1));
  auto domain = opsets.find(n.domain() == "ai.onnx" ? "" : n.domain());
  opset = domain == opsets.end() ? 0 : domain->second;
  nodeInputs.clear();
  for (const std::string &name : n.input()) {
    if (name.empty()) {
      nodeInputs.push_back(Value());
      continue;
    }
    auto it = values.find(name);
    if (it == values.end())
      return fail("node '" + label + "' (" + n.op_type() + ") reads '" + name +
                  "', which no node or input defines");
    nodeInputs.push_back(it->second);
  }
  const OpTable &table = opTable();
  auto op = table.find(n.domain().empty() || n.domain() == "ai.onnx"
                           ? n.op_type()
                           : n.domain() + "." + n.op_type());
  if (op == table.end())
    return fail("unsupported ONNX op '" + n.op_type() + "' (node '" + label + "', opset " +
                Twine(opset) + (n.domain().empty() ? "" : ", domain " + n.domain()) + ")");
  // uint8 data: ops that only move bits keep it unsigned; the ops that
  // read it as numbers must know (Cast and the quantized ops do).
  static const llvm::StringSet<> moveBits = {
      "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat",
      "Slice", "Split", "Gather", "GatherElements", "Expand", "Tile", "Dropout", "Trilu",
      "DepthToSpace", "SpaceToDepth"};
  static const llvm::StringSet<> readsUnsigned = {
      "Cast", "CastLike", "Shape", "Size", "QuantizeLinear", "DequantizeLinear", "QLinearMatMul",
      "QLinearConv", "MatMulInteger", "ConvInteger"};
  bool unsignedIn = llvm::any_of(nodeInputs, [&](Value v) { return v && isUnsigned(v); });
  if (unsignedIn && !moveBits.contains(n.op_type()) && !readsUnsigned.contains(n.op_type()))
    return fail(n.op_type() + " on uint8 tensors is not supported (node '" + label + "')");
  SmallVector<Value> results;
  if (failed(op->second(*this, results)))
    return failure();
  if (unsignedIn && moveBits.contains(n.op_type()))
    for (Value r : results)
      if (r && typeOf(r).getElementType().isInteger(8))
        markUnsigned(r);
  for (auto [i, name] : llvm::enumerate(n.output())) {
    if (name.empty())
      continue;
    if (i >= results.size() || !results[i])
      return fail("node '" + label + "' (" + n.op_type() + "): output " + Twine(i) +
                  " is not supported");
    values[name] = results[i];
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Inputs and attributes
//===----------------------------------------------------------------------===//

bool Importer::hasInput(int i) const {
  return i < static_cast<int>(nodeInputs.size()) && nodeInputs[i];
}

Value Importer::in(int i) const { return hasInput(i) ? nodeInputs[i] : Value(); }

RankedTensorType Importer::typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Shape Importer::shapeOf(Value v) {
  ArrayRef<int64_t> s = typeOf(v).getShape();
  return Shape(s.begin(), s.end());
}

std::optional<Lit> Importer::lit(Value v) const {
  if (!v)
    return std::nullopt;
  auto c = v.getDefiningOp<arith::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!attr || attr.getNumElements() > kFoldLimit)
    return std::nullopt;
  Lit l;
  l.shape.assign(attr.getType().getShape().begin(), attr.getType().getShape().end());
  l.elementType = attr.getElementType();
  if (isa<FloatType>(l.elementType)) {
    for (APFloat f : attr.getValues<APFloat>())
      l.values.push_back(f.convertToDouble());
  } else if (l.elementType.isInteger(1)) {
    for (bool x : attr.getValues<bool>())
      l.values.push_back(x ? 1.0 : 0.0);
  } else {
    bool zext = isUnsigned(v);
    for (APInt x : attr.getValues<APInt>())
      l.values.push_back(static_cast<double>(zext ? static_cast<int64_t>(x.getZExtValue())
                                                  : x.getSExtValue()));
  }
  return l;
}

FailureOr<std::vector<int64_t>> Importer::constInts(int i, StringRef what) {
  std::optional<Lit> l = lit(in(i));
  if (!l) {
    (void)fail(Twine(node->op_type()) + ": a " + what +
               " computed from data is not supported (it must be a constant or come from "
               "static shapes)");
    return failure();
  }
  std::vector<int64_t> out;
  for (double d : l->values)
    out.push_back(static_cast<int64_t>(d));
  return out;
}

const onnx::AttributeProto *Importer::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Importer::attrInt(StringRef name, int64_t otherwise) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : otherwise;
}

float Importer::attrFloat(StringRef name, float otherwise) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : otherwise;
}

std::string Importer::attrString(StringRef name, StringRef otherwise) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : otherwise.str();
}

std::vector<int64_t> Importer::attrInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Value Importer::constant(TypedAttr attr) { return arith::ConstantOp::create(b, loc, attr); }

std::optional<ArrayRef<char>> Importer::constantData(Value v) {
  auto c = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr;
  if (!c)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
    return dense.isSplat() ? std::nullopt : std::optional<ArrayRef<char>>(dense.getRawData());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

Value Importer::constantOfBytes(RankedTensorType type, AsmResourceBlob blob, StringRef name) {
  if (type.getNumElements() > kFoldLimit)
    return constant(DenseResourceElementsAttr::get(type, name, std::move(blob)));
  return constant(DenseElementsAttr::getFromRawBuffer(type, blob.getData()));
}

Value Importer::constant(const Lit &l) {
  auto type = RankedTensorType::get(l.shape, l.elementType);
  if (auto ft = dyn_cast<FloatType>(l.elementType)) {
    SmallVector<APFloat> v;
    for (double d : l.values) {
      APFloat f(d);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    return constant(DenseElementsAttr::get(type, v));
  }
  unsigned width = l.elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> v;
  for (double d : l.values)
    v.push_back(APInt(width, static_cast<uint64_t>(static_cast<int64_t>(d)), true));
  return constant(DenseElementsAttr::get(type, v));
}

Value Importer::scalarConstant(Type et, double value) {
  if (auto ft = dyn_cast<FloatType>(et))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, value));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(et, APInt(et.getIntOrFloatBitWidth(),
                                         static_cast<uint64_t>(static_cast<int64_t>(value)),
                                         true)));
}

Value Importer::empty(ArrayRef<int64_t> shape, Type et) {
  return tensor::EmptyOp::create(b, loc, shape, et);
}

Value Importer::filled(ArrayRef<int64_t> shape, Type et, double value) {
  Value v = scalarConstant(et, value);
  return linalg::FillOp::create(b, loc, v, empty(shape, et)).getResult(0);
}

Value Importer::convert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, v))
               : Value(arith::TruncFOp::create(b, loc, to, v));
  if (fromF) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   arith::ConstantOp::create(b, loc, FloatAttr::get(from, 0.0)));
    return arith::FPToSIOp::create(b, loc, to, v);
  }
  if (toF) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (tw == 1)
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 arith::ConstantOp::create(b, loc, IntegerAttr::get(from, 0)));
  if (fw == 1)
    return arith::ExtUIOp::create(b, loc, to, v);
  return fw < tw ? Value(arith::ExtSIOp::create(b, loc, to, v))
                 : Value(arith::TruncIOp::create(b, loc, to, v));
}

FailureOr<Value> Importer::elementwise(ArrayRef<Value> inputs, Type resultType,
                                       const ScalarFn &body, const FoldFn &fold) {
  // NumPy broadcasting: dims aligned to the right.
  int64_t rank = 0;
  for (Value v : inputs)
    rank = std::max<int64_t>(rank, typeOf(v).getRank());
  Shape out(rank, 1);
  for (Value v : inputs) {
    Shape s = shapeOf(v);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1)
        continue;
      if (o != 1)
        return fail(Twine(node->op_type()) + ": shapes do not broadcast");
      o = s[i];
    }
  }
  // Folding: every input a small constant.
  if (fold) {
    SmallVector<Lit> lits;
    for (Value v : inputs)
      if (std::optional<Lit> l = lit(v))
        lits.push_back(*l);
    int64_t n = 1;
    for (int64_t d : out)
      n *= d;
    if (lits.size() == inputs.size() && n <= kFoldLimit) {
      Lit r;
      r.shape = out;
      r.elementType = resultType;
      r.values.resize(n);
      SmallVector<double> args(inputs.size());
      for (int64_t i = 0; i < n; ++i) {
        for (auto [k, l] : llvm::enumerate(lits)) {
          // Index of output element i in input k (broadcast dims read 0).
          int64_t rem = i, idx = 0, stride = 1;
          for (int64_t d = rank - 1; d >= 0; --d) {
            int64_t coord = rem % out[d];
            rem /= out[d];
            int64_t kd = d - (rank - static_cast<int64_t>(l.shape.size()));
            if (kd < 0)
              continue;
            int64_t size = l.shape[kd];
            idx += (size == 1 ? 0 : coord) * stride;
            stride *= size;
          }
          args[k] = l.values[idx];
        }
        r.values[i] = fold(args);
      }
      return constant(r);
    }
  }
  SmallVector<AffineMap> maps;
  for (Value v : inputs) {
    Shape s = shapeOf(v);
    SmallVector<AffineExpr> exprs;
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = rank - s.size() + i;
      exprs.push_back(s[i] == 1 && out[d] != 1 ? b.getAffineConstantExpr(0)
                                               : b.getAffineDimExpr(d));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, context));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, RankedTensorType::get(out, resultType), inputs, ValueRange{empty(out, resultType)},
      maps, iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = body(nb, nl, args.drop_back());
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

Value Importer::reshapeBits(Value v, ArrayRef<int64_t> shape) {
  RankedTensorType t = typeOf(v);
  if (t.getShape() == shape)
    return v;
  auto target = RankedTensorType::get(shape, t.getElementType());
  if (std::optional<Lit> l = lit(v)) {
    l->shape.assign(shape.begin(), shape.end());
    return constant(*l);
  }
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (auto attr = dyn_cast<DenseElementsAttr>(c.getValue()))
      return constant(attr.reshape(target));
    if (auto attr = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
      return constant(DenseResourceElementsAttr::get(target, attr.getRawHandle()));
  }
  // Collapse to one dim, then expand: fusion's reshape propagation sees
  // through both. A rank-0 tensor expands (and collapses) with no groups.
  auto allDims = [](int64_t rank) {
    SmallVector<ReassociationIndices> groups;
    if (rank == 0)
      return groups;
    ReassociationIndices all;
    for (int64_t i = 0; i < rank; ++i)
      all.push_back(i);
    groups.push_back(all);
    return groups;
  };
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, v, allDims(t.getRank()));
  if (t.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, target, v, allDims(0));
  Value flat = v;
  if (t.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, v, allDims(t.getRank()));
  if (shape.size() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, target, flat, allDims(shape.size()));
}

Value Importer::transposeBits(Value v, ArrayRef<int64_t> perm) {
  Shape s = shapeOf(v), out;
  for (int64_t p : perm)
    out.push_back(s[p]);
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    // Constant weights (a Gemm's transB) are transposed here, once.
    Type et = typeOf(v).getElementType();
    auto outType = RankedTensorType::get(out, et);
    if (auto attr = dyn_cast<DenseElementsAttr>(c.getValue()); attr && attr.isSplat())
      return constant(attr.reshape(outType));
    std::optional<ArrayRef<char>> raw = constantData(v);
    int64_t n = outType.getNumElements();
    if (raw && n > 0 && et.isIntOrFloat() && !et.isInteger(1) &&
        raw->size() == static_cast<size_t>(n) * (et.getIntOrFloatBitWidth() / 8)) {
      AsmResourceBlob blob = newBlob(raw->size());
      permuteElements(raw->data(), blob.getMutableData().data(), s, perm, raw->size() / n);
      return constantOfBytes(outType, std::move(blob), "onnx_transposed");
    }
  }
  return linalg::TransposeOp::create(b, loc, v, empty(out, typeOf(v).getElementType()), perm)
      .getResult()[0];
}

Value Importer::reduce(Value v, ArrayRef<int64_t> axes, bool keepDims, double init,
                       const ScalarFn &combine) {
  Shape s = shapeOf(v), out, kept;
  int64_t rank = s.size();
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : axes)
    reduced[a] = true;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d) {
    iters.push_back(reduced[d] ? utils::IteratorType::reduction : utils::IteratorType::parallel);
    if (!reduced[d]) {
      out.push_back(s[d]);
      outExprs.push_back(b.getAffineDimExpr(d));
    }
    kept.push_back(reduced[d] ? 1 : s[d]);
  }
  Type et = typeOf(v).getElementType();
  Value acc = filled(out, et, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, outExprs, context)};
  auto generic = linalg::GenericOp::create(
      b, loc, acc.getType(), ValueRange{v}, ValueRange{acc}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, combine(nb, nl, args));
      });
  Value r = generic.getResult(0);
  return keepDims ? reshape(r, kept) : r;
}

} // namespace onnximport

bool looksLikeOnnx(StringRef bytes) {
  // Field 1 (ir_version), varint: tag byte 0x08. MLIR text starts with
  // printable characters and bytecode with "ML\xefR".
  return !bytes.empty() && bytes[0] == 0x08;
}

OwningOpRef<ModuleOp> importOnnx(MLIRContext &context, StringRef bytes, StringRef name,
                                 const OnnxImportOptions &options) {
  // The graph parsed without its large raw data, which stay where they lie.
  std::vector<onnximport::RawData> raw;
  std::optional<std::string> stripped = onnximport::strippedModel(bytes, raw);
  StringRef parsed = stripped ? StringRef(*stripped) : bytes;
  onnx::ModelProto model;
  if (parsed.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(parsed.data(), static_cast<int>(parsed.size()))) {
    emitError(UnknownLoc::get(&context))
        << "'" << name << "' is not a valid ONNX model (its protobuf does not parse)";
    return {};
  }
  context.loadDialect<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                      math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
  llvm::DenseMap<const onnx::TensorProto *, StringRef> rawData;
  for (const onnximport::RawData &r : raw)
    if (r.initializer < static_cast<size_t>(model.graph().initializer_size()))
      rawData[&model.graph().initializer(static_cast<int>(r.initializer))] = r.bytes;
  onnximport::Importer importer(context, name, options);
  return importer.run(model, rawData);
}

} // namespace jitrun
