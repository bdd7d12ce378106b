//===- Compilation.h - one model's compile, phase by phase ------*- C++ -*-===//
//
// The state of compiling one model (internal to compiler/): its MLIR
// context, the host program and statistics being built, the kernels to
// compile. Driver.cpp runs the phases; HostLowering.cpp turns the host
// function into the host program.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_COMPILATION_H
#define JITRUN_COMPILER_COMPILATION_H

#include "compiler/Compiler.h"
#include "compiler/Diagnostics.h"
#include "compiler/KernelCompiler.h"
#include "compiler/ProgramCache.h"
#include "runtime/KernelLoader.h"
#include "runtime/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jitrun {

class Compilation {
public:
  CompileOptions options;
  /// The model's context and source; both go when the compile ends (the
  /// program holds copies of the constants it reads, the blobs it took over
  /// from the context, or the mapping of the cache entry they lie in).
  std::unique_ptr<mlir::MLIRContext> mlirContext;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<KernelLoader> jit;
  HostProgram program;
  Statistics stats;
  std::vector<std::string> warnings;
  std::vector<std::string> explanations;
  /// The module's public functions, in file order.
  std::vector<std::string> entryPoints;
  /// The entry has dynamic dims and no argumentShapes were given: only its
  /// signature was read (with -1 dims), nothing compiled.
  bool dynamic = false;
  /// The program cache's mapped entry and weight files (ProgramCache):
  /// constants whose blobs lie in them are used in place, the program
  /// keeping the mappings.
  std::vector<MappedRegion> mappedRegions;
  /// The model's bytecode, parsed in place: blobs in it are the caller's
  /// bytes, which a program copies (it may outlive them).
  llvm::StringRef parsedInPlace;
  /// CompileOptions::analyzeDims' findings.
  std::vector<DimAnalysis> dims;

  /// Collects diagnostics as text; errors and warnings apart.
  struct Diagnostics {
    std::string errors;
    std::vector<std::string> warnings;
    std::vector<std::string> remarks;
  };

  /// The phases, in order: parse, entry, import, fusion, host lowering,
  /// kernels (Driver.cpp).
  llvm::Error compile(llvm::StringRef bytes, llvm::StringRef name);
  /// Parse (or ONNX import), entry point, import passes and fusion: the
  /// fused module in `module` and its entry's name in `entryName` (unless
  /// only the signature was asked for).
  llvm::Error importAndFuse(llvm::StringRef bytes, llvm::StringRef name,
                            mlir::OwningOpRef<mlir::ModuleOp> &module, std::string &entryName);
  /// What import and fusion reported (entry points, warnings, the count
  /// before fusion) as attributes of the fused module for the program
  /// cache, and back; restoring fails on a module without them.
  void annotateForCache(mlir::ModuleOp module, llvm::StringRef entryName);
  bool restoreFromCache(mlir::ModuleOp module, std::string &entryName);
  /// CompileOptions::signatureOnly: the entry's argument and result specs
  /// (with their jitrun.name) into the program, nothing compiled.
  llvm::Error readSignature(mlir::func::FuncOp entry);
  /// CompileOptions::argumentShapes: the entry's arguments take those static
  /// shapes (ErrorCode::ShapeMismatch when one does not fit), seen by their
  /// users through casts that the import's canonicalization folds away.
  llvm::Error specializeArguments(mlir::func::FuncOp entry,
                                  llvm::ArrayRef<std::vector<int64_t>> shapes);
  /// After the import passes: results returned through a cast from a static
  /// type are returned as that type.
  void refineResultTypes(mlir::func::FuncOp entry);
  llvm::Error runPasses(mlir::ModuleOp module,
                        llvm::function_ref<void(mlir::PassManager &)> build, Diagnostics &diags);
  /// The host function after fusion as a HostProgram (HostLowering.cpp).
  llvm::Error buildHostProgram(mlir::func::FuncOp entry, mlir::ModuleOp module);
  /// Fails with ErrorCode::ResourceExhausted when constants, one run's
  /// intermediates and the results together exceed the memory limit.
  llvm::Error checkMemoryLimit(llvm::StringRef when) const;
  /// An error once CompileOptions::cancelled says so.
  llvm::Error checkCancelled() const;

  /// CompileOptions::genericShapes: the dispatch calls of the model at
  /// those shapes, in program order: each callee printed with its dims
  /// blanked, and its dims (GenericKernels.cpp).
  struct ShadowCall {
    std::string text;
    std::vector<int64_t> dims;
  };
  std::vector<ShadowCall> shadowCalls;
  /// A new context and the fused module in it: from the program cache, or
  /// imported and fused (and then written to the cache, unless only the
  /// signature or the analysis was asked for or the entry stays dynamic).
  llvm::Error loadFusedModule(llvm::StringRef bytes, llvm::StringRef name,
                              mlir::OwningOpRef<mlir::ModuleOp> &module, std::string &entryName,
                              bool &wroteCache);
  /// Imports and fuses the model at CompileOptions::genericShapes (through
  /// the program cache) into shadowCalls.
  llvm::Error collectShadowCalls(llvm::StringRef bytes, llvm::StringRef name);
  /// A call of a generic kernel, as it would run with a kernel of its own.
  struct SpecializedCall {
    size_t command;
    mlir::func::FuncOp callee;
    std::vector<std::vector<int64_t>> argStrides, resultStrides;
  };
  /// A distinct kernel: its compile job, then its loaded entry point.
  struct PendingKernel {
    KernelJob job;
    KernelFn fn = nullptr;
    int64_t workgroups = 1;
    bool dynamicWorkgroups = false; // counted per call, from its dim
    /// Its bounds checks' messages (read from the loaded object).
    std::vector<std::string> checks;
    /// A generic kernel's calls, which take kernels of their own shapes if
    /// it fails to compile (then `unused`).
    std::vector<SpecializedCall> specialized;
    bool unused = false;
  };
  /// Registers a dispatch's kernel (deduplicated); returns its index.
  /// `argStrides` and `resultStrides`, empty or one entry per argument or
  /// result: the element strides of the buffer each is read from or
  /// written to (empty: its own buffer).
  int registerKernel(mlir::func::FuncOp dispatch,
                     llvm::ArrayRef<std::vector<int64_t>> argStrides = {},
                     llvm::ArrayRef<std::vector<int64_t>> resultStrides = {});
  /// The cache key of a dispatch's kernel without strides (equal bodies,
  /// equal keys), computed once per dispatch function.
  const std::string &kernelKey(mlir::func::FuncOp dispatch);
  /// Compiles every registered kernel, in parallel and through the cache,
  /// loads them and binds the dispatch commands to them.
  llvm::Error compileKernels();
  std::string formatDiagnostic(mlir::Diagnostic &diag) { return formatDiagnosticText(diag); }
  mlir::MLIRContext *context() const { return mlirContext.get(); }

  std::vector<PendingKernel> kernels;
  std::map<std::string, int> kernelIndex;
  llvm::DenseMap<mlir::Operation *, std::string> kernelKeys;
};

/// `fn` printed with every dim of every shaped type blanked (and not its
/// name): equal for dispatches that differ only in their sizes.
std::string shapelessText(mlir::func::FuncOp fn);
/// The dims of `fn`'s tensor values (its arguments, then each op's results
/// in a pre-order walk), flattened: position for position comparable
/// between functions of equal shapelessText.
std::vector<int64_t> flatDims(mlir::func::FuncOp fn);

/// Errors of the compiler driver: the model does not parse, verify or compile.
inline llvm::Error compileError(const llvm::Twine &msg) {
  return makeError(ErrorCode::CompileError, msg);
}

inline llvm::Error Compilation::checkCancelled() const {
  if (options.cancelled && options.cancelled())
    return compileError("the compile was cancelled");
  return llvm::Error::success();
}

/// `op`'s error `msg` at its location, formatted as the driver's diagnostics.
llvm::Error opError(mlir::Operation *op, Compilation &impl, const llvm::Twine &msg);
/// For a specialized entry (static shapes, before fusion): the dim each
/// result carries when the model computes every index of the inputs'
/// `inputDims` (per argument, a dim of `size` elements, or -1) on its own;
/// nullopt when it may not (IndependentDims.cpp).
std::optional<std::vector<int64_t>> independentOutputDims(mlir::func::FuncOp entry,
                                                          llvm::ArrayRef<int64_t> inputDims,
                                                          int64_t size);
/// True when some of `types` is a shaped type with a dynamic dim.
bool hasDynamicShape(mlir::TypeRange types);
/// The host program's element type for `t`, if it has one.
std::optional<ElementType> toElementType(mlir::Type t);
/// The spec of a statically shaped tensor type of such an element type
/// (unnamed); nullopt for any other type.
std::optional<TensorSpec> tensorSpecOf(mlir::Type t);
/// a + b, saturated at INT64_MAX.
int64_t saturatingAdd(int64_t a, int64_t b);
/// The bytes of a tensor of `s`, saturated at INT64_MAX: an absurd shape is
/// caught by the memory limit or fails to allocate instead of wrapping
/// around to a small size.
size_t specBytes(const TensorSpec &s);

} // namespace jitrun

#endif // JITRUN_COMPILER_COMPILATION_H
