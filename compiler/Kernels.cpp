//===- Kernels.cpp - the kernels of a compilation -------------------------===//
//
// Each dispatch call of the host program registers its kernel: equal
// bodies (and result strides) share one. compileKernels() then compiles
// them all, in parallel and through the kernel cache, loads them into the
// JIT and binds the dispatch commands to them.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compilation.h"
#include "contract/Dispatch.h"

using namespace mlir;

namespace jitrun {

const std::string &Compilation::kernelKey(func::FuncOp dispatch) {
  auto it = kernelKeys.find(dispatch);
  if (it == kernelKeys.end())
    it = kernelKeys.try_emplace(dispatch, KernelCompiler(options).keyOf(dispatch)).first;
  return it->second;
}

int Compilation::registerKernel(func::FuncOp dispatch,
                                llvm::ArrayRef<std::vector<int64_t>> argStrides,
                                llvm::ArrayRef<std::vector<int64_t>> resultStrides) {
  // A buffer read or written in a box of a larger buffer makes a kernel of
  // its own: the strides are part of its code, and so of its key.
  auto anyStrides = [](llvm::ArrayRef<std::vector<int64_t>> all) {
    return llvm::any_of(all, [](const auto &s) { return !s.empty(); });
  };
  OwningOpRef<func::FuncOp> strided;
  if (anyStrides(argStrides) || anyStrides(resultStrides)) {
    strided = cast<func::FuncOp>(dispatch->clone());
    Builder b(context());
    auto attr = [&](llvm::ArrayRef<std::vector<int64_t>> all) {
      SmallVector<Attribute> each;
      for (const std::vector<int64_t> &s : all)
        each.push_back(b.getDenseI64ArrayAttr(s));
      return b.getArrayAttr(each);
    };
    if (anyStrides(argStrides))
      (*strided)->setAttr(kArgStridesAttrName, attr(argStrides));
    if (anyStrides(resultStrides))
      (*strided)->setAttr(kResultStridesAttrName, attr(resultStrides));
    dispatch = *strided;
  } else if (auto it = kernelIndex.find(kernelKey(dispatch)); it != kernelIndex.end()) {
    return it->second; // a body registered before: no job to print
  }
  KernelJob job = KernelCompiler(options).makeJob(dispatch);
  if (auto it = kernelIndex.find(job.key); it != kernelIndex.end())
    return it->second;
  kernelIndex[job.key] = static_cast<int>(kernels.size());
  kernels.push_back(PendingKernel{std::move(job)});
  return static_cast<int>(kernels.size() - 1);
}

llvm::Error Compilation::compileKernels() {
  KernelCompiler compiler(options);
  std::vector<KernelJob> jobs;
  for (const PendingKernel &k : kernels)
    jobs.push_back(k.job);
  std::vector<CompiledKernel> results = compiler.compileAll(jobs, warnings);
  // A generic kernel that failed to compile: its calls take kernels of
  // their own shapes, compiled now.
  size_t before = kernels.size();
  for (size_t i = 0; i < before; ++i) {
    if (results[i].error.empty() || kernels[i].specialized.empty())
      continue;
    kernels[i].unused = true;
    std::vector<SpecializedCall> calls = std::move(kernels[i].specialized);
    for (const SpecializedCall &call : calls) {
      Command &c = program.commands[call.command];
      c.kernel = registerKernel(call.callee, call.argStrides, call.resultStrides);
      c.dim = -1;
    }
  }
  if (kernels.size() > before) {
    jobs.clear();
    for (size_t i = before; i < kernels.size(); ++i)
      jobs.push_back(kernels[i].job);
    for (CompiledKernel &r : compiler.compileAll(jobs, warnings))
      results.push_back(std::move(r));
  }
  // Errors in program order: the first failing dispatch is reported.
  for (size_t i = 0; i < kernels.size(); ++i) {
    PendingKernel &k = kernels[i];
    CompiledKernel &r = results[i];
    if (k.unused)
      continue;
    if (!r.error.empty())
      return compileError(r.error);
    for (std::string &w : r.warnings)
      warnings.push_back(w);
    if (r.workgroups < 1 || r.workgroups > kMaxWorkgroups)
      return makeError(ErrorCode::CompileError, "kernel '" + k.job.name +
                                                    "' has " + llvm::Twine(r.workgroups) +
                                                    " workgroups");
    auto load = [&]() -> llvm::Expected<KernelFn> {
      if (llvm::Error e = jit->addObject(r.object, k.job.symbol))
        return std::move(e);
      llvm::Expected<const char *> checks = jit->lookupChecks(k.job.symbol);
      if (!checks)
        return checks.takeError();
      k.checks.clear();
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(*checks).split(lines, '\n', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef line : lines)
        k.checks.push_back(line.str());
      return jit->lookup(k.job.symbol);
    };
    llvm::Expected<KernelFn> fn = load();
    if (!fn && r.fromCache) {
      // A cached object the JIT refuses is a miss too: compile it again.
      llvm::consumeError(fn.takeError());
      r = compiler.recompile(k.job);
      if (!r.error.empty())
        return compileError(r.error);
      fn = load();
    }
    if (!fn)
      return fn.takeError();
    k.fn = *fn;
    k.workgroups = r.workgroups;
    k.dynamicWorkgroups = r.dynamicWorkgroups;
    stats.stackBytesMax = std::max(stats.stackBytesMax, r.stackBytes);
    if (r.vector)
      ++stats.vectorizedOps;
    else
      ++stats.scalarOps;
    if (r.vnni)
      ++stats.vnniKernels;
    stats.amxKernels += r.amx ? 1 : 0;
    stats.genericKernels += k.specialized.empty() ? 0 : 1; // only generic kernels have them
    if (r.fromCache)
      ++stats.cachedKernels;
    ++stats.executables;
  }
  program.kernelChecks.clear();
  for (const PendingKernel &k : kernels)
    program.kernelChecks.push_back(k.checks);
  for (Command &c : program.commands) {
    if (c.kind != Command::Dispatch)
      continue;
    c.fn = kernels[c.kernel].fn;
    c.workgroups = kernels[c.kernel].workgroups;
    if (kernels[c.kernel].dynamicWorkgroups) {
      // Its grid at this call's dim, which the host program fixes: the
      // kernel counts it from the dim alone (KernelAbi.h).
      std::vector<void *> argv(c.bindings.size() + 2, nullptr);
      argv[c.bindings.size()] = reinterpret_cast<void *>(static_cast<intptr_t>(c.dim));
      c.workgroups = c.dim < 0 ? -1 : callKernel(c.fn, argv.data(), -1);
      if (c.workgroups < 0 || c.workgroups > kMaxWorkgroups)
        return makeError(ErrorCode::CompileError, "kernel '" + kernels[c.kernel].job.name +
                                                      "' has " + llvm::Twine(c.workgroups) +
                                                      " workgroups at dim " + llvm::Twine(c.dim));
    }
    stats.workgroups += c.workgroups;
  }
  return llvm::Error::success();
}

} // namespace jitrun
