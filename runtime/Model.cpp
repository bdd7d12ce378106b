//===- Model.cpp - import, fuse, compile, and the host program -----------===//
//
// Drives the phases over one MLIRContext per model, collects their
// diagnostics as `file:line:col: error: ...` text in llvm::Error values, and
// builds the host program that runs the compiled kernels on the worker pool.
//
//===----------------------------------------------------------------------===//

#include "runtime/Model.h"

#include "codegen/Passes.h"
#include "codegen/jit/Jit.h"
#include "fusion/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cstring>

using namespace mlir;

namespace jitrun {

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string TensorSpec::str() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elementTypeName(type).str();
}

static std::optional<ElementType> toElementType(Type t) {
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

//===----------------------------------------------------------------------===//
// The host program
//===----------------------------------------------------------------------===//

namespace {

/// Where a buffer's memory comes from.
enum class BufferKind { Input, Constant, Intermediate, Output };

struct Buffer {
  BufferKind kind;
  int64_t index = 0;  // input or result number, or offset into the arena
  size_t bytes = 0;
  const void *constant = nullptr;
};

/// A strided box copy between two row-major buffers.
struct CopyCommand {
  int src, dst;
  size_t eltBytes;
  std::vector<int64_t> sizes, srcShape, dstShape, srcOffsets, dstOffsets,
      srcStrides, dstStrides;
};

struct Command {
  enum Kind { Dispatch, Fill, Copy, CopyWhole } kind;
  // Dispatch
  KernelFn fn = nullptr;
  int64_t workgroups = 1;
  std::vector<int> bindings;
  std::string name;
  // Fill / CopyWhole
  int dst = -1, src = -1;
  std::vector<uint8_t> pattern;
  // Copy
  CopyCommand copy;
};

} // namespace

class HostProgram {
public:
  std::vector<Buffer> buffers;
  std::vector<Command> commands;
  std::vector<int> outputs;
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  size_t arenaBytes = 0;
  /// Intermediates arena, allocated once and reused by every run.
  std::unique_ptr<uint8_t[]> arenaStorage;
  uint8_t *arena = nullptr;
  /// Constant data owned by the program (splats expanded, etc.).
  std::vector<std::unique_ptr<uint8_t[]>> ownedConstants;
  bool singleThreaded = false;

  int addBuffer(Buffer b) {
    buffers.push_back(b);
    return static_cast<int>(buffers.size() - 1);
  }

  /// Places the intermediates (results live in the caller's tensors).
  void allocate() {
    arenaBytes = 0;
    for (Buffer &b : buffers) {
      if (b.kind != BufferKind::Intermediate)
        continue;
      b.index = static_cast<int64_t>(arenaBytes);
      arenaBytes += (b.bytes + 63) / 64 * 64;
    }
    arenaStorage.reset(new uint8_t[arenaBytes + 64]);
    uintptr_t p = reinterpret_cast<uintptr_t>(arenaStorage.get());
    arena = reinterpret_cast<uint8_t *>((p + 63) / 64 * 64);
  }

  static void stridedCopy(const CopyCommand &c, const uint8_t *src, uint8_t *dst) {
    size_t rank = c.sizes.size();
    if (rank == 0) {
      std::memcpy(dst, src, c.eltBytes);
      return;
    }
    auto rowMajorStrides = [](const std::vector<int64_t> &shape) {
      std::vector<int64_t> s(shape.size(), 1);
      for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
        s[i] = s[i + 1] * shape[i + 1];
      return s;
    };
    std::vector<int64_t> ss = rowMajorStrides(c.srcShape), ds = rowMajorStrides(c.dstShape);
    std::vector<int64_t> idx(rank, 0);
    int64_t total = 1;
    for (int64_t s : c.sizes)
      total *= s;
    if (total == 0)
      return;
    bool innerContiguous = c.srcStrides.back() == 1 && c.dstStrides.back() == 1;
    int64_t inner = innerContiguous ? c.sizes.back() : 1;
    size_t innerDims = innerContiguous ? 1 : 0;
    while (true) {
      int64_t so = 0, dof = 0;
      for (size_t d = 0; d < rank; ++d) {
        so += (c.srcOffsets[d] + idx[d] * c.srcStrides[d]) * ss[d];
        dof += (c.dstOffsets[d] + idx[d] * c.dstStrides[d]) * ds[d];
      }
      std::memcpy(dst + dof * c.eltBytes, src + so * c.eltBytes, inner * c.eltBytes);
      int d = static_cast<int>(rank - innerDims) - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < c.sizes[d])
          break;
        idx[d] = 0;
      }
      if (d < 0)
        break;
    }
  }

  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<const HostTensor *> inputs,
                                              ThreadPool &pool) {
    std::vector<HostTensor> results;
    for (const TensorSpec &spec : outputSpecs)
      results.emplace_back(spec.type, spec.shape);
    if (llvm::Error e = runInto(inputs, results, pool))
      return std::move(e);
    return results;
  }

  /// Runs with the caller's result tensors: dispatches that compute a result
  /// write straight into them.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      std::vector<HostTensor> &results, ThreadPool &pool) {
    if (inputs.size() != inputSpecs.size())
      return makeError("expected " + llvm::Twine(inputSpecs.size()) +
                       " inputs, got " + llvm::Twine(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const HostTensor *t = inputs[i];
      if (!t)
        return makeError("input " + llvm::Twine(i) + " is null");
      if (t->elementType() != inputSpecs[i].type || t->shape() != inputSpecs[i].shape)
        return makeError("input " + llvm::Twine(i) + ": expected shape and type " +
                         inputSpecs[i].str() + ", got " + t->typeString());
    }
    if (results.size() != outputSpecs.size())
      return makeError("expected " + llvm::Twine(outputSpecs.size()) +
                       " result tensors, got " + llvm::Twine(results.size()));
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].elementType() != outputSpecs[i].type ||
          results[i].shape() != outputSpecs[i].shape)
        return makeError("result " + llvm::Twine(i) + ": expected shape and type " +
                         outputSpecs[i].str() + ", got " + results[i].typeString());
    std::vector<void *> ptrs(buffers.size());
    for (size_t b = 0; b < buffers.size(); ++b) {
      const Buffer &buf = buffers[b];
      switch (buf.kind) {
      case BufferKind::Input:
        ptrs[b] = const_cast<void *>(inputs[buf.index]->data());
        break;
      case BufferKind::Constant:
        ptrs[b] = const_cast<void *>(buf.constant);
        break;
      case BufferKind::Intermediate:
        ptrs[b] = arena + buf.index;
        break;
      case BufferKind::Output:
        ptrs[b] = results[buf.index].data();
        break;
      }
    }
    std::vector<void *> args;
    for (const Command &c : commands) {
      switch (c.kind) {
      case Command::Dispatch: {
        args.clear();
        for (int b : c.bindings)
          args.push_back(ptrs[b]);
        KernelFn fn = c.fn;
        void **argv = args.data();
        auto body = [fn, argv](int64_t wg) -> llvm::Error {
          fn(argv, wg);
          return llvm::Error::success();
        };
        if (singleThreaded || c.workgroups == 1) {
          for (int64_t wg = 0; wg < c.workgroups; ++wg)
            fn(argv, wg);
        } else if (llvm::Error e = pool.parallelFor(c.workgroups, body)) {
          return std::move(e);
        }
        break;
      }
      case Command::Fill: {
        uint8_t *dst = static_cast<uint8_t *>(ptrs[c.dst]);
        size_t n = buffers[c.dst].bytes, p = c.pattern.size();
        bool zero = llvm::all_of(c.pattern, [](uint8_t v) { return v == 0; });
        if (zero) {
          std::memset(dst, 0, n);
        } else {
          for (size_t off = 0; off + p <= n; off += p)
            std::memcpy(dst + off, c.pattern.data(), p);
        }
        break;
      }
      case Command::CopyWhole:
        std::memcpy(ptrs[c.dst], ptrs[c.src], buffers[c.dst].bytes);
        break;
      case Command::Copy:
        stridedCopy(c.copy, static_cast<const uint8_t *>(ptrs[c.copy.src]),
                    static_cast<uint8_t *>(ptrs[c.copy.dst]));
        break;
      }
    }
    // Results not computed in place (an input, a constant, a buffer shared
    // by two results) are copied.
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Buffer &buf = buffers[outputs[i]];
      if (buf.kind == BufferKind::Output && buf.index == static_cast<int64_t>(i))
        continue;
      std::memcpy(results[i].data(), ptrs[outputs[i]], results[i].byteSize());
    }
    return llvm::Error::success();
  }
};

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

struct CompiledModel::Impl {
  CompileOptions options;
  std::unique_ptr<MLIRContext> context;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<KernelJit> jit;
  HostProgram program;
  Statistics stats;
  std::vector<std::string> warnings;
  std::vector<std::string> explanations;
  std::mutex runMutex;

  /// Collects diagnostics as text; errors and warnings apart.
  struct Diagnostics {
    std::string errors;
    std::vector<std::string> warnings;
    std::vector<std::string> remarks;
  };

  llvm::Error compile(llvm::StringRef bytes, llvm::StringRef name);
  llvm::Error runPasses(ModuleOp module, llvm::function_ref<void(PassManager &)> build,
                        Diagnostics &diags);
  llvm::Error buildHostProgram(func::FuncOp entry, ModuleOp module);
  llvm::Expected<std::pair<KernelFn, int64_t>> compileKernel(func::FuncOp dispatch,
                                                             ModuleOp module);
  std::string formatDiagnostic(Diagnostic &diag);
  std::map<std::string, std::pair<KernelFn, int64_t>> kernelCache;
};

/// The first file location inside `loc`, if any.
static std::optional<FileLineColLoc> fileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

static llvm::StringRef severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// `file:line:col: error: message` (or `jitrun: error: message` without a
/// location), then its notes, one per line.
std::string CompiledModel::Impl::formatDiagnostic(Diagnostic &diag) {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto line = [&](Location loc, DiagnosticSeverity sev, const std::string &msg) {
    if (std::optional<FileLineColLoc> f = fileLocation(loc))
      os << f->getFilename().getValue() << ":" << f->getLine() << ":"
         << f->getColumn() << ": ";
    else
      os << "jitrun: ";
    os << severityName(sev) << ": " << msg << "\n";
  };
  line(diag.getLocation(), diag.getSeverity(), diag.str());
  // A remark is one line (the fusion explanations are grepped).
  if (diag.getSeverity() != DiagnosticSeverity::Remark)
    for (Diagnostic &note : diag.getNotes())
      line(note.getLocation(), note.getSeverity(), note.str());
  return out;
}

llvm::Error CompiledModel::Impl::runPasses(ModuleOp module,
                                           llvm::function_ref<void(PassManager &)> build,
                                           Diagnostics &diags) {
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &diag) {
    std::string text = formatDiagnostic(diag);
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diags.errors += text;
    else if (diag.getSeverity() == DiagnosticSeverity::Warning)
      diags.warnings.push_back(text);
    else if (diag.getSeverity() == DiagnosticSeverity::Remark)
      diags.remarks.push_back(llvm::StringRef(text).rtrim().str());
    return success();
  });
  PassManager pm(context.get(), ModuleOp::getOperationName());
  if (options.configurePassManager)
    options.configurePassManager(pm);
  build(pm);
  if (failed(pm.run(module))) {
    if (diags.errors.empty())
      diags.errors = "jitrun: error: a compiler pass failed\n";
    return makeError(llvm::StringRef(diags.errors).rtrim());
  }
  return llvm::Error::success();
}

static bool isStackLimitError(llvm::StringRef text) {
  return text.contains("exceeded stack allocation limit");
}

llvm::Expected<std::pair<KernelFn, int64_t>>
CompiledModel::Impl::compileKernel(func::FuncOp dispatch, ModuleOp module) {
  // Deduplicate: identical bodies with identical shapes share one kernel.
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    func::FuncOp copy = cast<func::FuncOp>(dispatch->clone());
    copy.setSymName("k");
    copy->print(os, OpPrintingFlags().printGenericOpForm().skipRegions(false));
    copy->erase();
  }
  // Locations differ between identical kernels; they are not printed by
  // default, so the key is the body and the shapes alone.
  if (auto it = kernelCache.find(key); it != kernelCache.end())
    return it->second;

  std::string name = dispatch.getSymName().str();
  CodegenOptions cg;
  cg.vectorBits = options.forceAvx2 ? 256 : hostCpu().vectorBits();
  cg.stackLimitBytes = options.stackLimitBytes;
  cg.reference = options.reference;
  const unsigned scales[] = {1, 2, 4, 8};
  OwningOpRef<ModuleOp> kernelModule;
  Diagnostics diags;
  for (unsigned attempt = 0; attempt < 4; ++attempt) {
    bool last = attempt == 3 || options.reference;
    cg.tileScale = scales[attempt];
    cg.failOnStackLimit = last ? options.failOnStackLimit : true;
    kernelModule = ModuleOp::create(dispatch.getLoc());
    kernelModule->push_back(cast<func::FuncOp>(dispatch->clone()));
    cast<func::FuncOp>(kernelModule->front()).setPublic();
    diags = Diagnostics();
    llvm::Error err = runPasses(*kernelModule, [&](PassManager &pm) {
      buildKernelPipeline(pm, cg);
    }, diags);
    if (!err)
      break;
    std::string message = llvm::toString(std::move(err));
    if (last || !isStackLimitError(message))
      return makeError(message);
  }
  for (std::string &w : diags.warnings)
    warnings.push_back(w);
  auto kernelFn = kernelModule->lookupSymbol<func::FuncOp>(name);
  if (!kernelFn)
    return makeError("jitrun: error: kernel '" + name + "' vanished during codegen");
  int64_t workgroups = 1, stackBytes = 0;
  if (auto a = kernelFn->getAttrOfType<IntegerAttr>(kWorkgroupsAttrName))
    workgroups = a.getInt();
  if (auto a = kernelFn->getAttrOfType<IntegerAttr>(kStackBytesAttrName))
    stackBytes = a.getInt();
  stats.stackBytesMax = std::max(stats.stackBytesMax, stackBytes);
  // A kernel is vector code when it has vector ops and no innermost loop
  // that moves data element by element.
  bool scalar = false, vector = false;
  kernelFn.walk([&](Operation *op) {
    if (isa<vector::VectorDialect>(op->getDialect()))
      vector = true;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return;
    bool inner = true, hasVector = false, hasScalarAccess = false;
    loop.getBody()->walk([&](Operation *nested) {
      if (isa<scf::ForOp>(nested))
        inner = false;
      if (isa<vector::VectorDialect>(nested->getDialect()))
        hasVector = true;
      if (isa<memref::LoadOp, memref::StoreOp>(nested))
        hasScalarAccess = true;
    });
    if (inner && !hasVector && hasScalarAccess)
      scalar = true;
  });
  if (vector && !scalar)
    ++stats.vectorizedOps;
  else
    ++stats.scalarOps;
  Diagnostics lowerDiags;
  if (llvm::Error err = runPasses(*kernelModule, [&](PassManager &pm) {
        buildLowerToLLVMPipeline(pm);
      }, lowerDiags))
    return std::move(err);
  if (llvm::Error err = jit->addModule(*kernelModule, {name}))
    return std::move(err);
  llvm::Expected<KernelFn> fn = jit->lookup(name);
  if (!fn)
    return fn.takeError();
  ++stats.executables;
  auto result = std::make_pair(*fn, workgroups);
  kernelCache[key] = result;
  return result;
}

/// Raw bytes of a constant tensor, row-major, one element per slot.
static llvm::Expected<std::vector<uint8_t>> constantBytes(ElementsAttr attr,
                                                          size_t eltBytes) {
  auto type = cast<ShapedType>(attr.getType());
  int64_t n = type.getNumElements();
  std::vector<uint8_t> out(n * eltBytes);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (type.getElementType().isInteger(1)) {
      int64_t i = 0;
      for (bool v : dense.getValues<bool>())
        out[i++] = v ? 1 : 0;
      return out;
    }
    llvm::ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(out.data() + i * eltBytes, raw.data(), eltBytes);
    } else {
      if (raw.size() != out.size())
        return makeError("constant has unexpected storage size");
      std::memcpy(out.data(), raw.data(), out.size());
    }
    return out;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return makeError("dense_resource constant has no data (missing blob)");
    llvm::ArrayRef<char> raw = blob->getData();
    if (raw.size() != out.size())
      return makeError("dense_resource constant holds " + llvm::Twine(raw.size()) +
                       " bytes, expected " + llvm::Twine(out.size()));
    std::memcpy(out.data(), raw.data(), out.size());
    return out;
  }
  return makeError("unsupported constant encoding");
}

static llvm::Error opError(Operation *op, CompiledModel::Impl &impl,
                           const llvm::Twine &msg) {
  std::string text;
  {
    ScopedDiagnosticHandler handler(impl.context.get(), [&](Diagnostic &diag) {
      text += impl.formatDiagnostic(diag);
      return success();
    });
    op->emitError(msg);
  }
  return makeError(llvm::StringRef(text).rtrim());
}

llvm::Error CompiledModel::Impl::buildHostProgram(func::FuncOp entry, ModuleOp module) {
  HostProgram &p = program;
  llvm::DenseMap<Value, int> bufferOf;
  auto specOf = [](Type t) -> std::optional<TensorSpec> {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return std::nullopt;
    std::optional<ElementType> et = toElementType(rt.getElementType());
    if (!et)
      return std::nullopt;
    return TensorSpec{*et, std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end())};
  };
  auto bytesOf = [](const TensorSpec &s) {
    size_t n = elementSize(s.type);
    for (int64_t d : s.shape)
      n *= d;
    return n;
  };
  auto newIntermediate = [&](Value v) -> int {
    TensorSpec spec = *specOf(v.getType());
    return p.addBuffer(Buffer{BufferKind::Intermediate, 0, bytesOf(spec), nullptr});
  };
  // A value's buffer, materialized on first use for tensor.empty.
  auto lookup = [&](Value v) -> int {
    auto it = bufferOf.find(v);
    if (it != bufferOf.end())
      return it->second;
    int b = newIntermediate(v);
    bufferOf[v] = b;
    return b;
  };
  auto isExclusive = [&](Value v, Operation *user) {
    int b = lookup(v);
    return p.buffers[b].kind == BufferKind::Intermediate && v.hasOneUse() &&
           *v.getUsers().begin() == user &&
           llvm::count_if(bufferOf, [&](auto &kv) { return kv.second == b; }) == 1;
  };

  for (BlockArgument arg : entry.getArguments()) {
    std::optional<TensorSpec> spec = specOf(arg.getType());
    if (!spec)
      return makeError("entry function '" + entry.getSymName() + "' argument " +
                       llvm::Twine(arg.getArgNumber()) +
                       " has a type jitrun cannot run yet: it needs a statically "
                       "shaped tensor of f32, f64, f16, bf16 or integers");
    p.inputSpecs.push_back(*spec);
    bufferOf[arg] = p.addBuffer(Buffer{BufferKind::Input, arg.getArgNumber(),
                                       bytesOf(*spec), nullptr});
  }
  for (Type t : entry.getFunctionType().getResults()) {
    std::optional<TensorSpec> spec = specOf(t);
    if (!spec)
      return makeError("entry function '" + entry.getSymName() +
                       "' returns a type jitrun cannot run yet");
    p.outputSpecs.push_back(*spec);
  }

  for (Operation &op : entry.getBody().front()) {
    if (isa<arith::ConstantOp, tensor::EmptyOp>(op) && op.use_empty())
      continue;
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto elements = dyn_cast<ElementsAttr>(cst.getValue());
      if (!elements)
        continue; // scalars are read where they are used (fills)
      std::optional<TensorSpec> spec = specOf(cst.getType());
      if (!spec)
        return opError(&op, *this, "constant of unsupported type");
      auto data = constantBytes(elements, elementSize(spec->type));
      if (!data)
        return opError(&op, *this, llvm::toString(data.takeError()));
      auto storage = std::make_unique<uint8_t[]>(data->size() + 1);
      std::memcpy(storage.get(), data->data(), data->size());
      bufferOf[cst.getResult()] =
          p.addBuffer(Buffer{BufferKind::Constant, 0, data->size(), storage.get()});
      p.ownedConstants.push_back(std::move(storage));
      continue;
    }
    if (isa<tensor::EmptyOp>(op))
      continue; // allocated on first use
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee || !callee->hasAttr(kDispatchAttrName))
        return opError(&op, *this, "calls to functions are not supported in the host program");
      auto kernel = compileKernel(callee, module);
      if (!kernel)
        return kernel.takeError();
      Command c{Command::Dispatch};
      c.fn = kernel->first;
      c.workgroups = kernel->second;
      c.name = callee.getSymName().str();
      for (Value arg : call.getOperands())
        c.bindings.push_back(lookup(arg));
      for (Value res : call.getResults()) {
        int b = newIntermediate(res);
        bufferOf[res] = b;
        c.bindings.push_back(b);
      }
      p.commands.push_back(std::move(c));
      ++stats.dispatches;
      stats.workgroups += kernel->second;
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.hasPureTensorSemantics())
        return opError(&op, *this, "fill on buffers is not supported");
      Value scalar = fill.getDpsInputOperand(0)->get();
      auto cst = scalar.getDefiningOp<arith::ConstantOp>();
      std::optional<TensorSpec> spec = specOf(fill.getResult(0).getType());
      if (!cst || !spec)
        return opError(&op, *this, "fill of a non-constant value in the host program");
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
        return opError(&op, *this, "fill value is not a number");
      }
      c.dst = newIntermediate(fill.getResult(0));
      bufferOf[fill.getResult(0)] = c.dst;
      p.commands.push_back(std::move(c));
      ++stats.fills;
      continue;
    }
    if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(op)) {
      bufferOf[reshape.getResult()] = lookup(reshape.getSrc());
      continue;
    }
    if (auto reshape = dyn_cast<tensor::ExpandShapeOp>(op)) {
      bufferOf[reshape.getResult()] = lookup(reshape.getSrc());
      continue;
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      if (!specOf(cast.getType()))
        return opError(&op, *this, "cast to a dynamic shape is not supported");
      bufferOf[cast.getResult()] = lookup(cast.getSource());
      continue;
    }
    auto makeCopy = [&](Value src, RankedTensorType srcType, Value dstVal,
                        RankedTensorType dstType, llvm::ArrayRef<int64_t> offsets,
                        llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides,
                        bool sliceIsSource) -> llvm::Error {
      if (llvm::any_of(offsets, ShapedType::isDynamic) ||
          llvm::any_of(sizes, ShapedType::isDynamic) ||
          llvm::any_of(strides, ShapedType::isDynamic))
        return opError(&op, *this, "slices with dynamic offsets, sizes or strides are not supported");
      Command c{Command::Copy};
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
        cc.dstOffsets = zeros;
        cc.dstStrides = ones;
        cc.dstShape = cc.sizes;
      } else {
        cc.dstOffsets.assign(offsets.begin(), offsets.end());
        cc.dstStrides.assign(strides.begin(), strides.end());
        cc.srcOffsets = zeros;
        cc.srcStrides = ones;
        cc.srcShape = cc.sizes;
      }
      p.commands.push_back(std::move(c));
      ++stats.copies;
      return llvm::Error::success();
    };
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      Value dest = insert.getDest();
      int out;
      if (isExclusive(dest, &op)) {
        out = lookup(dest);
      } else {
        out = newIntermediate(insert.getResult());
        Command c{Command::CopyWhole};
        c.src = lookup(dest);
        c.dst = out;
        p.commands.push_back(std::move(c));
        ++stats.copies;
      }
      bufferOf[insert.getResult()] = out;
      if (llvm::Error e = makeCopy(insert.getSource(), insert.getSourceType(),
                                   insert.getResult(), insert.getDestType(),
                                   insert.getStaticOffsets(), insert.getStaticSizes(),
                                   insert.getStaticStrides(), /*sliceIsSource=*/false))
        return e;
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      int out = newIntermediate(extract.getResult());
      bufferOf[extract.getResult()] = out;
      if (llvm::Error e = makeCopy(extract.getSource(), extract.getSourceType(),
                                   extract.getResult(), extract.getResultType(),
                                   extract.getStaticOffsets(), extract.getStaticSizes(),
                                   extract.getStaticStrides(), /*sliceIsSource=*/true))
        return e;
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
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
      continue;
    }
    return opError(&op, *this,
                   "'" + op.getName().getStringRef() +
                       "' is not supported by jitrun's host program yet");
  }
  for (const Buffer &b : p.buffers)
    if (b.kind == BufferKind::Intermediate)
      stats.transientBytes += b.bytes;
  p.singleThreaded = options.reference;
  p.allocate();
  return llvm::Error::success();
}

/// Ops jitrun can take in: the dialects it registers, with static shapes.
static llvm::Error checkSupported(func::FuncOp entry, CompiledModel::Impl &impl) {
  for (BlockArgument arg : entry.getArguments())
    if (auto shaped = dyn_cast<ShapedType>(arg.getType()); shaped && !shaped.hasStaticShape())
      return opError(entry, impl,
                     "argument " + llvm::Twine(arg.getArgNumber()) +
                         " has a dynamic shape; jitrun runs static shapes only");
  llvm::Error result = llvm::Error::success();
  entry.walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      if (auto shaped = dyn_cast<ShapedType>(t); shaped && !shaped.hasStaticShape()) {
        result = opError(op, impl,
                         "result type " + [&] {
                           std::string s;
                           llvm::raw_string_ostream os(s);
                           os << t;
                           return s;
                         }() + " has a dynamic shape; jitrun runs static shapes only");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return result;
}

llvm::Error CompiledModel::Impl::compile(llvm::StringRef bytes, llvm::StringRef name) {
  auto start = std::chrono::steady_clock::now();
  if (bytes.empty())
    return makeError("jitrun: error: '" + name + "' is empty");
  DialectRegistry registry;
  registerJitrunDialects(registry);
  context = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  // Errors name the op by location; dumping the whole op (often a whole
  // kernel) after each message helps nobody reading the CLI output.
  context->printOpOnDiagnostic(false);
  context->loadAllAvailableDialects();
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, name), llvm::SMLoc());

  std::string parseErrors;
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        parseErrors += formatDiagnostic(diag);
      return success();
    });
    ParserConfig config(context.get());
    module = parseSourceFile<ModuleOp>(sourceMgr, config);
  }
  if (!module) {
    if (parseErrors.empty())
      parseErrors = ("jitrun: error: '" + name + "' is not a valid MLIR module").str();
    return makeError(llvm::StringRef(parseErrors).rtrim());
  }

  // The entry point.
  func::FuncOp entry;
  if (!options.function.empty()) {
    entry = module->lookupSymbol<func::FuncOp>(options.function);
    if (!entry || entry.isExternal())
      return makeError("jitrun: error: no function named '" + options.function +
                       "' in '" + name + "'");
  } else {
    SmallVector<func::FuncOp> publics;
    for (auto fn : module->getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        publics.push_back(fn);
    if (publics.size() == 1)
      entry = publics.front();
    else
      entry = module->lookupSymbol<func::FuncOp>("main");
    if (!entry)
      return makeError("jitrun: error: '" + name +
                       "' has no single public function and no @main; pick one "
                       "with --function=NAME");
  }
  std::string entryName = entry.getSymName().str();
  // Only the entry function is compiled.
  for (auto fn : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (fn != entry)
      fn.erase();
  entry.setPublic();

  std::optional<FusionMode> mode = parseFusionMode(options.fusion);
  if (!mode)
    return makeError("jitrun: error: unknown fusion mode '" + options.fusion +
                     "'; expected default, aggressive or none");
  if (options.reference)
    mode = FusionMode::None;
  stats.function = entryName;
  stats.fusion = fusionModeName(*mode).str();

  Diagnostics diags;
  if (llvm::Error e = runPasses(*module, [](PassManager &pm) { buildImportPipeline(pm); }, diags))
    return e;
  entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (llvm::Error e = checkSupported(entry, *this))
    return e;
  entry.walk([&](Operation *op) {
    if (isa<linalg::GenericOp>(op) || isElementwiseOp(op))
      ++stats.genericBefore;
  });
  FusionOptions fusion;
  fusion.mode = *mode;
  fusion.explain = options.explainFusion;
  if (llvm::Error e = runPasses(*module, [&](PassManager &pm) {
        buildFusionPipeline(pm, fusion);
      }, diags))
    return e;
  for (std::string &w : diags.warnings)
    warnings.push_back(w);
  for (std::string &r : diags.remarks)
    if (llvm::StringRef(r).contains("not fused: "))
      explanations.push_back(r);
  module->walk([&](Operation *op) {
    if (isa<linalg::GenericOp>(op))
      ++stats.genericAfter;
    if (isRootOp(op))
      ++stats.rootOps;
  });
  for (auto fn : module->getOps<func::FuncOp>())
    if (fn->hasAttr(kDispatchAttrName))
      ++stats.dispatchRegions;
  if (!options.dispatchGraphPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dispatchGraphPath, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      writeDispatchGraph(module->lookupSymbol<func::FuncOp>(entryName), os);
      os.close();
      ec = os.error();
      os.clear_error();
    }
    if (ec)
      return makeError("jitrun: error: cannot write dispatch graph '" +
                       options.dispatchGraphPath + "': " + ec.message());
  }

  auto jitOr = KernelJit::create(options.forceAvx2);
  if (!jitOr)
    return jitOr.takeError();
  jit = std::move(*jitOr);
  entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (llvm::Error e = buildHostProgram(entry, *module))
    return e;
  stats.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return llvm::Error::success();
}

CompiledModel::CompiledModel() : impl(std::make_unique<Impl>()) {}
CompiledModel::~CompiledModel() = default;

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileBuffer(llvm::StringRef bytes, llvm::StringRef name,
                             const CompileOptions &options) {
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  model->impl->options = options;
  if (llvm::Error e = model->impl->compile(bytes, name))
    return std::move(e);
  return model;
}

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileFile(llvm::StringRef path, const CompileOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("jitrun: error: cannot open '" + path +
                     "': " + buffer.getError().message());
  return compileBuffer((*buffer)->getBuffer(), path, options);
}

const std::vector<TensorSpec> &CompiledModel::inputs() const {
  return impl->program.inputSpecs;
}
const std::vector<TensorSpec> &CompiledModel::outputs() const {
  return impl->program.outputSpecs;
}
const Statistics &CompiledModel::statistics() const { return impl->stats; }
const std::vector<std::string> &CompiledModel::fusionExplanations() const {
  return impl->explanations;
}

const std::vector<std::string> &CompiledModel::warnings() const {
  return impl->warnings;
}

llvm::Expected<std::vector<HostTensor>>
CompiledModel::run(llvm::ArrayRef<const HostTensor *> inputs, ThreadPool &pool) {
  std::lock_guard<std::mutex> lock(impl->runMutex);
  return impl->program.run(inputs, pool);
}

llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   std::vector<HostTensor> &results, ThreadPool &pool) {
  std::lock_guard<std::mutex> lock(impl->runMutex);
  return impl->program.runInto(inputs, results, pool);
}

} // namespace jitrun
