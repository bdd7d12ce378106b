//===- EmitObject.h - a kernel module to an object file ---------*- C++ -*-===//
//
// The end of codegen: LLVM dialect -> LLVM IR with each kernel's uniform
// entry `void NAME_abi(void **buffers, int64_t workgroupId)` (KernelAbi.h)
// -> host-tuned O3 -> an object file, which the runtime's KernelLoader adds
// to its JIT (or the kernel cache keeps).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CODEGEN_EMITOBJECT_H
#define JITRUN_CODEGEN_EMITOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace jitrun {

/// Translates `module` (LLVM dialect), wraps every function named in
/// `kernels` with its `_abi` entry, optimizes at O3 and emits an object
/// file for the host CPU (or Haswell with `forceAvx2`). Safe to call from
/// several threads at once, each with its own MLIR context.
llvm::Expected<std::string> emitKernelObject(mlir::ModuleOp module,
                                             llvm::ArrayRef<std::string> kernels,
                                             bool forceAvx2);

} // namespace jitrun

#endif // JITRUN_CODEGEN_EMITOBJECT_H
