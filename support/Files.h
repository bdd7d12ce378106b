//===- Files.h - bounded reads and safe writes of the files jitrun touches ===//
//
// Every file jitrun reads (models, .npy inputs, cache entries) and writes
// (.npy results, cache entries, statistics and graphs) goes through here, so
// that the rules hold everywhere:
//  - a read takes a regular file only (never a device, FIFO or directory:
//    /dev/zero would be read forever) and refuses one larger than a bound
//    before reading a byte of it;
//  - a write to a regular file (or to nothing yet) goes to a temporary file
//    beside the target, checked for every error and renamed over it only
//    when complete; a symlink is followed and its target replaced, never
//    the link; a device or FIFO is written through, never replaced. A failed
//    write leaves no temporary file behind.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_FILES_H
#define JITRUN_SUPPORT_FILES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace jitrun {

/// The host's physical memory in bytes (0 if unknown): the default bound of
/// what one file read may bring in.
uint64_t physicalMemoryBytes();

/// Reads the whole regular file at `path`. `what` names it in messages
/// ("model", ".npy file"); files over `maxBytes` (0: the host's physical
/// memory) are refused before they are read. A file that cannot be opened
/// gives an error whose code is errno's (ENOENT: no such file).
llvm::Expected<std::string> readRegularFile(llvm::StringRef path, llvm::StringRef what,
                                            uint64_t maxBytes = 0);

/// `length` bytes (-1: to the end) from `offset` of the regular file at
/// `path`, by readRegularFile's checks except its size limit, which bounds
/// the range instead: only those bytes are read (ONNX external data, where
/// one file holds every weight). A range outside the file is an error that
/// names it and the file's size.
llvm::Expected<std::string> readRegularFileRange(llvm::StringRef path, llvm::StringRef what,
                                                 uint64_t offset, int64_t length);

/// The whole regular file at `path`, by the checks of readRegularFile, as a
/// buffer mapped from the page cache (read into memory when small): a large
/// file costs no fresh memory and no copy. For files jitrun replaces only by
/// renaming (cache entries): the mapping keeps the bytes it saw.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> mapRegularFile(llvm::StringRef path,
                                                                   llvm::StringRef what,
                                                                   uint64_t maxBytes = 0);

/// The bytes a page-aligned copy of `bytes` (named `name`), as a mapping
/// would lie: every section alignment of MLIR bytecode and of jitrun's cache
/// files fits. Null when there is no memory for it.
inline constexpr size_t kPageBytes = 4096;
std::unique_ptr<llvm::WritableMemoryBuffer> pageAlignedCopy(llvm::StringRef bytes,
                                                            llvm::StringRef name);

/// Writes `data` to `path` by the rules above.
llvm::Error writeFileSafely(llvm::StringRef path, llvm::StringRef data);
/// The same, the bytes put by `write` into the (temporary) file `fd`; it
/// returns false with a reason in `err` to leave the target untouched.
llvm::Error writeFileSafely(llvm::StringRef path,
                            llvm::function_ref<bool(int fd, std::string &err)> write);

/// Writes all of `data` to `fd`; false with the reason in `err`.
bool writeAll(int fd, llvm::StringRef data, std::string &err);

} // namespace jitrun

#endif // JITRUN_SUPPORT_FILES_H
