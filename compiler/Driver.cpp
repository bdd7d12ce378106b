//===- Driver.cpp - a model from bytes to a compiled program --------------===//
//
// The compile path, flat: parse -> entry point (callees inlined) -> import
// -> fusion -> host lowering (HostLowering.cpp) -> kernels (KernelCompiler),
// the signature and its specialization to a run's shapes in Signature.cpp,
// over one MLIRContext per model, with each phase's diagnostics collected as
// `file:line:col: error: ...` text. The CLI and the C API both come here
// through compileModel.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compilation.h"

#include "compiler/Cache.h"
#include "compiler/ProgramCache.h"

#include "codegen/Passes.h"
#include "contract/Dispatch.h"
#include "contract/Target.h"
#include "contract/WeightMemo.h"
#include "fusion/Passes.h"
#include "onnx/Import.h"
#include "onnx/Wire.h"
#include "support/Files.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/BuiltinDialect.h"
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
#include <new>
#include <optional>
#include <pthread.h>

using namespace mlir;

namespace jitrun {

llvm::Error opError(Operation *op, Compilation &impl,
                           const llvm::Twine &msg) {
  std::string text;
  {
    ScopedDiagnosticHandler handler(impl.context(), [&](Diagnostic &diag) {
      text += impl.formatDiagnostic(diag);
      return success();
    });
    op->emitError(msg);
  }
  return compileError(llvm::StringRef(text).rtrim());
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

llvm::Error Compilation::runPasses(ModuleOp module,
                                           llvm::function_ref<void(PassManager &)> build,
                                           Diagnostics &diags) {
  ScopedDiagnosticHandler handler(context(), [&](Diagnostic &diag) {
    std::string text = formatDiagnostic(diag);
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diags.errors += text;
    else if (diag.getSeverity() == DiagnosticSeverity::Warning)
      diags.warnings.push_back(text);
    else if (diag.getSeverity() == DiagnosticSeverity::Remark)
      diags.remarks.push_back(llvm::StringRef(text).rtrim().str());
    return success();
  });
  PassManager pm(context(), ModuleOp::getOperationName());
  if (options.configurePassManager)
    options.configurePassManager(pm);
  build(pm);
  if (failed(pm.run(module))) {
    if (diags.errors.empty())
      diags.errors = "a compiler pass failed\n";
    return compileError(llvm::StringRef(diags.errors).rtrim());
  }
  return llvm::Error::success();
}

size_t specBytes(const TensorSpec &s) {
  uint64_t n = elementSize(s.type);
  for (int64_t d : s.shape)
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
      return std::numeric_limits<int64_t>::max();
  return std::min<uint64_t>(n, std::numeric_limits<int64_t>::max());
}

llvm::Error Compilation::checkMemoryLimit(llvm::StringRef when) const {
  // Without a limit, the host's memory is one: a model that cannot fit is
  // refused before its constants are allocated, not killed by the kernel.
  uint64_t limit = options.memoryLimitBytes ? options.memoryLimitBytes : physicalMemoryBytes();
  if (!limit)
    return llvm::Error::success();
  int64_t results = 0;
  for (const TensorSpec &spec : program.outputSpecs)
    results = saturatingAdd(results, static_cast<int64_t>(specBytes(spec)));
  int64_t total = saturatingAdd(saturatingAdd(stats.constantBytes, stats.transientBytes), results);
  if (static_cast<uint64_t>(total) <= limit)
    return llvm::Error::success();
  std::string over = options.memoryLimitBytes
                         ? "the memory limit of " + std::to_string(limit) + " bytes"
                         : "this host's memory of " + std::to_string(limit) + " bytes";
  return makeError(ErrorCode::ResourceExhausted,
                   "model '" + stats.function + "' needs " + llvm::Twine(total) +
                       " bytes of host memory (constants " + llvm::Twine(stats.constantBytes) +
                       ", intermediates of one run " + llvm::Twine(stats.transientBytes) +
                       ", results " + llvm::Twine(results) + ", counted up to " + when +
                       "), over " + over + "; raise the limit or use smaller shapes");
}

/// Ops jitrun can take in: the dialects it registers, with static shapes.
static llvm::Error checkSupported(func::FuncOp entry, Compilation &impl) {
  for (BlockArgument arg : entry.getArguments())
    if (auto shaped = dyn_cast<ShapedType>(arg.getType()); shaped && !shaped.hasStaticShape())
      return opError(entry, impl,
                     "argument " + llvm::Twine(arg.getArgNumber()) +
                         " has a dynamic shape; jitrun runs static shapes only");
  llvm::Error result = llvm::Error::success();
  auto typeText = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  entry.walk([&](Operation *op) {
    // What the import left unconverted: TOSA lowers computation on unsigned
    // integers to casts it cannot resolve.
    auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
    if (cast && !op->getParentOfType<linalg::LinalgOp>()) {
      Type from = cast->getOperandTypes().empty() ? Type() : cast->getOperandTypes().front();
      Type to = cast->getResultTypes().empty() ? Type() : cast->getResultTypes().front();
      Type unsignedType = getElementTypeOrSelf(from).isUnsignedInteger() ? from : to;
      result = opError(op, impl,
                       getElementTypeOrSelf(unsignedType).isUnsignedInteger()
                           ? "this op computes on unsigned integers (" + typeText(unsignedType) +
                                 "), which the TOSA lowering does not support; use signless "
                                 "integers (i8) and tosa.rescale or tosa.cast where the "
                                 "signedness matters"
                           : "the import left a value of type " +
                                 (from ? typeText(from) : std::string("?")) +
                                 " that could not be converted to " +
                                 (to ? typeText(to) : std::string("?")));
      return WalkResult::interrupt();
    }
    auto isComplex = [](Type t) { return isa<ComplexType>(getElementTypeOrSelf(t)); };
    if (llvm::any_of(op->getResultTypes(), isComplex) ||
        llvm::any_of(op->getOperandTypes(), isComplex)) {
      result = opError(op, impl,
                       "complex numbers are not supported by jitrun ('" +
                           op->getName().getStringRef() + "' on complex values)");
      return WalkResult::interrupt();
    }
    for (Type t : op->getResultTypes()) {
      if (auto shaped = dyn_cast<ShapedType>(t); shaped && !shaped.hasStaticShape()) {
        result = opError(op, impl,
                         "result type " + [&] {
                           std::string s;
                           llvm::raw_string_ostream os(s);
                           os << t;
                           return s;
                         }() + " has a dynamic shape that the input shapes do not "
                               "determine; jitrun compiles each run's shapes statically");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return result;
}

/// An ONNX model: named .onnx, or binary that starts as a ModelProto.
/// The deepest nesting of brackets ((, [, {, <) the text parser is given;
/// real models nest a few dozen levels. Deeper input (a dense literal
/// 20000 levels deep, a million '(') would recurse the parser off its stack.
static constexpr int kMaxTextNesting = 1000;

/// Where textual `bytes` nest deeper than kMaxTextNesting, as "LINE:COL";
/// "" if they do not. Strings and comments are skipped; `->`, `<=` and `>=`
/// are not brackets.
static std::string excessiveNesting(llvm::StringRef bytes) {
  int depth = 0, line = 1, col = 0;
  for (size_t i = 0, n = bytes.size(); i < n; ++i) {
    char c = bytes[i];
    ++col;
    if (c == '\n') {
      ++line, col = 0;
    } else if (c == '"') {
      for (++i; i < n && bytes[i] != '"' && bytes[i] != '\n'; ++i)
        if (bytes[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < n && bytes[i + 1] == '/') {
      while (i + 1 < n && bytes[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' ||
               (c == '<' && !(i + 1 < n && bytes[i + 1] == '='))) {
      if (++depth > kMaxTextNesting)
        return std::to_string(line) + ":" + std::to_string(col);
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && !(i > 0 && bytes[i - 1] == '-') &&
                !(i + 1 < n && bytes[i + 1] == '='))) {
      depth = std::max(0, depth - 1);
    }
  }
  return "";
}

static bool isOnnx(llvm::StringRef bytes, llvm::StringRef name) {
  return name.ends_with(".onnx") || looksLikeOnnx(bytes);
}

static constexpr llvm::StringLiteral kCacheEntryAttr = "jitrun.cache.entry",
                                     kCacheEntryPointsAttr = "jitrun.cache.entry_points",
                                     kCacheGenericBeforeAttr = "jitrun.cache.generic_before",
                                     kCacheWarningsAttr = "jitrun.cache.warnings",
                                     kCacheDimsAttr = "jitrun.cache.dims";

/// Removes annotateForCache's attributes: host lowering sees the module as
/// fusion left it.
static void dropCacheAnnotations(ModuleOp module) {
  for (llvm::StringRef a : {kCacheEntryAttr, kCacheEntryPointsAttr, kCacheGenericBeforeAttr,
                            kCacheWarningsAttr, kCacheDimsAttr})
    module->removeAttr(a);
}

llvm::Error Compilation::loadFusedModule(llvm::StringRef bytes, llvm::StringRef name,
                                         OwningOpRef<ModuleOp> &module, std::string &entryName,
                                         bool &wroteCache) {
  DialectRegistry registry;
  registerJitrunDialects(registry);
  mlirContext = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  // Errors name the op by location; dumping the whole op (often a whole
  // kernel) after each message helps nobody reading the CLI output.
  context()->printOpOnDiagnostic(false);
  context()->loadAllAvailableDialects();
  // A warm start: the fused program from the cache; else import and fuse.
  ProgramCache cache(options, bytes);
  module = cache.read(*context());
  if (module && restoreFromCache(*module, entryName)) {
    stats.cachedProgram = 1;
    mappedRegions = cache.regions();
    return llvm::Error::success();
  }
  module = nullptr;
  {
    // Fusion reuses the weights an earlier compile of the model built.
    WeightMemo::Scope memo(context(), options.weightMemo);
    if (llvm::Error e = importAndFuse(bytes, name, module, entryName))
      return e;
    stats.reusedWeightBytes = memo.reusedBytes();
  }
  if (options.signatureOnly || dynamic || options.analyzeOnly || !cache.enabled())
    return llvm::Error::success();
  annotateForCache(*module, entryName);
  std::string problem = cache.write(*module);
  dropCacheAnnotations(*module);
  if (!problem.empty())
    warnings.push_back("program cache not written: " + problem);
  wroteCache = problem.empty();
  mappedRegions = cache.regions();
  return llvm::Error::success();
}

llvm::Error Compilation::collectShadowCalls(llvm::StringRef bytes, llvm::StringRef name) {
  Compilation shadow;
  shadow.options = options;
  shadow.options.argumentShapes = options.genericShapes;
  shadow.options.genericShapes.clear();
  shadow.options.progress = nullptr;
  shadow.options.explainFusion = false;
  OwningOpRef<ModuleOp> module;
  std::string entryName;
  bool wroteCache = false;
  if (llvm::Error e = shadow.loadFusedModule(bytes, name, module, entryName, wroteCache))
    return e;
  if (shadow.dynamic)
    return compileError("the generic shapes leave the model dynamic");
  auto entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!entry)
    return compileError("no entry at the generic shapes");
  entry.walk<WalkOrder::PreOrder>([&](func::CallOp call) {
    auto callee = module->lookupSymbol<func::FuncOp>(call.getCallee());
    if (callee && callee->hasAttr(kDispatchAttrName))
      shadowCalls.push_back({shapelessText(callee), flatDims(callee)});
  });
  return llvm::Error::success();
}

namespace {
/// A thread with a 1 GiB stack (reserved, touched only as used): MLIR's
/// parser, verifier and walks recurse once per level of nesting, and a
/// model nested deep in bytecode must not overflow a thread's stack (the
/// compile's own, and the generic twin's beside it).
class LargeStackThread {
public:
  /// Starts `fn`, which must outlive the thread; false if no thread could
  /// be started.
  bool start(llvm::function_ref<void()> fn) {
    call = fn;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      return false;
    pthread_attr_setstacksize(&attr, size_t(1) << 30);
    int rc = pthread_create(
        &thread, &attr,
        [](void *self) -> void * {
          static_cast<LargeStackThread *>(self)->call();
          return nullptr;
        },
        this);
    pthread_attr_destroy(&attr);
    running = rc == 0;
    return running;
  }
  void join() {
    if (running)
      pthread_join(thread, nullptr);
    running = false;
  }
  ~LargeStackThread() { join(); }

private:
  llvm::function_ref<void()> call;
  pthread_t thread{};
  bool running = false;
};
} // namespace

/// Runs `fn` on a LargeStackThread; false if none could be started.
static bool runOnLargeStack(llvm::function_ref<void()> fn) {
  LargeStackThread thread;
  if (!thread.start(fn))
    return false;
  thread.join();
  return true;
}

llvm::Error Compilation::compile(llvm::StringRef bytes, llvm::StringRef name) {
  auto start = std::chrono::steady_clock::now();
  if (bytes.empty())
    return compileError("'" + name + "' is empty");
  if (options.progress)
    options.progress("read", 0, 1);
  // The generic shapes' twin (collectShadowCalls) is imported and fused on
  // a thread of its own meanwhile, in its own context: the generic tier's
  // first result waited for the two one after the other. (Here, if no
  // thread can be made.)
  bool wantTwin = !options.genericShapes.empty() && !options.reference, twinFailed = false;
  auto importTwin = [&] {
    // On its own thread, out of memory must not escape (terminate): the
    // program then compiles without the twin, no kernel generic.
    try {
      if (llvm::Error e = collectShadowCalls(bytes, name)) {
        llvm::consumeError(std::move(e));
        twinFailed = true;
      }
    } catch (const std::bad_alloc &) {
      twinFailed = true;
    }
  };
  if (wantTwin && !options.modelHash)
    options.modelHash = std::make_shared<CompileOptions::ModelHash>();
  // (Joined by its destructor on every return.)
  LargeStackThread twin;
  bool twinThread = wantTwin && twin.start(importTwin);
  OwningOpRef<ModuleOp> module;
  std::string entryName;
  bool wroteCache = false;
  if (llvm::Error e = loadFusedModule(bytes, name, module, entryName, wroteCache))
    return e;
  // Only the signature, or the analysis (a cached program was analyzed when
  // it was written): nothing to compile.
  if (stats.cachedProgram ? options.analyzeOnly
                          : options.signatureOnly || dynamic || options.analyzeOnly)
    return llvm::Error::success();
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
    std::string graph;
    llvm::raw_string_ostream os(graph);
    writeDispatchGraph(module->lookupSymbol<func::FuncOp>(entryName), os);
    if (llvm::Error e = writeFileSafely(options.dispatchGraphPath, graph))
      return compileError("cannot write the dispatch graph: " +
                       llvm::toString(std::move(e)));
  }

  if (llvm::Error e = checkCancelled())
    return e;
  auto jitOr = KernelLoader::create(options.forceAvx2);
  if (!jitOr)
    return jitOr.takeError();
  jit = std::move(*jitOr);
  // The shapes that tell a dynamic dim's sizes in each dispatch: a model
  // that refuses them gets no generic kernels of its own dims.
  if (twinThread)
    twin.join();
  else if (wantTwin)
    importTwin();
  if (twinFailed)
    shadowCalls.clear();
  func::FuncOp entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (llvm::Error e = buildHostProgram(entry, *module))
    return e;
  // Keep the cache folder under its cap once something new went in.
  if (!options.cacheDir.empty() && (wroteCache || stats.cachedKernels < stats.executables))
    pruneCacheDir(options.cacheDir, options.cacheMaxBytes);
  stats.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return llvm::Error::success();
}

void Compilation::annotateForCache(ModuleOp module, llvm::StringRef entryName) {
  Builder b(module.getContext());
  auto strings = [&](const std::vector<std::string> &list) {
    SmallVector<Attribute> attrs;
    for (const std::string &s : list)
      attrs.push_back(b.getStringAttr(s));
    return b.getArrayAttr(attrs);
  };
  module->setAttr(kCacheEntryAttr, b.getStringAttr(entryName));
  module->setAttr(kCacheEntryPointsAttr, strings(entryPoints));
  module->setAttr(kCacheGenericBeforeAttr, b.getI64IntegerAttr(stats.genericBefore));
  module->setAttr(kCacheWarningsAttr, strings(warnings));
  // A dim's analysis as `name=d0,d1` (independent, the results' dims) or
  // `name` (not).
  std::vector<std::string> found;
  for (const DimAnalysis &d : dims) {
    std::string text = d.name;
    if (d.independent) {
      text += "=";
      for (size_t i = 0; i < d.outputDims.size(); ++i)
        text += (i ? "," : "") + std::to_string(d.outputDims[i]);
    }
    found.push_back(text);
  }
  module->setAttr(kCacheDimsAttr, strings(found));
}

bool Compilation::restoreFromCache(ModuleOp module, std::string &entryName) {
  auto entry = module->getAttrOfType<StringAttr>(kCacheEntryAttr);
  auto points = module->getAttrOfType<ArrayAttr>(kCacheEntryPointsAttr);
  auto before = module->getAttrOfType<IntegerAttr>(kCacheGenericBeforeAttr);
  auto warned = module->getAttrOfType<ArrayAttr>(kCacheWarningsAttr);
  auto found = module->getAttrOfType<ArrayAttr>(kCacheDimsAttr);
  dropCacheAnnotations(module);
  if (!entry || !points || !before || !warned || !found ||
      !module.lookupSymbol<func::FuncOp>(entry.getValue()))
    return false;
  entryName = entry.getValue().str();
  entryPoints.clear();
  warnings.clear();
  for (Attribute a : points)
    if (auto s = dyn_cast<StringAttr>(a))
      entryPoints.push_back(s.getValue().str());
  for (Attribute a : warned)
    if (auto s = dyn_cast<StringAttr>(a))
      warnings.push_back(s.getValue().str());
  dims.clear();
  for (Attribute a : found) {
    auto s = dyn_cast<StringAttr>(a);
    if (!s)
      return false;
    auto [dimName, outputs] = s.getValue().split('=');
    DimAnalysis d{dimName.str(), s.getValue().contains('='), {}};
    llvm::SmallVector<llvm::StringRef> parts;
    outputs.split(parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : parts) {
      int64_t v;
      if (p.getAsInteger(10, v))
        return false;
      d.outputDims.push_back(v);
    }
    dims.push_back(std::move(d));
  }
  stats.genericBefore = before.getInt();
  stats.function = entryName;
  stats.fusion = fusionModeName(options.reference ? FusionMode::None : options.fusion).str();
  return true;
}

/// Frees the data of every builtin resource blob of `module`'s context that
/// no attribute in `module` refers to any more: the weights that import
/// transposed and fusion packed or folded into new blobs would otherwise
/// stay in memory until the context goes (ViT-B/16: 330 MB of them).
static void releaseUnusedBlobs(ModuleOp module) {
  llvm::DenseSet<const void *> used;
  module->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      used.insert(attr.getRawHandle().getResource());
    });
  });
  auto &blobs = DenseResourceElementsHandle::getManagerInterface(module.getContext());
  std::vector<std::string> unused;
  blobs.getBlobManager().getBlobMap([&](const llvm::StringMap<DialectResourceBlobManager::BlobEntry> &map) {
    for (const auto &entry : map)
      if (!used.contains(&entry.second) && entry.second.getBlob() &&
          !entry.second.getBlob()->getData().empty())
        unused.push_back(entry.first().str());
  });
  for (const std::string &name : unused)
    if (DialectResourceBlobManager::BlobEntry *entry = blobs.getBlobManager().lookup(name))
      entry->setBlob(AsmResourceBlob());
}

llvm::Error Compilation::importAndFuse(llvm::StringRef bytes, llvm::StringRef name,
                                       OwningOpRef<ModuleOp> &module, std::string &entryName) {
  bool bytecode = bytes.starts_with("ML\xefR");
  if (!bytecode && !isOnnx(bytes, name)) {
    std::string where = excessiveNesting(bytes);
    if (!where.empty())
      return makeError(ErrorCode::InvalidArgument,
                       name + ":" + where + ": nesting deeper than " +
                           llvm::Twine(kMaxTextNesting) + " levels");
  }
  // Bytecode at a page boundary is parsed where it lies (the caller's bytes
  // outlive the compile): its weights stay there, not copied
  // (Compilation::parsedInPlace). Text needs its copy, null-terminated.
  auto inPlace = std::make_shared<llvm::SourceMgr>();
  if (bytecode && reinterpret_cast<uintptr_t>(bytes.data()) % kPageBytes == 0) {
    inPlace->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(bytes, name, /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    parsedInPlace = bytes;
  } else if (bytecode) {
    // Bytes at any address: a page-aligned copy, which every section's
    // alignment fits and the weights parsed in it keep alive.
    std::unique_ptr<llvm::WritableMemoryBuffer> copy = pageAlignedCopy(bytes, name);
    if (!copy)
      return makeError(ErrorCode::ResourceExhausted,
                       "no memory to parse the model's " + llvm::Twine(bytes.size()) + " bytes");
    inPlace->AddNewSourceBuffer(std::move(copy), llvm::SMLoc());
  } else if (!isOnnx(bytes, name)) {
    // (ONNX's importer reads the bytes as they are.)
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, name),
                                 llvm::SMLoc());
  }

  std::string parseErrors;
  {
    ScopedDiagnosticHandler handler(context(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        parseErrors += formatDiagnostic(diag);
      return success();
    });
    if (isOnnx(bytes, name)) {
      OnnxImportOptions onnxOptions;
      onnxOptions.inputShapes = options.inputShapes;
      onnxOptions.argumentShapes = options.argumentShapes;
      // QDQ models in int8 where the kernels multiply int8 faster than f32.
      onnxOptions.int8Contractions =
          hostCpu().vnni && !options.forceAvx2 && !options.reference;
      // Page-aligned bytes outlive the compile, as bytecode's above: weights
      // aligned in them (modelCopyForCompiles) are used where they lie.
      if (reinterpret_cast<uintptr_t>(bytes.data()) % kPageBytes == 0) {
        onnxOptions.weightsInPlace = true;
        parsedInPlace = bytes;
      }
      module = importOnnx(*context(), bytes, name, onnxOptions);
    } else {
      ParserConfig config(context());
      module = bytecode ? parseSourceFile<ModuleOp>(inPlace, config)
                        : parseSourceFile<ModuleOp>(sourceMgr, config);
    }
  }
  if (!module) {
    if (parseErrors.empty())
      parseErrors = ("'" + name + "' is not a valid MLIR module").str();
    return compileError(llvm::StringRef(parseErrors).rtrim());
  }

  for (auto fn : module->getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      entryPoints.push_back(fn.getSymName().str());
  // The entry point.
  func::FuncOp entry;
  if (isOnnx(bytes, name)) {
    // A dynamic ONNX model comes back as its signature, a declaration.
    func::FuncOp main = module->lookupSymbol<func::FuncOp>("main");
    if (main && main.isExternal()) {
      entryPoints.push_back("main");
      entryName = "main";
      dynamic = true;
      return readSignature(main);
    }
  }
  if (!options.function.empty()) {
    entry = module->lookupSymbol<func::FuncOp>(options.function);
    if (!entry || entry.isExternal())
      return compileError("no function named '" + options.function +
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
      return compileError("'" + name +
                       "' has no single public function and no @main; name the entry "
                       "function to compile");
  }
  entryName = entry.getSymName().str();
  bool dynamicArguments = hasDynamicShape(entry.getArgumentTypes());
  if (!options.argumentShapes.empty()) {
    if (llvm::Error e = specializeArguments(entry, options.argumentShapes))
      return e;
  } else if (dynamicArguments) {
    dynamic = true;
    return readSignature(entry);
  }
  if (options.signatureOnly)
    return readSignature(entry);
  // Functions the entry calls are inlined into it (no canonicalization on
  // the way: the entry is imported as written); a call that remains
  // (recursion, an external function) is an error that names it.
  bool hasCalls = false;
  entry.walk([&](func::CallOp) { hasCalls = true; });
  if (hasCalls) {
    Diagnostics inlineDiags;
    if (llvm::Error e = runPasses(*module, [](PassManager &pm) {
          pm.addPass(createInlinerPass({}, [](OpPassManager &) {}));
        }, inlineDiags))
      return e;
    entry = module->lookupSymbol<func::FuncOp>(entryName);
    llvm::Error callError = llvm::Error::success();
    entry.walk([&](func::CallOp call) {
      func::FuncOp callee = module->lookupSymbol<func::FuncOp>(call.getCallee());
      llvm::cantFail(std::move(callError));
      callError = opError(call, *this,
                          "the call to @" + call.getCallee() + " cannot be inlined (" +
                              (!callee ? "no such function"
                               : callee.isExternal() ? "an external function"
                                                     : "a recursive call") +
                              "); jitrun compiles one function with its callees inlined");
      return WalkResult::interrupt();
    });
    if (callError)
      return callError;
  }
  // Only the entry function is compiled.
  for (auto fn : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (fn != entry)
      fn.erase();
  entry.setPublic();

  FusionMode mode = options.reference ? FusionMode::None : options.fusion;
  stats.function = entryName;
  stats.fusion = fusionModeName(mode).str();

  Diagnostics diags;
  if (llvm::Error e = checkCancelled())
    return e;
  if (llvm::Error e = runPasses(*module, [](PassManager &pm) { buildImportPipeline(pm); }, diags))
    return e;
  releaseUnusedBlobs(*module);
  entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!options.argumentShapes.empty()) {
    refineResultTypes(entry);
    // A shape check that folded to false: the model refuses these shapes.
    llvm::Error refused = llvm::Error::success();
    entry.walk([&](cf::AssertOp check) {
      if (!matchPattern(check.getArg(), m_Zero()))
        return WalkResult::advance();
      llvm::consumeError(std::move(refused));
      refused = makeError(ErrorCode::ShapeMismatch,
                          llvm::toString(opError(check, *this,
                                                 "the model refuses these input shapes: " +
                                                     check.getMsg())));
      return WalkResult::interrupt();
    });
    if (refused)
      return refused;
    // The dims a run may be split along, seen before fusion reshapes them.
    for (const DimGroup &g : options.analyzeDims) {
      int64_t size = -1;
      for (auto [i, d] : llvm::enumerate(g.inputDims))
        if (d >= 0 && i < options.argumentShapes.size() &&
            d < int64_t(options.argumentShapes[i].size()))
          size = options.argumentShapes[i][d];
      if (size < 2)
        continue;
      std::optional<std::vector<int64_t>> outs = independentOutputDims(entry, g.inputDims, size);
      dims.push_back(DimAnalysis{g.name, outs.has_value(), outs.value_or(std::vector<int64_t>{})});
    }
    if (options.analyzeOnly)
      return llvm::Error::success();
  }
  if (llvm::Error e = checkSupported(entry, *this))
    return e;
  entry.walk([&](Operation *op) {
    if (isa<linalg::GenericOp>(op) || isElementwiseOp(op))
      ++stats.genericBefore;
  });
  if (llvm::Error e = checkCancelled())
    return e;
  if (options.progress)
    options.progress("fuse", 0, 1);
  FusionOptions fusion;
  fusion.mode = mode;
  fusion.explain = options.explainFusion;
  fusion.bf16Weights = options.bf16Weights && !options.reference;
  fusion.amxPanels = usesAmx(options);
  fusion.bf16Dot = !options.forceAvx2 && hostCpu().avx512Bf16();
  if (llvm::Error e = runPasses(*module, [&](PassManager &pm) {
        buildFusionPipeline(pm, fusion);
      }, diags))
    return e;
  releaseUnusedBlobs(*module);
  for (std::string &w : diags.warnings)
    warnings.push_back(w);
  for (std::string &r : diags.remarks)
    if (llvm::StringRef(r).contains("not fused: "))
      explanations.push_back(r);
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<CompiledProgram>>
compileModel(llvm::StringRef bytes, llvm::StringRef name, const CompileOptions &options) {
  Compilation c;
  c.options = options;
  llvm::Error result = llvm::Error::success();
  auto body = [&] {
    try {
      llvm::cantFail(std::move(result));
      result = c.compile(bytes, name);
    } catch (const std::bad_alloc &) {
      result = makeError(ErrorCode::ResourceExhausted,
                         "out of memory while compiling '" + name + "'");
    }
  };
  if (!runOnLargeStack(body))
    body();
  if (result)
    return std::move(result);
  auto out = std::make_unique<CompiledProgram>();
  out->program = std::move(c.program);
  out->loader = std::move(c.jit);
  out->stats = std::move(c.stats);
  out->warnings = std::move(c.warnings);
  out->explanations = std::move(c.explanations);
  out->entryPoints = std::move(c.entryPoints);
  out->dynamic = c.dynamic;
  out->dims = std::move(c.dims);
  return std::move(out);
}

std::unique_ptr<llvm::WritableMemoryBuffer> modelCopyForCompiles(llvm::StringRef bytes,
                                                                  llvm::StringRef name) {
  if (!isOnnx(bytes, name))
    return pageAlignedCopy(bytes, name);
  std::optional<size_t> size = onnximport::alignedModelSize(bytes);
  if (!size)
    return pageAlignedCopy(bytes, name);
  std::unique_ptr<llvm::WritableMemoryBuffer> copy =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(*size, name, llvm::Align(kPageBytes));
  if (copy)
    onnximport::alignedModelBytes(bytes, copy->getBufferStart());
  return copy;
}

llvm::Expected<std::string> readModelFile(llvm::StringRef path) {
  llvm::Expected<std::string> bytes = readRegularFile(path, "model");
  if (bytes)
    return bytes;
  ErrorCode code = ErrorCode::InvalidArgument;
  std::string message;
  llvm::handleAllErrors(bytes.takeError(), [&](const llvm::ErrorInfoBase &info) {
    if (info.convertToErrorCode() == std::errc::no_such_file_or_directory)
      code = ErrorCode::NotFound;
    message = info.message();
  });
  return makeError(code, message);
}

llvm::Expected<std::unique_ptr<CompiledProgram>> compileModelFile(llvm::StringRef path,
                                                                   const CompileOptions &options) {
  llvm::Expected<std::string> bytes = readModelFile(path);
  if (!bytes)
    return bytes.takeError();
  return compileModel(*bytes, path, options);
}

void registerCompilerOptions() {
  registerFusionPasses();
  registerCodegenPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
}

void applyCompilerOptions(PassManager &pm) {
  if (failed(applyPassManagerCLOptions(pm)))
    return;
  applyDefaultTimingPassManagerCLOptions(pm);
}

} // namespace jitrun
