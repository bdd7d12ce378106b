//===- Jit.h - ORC LLJIT for jitrun kernels --------------------*- C++ -*-===//
//
// Translates kernel modules (LLVM dialect) to LLVM IR, adds the uniform
// `void NAME_abi(void **buffers, int64_t workgroupId)` entry to each kernel,
// optimizes for the host CPU and JIT-compiles them with ORC LLJIT.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CODEGEN_JIT_H
#define JITRUN_CODEGEN_JIT_H

#include "contract/KernelAbi.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace jitrun {


/// What the host CPU offers, as LLVM names it.
struct HostCpu {
  std::string name;
  std::string features; // "+avx2,+fma,..."
  bool avx512 = false;
  bool avx2 = false;
  /// AVX-512 VNNI (vpdpbusd).
  bool vnni = false;
  /// Widest vector register to use, in bits (512, 256 or 128).
  unsigned vectorBits() const { return avx512 ? 512 : avx2 ? 256 : 128; }
};

/// Detects the host CPU once.
const HostCpu &hostCpu();

/// One LLJIT instance holding the kernels of a compiled model.
class KernelJit {
public:
  /// Creates a JIT for the host CPU; `forceAvx2` drops AVX-512 features.
  static llvm::Expected<std::unique_ptr<KernelJit>> create(bool forceAvx2 = false);
  ~KernelJit();

  /// Translates `module` (LLVM dialect), wraps every function named in
  /// `kernels` with its `_abi` entry, optimizes at O3 and emits an object
  /// file for the host CPU (or Haswell with `forceAvx2`). Safe to call from
  /// several threads at once, each with its own MLIR context.
  static llvm::Expected<std::string> compileToObject(mlir::ModuleOp module,
                                                     llvm::ArrayRef<std::string> kernels,
                                                     bool forceAvx2);
  /// Adds an object file made by compileToObject (possibly from the cache).
  llvm::Error addObject(llvm::StringRef object, llvm::StringRef name);
  /// "cpu features" the objects are made for: part of the cache key.
  static std::string targetId(bool forceAvx2);

  /// Looks up the `_abi` entry of kernel `name`.
  llvm::Expected<KernelFn> lookup(llvm::StringRef name);
  /// Kernel `name`'s bounds-check messages (addIndexCheckTable's string).
  llvm::Expected<const char *> lookupChecks(llvm::StringRef name);

private:
  KernelJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string cpu, features;
};

} // namespace jitrun

#endif // JITRUN_CODEGEN_JIT_H
