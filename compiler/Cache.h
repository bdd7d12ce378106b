//===- Cache.h - the on-disk cache's folder: where, how big, what build -*- C++ -*-===//
//
// What the kernel cache (KernelCompiler.cpp) and the program cache
// (ProgramCache.cpp) share: the directory's checks, the identity of the
// binary that wrote an entry, marking an entry used, and pruning the folder
// to its size cap, least recently used first.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_CACHE_H
#define JITRUN_COMPILER_CACHE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace jitrun {

/// Why `dir` cannot hold the cache, or "" if it can (created when missing).
std::string cacheDirProblem(const std::string &dir);

/// The binary that holds the compiler (the jitrun executable or
/// libjitrun.so) as path, size and modification time: part of every cache
/// key, so that a rebuilt jitrun never loads what an older build wrote.
const std::string &compilerBinaryId();

/// Marks a cache entry as just used (its modification time), so that
/// pruning removes the least recently used entries first.
void touchCacheEntry(const std::string &path);

/// The cache's own files in `dir` (kernels `*.jrk`, programs `*.jrp`,
/// weights `*.jrw`; nothing else is ever removed): entries unused for 30
/// days go, and while the rest is over `maxBytes` (0: no cap) the least
/// recently used go until it is under 90 % of it. Returns the number of entries removed.
int pruneCacheDir(const std::string &dir, uint64_t maxBytes);

} // namespace jitrun

#endif // JITRUN_COMPILER_CACHE_H
