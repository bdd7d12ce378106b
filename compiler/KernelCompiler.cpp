//===- KernelCompiler.cpp - dispatch functions to cached machine code ----===//
//
// Each distinct dispatch compiles in an MLIRContext of its own (several at
// once, one per core): the kernel pipeline, retried with smaller tiles while
// a kernel is over the stack limit, then the LLVM lowering and object
// emission. The kernel cache keeps the objects across runs.
//
//===----------------------------------------------------------------------===//

#include "compiler/KernelCompiler.h"

#include "codegen/Passes.h"
#include "codegen/EmitObject.h"
#include "compiler/Cache.h"
#include "compiler/Diagnostics.h"
#include "contract/Target.h"
#include "support/Files.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace mlir;

namespace jitrun {

/// A kernel is vector code when it has vector ops and no innermost loop that
/// moves data element by element.
static bool isVectorCode(func::FuncOp kernelFn) {
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
  return vector && !scalar;
}

/// Version of the code generator: part of the kernel cache key. Bump it when
/// codegen changes what a given dispatch compiles to.
static constexpr llvm::StringLiteral kCodegenVersion = "jitrun-codegen-8";

/// The most pixels of a KxK convolution's register tile on an AMD Zen host
/// (CodegenOptions::maxTapTilePixels): 24 accumulators, as the matmul tiles
/// over panels of two registers take.
static constexpr int64_t kZenMaxTapTilePixels = 12;

static DialectRegistry kernelDialects() {
  DialectRegistry registry;
  registerJitrunDialects(registry);
  return registry;
}

/// One compile thread's MLIR context and pipelines (MLIRContext is not for
/// concurrent use), reused for each kernel the thread compiles: loading the
/// dialects and initializing the pipelines' pattern sets once per thread
/// rather than once per kernel: cold compiles 4-5 % faster (DenseNet-121's
/// 134 kernels 4.00 -> 3.78 s, EfficientNet-B0 2.88 -> 2.77 s).
struct KernelWorkspace {
  explicit KernelWorkspace(const CompileOptions &options)
      : context(kernelDialects(), MLIRContext::Threading::DISABLED), options(options) {
    context.printOpOnDiagnostic(false);
    context.loadAllAvailableDialects();
  }
  /// The pass manager `build` fills, kept in `slot` when given one.
  PassManager &pipeline(std::unique_ptr<PassManager> &slot,
                        llvm::function_ref<void(PassManager &)> build) {
    if (!slot) {
      slot = std::make_unique<PassManager>(&context, ModuleOp::getOperationName());
      if (options.configurePassManager)
        options.configurePassManager(*slot);
      build(*slot);
    }
    return *slot;
  }
  MLIRContext context;
  const CompileOptions &options;
  /// The kernel pipeline at the first tile scale, and the lowering to LLVM.
  std::unique_ptr<PassManager> kernelPipeline, lowerPipeline;
};

/// Compiles one kernel (a dispatch function printed with locations) in the
/// calling thread's workspace, so that several compile at once.
static CompiledKernel compileKernelIsolated(KernelWorkspace &workspace, const std::string &text,
                                            const std::string &name, const std::string &symbol) {
  CompiledKernel r;
  MLIRContext &context = workspace.context;
  const CompileOptions &options = workspace.options;
  std::string errors;
  std::vector<std::string> warnings;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    std::string t = formatDiagnosticText(diag);
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors += t;
    else if (diag.getSeverity() == DiagnosticSeverity::Warning)
      warnings.push_back(t);
    return success();
  });
  // A pipeline kept in `slot`, or (null) one built for this run only.
  auto run = [&](ModuleOp m, std::unique_ptr<PassManager> *slot,
                 llvm::function_ref<void(PassManager &)> build) -> bool {
    std::unique_ptr<PassManager> once;
    return succeeded(workspace.pipeline(slot ? *slot : once, build).run(m));
  };
  CodegenOptions cg;
  cg.vectorBits = options.forceAvx2 ? 256 : hostCpu().vectorBits();
  cg.vnni = !options.forceAvx2 && hostCpu().avx512 && hostCpu().vnni;
  cg.bf16 = !options.forceAvx2 && hostCpu().avx512Bf16();
  // LLVM's scheduling models of AMD Zen cores (znver3 to znver5) spill the
  // accumulators of KxK convolution tiles of 13 or 14 pixels; at 12 they
  // stay in registers (TileSizeOptions::maxTapTilePixels).
  if (!options.forceAvx2 && llvm::StringRef(hostCpu().name).starts_with("znver"))
    cg.maxTapTilePixels = kZenMaxTapTilePixels;
  cg.stackLimitBytes = options.stackLimitBytes;
  cg.reference = options.reference;
  const unsigned scales[] = {1, 2, 4, 8};
  OwningOpRef<ModuleOp> kernelModule;
  for (unsigned attempt = 0; attempt < 4; ++attempt) {
    bool last = attempt == 3 || options.reference;
    cg.tileScale = scales[attempt];
    cg.failOnStackLimit = last ? options.failOnStackLimit : true;
    kernelModule = parseSourceString<ModuleOp>(text, &context);
    if (!kernelModule) {
      r.error = "kernel '" + name + "' did not reparse:\n" + errors;
      return r;
    }
    errors.clear();
    warnings.clear();
    if (run(*kernelModule, attempt == 0 ? &workspace.kernelPipeline : nullptr,
            [&](PassManager &pm) { buildKernelPipeline(pm, cg); }))
      break;
    if (errors.empty())
      errors = "a compiler pass failed\n";
    // Over the stack limit: retile with smaller tiles, unless this was the
    // last attempt; any other failure is final.
    auto failedFn = kernelModule->lookupSymbol<func::FuncOp>(name);
    bool overStack = failedFn && failedFn->hasAttr(kStackLimitExceededAttrName);
    if (last || !overStack) {
      r.error = llvm::StringRef(errors).rtrim().str();
      return r;
    }
  }
  r.warnings = warnings;
  auto kernelFn = kernelModule->lookupSymbol<func::FuncOp>(name);
  if (!kernelFn) {
    r.error = "kernel '" + name + "' vanished during codegen";
    return r;
  }
  if (auto a = kernelFn->getAttrOfType<IntegerAttr>(kWorkgroupsAttrName))
    r.workgroups = a.getInt();
  r.dynamicWorkgroups = kernelFn->hasAttr(kDynamicWorkgroupsAttrName);
  if (auto a = kernelFn->getAttrOfType<IntegerAttr>(kStackBytesAttrName))
    r.stackBytes = a.getInt();
  r.vector = isVectorCode(kernelFn);
  kernelFn.walk([&](LLVM::CallIntrinsicOp call) {
    r.vnni |= call.getIntrin().starts_with("llvm.x86.avx512.vpdpbusd");
  });
  kernelFn.walk([&](Operation *op) {
    if (isa<amx::TileMulFOp, amx::TileMulIOp>(op))
      r.amx = true;
  });
  // Diagnostics named the dispatch; machine code is named after the
  // kernel's content, so that cached objects never clash in the JIT.
  kernelFn.setSymName(symbol);
  addIndexCheckTable(*kernelModule, kernelFn, symbol);
  errors.clear();
  if (!run(*kernelModule, &workspace.lowerPipeline,
           [&](PassManager &pm) { buildLowerToLLVMPipeline(pm); })) {
    r.error = errors.empty() ? "lowering a kernel to LLVM failed"
                             : llvm::StringRef(errors).rtrim().str();
    return r;
  }
  llvm::Expected<std::string> object =
      emitKernelObject(*kernelModule, {symbol}, options.forceAvx2);
  if (!object) {
    r.error = llvm::toString(object.takeError());
    return r;
  }
  r.object = std::move(*object);
  return r;
}

/// The kernel cache: one file per kernel, `DIR/KEY.jrk`: a header line
///   jitrun-kernel KEY WORKGROUPS STACK_BYTES VECTOR ISA OBJECT_BYTES SHA256
/// (ISA: 1 for VNNI dot products, plus 2 for AMX tiles, plus 4 for a grid
/// that depends on a generic kernel's dim)
/// then the object file. The checksum covers the header's fields and the
/// object. An entry is used only when its key is the one asked for, its
/// checksum and fields are sound and its object defines the kernel's symbol:
/// anything else (truncated, edited, swapped, written by another version) is
/// a miss, compiled again and rewritten. Entries are written whole to a
/// temporary file and renamed (writeFileSafely), so a reader never sees half
/// of one and a failed write leaves nothing behind.
static constexpr llvm::StringLiteral kCacheMagic = "jitrun-kernel";

static std::string cacheChecksum(llvm::StringRef fields, llvm::StringRef object) {
  llvm::SHA256 sha;
  sha.update(fields);
  sha.update(object);
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

static std::string cacheFields(const std::string &key, const CompiledKernel &r) {
  int flags = (r.vnni ? 1 : 0) | (r.amx ? 2 : 0) | (r.dynamicWorkgroups ? 4 : 0);
  return key + " " + std::to_string(r.workgroups) + " " + std::to_string(r.stackBytes) + " " +
         (r.vector ? "1" : "0") + " " + std::to_string(flags) + " " +
         std::to_string(r.object.size());
}

static bool definesSymbol(llvm::StringRef object, llvm::StringRef symbol) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "cache-entry"));
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef &sym : (*parsed)->symbols()) {
    llvm::Expected<llvm::StringRef> name = sym.getName();
    llvm::Expected<uint32_t> flags = sym.getFlags();
    if (!name || !flags) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (*name == symbol && !(*flags & llvm::object::SymbolRef::SF_Undefined))
      return true;
  }
  return false;
}

static bool readCacheEntry(const std::string &dir, const std::string &key,
                           const std::string &symbol, CompiledKernel &r) {
  std::string path = dir + "/" + key + ".jrk";
  if (!llvm::sys::fs::exists(path))
    return false;
  llvm::Expected<std::string> bytes = readRegularFile(path, "cache entry");
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return false;
  }
  llvm::StringRef text(*bytes);
  auto [header, object] = text.split('\n');
  llvm::SmallVector<llvm::StringRef, 8> f;
  header.split(f, ' ');
  if (f.size() != 8 || f[0] != kCacheMagic || f[1] != key)
    return false;
  int64_t wg, sb, vec, flags, size;
  if (f[2].getAsInteger(10, wg) || f[3].getAsInteger(10, sb) || f[4].getAsInteger(10, vec) ||
      f[5].getAsInteger(10, flags) || f[6].getAsInteger(10, size))
    return false;
  if (wg < 1 || wg > kMaxWorkgroups || sb < 0 || (vec != 0 && vec != 1) ||
      flags < 0 || flags > 7 || size < 1 || static_cast<uint64_t>(size) != object.size())
    return false;
  std::string fields = header.drop_front(kCacheMagic.size() + 1).rsplit(' ').first.str();
  if (cacheChecksum(fields, object) != f[7])
    return false;
  // A copy, aligned as the object parser needs (the header has any length).
  std::string copy = object.str();
  // The JIT calls the kernel through its `_abi` wrapper (KernelLoader::lookup).
  if (!definesSymbol(copy, symbol + kKernelEntrySuffix) || !definesSymbol(copy, symbol + kKernelChecksSuffix))
    return false;
  r.object = std::move(copy);
  r.workgroups = wg;
  r.stackBytes = sb;
  r.vector = vec != 0;
  r.vnni = (flags & 1) != 0;
  r.amx = (flags & 2) != 0;
  r.dynamicWorkgroups = (flags & 4) != 0;
  r.fromCache = true;
  return true;
}

/// Writes the entry; returns why it could not, or "".
static std::string writeCacheEntry(const std::string &dir, const std::string &key,
                                   const CompiledKernel &r) {
  std::string fields = cacheFields(key, r);
  std::string image = kCacheMagic.str() + " " + fields + " " + cacheChecksum(fields, r.object) +
                      "\n" + r.object;
  if (llvm::Error e = writeFileSafely(dir + "/" + key + ".jrk", image))
    return llvm::toString(std::move(e));
  return "";
}

bool KernelMemo::find(const std::string &key, CompiledKernel &kernel) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = kernels.find(key);
  if (it == kernels.end())
    return false;
  kernel = it->second;
  kernel.fromCache = true;
  return true;
}

void KernelMemo::remember(const std::string &key, const CompiledKernel &kernel) {
  if (!kernel.error.empty() || kernel.object.size() > kMaxBytes)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, added] = kernels.try_emplace(key);
  if (added)
    order.push_back(key);
  else
    bytes -= std::min(bytes, it->second.object.size()); // the kernel it replaces
  it->second = kernel;
  // Warnings were given once, by the compile that made it (as a cache
  // folder's entries keep none).
  it->second.warnings.clear();
  bytes += kernel.object.size();
  while (bytes > kMaxBytes && !order.empty()) {
    auto old = kernels.find(order.front());
    if (old != kernels.end()) {
      bytes -= std::min(bytes, old->second.object.size());
      kernels.erase(old);
    }
    order.pop_front();
  }
}

KernelCompiler::KernelCompiler(const CompileOptions &options) : options(options) {}

std::string KernelCompiler::keyOf(func::FuncOp dispatch) const {
  // Identical bodies with identical shapes get one key: the caller
  // deduplicates on it.
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(dispatch->clone());
  copy->setSymName("k");
  std::string body;
  {
    llvm::raw_string_ostream os(body);
    copy->print(os, OpPrintingFlags().printGenericOpForm());
  }
  std::string keyText = body + "\n" + targetId(options.forceAvx2) + "\n" +
                        kCodegenVersion.str() + " " + compilerBinaryId() + " limit=" +
                        std::to_string(options.stackLimitBytes) +
                        (options.failOnStackLimit ? " fail" : " warn") +
                        (options.reference ? " reference" : "");
  llvm::SHA256 sha;
  sha.update(keyText);
  return llvm::toHex(sha.final(), /*LowerCase=*/true).substr(0, 32);
}

KernelJob KernelCompiler::makeJob(func::FuncOp dispatch) const {
  // The symbol is named after the key, so that objects from the cache
  // never clash in the JIT.
  KernelJob job;
  job.key = keyOf(dispatch);
  job.name = dispatch.getSymName().str();
  job.symbol = "k_" + job.key;
  func::FuncOp copy = cast<func::FuncOp>(dispatch->clone());
  copy.setPublic();
  OwningOpRef<ModuleOp> holder = ModuleOp::create(dispatch.getLoc());
  holder->push_back(copy);
  llvm::raw_string_ostream os(job.text);
  holder->print(os, OpPrintingFlags().enableDebugInfo());
  return job;
}

std::vector<CompiledKernel> KernelCompiler::compileAll(llvm::ArrayRef<KernelJob> jobs,
                                                       std::vector<std::string> &warnings) {
  std::vector<CompiledKernel> results(jobs.size());
  std::vector<std::string> cacheWriteErrors(jobs.size());
  useCache = !options.cacheDir.empty();
  if (useCache) {
    std::string problem = cacheDirProblem(options.cacheDir);
    if (!problem.empty()) {
      warnings.push_back("kernel cache directory '" + options.cacheDir +
                         "' cannot be used (" + problem + "); compiling without it");
      useCache = false;
    }
  }
  std::atomic<size_t> next{0};
  std::mutex progressMutex;
  size_t done = 0;
  auto reportDone = [&](bool finished) {
    if (!options.progress)
      return;
    std::lock_guard<std::mutex> lock(progressMutex);
    done += finished ? 1 : 0;
    options.progress("compile", done, jobs.size());
  };
  reportDone(false);
  auto worker = [&] {
    std::optional<KernelWorkspace> workspace;
    for (size_t i; (i = next.fetch_add(1)) < jobs.size(); reportDone(true)) {
      if (options.cancelled && options.cancelled()) {
        results[i].error = "the compile was cancelled";
        continue;
      }
      if (options.kernelMemo && options.kernelMemo->find(jobs[i].key, results[i]))
        continue;
      if (useCache && readCacheEntry(options.cacheDir, jobs[i].key, jobs[i].symbol, results[i])) {
        touchCacheEntry(options.cacheDir + "/" + jobs[i].key + ".jrk");
        if (options.kernelMemo)
          options.kernelMemo->remember(jobs[i].key, results[i]);
        continue;
      }
      if (!workspace)
        workspace.emplace(options);
      results[i] =
          compileKernelIsolated(*workspace, jobs[i].text, jobs[i].name, jobs[i].symbol);
      if (results[i].error.empty() && useCache)
        cacheWriteErrors[i] = writeCacheEntry(options.cacheDir, jobs[i].key, results[i]);
      if (options.kernelMemo)
        options.kernelMemo->remember(jobs[i].key, results[i]);
    }
  };
  // One context per thread (MLIRContext is not for concurrent use); at most
  // one thread per core.
  unsigned threads = std::max(1u, std::min<unsigned>(
      options.compileThreads ? options.compileThreads : std::thread::hardware_concurrency(),
      static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::exception &) {
      break; // no more threads to be had (a process at its limit): fewer compile them all
    }
  }
  worker();
  for (std::thread &t : pool)
    t.join();
  for (const std::string &e : cacheWriteErrors)
    if (!e.empty()) {
      // Once: a full disk fails every entry alike.
      warnings.push_back("kernel cache not written: " + e);
      break;
    }
  return results;
}

CompiledKernel KernelCompiler::recompile(const KernelJob &job) {
  KernelWorkspace workspace(options);
  CompiledKernel r = compileKernelIsolated(workspace, job.text, job.name, job.symbol);
  if (r.error.empty() && useCache)
    (void)writeCacheEntry(options.cacheDir, job.key, r);
  if (options.kernelMemo)
    options.kernelMemo->remember(job.key, r);
  return r;
}

} // namespace jitrun
