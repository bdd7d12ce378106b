//===- ProgramCache.h - fused programs on disk, keyed by the model -*- C++ -*-===//
//
// A warm start skips parsing (or ONNX import), the import passes and
// fusion: the module after fusion is kept as MLIR bytecode, keyed by a hash
// of the model's bytes and of every option that shapes those phases, and by
// the jitrun build. Both hashes (the model's, the payload's BLAKE3 below)
// are BLAKE3s of the BLAKE3s of 64 MiB pieces, which hash on all cores
// (support/Hash.h). Host lowering then runs as usual, and the kernels come
// from the kernel cache.
//
// An entry is `DIR/KEY.jrp`: a header line
//   jitrun-program KEY PAYLOAD_BYTES BLAKE3
// padded to 4096 bytes, then the bytecode. It is used only when its key is
// the one asked for and the BLAKE3 of the payload matches: anything else
// (truncated, edited, swapped, another build's) is a miss, and the model is
// compiled again and the entry rewritten.
//
// A warm start maps the entry instead of reading it: the host program's
// weights (constants of 4 KiB or more, written as 64-byte aligned blobs at
// a page-aligned payload) stay where the page cache holds them, with no
// fresh memory and no copy: ViT-B/16's 330 MB of weights used to be copied
// three times. Entries are only ever replaced by renaming, so a mapping
// keeps the bytes it checked.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_PROGRAMCACHE_H
#define JITRUN_COMPILER_PROGRAMCACHE_H

#include "compiler/Options.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace jitrun {

class WeightMemo;

/// Bytes a program uses in place, and what keeps them there.
struct MappedRegion {
  llvm::StringRef bytes;
  std::shared_ptr<const void> owner;
};

class ProgramCache {
public:
  /// Disabled without a cache directory, and for compiles that must run the
  /// phases themselves (--explain-fusion, --dump-dispatch-graph, signatures).
  ProgramCache(const CompileOptions &options, llvm::StringRef modelBytes);
  bool enabled() const { return !path.empty(); }

  /// The cached module, parsed into `context`; null on a miss. Its resource
  /// blobs point into the mapped entry and weight files, `regions()`.
  mlir::OwningOpRef<mlir::ModuleOp> read(mlir::MLIRContext &context);
  /// Stores `module`: the host function's constants of 4 KiB or more go to
  /// weight files (those already there are checked and kept), and the
  /// module's constants then read them there, `regions()`. Returns why it
  /// could not, or "" (a failure leaves the module's constants as they were).
  std::string write(mlir::ModuleOp module);

  /// What the module's constants point into after read or write.
  const std::vector<MappedRegion> &regions() const { return mapped; }

private:
  std::string dir, key, path;
  std::vector<MappedRegion> mapped;
  std::shared_ptr<WeightMemo> memo;
};

} // namespace jitrun

#endif // JITRUN_COMPILER_PROGRAMCACHE_H
