//===- Compiler.h - a model's bytes to a compiled program -------*- C++ -*-===//
//
// The one compile path: the CLI and the C API both call compileModel (or
// compileModelFile), which parses the model (text or bytecode), imports,
// fuses, lowers the host function to a host program and compiles and loads
// its kernels. What comes back runs without MLIR (runtime/Executor.h).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_COMPILER_H
#define JITRUN_COMPILER_COMPILER_H

#include "compiler/Options.h"
#include "runtime/KernelLoader.h"
#include "runtime/Program.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace jitrun {

/// A compiled model: the host program with its kernels loaded, and what
/// the compile reports.
struct CompiledProgram {
  std::unique_ptr<KernelLoader> loader;
  HostProgram program;
  Statistics stats;
  /// Warnings raised while compiling; --explain-fusion's remarks.
  std::vector<std::string> warnings, explanations;
  /// The module's public functions, in file order.
  std::vector<std::string> entryPoints;
  /// The model has dynamic dims and was compiled to its signature alone
  /// (inputs and outputs with -1 dims, no kernels): CompiledModel compiles
  /// it for each run's shapes.
  bool dynamic = false;
  /// CompileOptions::analyzeDims' findings (those at sizes of 2 or more).
  std::vector<DimAnalysis> dims;
};

/// Compiles a model held in memory (MLIR text or bytecode, detected from
/// the content); `name` is used in messages. Text nested deeper than 1000
/// levels is refused; the compile runs on a thread with a 1 GiB stack.
llvm::Expected<std::unique_ptr<CompiledProgram>>
compileModel(llvm::StringRef bytes, llvm::StringRef name, const CompileOptions &options);

/// Registers the passes by name and MLIR's command-line options
/// (--mlir-print-ir-after=PASS, --mlir-timing, ...) with llvm::cl.
void registerCompilerOptions();
/// Applies those options to a pass manager (CompileOptions::configurePassManager).
void applyCompilerOptions(mlir::PassManager &pm);

/// A page-aligned copy of a model's bytes, kept to compile it again (a
/// dynamic model at each new shape): an ONNX model's laid out with each
/// large initializer's raw data 64-byte aligned (onnx/Wire.h), which those
/// compiles then use where they lie instead of copying and hashing them.
/// Null when there is no memory for it.
std::unique_ptr<llvm::WritableMemoryBuffer> modelCopyForCompiles(llvm::StringRef bytes,
                                                                  llvm::StringRef name);

/// The bytes of model file `path` (a regular file): ErrorCode::NotFound
/// when it does not exist, InvalidArgument when it cannot be read.
llvm::Expected<std::string> readModelFile(llvm::StringRef path);

/// Reads `path` (a regular file) and compiles it.
llvm::Expected<std::unique_ptr<CompiledProgram>> compileModelFile(llvm::StringRef path,
                                                                   const CompileOptions &options);

} // namespace jitrun

#endif // JITRUN_COMPILER_COMPILER_H
