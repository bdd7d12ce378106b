//===- Hash.h - BLAKE3 over pieces, hashed on all cores ---------*- C++ -*-===//
//
// The program cache's hashes (compiler/ProgramCache.h): the model's bytes
// (its key) and an entry's payload (its check), 330 MB each for ViT-B/16.
// One BLAKE3 runs at about 5 GB/s on one core; this one is the BLAKE3 of
// the BLAKE3s of the data's pieces (64 MiB), which hash in parallel.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_HASH_H
#define JITRUN_SUPPORT_HASH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"

#include <cstddef>
#include <string>
#include <vector>

namespace jitrun {

constexpr size_t kHashPieceBytes = size_t(64) << 20;

/// The hash of bytes streamed in (what a writer sees), equal to
/// pieceHashHex of all of them at once.
class PieceHash {
public:
  explicit PieceHash(size_t pieceBytes = kHashPieceBytes) : pieceBytes(pieceBytes) {}
  void update(llvm::StringRef data);
  /// Lower-case hex of the hash; call once.
  std::string finalHex();

private:
  void endPiece();
  size_t pieceBytes, inPiece = 0;
  llvm::BLAKE3 piece;
  std::string digests;
};

/// The hash of `bytes`, its pieces hashed on up to one thread per core.
std::string pieceHashHex(llvm::StringRef bytes, size_t pieceBytes = kHashPieceBytes);

/// pieceHashHex of each of `items` (a model's weights), the items hashed on
/// up to one thread per core.
std::vector<std::string> pieceHashesHex(llvm::ArrayRef<llvm::StringRef> items);

} // namespace jitrun

#endif // JITRUN_SUPPORT_HASH_H
