//===- KernelCompiler.h - dispatch functions to machine code ----*- C++ -*-===//
//
// Compiles each distinct dispatch function of a model to an object file the
// JIT loads: in parallel, through the persistent kernel cache, retiling a
// kernel over the stack limit with smaller tiles (1, 2, 4, 8 times smaller).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_KERNELCOMPILER_H
#define JITRUN_COMPILER_KERNELCOMPILER_H

#include "compiler/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace jitrun {

/// One distinct kernel to compile.
struct KernelJob {
  /// Hash of the dispatch's body, the target, this build of the code
  /// generator and the options that change code: the cache key.
  std::string key;
  /// The dispatch function's name (diagnostics name it) and the kernel's
  /// symbol in machine code (named after the key).
  std::string name, symbol;
  /// A module holding the dispatch function, printed with locations.
  std::string text;
};

/// What compiling one kernel produced.
struct CompiledKernel {
  std::string object; // machine code (an object file)
  int64_t workgroups = 1, stackBytes = 0;
  bool vector = false; // innermost code is vector code
  bool vnni = false;   // uses AVX-512 VNNI dot products
  bool amx = false;    // bf16 matmuls in AMX tiles (tdpbf16ps)
  bool dynamicWorkgroups = false; // its grid depends on its dim (KernelAbi.h)
  bool fromCache = false;
  std::vector<std::string> warnings;
  std::string error; // empty on success
};

/// The kernels compiled (or read from the cache folder) by the compiles of
/// one model with dynamic dims, by key, up to kMaxBytes of machine code
/// (the first remembered go first): a new shape's compile takes them from
/// memory instead of compiling them again, which without a cache folder
/// it did for every kernel (a 12-layer encoder's new sequence length on
/// its generic kernels: 0.8-2.5 s).
class KernelMemo {
public:
  static constexpr size_t kMaxBytes = size_t(64) << 20;
  /// The kernel remembered under `key`, or false.
  bool find(const std::string &key, CompiledKernel &kernel);
  void remember(const std::string &key, const CompiledKernel &kernel);

private:
  std::mutex mutex;
  std::map<std::string, CompiledKernel> kernels;
  std::deque<std::string> order;
  size_t bytes = 0;
};

/// The most workgroups a kernel's grid may have (the strategy makes at most
/// a few thousand); more is a damaged cache entry or a codegen bug.
constexpr int64_t kMaxWorkgroups = int64_t(1) << 24;

class KernelCompiler {
public:
  explicit KernelCompiler(const CompileOptions &options);

  /// The job compiling `dispatch`; equal keys mean one kernel.
  KernelJob makeJob(mlir::func::FuncOp dispatch) const;
  /// Its key alone (makeJob(dispatch).key without the job's text).
  std::string keyOf(mlir::func::FuncOp dispatch) const;

  /// Compiles `jobs` in parallel, each read from the cache when it holds a
  /// sound entry and written to it after compiling; results in job order.
  /// An unusable cache directory and failed cache writes are warnings.
  std::vector<CompiledKernel> compileAll(llvm::ArrayRef<KernelJob> jobs,
                                         std::vector<std::string> &warnings);

  /// Compiles `job` again, bypassing the cache, and rewrites its entry: for
  /// a cached object the JIT refused.
  CompiledKernel recompile(const KernelJob &job);

private:
  const CompileOptions &options;
  bool useCache = false;
};

} // namespace jitrun

#endif // JITRUN_COMPILER_KERNELCOMPILER_H
