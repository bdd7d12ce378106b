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

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace jitrun {

struct CompiledProgram;
/// Registers the compiler's passes by name and MLIR's command-line options
/// (--mlir-print-ir-after=PASS, --mlir-timing, ...) for a tool's parser.
void registerCompilerCommandLineOptions();
/// CompileOptions::configurePassManager applying those options.
std::function<void(mlir::PassManager &)> commandLinePassManagerOptions();

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

private:
  explicit CompiledModel(std::unique_ptr<CompiledProgram> compiled);
  /// Statistics, warnings, entry points: what the compile reported.
  std::unique_ptr<CompiledProgram> compiled;
  std::unique_ptr<Executor> executor;
};

} // namespace jitrun

#endif // JITRUN_API_MODEL_H
