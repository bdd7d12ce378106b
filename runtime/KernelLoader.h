//===- KernelLoader.h - compiled kernels into the process -------*- C++ -*-===//
//
// One ORC LLJIT per compiled model: adds the kernels' object files (fresh
// from codegen or read from the kernel cache) and looks up their entries
// and bounds-check messages (KernelAbi.h). No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_RUNTIME_KERNELLOADER_H
#define JITRUN_RUNTIME_KERNELLOADER_H

#include "contract/KernelAbi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace jitrun {

class KernelLoader {
public:
  /// A JIT for the host CPU; `forceAvx2` drops AVX-512 features.
  static llvm::Expected<std::unique_ptr<KernelLoader>> create(bool forceAvx2 = false);
  ~KernelLoader();

  /// Adds an object file made by emitKernelObject (possibly from the cache).
  llvm::Error addObject(llvm::StringRef object, llvm::StringRef name);
  /// The `_abi` entry of kernel `name`.
  llvm::Expected<KernelFn> lookup(llvm::StringRef name);
  /// Kernel `name`'s bounds-check messages (its `_checks` string).
  llvm::Expected<const char *> lookupChecks(llvm::StringRef name);

private:
  KernelLoader() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string cpu, features;
};

} // namespace jitrun

#endif // JITRUN_RUNTIME_KERNELLOADER_H
