//===- HostLowering.cpp - the host function as a host program ------------===//
//
// After fusion the entry function is a host function: calls of dispatch
// functions, fills, slice copies, constants, reshapes, host scalars and scf
// control flow. Each becomes commands of the HostProgram (runtime/Program.h)
// over buffers: inputs, constants, intermediates (planned into one arena)
// and results, which dispatches write in place.
//
//===----------------------------------------------------------------------===//

#include "compiler/HostLowering.h"
#include "contract/Location.h"

#include "codegen/Passes.h"
#include "fusion/Passes.h"
#include "onnx/Import.h"
#include "support/Files.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <pthread.h>

using namespace mlir;

namespace jitrun {

// The host program numbers comparison predicates as arith does.
static_assert(static_cast<int>(IntPredicate::uge) == static_cast<int>(arith::CmpIPredicate::uge) &&
              static_cast<int>(IntPredicate::sgt) == static_cast<int>(arith::CmpIPredicate::sgt));
static_assert(static_cast<int>(FloatPredicate::AlwaysTrue) ==
                  static_cast<int>(arith::CmpFPredicate::AlwaysTrue) &&
              static_cast<int>(FloatPredicate::UNO) == static_cast<int>(arith::CmpFPredicate::UNO) &&
              static_cast<int>(FloatPredicate::OEQ) == static_cast<int>(arith::CmpFPredicate::OEQ));

/// Writes the raw bytes of a constant tensor, row-major, one element per
/// slot, to `out` (`size` bytes: the element count times `eltBytes`), the
/// one copy a weight gets (models' weights run to hundreds of MB).
static llvm::Error writeConstantBytes(ElementsAttr attr, size_t eltBytes, uint8_t *out,
                                      size_t size) {
  auto type = cast<ShapedType>(attr.getType());
  int64_t n = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (type.getElementType().isInteger(1)) {
      int64_t i = 0;
      for (bool v : dense.getValues<bool>())
        out[i++] = v ? 1 : 0;
      return llvm::Error::success();
    }
    llvm::ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(out + i * eltBytes, raw.data(), eltBytes);
    } else {
      if (raw.size() != size)
        return compileError("constant has unexpected storage size");
      std::memcpy(out, raw.data(), size);
    }
    return llvm::Error::success();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return compileError("dense_resource constant has no data (missing blob)");
    llvm::ArrayRef<char> raw = blob->getData();
    if (raw.size() != size)
      return compileError("dense_resource constant holds " + llvm::Twine(raw.size()) +
                       " bytes, expected " + llvm::Twine(size));
    std::memcpy(out, raw.data(), size);
    return llvm::Error::success();
  }
  return compileError("unsupported constant encoding");
}

/// --profile: a dispatch's root op (the first reduction-carrying linalg op,
/// else the first non-fill linalg op, else the first one, as in the dispatch
/// graph) and the root's FLOPs per run: 2 * the product of its static loop
/// ranges for a contraction or convolution with a multiply-add body, the
/// product for other reductions and pooling, 0 without a root or with a
/// dynamic range.
static void describeDispatch(func::FuncOp callee, std::string &opName, std::string &location,
                             double &flops) {
  flops = 0;
  Operation *named = dispatchRootOp(callee);
  Operation *root = named && isRootOp(named) ? named : nullptr;
  opName = named ? named->getName().getStringRef().str() : "-";
  location = sourcePosition(named ? named->getLoc() : callee.getLoc());
  if (!root)
    return;
  auto linalgOp = cast<linalg::LinalgOp>(root);
  std::optional<int64_t> work = staticWork(root);
  if (!work)
    return;
  bool multiplies = false;
  for (Operation &op : linalgOp.getBlock()->without_terminator())
    if (isa<arith::MulFOp, arith::MulIOp>(op))
      multiplies = true;
  bool multiplyAdd = multiplies && (linalg::isaContractionOpInterface(linalgOp) ||
                                    linalg::isaConvolutionOpInterface(linalgOp));
  flops = (multiplyAdd ? 2.0 : 1.0) * static_cast<double>(*work);
}


int HostLowering::newIntermediate(Value v) {
  TensorSpec spec = *tensorSpecOf(v.getType());
  return p.addBuffer(Buffer{BufferKind::Intermediate, 0, specBytes(spec), nullptr});
}

int HostLowering::lookup(Value v) {
  auto it = bufferOf.find(v);
  if (it != bufferOf.end())
    return it->second;
  int b = newIntermediate(v);
  bufferOf[v] = b;
  return b;
}

bool HostLowering::isExclusive(Value v, Operation *user) {
  int b = lookup(v);
  // Not a value from outside the loop `user` runs in: the next iteration
  // reads it again.
  if (p.buffers[b].kind != BufferKind::Intermediate || v.getParentBlock() != user->getBlock())
    return false;
  // Every value held in the buffer is read only before `user` in its block:
  // v itself (but for `user`), the links of an insert chain before it, a
  // reshape's source, the other pads of a shared fill. A concat of four
  // branches copied its whole result twice when only v could hold it.
  auto deadHere = [&](Value w) {
    for (Operation *u : w.getUsers())
      if (!(w == v && u == user) &&
          (u->getBlock() != user->getBlock() || !u->isBeforeInBlock(user)))
        return false;
    return true;
  };
  if (!deadHere(v))
    return false;
  for (const auto &[w, buffer] : bufferOf)
    if (buffer == b && w != v && !deadHere(w))
      return false;
  return true;
}

std::optional<int> HostLowering::scalarReg(Value v) {
  if (auto it = regOf.find(v); it != regOf.end())
    return it->second;
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  int r;
  if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
    r = p.addRegister(i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                               : i.getValue().getSExtValue());
  else if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
    r = p.addRegister(0, f.getValueAsDouble());
  else
    return std::nullopt;
  regOf[v] = r;
  return r;
}

void HostLowering::transfer(ValueRange values, llvm::ArrayRef<int> carried) {
  std::vector<int> srcs;
  for (Value v : values)
    srcs.push_back(lookup(v));
  bool hazard = false;
  for (size_t i = 0; i < srcs.size(); ++i)
    for (size_t j = 0; j < carried.size(); ++j)
      if (i != j && srcs[i] == carried[j])
        hazard = true;
  auto copy = [&](int src, int dst) {
    Command c{Command::CopyWhole};
    c.src = src;
    c.dst = dst;
    c.name = "copy:loop-carried";
    c.op = "scf.yield";
    p.commands.push_back(std::move(c));
    ++stats.copies;
  };
  std::vector<int> staged(srcs.size(), -1);
  for (size_t i = 0; i < srcs.size(); ++i) {
    if (srcs[i] == carried[i])
      continue;
    if (hazard) {
      staged[i] = p.addBuffer(Buffer{BufferKind::Intermediate, 0, p.buffers[carried[i]].bytes,
                                     nullptr});
      copy(srcs[i], staged[i]);
    } else {
      copy(srcs[i], carried[i]);
    }
  }
  for (size_t i = 0; i < srcs.size(); ++i)
    if (staged[i] >= 0)
      copy(staged[i], carried[i]);
}

llvm::Expected<std::vector<int>> HostLowering::carry(Operation *loop, ValueRange inits,
                                                    ValueRange args) {
  std::vector<int> carried;
  for (Value arg : args) {
    if (!tensorSpecOf(arg.getType()))
      return opError(loop, comp,
                     "loops that carry a scalar or dynamically shaped value are not "
                     "supported by jitrun's host program yet; carry a static tensor");
    carried.push_back(newIntermediate(arg));
  }
  transfer(inits, carried);
  for (auto [arg, b] : llvm::zip(args, carried))
    bufferOf[arg] = b;
  return carried;
}

llvm::Error HostLowering::run(func::FuncOp entry) {
  for (BlockArgument arg : entry.getArguments()) {
    std::optional<TensorSpec> spec = tensorSpecOf(arg.getType());
    if (!spec)
      return compileError("entry function '" + entry.getSymName() + "' argument " +
                       llvm::Twine(arg.getArgNumber()) +
                       " has a type jitrun cannot run yet: it needs a statically "
                       "shaped tensor of f32, f64, f16, bf16 or integers");
    if (auto name = entry.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kTensorNameAttrName))
      spec->name = name.str();
    p.inputSpecs.push_back(*spec);
    bufferOf[arg] = p.addBuffer(Buffer{BufferKind::Input, arg.getArgNumber(),
                                       specBytes(*spec), nullptr});
  }
  for (auto [i, t] : llvm::enumerate(entry.getFunctionType().getResults())) {
    std::optional<TensorSpec> spec = tensorSpecOf(t);
    if (!spec)
      return compileError("entry function '" + entry.getSymName() +
                       "' returns a type jitrun cannot run yet");
    if (auto name = entry.getResultAttrOfType<StringAttr>(i, kTensorNameAttrName))
      spec->name = name.str();
    p.outputSpecs.push_back(*spec);
  }

  planSharedConcats(entry.getBody().front());
  if (llvm::Error e = lowerBlock(entry.getBody().front()))
    return e;
  finishInPlaceWrites();
  generalizeKernels();
  for (const CallSite &site : calls) {
    Command &c = p.commands[site.command];
    if (!site.generic) {
      c.kernel = comp.registerKernel(site.callee, site.argStrides, site.resultStrides);
      continue;
    }
    c.kernel = comp.registerKernel(site.generic, site.argStrides, site.resultStrides);
    c.dim = site.dim;
    comp.kernels[c.kernel].specialized.push_back(
        Compilation::SpecializedCall{site.command, site.callee, site.argStrides, site.resultStrides});
  }
  p.plan();
  stats.transientBytes = static_cast<int64_t>(p.arenaBytes);
  stats.intermediateBytes = static_cast<int64_t>(p.intermediateBytes);
  if (llvm::Error e = comp.checkMemoryLimit("the host program"))
    return e;
  for (auto [ci, c] : llvm::enumerate(p.commands)) {
    switch (c.kind) {
    case Command::Dispatch: {
      // Each buffer once; a box written in place, or read from a shared
      // concat's buffer, by its own bytes.
      std::vector<int> distinct;
      for (auto [i, b] : llvm::enumerate(c.bindings)) {
        if (auto box = inPlace.find({ci, i}); box != inPlace.end())
          c.bytes += box->second.bytes;
        else if (auto read = viewReads.find({ci, i}); read != viewReads.end())
          c.bytes += read->second.bytes;
        else
          distinct.push_back(b);
      }
      llvm::sort(distinct);
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      for (int b : distinct)
        c.bytes += static_cast<int64_t>(p.buffers[b].bytes);
      break;
    }
    case Command::Fill: {
      c.bytes = static_cast<int64_t>(p.buffers[c.dst].bytes);
      if (!c.holeSizes.empty()) {
        int64_t hole = static_cast<int64_t>(c.pattern.size());
        for (int64_t d : c.holeSizes)
          hole *= d;
        c.bytes -= hole;
      }
      break;
    }
    case Command::CopyWhole:
      c.bytes = 2 * static_cast<int64_t>(p.buffers[c.dst].bytes);
      break;
    case Command::Copy: {
      int64_t n = static_cast<int64_t>(c.copy.eltBytes);
      for (int64_t d : c.copy.sizes)
        n *= d;
      c.bytes = 2 * n;
      break;
    }
    }
  }
  p.singleThreaded = comp.options.reference;
  if (llvm::Error e = comp.compileKernels())
    return e;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (llvm::Error e = lowerOp(op))
      return e;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerOp(Operation &op) {
  if (isa<arith::ConstantOp, tensor::EmptyOp>(op) && op.use_empty())
    return llvm::Error::success();
  if (isa<tensor::EmptyOp>(op))
    return llvm::Error::success(); // allocated on first use
  if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(op)) {
    bufferOf[reshape.getResult()] = lookup(reshape.getSrc());
    return llvm::Error::success();
  }
  if (auto reshape = dyn_cast<tensor::ExpandShapeOp>(op)) {
    bufferOf[reshape.getResult()] = lookup(reshape.getSrc());
    return llvm::Error::success();
  }
  // The same bits seen as another element type of the same width (uint8
  // model inputs and outputs are ui8 outside, i8 inside).
  if (auto cast = dyn_cast<tensor::BitcastOp>(op)) {
    bufferOf[cast.getResult()] = lookup(cast.getSource());
    return llvm::Error::success();
  }
  if (auto x = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(op, x);
  if (auto x = dyn_cast<func::CallOp>(op))
    return lowerCall(op, x);
  if (auto x = dyn_cast<linalg::FillOp>(op))
    return lowerFill(op, x);
  if (auto x = dyn_cast<tensor::CastOp>(op))
    return lowerCast(op, x);
  if (auto x = dyn_cast<tensor::InsertSliceOp>(op))
    return lowerInsertSlice(op, x);
  if (auto x = dyn_cast<tensor::ExtractSliceOp>(op))
    return lowerExtractSlice(op, x);
  if (auto x = dyn_cast<func::ReturnOp>(op))
    return lowerReturn(op, x);
  if (auto x = dyn_cast<scf::ForOp>(op))
    return lowerFor(op, x);
  if (auto x = dyn_cast<scf::WhileOp>(op))
    return lowerWhile(op, x);
  if (auto x = dyn_cast<scf::IfOp>(op))
    return lowerIf(op, x);
  if (auto x = dyn_cast<scf::ConditionOp>(op))
    return lowerCondition(op, x);
  if (auto x = dyn_cast<scf::YieldOp>(op))
    return lowerYield(op, x);
  if (auto x = dyn_cast<tensor::ExtractOp>(op))
    return lowerExtract(op, x);
  if (isa<arith::ArithDialect>(op.getDialect()) && op.getNumResults() == 1 &&
      !isa<ShapedType>(op.getResult(0).getType()))
    return lowerScalar(op);
  return opError(&op, comp,
                 "'" + op.getName().getStringRef() +
                     "' is not supported by jitrun's host program yet");
}

std::optional<int> HostLowering::holdResource(ElementsAttr elements, size_t size) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(elements);
  DialectResourceBlobManager::BlobEntry *entry =
      resource ? resource.getRawHandle().getResource() : nullptr;
  AsmResourceBlob *blob = entry ? entry->getBlob() : nullptr;
  if (!blob || size == 0 || blob->getData().size() != size ||
      reinterpret_cast<uintptr_t>(blob->getData().data()) % 64 != 0)
    return std::nullopt;
  const char *data = blob->getData().data();
  llvm::StringRef model = comp.parsedInPlace;
  if (data >= model.begin() && data < model.end())
    return std::nullopt; // the caller's bytes: copied
  std::shared_ptr<const void> owner;
  auto region = llvm::find_if(comp.mappedRegions, [&](const MappedRegion &r) {
    return data >= r.bytes.begin() && data + size <= r.bytes.end();
  });
  if (region != comp.mappedRegions.end()) {
    owner = region->owner;
    stats.mappedConstantBytes = saturatingAdd(stats.mappedConstantBytes, int64_t(size));
  } else if (auto it = heldBlobs.find(data); it != heldBlobs.end()) {
    owner = it->second;
  } else if (blob->getDeleter()) {
    // The blob owns its data: the program takes it over, and the context
    // keeps a reference to the same bytes (the context goes first).
    auto taken = std::make_shared<AsmResourceBlob>(std::move(*blob));
    entry->setBlob(UnmanagedAsmResourceBlob::allocateWithAlign(taken->getData(),
                                                               taken->getDataAlignment()));
    owner = std::shared_ptr<const void>(taken, data);
    heldBlobs[data] = owner;
  } else {
    return std::nullopt;
  }
  if (llvm::find(p.sharedConstants, owner) == p.sharedConstants.end())
    p.sharedConstants.push_back(owner);
  return p.addBuffer(Buffer{BufferKind::Constant, 0, size, data});
}

llvm::Error HostLowering::lowerConstant(Operation &op, arith::ConstantOp cst) {
  auto elements = dyn_cast<ElementsAttr>(cst.getValue());
  if (!elements)
    return llvm::Error::success(); // scalars are read where they are used (fills)
  std::optional<TensorSpec> spec = tensorSpecOf(cst.getType());
  if (!spec)
    return opError(&op, comp, "constant of unsupported type");
  stats.constantBytes = saturatingAdd(stats.constantBytes, specBytes(*spec));
  if (llvm::Error e = comp.checkMemoryLimit("constants"))
    return e;
  size_t size = static_cast<size_t>(specBytes(*spec));
  if (std::optional<int> held = holdResource(elements, size)) {
    bufferOf[cst.getResult()] = *held;
    return llvm::Error::success();
  }
  // Weights of 2 MiB or more in huge pages, like large tensors.
  AlignedStorage storage = allocateAligned(size + 1);
  if (!storage)
    return opError(&op, comp, "cannot allocate the constant's storage");
  if (llvm::Error e = writeConstantBytes(elements, elementSize(spec->type),
                                         static_cast<uint8_t *>(storage.get()), size))
    return opError(&op, comp, llvm::toString(std::move(e)));
  bufferOf[cst.getResult()] = p.addBuffer(
      Buffer{BufferKind::Constant, 0, size, static_cast<uint8_t *>(storage.get())});
  p.ownedConstants.push_back(std::move(storage));
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerCall(Operation &op, func::CallOp call) {
  auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
  if (!callee || !callee->hasAttr(kDispatchAttrName))
    return opError(&op, comp, "calls to functions are not supported in the host program");
  Command c{Command::Dispatch};
  c.name = callee.getSymName().str();
  describeDispatch(callee, c.op, c.location, c.flops);
  std::vector<std::vector<int64_t>> argStrides(call.getNumOperands());
  for (auto [i, arg] : llvm::enumerate(call.getOperands())) {
    c.bindings.push_back(lookup(arg));
    // A concat that shares a buffer: read as its box of that buffer.
    auto shared = sharedStorage.find(arg);
    if (shared == sharedStorage.end())
      continue;
    llvm::ArrayRef<int64_t> shape = cast<RankedTensorType>(arg.getType()).getShape();
    argStrides[i] = toVector(computeStrides(shared->second.getShape()));
    viewReads[{p.commands.size(), i}] =
        Box{std::vector<int64_t>(shape.size(), 0), std::vector<int64_t>(shape.begin(), shape.end()),
            static_cast<int64_t>(specBytes(*tensorSpecOf(arg.getType())))};
  }
  for (auto [i, res] : llvm::enumerate(call.getResults())) {
    int b = newIntermediate(res);
    bufferOf[res] = b;
    c.bindings.push_back(b);
    callResult[res] = {calls.size(), static_cast<unsigned>(i)};
  }
  calls.push_back(CallSite{p.commands.size(), callee,
                           std::vector<std::vector<int64_t>>(call.getNumResults()),
                           std::move(argStrides)});
  p.commands.push_back(std::move(c));
  ++stats.dispatches;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerFill(Operation &op, linalg::FillOp fill) {
  if (!fill.hasPureTensorSemantics())
    return opError(&op, comp, "fill on buffers is not supported");
  Value scalar = fill.getDpsInputOperand(0)->get();
  auto cst = scalar.getDefiningOp<arith::ConstantOp>();
  std::optional<TensorSpec> spec = tensorSpecOf(fill.getResult(0).getType());
  if (!cst || !spec)
    return opError(&op, comp, "fill of a non-constant value in the host program");
  Command c{Command::Fill};
  size_t eb = elementSize(spec->type);
  c.pattern.resize(eb);
  Attribute value = cst.getValue();
  if (auto f = dyn_cast<FloatAttr>(value)) {
    llvm::APInt bits = f.getValue().bitcastToAPInt();
    uint64_t raw = bits.getZExtValue();
    std::memcpy(c.pattern.data(), &raw, eb);
  } else if (auto i = dyn_cast<IntegerAttr>(value)) {
    uint64_t raw = i.getValue().getZExtValue();
    if (spec->type == ElementType::I1)
      raw = raw ? 1 : 0;
    std::memcpy(c.pattern.data(), &raw, eb);
  } else {
    return opError(&op, comp, "fill value is not a number");
  }
  c.dst = newIntermediate(fill.getResult(0));
  bufferOf[fill.getResult(0)] = c.dst;
  c.shape.assign(spec->shape.begin(), spec->shape.end());
  c.name = "fill:" + spec->str();
  c.op = "linalg.fill";
  c.location = sourcePosition(op.getLoc());
  p.commands.push_back(std::move(c));
  ++stats.fills;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerCast(Operation &op, tensor::CastOp cast) {
  if (!tensorSpecOf(cast.getType()))
    return opError(&op, comp, "cast to a dynamic shape is not supported");
  bufferOf[cast.getResult()] = lookup(cast.getSource());
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerInsertSlice(Operation &op, tensor::InsertSliceOp insert) {
  if (sharedStorage.count(insert.getDest()))
    return lowerSharedInsert(op, insert);
  Value dest = insert.getDest();
  // The fill command that wrote `dest`, when a fill did.
  auto fillOfDest = [&]() -> const Command * {
    if (!dest.getDefiningOp<linalg::FillOp>())
      return nullptr;
    int b = lookup(dest);
    for (const Command &c : llvm::reverse(p.commands))
      if (c.kind == Command::Fill && c.dst == b && c.holeSizes.empty())
        return &c;
    return nullptr;
  };
  int out;
  const Command *fill = nullptr;
  if (isExclusive(dest, &op)) {
    out = lookup(dest);
  } else if (dest.getDefiningOp<tensor::EmptyOp>()) {
    // An empty that several concats share (CSE merges equal ones): its
    // contents are undefined, nothing to copy (SqueezeNet: 8 whole copies
    // of concat buffers per run).
    out = newIntermediate(insert.getResult());
  } else if ((fill = fillOfDest())) {
    // A fill that several pads share (CSE merges equal ones): this insert
    // fills a buffer of its own, which the slice copy below makes a border
    // fill, instead of copying the shared one whole (Inception v3: 55 whole
    // copies of padded buffers).
    out = newIntermediate(insert.getResult());
    Command c = *fill;
    c.dst = out;
    p.commands.push_back(std::move(c));
  } else {
    out = newIntermediate(insert.getResult());
    Command c{Command::CopyWhole};
    c.src = lookup(dest);
    c.dst = out;
    c.name = "copy:" + shapeName(dest.getType()) + "->" +
             shapeName(insert.getResult().getType());
    c.op = "tensor.insert_slice";
    c.location = sourcePosition(op.getLoc());
    p.commands.push_back(std::move(c));
    ++stats.copies;
  }
  bufferOf[insert.getResult()] = out;
  // The copy stays even when the dispatch writes the box in place: it is
  // dropped there only if finishInPlaceWrites() keeps the write.
  writeInPlace(insert, out);
  return makeCopy(op, insert.getSource(), insert.getSourceType(),
                  insert.getResult(), insert.getDestType(),
                  insert.getStaticOffsets(), insert.getStaticSizes(),
                  insert.getStaticStrides(), insert.getOffsets(),
                  /*sliceIsSource=*/false);
}

llvm::Error HostLowering::lowerExtractSlice(Operation &op, tensor::ExtractSliceOp extract) {
  int out = newIntermediate(extract.getResult());
  bufferOf[extract.getResult()] = out;
  return makeCopy(op, extract.getSource(), extract.getSourceType(),
                  extract.getResult(), extract.getResultType(),
                  extract.getStaticOffsets(), extract.getStaticSizes(),
                  extract.getStaticStrides(), extract.getOffsets(),
                  /*sliceIsSource=*/true);
}

llvm::Error HostLowering::lowerReturn(Operation &op, func::ReturnOp ret) {
  // A result held in an intermediate that nothing else shares lives in
  // the caller's result tensor instead: no copy at the end of a run.
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    int b = lookup(v);
    Buffer &buf = p.buffers[b];
    if (buf.kind == BufferKind::Intermediate && !llvm::is_contained(p.outputs, b)) {
      buf.kind = BufferKind::Output;
      buf.index = static_cast<int64_t>(i);
    }
    p.outputs.push_back(b);
  }
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerFor(Operation &op, scf::ForOp loop) {
  std::optional<int> lb = scalarReg(loop.getLowerBound()),
                     ub = scalarReg(loop.getUpperBound()), step = scalarReg(loop.getStep());
  if (!lb || !ub || !step)
    return opError(&op, comp, "scf.for bounds must be constants or host scalars");
  auto carried = carry(&op, loop.getInitArgs(), loop.getRegionIterArgs());
  if (!carried)
    return carried.takeError();
  size_t at = p.commands.size();
  Command c{Command::For};
  c.a = *lb;
  c.b = *ub;
  c.c = *step;
  c.reg = p.addRegister();
  c.name = "scf.for";
  regOf[loop.getInductionVar()] = c.reg;
  p.commands.push_back(std::move(c));
  carriedStack.push_back(*carried);
  if (llvm::Error e = lowerBlock(*loop.getBody()))
    return e;
  carriedStack.pop_back();
  p.commands[at].end = p.commands.size();
  for (auto [res, b] : llvm::zip(loop.getResults(), *carried))
    bufferOf[res] = b;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerWhile(Operation &op, scf::WhileOp loop) {
  if (TypeRange(ValueRange(loop.getBeforeArguments())) != TypeRange(loop.getResultTypes()))
    return opError(&op, comp,
                   "scf.while whose results differ in type from its arguments is not "
                   "supported by jitrun's host program yet");
  auto carried = carry(&op, loop.getInits(), loop.getBeforeArguments());
  if (!carried)
    return carried.takeError();
  size_t at = p.commands.size();
  Command c{Command::While};
  c.name = "scf.while";
  p.commands.push_back(std::move(c));
  carriedStack.push_back(*carried);
  whileStack.push_back(at);
  if (llvm::Error e = lowerBlock(loop.getBefore().front()))
    return e;
  whileStack.pop_back();
  p.commands[at].beforeEnd = p.commands.size();
  for (auto [arg, b] : llvm::zip(loop.getAfterArguments(), *carried))
    bufferOf[arg] = b;
  if (llvm::Error e = lowerBlock(loop.getAfter().front()))
    return e;
  carriedStack.pop_back();
  p.commands[at].end = p.commands.size();
  for (auto [res, b] : llvm::zip(loop.getResults(), *carried))
    bufferOf[res] = b;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerIf(Operation &op, scf::IfOp branch) {
  std::optional<int> cond = scalarReg(branch.getCondition());
  if (!cond)
    return opError(&op, comp, "the scf.if condition must be a host scalar");
  std::vector<int> results;
  for (Value r : branch.getResults()) {
    if (!tensorSpecOf(r.getType()))
      return opError(&op, comp,
                     "scf.if yielding a scalar or dynamically shaped value is not "
                     "supported by jitrun's host program yet; yield a static tensor");
    results.push_back(newIntermediate(r));
  }
  size_t at = p.commands.size();
  Command c{Command::If};
  c.reg = *cond;
  c.name = "scf.if";
  p.commands.push_back(std::move(c));
  carriedStack.push_back(results);
  if (llvm::Error e = lowerBlock(branch.getThenRegion().front()))
    return e;
  p.commands[at].beforeEnd = p.commands.size();
  if (!branch.getElseRegion().empty())
    if (llvm::Error e = lowerBlock(branch.getElseRegion().front()))
      return e;
  carriedStack.pop_back();
  p.commands[at].end = p.commands.size();
  for (auto [res, b] : llvm::zip(branch.getResults(), results))
    bufferOf[res] = b;
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerCondition(Operation &op, scf::ConditionOp cond) {
  std::optional<int> r = scalarReg(cond.getCondition());
  if (!r || whileStack.empty())
    return opError(&op, comp, "the scf.condition must be a host scalar");
  p.commands[whileStack.back()].reg = *r;
  transfer(cond.getArgs(), carriedStack.back());
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerYield(Operation &op, scf::YieldOp yield) {
  if (carriedStack.empty() || !isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op.getParentOp()))
    return opError(&op, comp, "scf.yield outside scf.for, scf.while or scf.if");
  transfer(yield.getOperands(), carriedStack.back());
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerExtract(Operation &op, tensor::ExtractOp extract) {
  std::optional<TensorSpec> spec = tensorSpecOf(extract.getTensor().getType());
  if (!spec)
    return opError(&op, comp, "tensor.extract from an unsupported tensor type");
  Command c{Command::Extract};
  c.src = lookup(extract.getTensor());
  c.type = spec->type;
  c.copy.srcShape = spec->shape;
  for (Value index : extract.getIndices()) {
    std::optional<int> r = scalarReg(index);
    if (!r)
      return opError(&op, comp, "tensor.extract index must be a host scalar");
    // Constant indices are registers too (set at the start of a run).
    c.indices.push_back(0);
    c.indexRegs.push_back(*r);
  }
  c.reg = p.addRegister();
  c.name = "tensor.extract";
  regOf[extract.getResult()] = c.reg;
  p.commands.push_back(std::move(c));
  return llvm::Error::success();
}

llvm::Error HostLowering::lowerScalar(Operation &op) {
  std::optional<ScalarOp> kind =
      llvm::TypeSwitch<Operation *, std::optional<ScalarOp>>(&op)
          .Case([](arith::AddIOp) { return ScalarOp::AddI; })
          .Case([](arith::SubIOp) { return ScalarOp::SubI; })
          .Case([](arith::MulIOp) { return ScalarOp::MulI; })
          .Case([](arith::DivSIOp) { return ScalarOp::DivSI; })
          .Case([](arith::RemSIOp) { return ScalarOp::RemSI; })
          .Case([](arith::DivUIOp) { return ScalarOp::DivUI; })
          .Case([](arith::RemUIOp) { return ScalarOp::RemUI; })
          .Case([](arith::MaxSIOp) { return ScalarOp::MaxSI; })
          .Case([](arith::MinSIOp) { return ScalarOp::MinSI; })
          .Case([](arith::AndIOp) { return ScalarOp::AndI; })
          .Case([](arith::OrIOp) { return ScalarOp::OrI; })
          .Case([](arith::XOrIOp) { return ScalarOp::XOrI; })
          .Case([](arith::CmpIOp) { return ScalarOp::CmpI; })
          .Case([](arith::SelectOp) { return ScalarOp::Select; })
          .Case([](arith::ExtSIOp) { return ScalarOp::ExtSI; })
          .Case([](arith::ExtUIOp) { return ScalarOp::ExtUI; })
          .Case([](arith::TruncIOp) { return ScalarOp::TruncI; })
          .Case([](arith::IndexCastOp) { return ScalarOp::IndexCast; })
          .Case([](arith::AddFOp) { return ScalarOp::AddF; })
          .Case([](arith::SubFOp) { return ScalarOp::SubF; })
          .Case([](arith::MulFOp) { return ScalarOp::MulF; })
          .Case([](arith::DivFOp) { return ScalarOp::DivF; })
          .Case([](arith::MaximumFOp) { return ScalarOp::MaxF; })
          .Case([](arith::MinimumFOp) { return ScalarOp::MinF; })
          .Case([](arith::CmpFOp) { return ScalarOp::CmpF; })
          .Case([](arith::SIToFPOp) { return ScalarOp::SIToFP; })
          .Case([](arith::FPToSIOp) { return ScalarOp::FPToSI; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return opError(&op, comp,
                   "scalar '" + op.getName().getStringRef() +
                       "' is not supported by jitrun's host program yet");
  Command c{Command::Scalar};
  c.scalar = *kind;
  int *slots[] = {&c.a, &c.b, &c.c};
  if (op.getNumOperands() > 3)
    return opError(&op, comp, "scalar op with more than three operands");
  for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
    std::optional<int> r = scalarReg(operand);
    if (!r)
      return opError(&op, comp, "operand " + llvm::Twine(i) + " is not a host scalar");
    *slots[i] = *r;
  }
  c.width = widthOf(op.getResult(0).getType());
  c.operandWidth = op.getNumOperands() ? widthOf(op.getOperand(op.getNumOperands() - 1).getType()) : 64;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    c.predicate = static_cast<int>(cmp.getPredicate());
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    c.predicate = static_cast<int>(cmp.getPredicate());
  c.reg = p.addRegister();
  c.name = op.getName().getStringRef().str();
  regOf[op.getResult(0)] = c.reg;
  p.commands.push_back(std::move(c));
  return llvm::Error::success();
}

llvm::Error HostLowering::makeCopy(Operation &op, Value src, RankedTensorType srcType,
                                   Value dstVal, RankedTensorType dstType,
                                   llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
                                   llvm::ArrayRef<int64_t> strides, ValueRange dynamicOffsets,
                                   bool sliceIsSource) {
  if (llvm::any_of(sizes, ShapedType::isDynamic) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return opError(&op, comp, "slices with dynamic sizes or strides are not supported");
  // Dynamic offsets are host scalars (a loop's induction variable).
  std::vector<int> offsetRegs;
  if (llvm::any_of(offsets, ShapedType::isDynamic)) {
    auto next = dynamicOffsets.begin();
    for (int64_t o : offsets) {
      if (!ShapedType::isDynamic(o)) {
        offsetRegs.push_back(-1);
        continue;
      }
      std::optional<int> r = scalarReg(*next++);
      if (!r)
        return opError(&op, comp, "slice offset is not a host scalar");
      offsetRegs.push_back(*r);
    }
  }
  Command c{Command::Copy};
  c.name = "copy:" + shapeName(srcType) + "->" + shapeName(dstType);
  c.op = op.getName().getStringRef().str();
  c.location = sourcePosition(op.getLoc());
  CopyCommand &cc = c.copy;
  cc.src = lookup(src);
  cc.dst = bufferOf.lookup(dstVal);
  cc.eltBytes = elementSize(*toElementType(srcType.getElementType()));
  cc.srcShape.assign(srcType.getShape().begin(), srcType.getShape().end());
  cc.dstShape.assign(dstType.getShape().begin(), dstType.getShape().end());
  size_t rank = sliceIsSource ? srcType.getRank() : dstType.getRank();
  std::vector<int64_t> zeros(rank, 0), ones(rank, 1);
  // Sizes are over the sliced tensor's rank; a rank-reducing slice keeps
  // the unit dimensions in the full tensor only.
  cc.sizes.assign(sizes.begin(), sizes.end());
  if (sliceIsSource) {
    cc.srcOffsets.assign(offsets.begin(), offsets.end());
    cc.srcStrides.assign(strides.begin(), strides.end());
    cc.srcOffsetRegs = offsetRegs;
    cc.dstOffsets = zeros;
    cc.dstStrides = ones;
    cc.dstShape = cc.sizes;
  } else {
    cc.dstOffsets.assign(offsets.begin(), offsets.end());
    cc.dstStrides.assign(strides.begin(), strides.end());
    cc.dstOffsetRegs = offsetRegs;
    cc.srcOffsets = zeros;
    cc.srcStrides = ones;
    cc.srcShape = cc.sizes;
  }
  // A pad: a fill of this buffer right before a copy into a box of it.
  // The fill writes only the border; the copy writes the box.
  Command *prev = p.commands.empty() ? nullptr : &p.commands.back();
  if (!sliceIsSource && prev && prev->kind == Command::Fill && prev->dst == cc.dst &&
      prev->holeSizes.empty() &&
      offsetRegs.empty() && prev->shape.size() == cc.sizes.size() &&
      llvm::all_of(cc.dstStrides, [](int64_t s) { return s == 1; })) {
    prev->holeOffsets = cc.dstOffsets;
    prev->holeSizes = cc.sizes;
    prev->name += ":border";
  }
  p.commands.push_back(std::move(c));
  ++stats.copies;
  return llvm::Error::success();
}

llvm::Error Compilation::buildHostProgram(func::FuncOp entry, ModuleOp module) {
  return HostLowering(*this, module).run(entry);
}

} // namespace jitrun
