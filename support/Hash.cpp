//===- Hash.cpp - BLAKE3 over pieces, hashed on all cores -----------------===//

#include "support/Hash.h"
#include "support/ThreadPool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <new>
#include <vector>

using namespace jitrun;

void PieceHash::update(llvm::StringRef data) {
  while (!data.empty()) {
    size_t n = std::min(pieceBytes - inPiece, data.size());
    piece.update(data.take_front(n));
    inPiece += n;
    data = data.drop_front(n);
    if (inPiece == pieceBytes)
      endPiece();
  }
}

void PieceHash::endPiece() {
  llvm::BLAKE3Result<> d = piece.final();
  digests.append(d.begin(), d.end());
  piece.init();
  inPiece = 0;
}

std::string PieceHash::finalHex() {
  // Empty data is one empty piece, as in pieceHashHex.
  if (inPiece || digests.empty())
    endPiece();
  return llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(digests)),
                     /*LowerCase=*/true);
}

std::string jitrun::pieceHashHex(llvm::StringRef bytes, size_t pieceBytes) {
  size_t pieces = std::max<size_t>(1, llvm::divideCeil(bytes.size(), pieceBytes));
  std::vector<llvm::BLAKE3Result<>> digests(pieces);
  auto hashPiece = [&](int64_t i) {
    digests[i] = llvm::BLAKE3::hash(
        llvm::arrayRefFromStringRef(bytes.substr(i * pieceBytes, pieceBytes)));
    return llvm::Error::success();
  };
  // Up to one thread per core (the caller one of them); a pool that got
  // fewer threads runs the pieces on those. The tasks cannot fail.
  ThreadPool pool(ThreadPool::threadsFor(pieces));
  llvm::cantFail(pool.parallelFor(static_cast<int64_t>(pieces), hashPiece));
  std::string all;
  for (const llvm::BLAKE3Result<> &d : digests)
    all.append(d.begin(), d.end());
  return llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(all)), /*LowerCase=*/true);
}

std::vector<std::string> jitrun::pieceHashesHex(llvm::ArrayRef<llvm::StringRef> items) {
  std::vector<std::string> hashes(items.size());
  auto hashItem = [&](int64_t i) {
    PieceHash hash;
    hash.update(items[i]);
    hashes[i] = hash.finalHex();
    return llvm::Error::success();
  };
  ThreadPool pool(ThreadPool::threadsFor(items.size()));
  // A task that threw (out of memory: the hex strings allocate) fails the
  // call as it would have on one thread.
  if (llvm::Error e = pool.parallelFor(static_cast<int64_t>(items.size()), hashItem)) {
    llvm::consumeError(std::move(e));
    throw std::bad_alloc();
  }
  return hashes;
}
