//===- Model.h - a compiled model, as the tools and the C API see it -*- C++ -*-===//
//
// The facade over the compiler (compiler/Compiler.h: one compile path for
// the CLI and the C API) and the runtime (runtime/Executor.h): compile a
// .mlir/.mlirbc model once, then run it many times, from many threads.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_API_MODEL_H
#define JITRUN_API_MODEL_H

#include "compiler/Options.h"
#include "runtime/Executor.h"
#include "support/Errors.h"
#include "support/Tensor.h"
#include "support/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace jitrun {

struct CompiledProgram;
/// Registers the compiler's passes by name and MLIR's command-line options
/// (--mlir-print-ir-after=PASS, --mlir-timing, ...) for a tool's parser.
void registerCompilerCommandLineOptions();
/// CompileOptions::configurePassManager applying those options.
std::function<void(mlir::PassManager &)> commandLinePassManagerOptions();

/// A run state of its own for one caller (one run's intermediates, planned
/// by liveness); one thread at a time. For a dynamic model it holds the
/// intermediates of the shapes it ran last and makes new ones when a run
/// comes at other shapes.
class ModelRunContext {
public:
  ~ModelRunContext();

private:
  friend class CompiledModel;
  ModelRunContext();
  std::shared_ptr<const void> owner; // keeps the specialization's kernels alive
  std::unique_ptr<RunContext> context;
};

/// A model compiled for this host. Load and compile once, run many times.
///
/// A model with dynamic dims (`?` in its arguments, symbolic ONNX dims) is
/// specialized by the JIT: loading reads its signature (inputs() and
/// outputs() with -1 for dynamic dims) and each run at shapes not seen
/// before compiles the model for exactly those shapes, then keeps that
/// specialization (the CompileOptions::maxSpecializations most recently
/// used stay in memory; the program and kernel caches keep them on disk).
/// CompileOptions::shapePolicy decides what a run at new shapes waits for:
/// along a dim the model computes index by index (the batch of most
/// models, found by analysis), the Tiered, Split and Buckets policies run
/// it at once, as pieces at sizes already compiled.
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

  /// The signature; a dynamic dim is -1, and dims that must be equal at
  /// run time share a TensorSpec::dimNames entry.
  const std::vector<TensorSpec> &inputs() const;
  const std::vector<TensorSpec> &outputs() const;
  /// True when some input has a dynamic dim.
  bool dynamic() const;
  /// The compiled entry point's name.
  const std::string &function() const;
  /// What the compile reported; for a dynamic model, the specialization
  /// compiled or run last (before any, the signature's read).
  Statistics statistics() const;
  /// Warnings raised while compiling (e.g. a stack limit in warning mode).
  std::vector<std::string> warnings() const;
  /// With CompileOptions::explainFusion: one line per producer/consumer pair
  /// left in different dispatches, `LOC: remark: not fused: ...: RULE: why`.
  std::vector<std::string> fusionExplanations() const;

  /// The module's public functions (the entry points one may compile), in
  /// file order.
  const std::vector<std::string> &entryPoints() const;

  /// The results' specs for inputs of `shapes` (static: outputs()); for a
  /// dynamic model this compiles the specialization if it is new. Fails with
  /// ErrorCode::ShapeMismatch for shapes the model does not take.
  llvm::Expected<std::vector<TensorSpec>>
  outputsFor(llvm::ArrayRef<std::vector<int64_t>> shapes);
  /// Specializations held in memory (0 for a static model).
  size_t specializations() const;
  /// A dynamic model's named dims, each with whether the model computes
  /// every index of it on its own (DimAnalysis; unknown ones analyzed now,
  /// by an import with that dim at 2 and the others at 3).
  std::vector<DimAnalysis> analyzeDims();

  /// A run state of its own. Fails with ErrorCode::ResourceExhausted if the
  /// arena cannot be allocated.
  llvm::Expected<std::unique_ptr<ModelRunContext>> createRunContext() const;

  /// Runs the model; inputs must match inputs() in count, type, rank and
  /// static dims. Thread-safe: concurrent runs take separate run contexts
  /// from a free list (one is allocated only when all are busy).
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<const HostTensor *> inputs,
                                              ThreadPool &pool);
  /// Runs into the caller's result tensors (shapes and types of
  /// outputsFor(the inputs' shapes)), which dispatches write directly: no
  /// allocation and no copy per run. Thread-safe, as run().
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool);
  /// Runs in `context` (from this model's createRunContext); one thread at a
  /// time per context.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                      ModelRunContext &context);

  /// Times every command of later runs (steady_clock around each one) when
  /// enabled; enabling resets the timings. Off by default (no overhead);
  /// while enabled, runs are serialized so that their timings add up.
  void setProfiling(bool enabled);
  /// The host program's commands with the time they took in the runs made
  /// since setProfiling(true) (a dynamic model: at the shapes run last).
  Profile profile() const;

  struct Specialization;
  /// How a run at some shapes is made: one specialization whole, or pieces
  /// along a split dim (dim 0 of the inputs that have it and of every
  /// result), each run by a specialization of `compiled` rows of which the
  /// first `rows` are the run's rows [begin, begin + rows).
  struct Piece {
    std::shared_ptr<Specialization> spec;
    int64_t begin = 0, rows = 0, compiled = 0;
  };
  struct Plan {
    std::shared_ptr<Specialization> whole;
    std::vector<Piece> pieces;
    /// The split dim's size, and per input whether it has the dim (dim 0).
    int64_t size = 0;
    std::vector<bool> split;
  };

private:
  CompiledModel() = default;
  /// The plan for inputs of `shapes` (checked first): a specialization,
  /// pieces, or a new specialization compiled now, as the policy says.
  llvm::Expected<Plan> planFor(const std::vector<std::vector<int64_t>> &shapes);
  llvm::Expected<Plan> planFor(llvm::ArrayRef<const HostTensor *> inputs);
  /// The specialization for exactly `shapes`, if in memory (most recent now).
  std::shared_ptr<Specialization> find(const std::vector<std::vector<int64_t>> &shapes);
  /// Pieces at sizes already compiled, when a split dim allows it.
  std::optional<Plan> splitPlan(const std::vector<std::vector<int64_t>> &shapes);
  /// The results' specs of a plan.
  std::vector<TensorSpec> outputsOf(const Plan &plan) const;
  /// Runs the pieces of `plan` into `results` (the whole run's).
  llvm::Error runPieces(const Plan &plan, llvm::ArrayRef<const HostTensor *> inputs,
                        llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool);
  /// Keeps what a compile found of the named dims (a dim found not
  /// independent once stays so).
  void record(const std::vector<DimAnalysis> &dims);
  /// After a compile at size 1 along a dim not analyzed yet: the analysis
  /// alone (import, no kernels) at size 2.
  void probeDims(const std::vector<std::vector<int64_t>> &shapes);
  /// A named dim has no DimAnalysis yet, and a program compiled at
  /// `shapes` but along that dim could run them in pieces.
  bool awaitsAnalysis(const std::vector<std::vector<int64_t>> &shapes);
  /// Queues `task` for the background thread (started when idle), unless
  /// a task of that `key` is queued or running: one task at a time, in
  /// order; the model's destructor lets the running one finish.
  void inBackground(const std::string &key, std::function<void()> task);
  void drainBackground();
  /// Buckets: the power of two of the split dim's size to compile next
  /// (none when all of them are compiled).
  std::optional<std::vector<std::vector<int64_t>>>
  nextBucket(const Plan &plan, const std::vector<std::vector<int64_t>> &shapes);
  /// Tiered: compiles `shapes` in the background (not again if it failed).
  void compileInBackground(const std::vector<std::vector<int64_t>> &shapes);
  /// A program at `shapes` whose kernels are generic, where they can be, in
  /// the dynamic dims that differ from `other`; genericSpecialization also
  /// keeps it (`generic`, until specialization() replaces it).
  llvm::Expected<std::unique_ptr<CompiledProgram>>
  compileGeneric(const std::vector<std::vector<int64_t>> &shapes,
                 const std::vector<std::vector<int64_t>> &other);
  llvm::Expected<std::shared_ptr<Specialization>>
  genericSpecialization(const std::vector<std::vector<int64_t>> &shapes,
                        const std::vector<std::vector<int64_t>> &other);
  /// Keeps a compiled program at `shapes` in memory, most recent first (the
  /// least recent beyond CompileOptions::maxSpecializations goes).
  std::shared_ptr<Specialization> keep(std::unique_ptr<CompiledProgram> c,
                                       const std::vector<std::vector<int64_t>> &shapes,
                                       bool generic);
  /// Compiles the exact specialization for `shapes` (checked already), or
  /// finds it compiled meanwhile.
  llvm::Expected<std::shared_ptr<Specialization>>
  specialization(const std::vector<std::vector<int64_t>> &shapes);

  /// The static program, or a dynamic model's signature (no executor).
  std::shared_ptr<Specialization> base;
  /// A dynamic model: its bytes and options, to compile specializations.
  /// The bytes are page-aligned: a bytecode model's weights are parsed in
  /// place, not copied, by every specialization's compile.
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer;
  llvm::StringRef bytes;
  std::string name;
  CompileOptions options;
  mutable std::mutex mutex; // guards specializations_ and latest
  std::vector<std::shared_ptr<Specialization>> specializations_; // most recent first
  std::shared_ptr<Specialization> latest;
  std::mutex compileMutex; // one specialization compiles at a time
  bool profiling = false;
  /// The named dynamic dims, and what compiles found of them (by name;
  /// guarded by mutex).
  std::vector<DimGroup> groups;
  std::map<std::string, DimAnalysis> found;
  /// The background thread (tiered compiles, analysis probes), and shapes
  /// that failed to compile there (not tried again; guarded by
  /// backgroundMutex).
  std::mutex backgroundMutex;
  std::thread background;
  bool backgroundBusy = false, stopping = false;
  /// Set as the model goes: its compiles stop at their next phase or kernel
  /// (CompileOptions::cancelled), so that the background one is not waited for.
  std::atomic<bool> cancelling{false};
  std::deque<std::pair<std::string, std::function<void()>>> pending;
  std::set<std::string> queued; // keys of the tasks pending or running
  std::set<std::vector<std::vector<int64_t>>> failedShapes;
};

} // namespace jitrun

#endif // JITRUN_API_MODEL_H
