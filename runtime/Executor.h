//===- Executor.h - runs a compiled program, many times --------*- C++ -*-===//
//
// A compiled model's runtime: the host program with its kernels loaded,
// run in run contexts (one borrowed from a free list per run, so that
// concurrent runs never share intermediates), optionally profiled. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_RUNTIME_EXECUTOR_H
#define JITRUN_RUNTIME_EXECUTOR_H

#include "runtime/KernelLoader.h"
#include "runtime/Program.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jitrun {

/// One command of the host program as --profile reports it.
struct CommandProfile {
  enum Kind { Dispatch, Fill, Copy } kind = Dispatch;
  /// The dispatch function, or `fill:SHAPE`, `copy:SRC->DST`.
  std::string name;
  /// A dispatch's root op (else its first compute linalg op); linalg.fill,
  /// tensor.insert_slice or tensor.extract_slice for host fills and copies.
  std::string op;
  /// `file:line:col` of the root op (a dispatch) or the op (a fill or a
  /// copy) in the model's source; "" when the model carries no locations.
  std::string location;
  /// FLOPs of one run of the root op (0 when there is no root): 2 * the
  /// product of its static loop ranges for contractions and convolutions
  /// (multiply-add), the product for other reductions and pooling.
  double flops = 0;
  /// Bytes one run reads plus writes: the sizes of a dispatch's distinct
  /// bound buffers, a fill's destination, a copy's box read and written.
  int64_t bytes = 0;
  /// A dispatch's grid: the workgroups its run spreads over the workers
  /// (0 for fills and copies).
  int64_t workgroups = 0;
  /// Wall time summed over the profiled runs (the whole command, all
  /// workgroups on the pool).
  double seconds = 0;
};

/// Per-command timings of the runs made since profiling was enabled.
struct Profile {
  int64_t runs = 0;
  std::vector<CommandProfile> commands; // in run order
};

class Executor {
public:
  /// Runs `program`, whose kernels `loader` holds.
  Executor(HostProgram program, std::unique_ptr<KernelLoader> loader);
  ~Executor();

  const HostProgram &program() const { return prog; }

  /// A run state of its own (one run's intermediates, planned by liveness).
  /// Fails with ErrorCode::ResourceExhausted if the arena cannot be
  /// allocated.
  llvm::Expected<std::unique_ptr<RunContext>> createRunContext() const;
  /// Runs with results allocated here; thread-safe.
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<const HostTensor *> inputs,
                                              ThreadPool &pool);
  /// Runs into the caller's results, in a context from the free list;
  /// thread-safe.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool);
  /// Runs in `context`; one thread at a time per context.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                      RunContext &context);

  /// Times every command of later runs when enabled (resets the timings);
  /// while enabled, runs are serialized so that their timings add up.
  void setProfiling(bool enabled);
  /// The commands with the time they took in the runs since enabled.
  Profile profile() const;

private:
  // The program goes before the kernels it calls.
  std::unique_ptr<KernelLoader> loader;
  HostProgram prog;
  /// Run contexts not in use, for runInto() without a context.
  std::mutex contextMutex;
  std::vector<std::unique_ptr<RunContext>> freeContexts;
  /// Profiling: seconds per command summed over `profiledRuns` runs; while
  /// `profiling`, runs hold profileMutex.
  mutable std::mutex profileMutex;
  std::atomic<bool> profiling{false};
  std::vector<double> commandSeconds;
  int64_t profiledRuns = 0;
};

} // namespace jitrun

#endif // JITRUN_RUNTIME_EXECUTOR_H
