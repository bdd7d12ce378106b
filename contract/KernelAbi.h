//===- KernelAbi.h - how the host calls a compiled kernel --------*- C++ -*-===//
//
// The contract between codegen, which emits kernels, and the runtime, which
// calls them. No MLIR: the runtime includes it.
//
// A kernel is called as `NAME_abi(buffers, workgroup)`: `buffers` holds one
// pointer per bound buffer (the dispatch's inputs, then its results), then
// the status word; each call runs one workgroup of the kernel's grid. A
// generic kernel takes its dim after the buffers; when its grid depends on
// that dim, it returns the grid's size, and a call with a negative
// workgroup id only returns it (no buffer is read or written).
// `NAME_checks` is a NUL-terminated string: the messages of the kernel's
// bounds checks, one per line, site 1 first (empty when it has none).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_KERNELABI_H
#define JITRUN_CONTRACT_KERNELABI_H

#include <cstdint>

namespace jitrun {

/// A kernel's entry point: one workgroup of its grid; returns the grid's
/// size for a kernel whose grid depends on its dim, else 0.
using KernelFn = int64_t (*)(void **buffers, int64_t workgroupId);

/// The status word a kernel with bounds checks takes as its last buffer
/// (before the workgroup id): 0, or the largest site number whose check
/// failed, written atomically by any workgroup.
using KernelStatus = int32_t;

/// Suffixes of a kernel's symbols in its object.
constexpr const char *kKernelEntrySuffix = "_abi";
constexpr const char *kKernelChecksSuffix = "_checks";

} // namespace jitrun

#endif // JITRUN_CONTRACT_KERNELABI_H
