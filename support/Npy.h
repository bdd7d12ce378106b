//===- Npy.h - NumPy .npy files for HostTensor ----------------------------===//
//
// Reads NumPy .npy files (format versions 1.0, 2.0 and 3.0) into HostTensors
// and writes HostTensors as version 1.0 files, for --input=@x.npy,
// --output=@y.npy and --expected_output=@z.npy. Only little-endian,
// C-order data of the dtypes listed below is supported; anything else is a
// readable error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_NPY_H
#define JITRUN_SUPPORT_NPY_H

#include "support/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace jitrun {

/// Returns the NumPy dtype descr for `t` ('<f4', '|b1', ...), or std::nullopt
/// for types NumPy cannot describe (bf16).
std::optional<llvm::StringRef> npyDescrForType(ElementType t);

/// Reads the .npy file at `path` (a regular file no larger than the host's
/// memory). Accepted descrs: '<f4', '<f8', '<f2',
/// '<i1', '|i1', '|u1', '<u1', '<i2', '<i4', '<i8', '|b1'. Errors (missing
/// file, wrong magic, bad or truncated header, fortran_order True, big-endian
/// or unsupported dtype, data size mismatch) mention `path`.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

/// Parses the bytes of a .npy file; `nameForErrors` names it in messages.
/// The result owns a copy of the data.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef nameForErrors);

/// Serializes `t` as a version 1.0 .npy file image (header padded to 64
/// bytes). Fails for bf16, which has no NumPy dtype.
llvm::Expected<std::string> serializeNpy(const HostTensor &t);

/// Writes `t` to `path` as a version 1.0 .npy file by writeFileSafely's
/// rules (runtime/Files.h): a regular file is replaced only once the new one
/// is complete, a symlink's target is written, a device or FIFO is written
/// through.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &t);

} // namespace jitrun

#endif // JITRUN_SUPPORT_NPY_H
