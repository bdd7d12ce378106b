//===- Model.h - a compiled model: kernels plus a host program -*- C++ -*-===//
//
// The driver of the whole path: import a .mlir/.mlirbc file, fuse, form
// dispatches, compile each distinct kernel through the codegen pipeline and
// ORC, and turn the host function into a list of commands (dispatch, fill,
// copy) over buffers allocated once and reused by every run.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_RUNTIME_MODEL_H
#define JITRUN_RUNTIME_MODEL_H

#include "contract/FusionMode.h"
#include "runtime/Errors.h"
#include "runtime/Tensor.h"
#include "runtime/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace jitrun {


/// Everything that steers compilation.
struct CompileOptions {
  /// Entry point; empty picks the only public function, else @main.
  std::string function;
  FusionMode fusion = FusionMode::Default;
  /// The slow, simple reference path: no fusion, no tiling, no vectors.
  bool reference = false;
  /// Drop AVX-512 and generate AVX2 code.
  bool forceAvx2 = false;
  uint64_t stackLimitBytes = 32768;
  bool failOnStackLimit = true;
  /// Persistent kernel cache directory (--cache-dir); empty: no cache.
  /// Entries are keyed by the dispatch's IR, the target CPU and features,
  /// the codegen version and the stack-limit options.
  std::string cacheDir;
  /// The most host memory the model may allocate: its constants, one run's
  /// intermediates (after buffer planning) and its results. A model over it
  /// fails to compile with ErrorCode::ResourceExhausted before anything big
  /// is allocated. 0: no limit.
  uint64_t memoryLimitBytes = 0;
  /// Threads compiling kernels; 0: one per core.
  unsigned compileThreads = 0;
  /// Record why producer/consumer pairs were not fused (--explain-fusion).
  bool explainFusion = false;
  /// When non-empty, the host program after fusion is written here as a
  /// Graphviz dot graph of dispatches, fills and copies.
  std::string dispatchGraphPath;
  /// Lets a tool apply MLIR's command-line pass manager options
  /// (--mlir-print-ir-after-all, --mlir-timing, ...) to every pass manager.
  std::function<void(mlir::PassManager &)> configurePassManager;
};

/// The counts of SPEC.md's statistics, for one compiled function.
struct Statistics {
  std::string function, fusion;
  int64_t genericBefore = 0, genericAfter = 0, rootOps = 0, dispatchRegions = 0,
          dispatches = 0, executables = 0, fills = 0, copies = 0, workgroups = 0,
          transientBytes = 0, stackBytesMax = 0;
  /// The sum of the intermediates' sizes, as if none shared memory
  /// (transientBytes is what buffer planning made of it).
  int64_t intermediateBytes = 0;
  /// Constant data the host program holds (weights, expanded splats).
  int64_t constantBytes = 0;
  /// Kernels (distinct) whose innermost code is vector code, and those left
  /// with scalar loops somewhere.
  int64_t vectorizedOps = 0, scalarOps = 0; // distinct kernels: all vector code, or with scalar loops
  /// Kernels (distinct) whose i8 contractions run on AVX-512 VNNI (vpdpbusd).
  int64_t vnniKernels = 0;
  double compileSeconds = 0;
  /// Kernels loaded from the --cache-dir cache instead of compiled.
  int64_t cachedKernels = 0;
};


/// One command of the host program as --profile reports it.
struct CommandProfile {
  enum Kind { Dispatch, Fill, Copy } kind = Dispatch;
  /// The dispatch function, or `fill:SHAPE`, `copy:SRC->DST`.
  std::string name;
  /// A dispatch's root op (else its first compute linalg op); linalg.fill,
  /// tensor.insert_slice or tensor.extract_slice for host fills and copies.
  std::string op;
  /// FLOPs of one run of the root op (0 when there is no root): 2 * the
  /// product of its static loop ranges for contractions and convolutions
  /// (multiply-add), the product for other reductions and pooling.
  double flops = 0;
  /// Bytes one run reads plus writes: the sizes of a dispatch's distinct
  /// bound buffers, a fill's destination, a copy's box read and written.
  int64_t bytes = 0;
  /// Wall time summed over the profiled runs (the whole command, all
  /// workgroups on the pool).
  double seconds = 0;
};

/// Per-command timings of the runs made since profiling was enabled.
struct Profile {
  int64_t runs = 0;
  std::vector<CommandProfile> commands; // in run order
};

class HostProgram;

/// The state of one run: the intermediates arena and scratch space, sized
/// for one model. A run uses one context at a time; a context is reused by
/// every run given it, so those runs allocate nothing.
class RunContext {
public:
  ~RunContext();
  RunContext(const RunContext &) = delete;
  RunContext &operator=(const RunContext &) = delete;

private:
  friend class CompiledModel;
  friend class HostProgram;
  RunContext() = default;
  AlignedStorage storage;
  uint8_t *arena = nullptr;
  std::vector<void *> pointers, arguments;
  /// Scalar registers of the host program (loop counters, conditions).
  std::vector<int64_t> ints;
  std::vector<double> floats;
  /// A dispatch's status word (kernels with bounds checks write it).
  std::atomic<int32_t> status{0};
};

/// A model compiled for this host. Load and compile once, run many times.
class CompiledModel {
public:
  /// Reads `path` (MLIR text or bytecode, detected from the content).
  static llvm::Expected<std::unique_ptr<CompiledModel>>
  compileFile(llvm::StringRef path, const CompileOptions &options);
  /// Compiles a model held in memory; `name` is used in messages.
  static llvm::Expected<std::unique_ptr<CompiledModel>>
  compileBuffer(llvm::StringRef bytes, llvm::StringRef name,
                const CompileOptions &options);
  ~CompiledModel();

  const std::vector<TensorSpec> &inputs() const;
  const std::vector<TensorSpec> &outputs() const;
  const Statistics &statistics() const;
  /// Warnings raised while compiling (e.g. a stack limit in warning mode).
  const std::vector<std::string> &warnings() const;
  /// With CompileOptions::explainFusion: one line per producer/consumer pair
  /// left in different dispatches, `LOC: remark: not fused: ...: RULE: why`.
  const std::vector<std::string> &fusionExplanations() const;

  /// The module's public functions (the entry points one may compile), in
  /// file order.
  const std::vector<std::string> &entryPoints() const;

  /// A run state of its own (one run's intermediates, planned by liveness).
  /// Fails with ErrorCode::ResourceExhausted if the arena cannot be
  /// allocated.
  llvm::Expected<std::unique_ptr<RunContext>> createRunContext() const;

  /// Runs the model; inputs must match inputs() in count, shape and type.
  /// Thread-safe: concurrent runs take separate run contexts from a free
  /// list (one is allocated only when all are busy).
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<const HostTensor *> inputs,
                                              ThreadPool &pool);
  /// Runs into the caller's result tensors (shapes and types of outputs()),
  /// which dispatches write directly: no allocation and no copy per run.
  /// Thread-safe, as run().
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool);
  /// Runs in `context` (from this model's createRunContext); one thread at a
  /// time per context.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                      RunContext &context);

  /// Times every command of later runs (steady_clock around each one) when
  /// enabled; enabling resets the timings. Off by default (no overhead);
  /// while enabled, runs are serialized so that their timings add up.
  void setProfiling(bool enabled);
  /// The host program's commands with the time they took in the runs made
  /// since setProfiling(true).
  Profile profile() const;

  /// The implementation (compiler driver and host program), opaque here.
  struct Impl;

private:
  CompiledModel();
  std::unique_ptr<Impl> impl;
};

} // namespace jitrun

#endif // JITRUN_RUNTIME_MODEL_H
