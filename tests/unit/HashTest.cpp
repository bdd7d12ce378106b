// The program cache's hash (support/Hash.h): streamed in any chunks, or
// hashed at once with its pieces on several threads, the same value; and a
// different one for different bytes or a different piece size.

#include "support/Hash.h"

#include <catch2/catch.hpp>

#include <string>

using namespace jitrun;

TEST_CASE("piece hash: streamed in chunks equals hashed at once") {
  std::string data;
  for (int i = 0; i < 10500; ++i)
    data.push_back(static_cast<char>((i * 7919) % 251));
  const size_t piece = 1000; // 11 pieces, the last one partial
  std::string once = pieceHashHex(data, piece);
  CHECK(once.size() == 64);
  for (size_t chunk : {size_t(1), size_t(7), size_t(999), size_t(1000), size_t(4096), data.size()}) {
    PieceHash h(piece);
    for (size_t at = 0; at < data.size(); at += chunk)
      h.update(llvm::StringRef(data).substr(at, chunk));
    CHECK(h.finalHex() == once);
  }
  // A whole number of pieces, and empty data.
  std::string whole = data.substr(0, 3000);
  PieceHash w(piece);
  w.update(whole);
  CHECK(w.finalHex() == pieceHashHex(whole, piece));
  PieceHash e(piece);
  CHECK(e.finalHex() == pieceHashHex("", piece));
  // One byte changed, or another piece size: another hash.
  std::string changed = data;
  changed[9876] ^= 1;
  CHECK(pieceHashHex(changed, piece) != once);
  CHECK(pieceHashHex(data, 1024) != once);
  CHECK(pieceHashHex("", piece) != pieceHashHex(std::string(1, '\0'), piece));
}
