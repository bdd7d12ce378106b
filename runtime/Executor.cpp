//===- Executor.cpp - runs a compiled program, many times ----------------===//

#include "runtime/Executor.h"

#include <chrono>

namespace jitrun {

Executor::Executor(HostProgram program, std::unique_ptr<KernelLoader> loader)
    : loader(std::move(loader)), prog(std::move(program)) {}

Executor::~Executor() = default;

llvm::Expected<std::unique_ptr<RunContext>> Executor::createRunContext() const {
  return prog.createRunContext();
}

void Executor::setProfiling(bool enabled) {
  std::lock_guard<std::mutex> lock(profileMutex);
  profiling = enabled;
  if (enabled) {
    commandSeconds.assign(prog.commands.size(), 0.0);
    profiledRuns = 0;
  }
}

Profile Executor::profile() const {
  std::lock_guard<std::mutex> lock(profileMutex);
  Profile out;
  out.runs = profiledRuns;
  for (size_t i = 0; i < prog.commands.size(); ++i) {
    const Command &c = prog.commands[i];
    if (c.kind != Command::Dispatch && c.kind != Command::Fill && c.kind != Command::Copy &&
        c.kind != Command::CopyWhole)
      continue; // host scalars and loop structure move no data
    CommandProfile cp;
    cp.kind = c.kind == Command::Dispatch ? CommandProfile::Dispatch
              : c.kind == Command::Fill   ? CommandProfile::Fill
                                          : CommandProfile::Copy;
    cp.name = c.name;
    cp.op = c.op;
    cp.location = c.location;
    cp.flops = c.flops;
    cp.bytes = c.bytes;
    cp.workgroups = c.kind == Command::Dispatch ? c.workgroups : 0;
    cp.seconds = i < commandSeconds.size() ? commandSeconds[i] : 0.0;
    out.commands.push_back(std::move(cp));
  }
  return out;
}

llvm::Error Executor::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                              llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                              RunContext &ctx) {
  if (!profiling.load(std::memory_order_relaxed))
    return prog.runInto(inputs, results, pool, ctx, nullptr);
  std::lock_guard<std::mutex> lock(profileMutex);
  commandSeconds.resize(prog.commands.size(), 0.0);
  if (llvm::Error e = prog.runInto(inputs, results, pool, ctx, commandSeconds.data()))
    return e;
  ++profiledRuns;
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>> Executor::run(llvm::ArrayRef<const HostTensor *> inputs,
                                                      ThreadPool &pool) {
  std::vector<HostTensor> results;
  for (const TensorSpec &spec : prog.outputSpecs) {
    llvm::Expected<HostTensor> t = HostTensor::create(spec.type, spec.shape);
    if (!t) {
      std::string message;
      takeErrorCode(t.takeError(), message);
      return makeError(ErrorCode::ResourceExhausted,
                       "cannot allocate a result: " + message);
    }
    results.push_back(std::move(*t));
  }
  if (llvm::Error e = runInto(inputs, results, pool))
    return std::move(e);
  return std::move(results);
}

llvm::Error Executor::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                              llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool) {
  // Borrow a context from the free list; make one only when all are busy.
  std::unique_ptr<RunContext> ctx;
  {
    std::lock_guard<std::mutex> lock(contextMutex);
    if (!freeContexts.empty()) {
      ctx = std::move(freeContexts.back());
      freeContexts.pop_back();
    }
  }
  if (!ctx) {
    llvm::Expected<std::unique_ptr<RunContext>> made = createRunContext();
    if (!made)
      return made.takeError();
    ctx = std::move(*made);
  }
  llvm::Error e = runInto(inputs, results, pool, *ctx);
  std::lock_guard<std::mutex> lock(contextMutex);
  freeContexts.push_back(std::move(ctx));
  return e;
}

} // namespace jitrun
