//===- WeightMemo.h - weights the compiles of one model share -*- C++ -*-===//
//
// A model with dynamic dims compiles once per new shape, and fusion then
// packs its weights into panels again (full-size BERT: 340 MB, most of a
// new sequence length's compile), although the packing depends on the
// shape only through the layout it picks. A WeightMemo, one per model,
// remembers each weight fusion built: keyed by its source bytes (their
// offset in the model's bytes when it was parsed in place, the key of the
// weight when the memo built it, else a 128-bit hash of them: xxh3, about
// 6 GB/s on one core) and by everything else the result depends on (the
// layout, its sizes, the element type), it hands
// a later compile the same bytes as long as some program of the model still
// holds them. It holds no bytes itself: an entry lives as long as a program
// (or a mapped weight file of the program cache) keeps its owner.
//
// The program cache (compiler/ProgramCache.h) moves a program's weights to
// mapped weight files: it tells the memo where each went and under which
// hash, so that a later compile reuses the mapping and skips hashing them.
//
// Fusion finds the memo of the context it runs in: the compile attaches it
// for the duration of a scope.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_WEIGHTMEMO_H
#define JITRUN_CONTRACT_WEIGHTMEMO_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace jitrun {

class WeightMemo {
public:
  /// `stable`: bytes that stay where they are, unchanged, as long as the
  /// memo (the model's own bytes, which its compiles parse weights from in
  /// place).
  explicit WeightMemo(llvm::StringRef stable) : stable(stable) {}

  /// The key of a weight derived from `source` by `recipe` (everything but
  /// the source bytes the result depends on: "panels f32 k=768 n=3072
  /// width=32"). The source is known by its offset when it lies in the
  /// stable bytes, by its own key when the memo built it, and else by a
  /// hash of its bytes.
  std::string key(llvm::ArrayRef<char> source, llvm::StringRef recipe);

  /// A blob (64-byte aligned) of the bytes remembered under `key` while some
  /// program still holds them (`reused` set); else of `bytes` fresh bytes
  /// that `fill` writes, then remembered under `key`. Throws std::bad_alloc
  /// when there is no memory for them.
  mlir::AsmResourceBlob get(const std::string &key, size_t bytes,
                            llvm::function_ref<void(char *)> fill, bool &reused);

  /// A fresh 64-byte aligned blob of `bytes` bytes for the caller to fill,
  /// owned through `owner`. Throws std::bad_alloc.
  static mlir::AsmResourceBlob allocate(size_t bytes, std::shared_ptr<const void> &owner);

  /// The weight at `from` (`size` bytes) now lives at `to`, kept alive by
  /// `owner`, with the cache's hash `hash`: entries of it follow it there.
  void moved(const char *from, size_t size, const char *to, std::shared_ptr<const void> owner,
             const std::string &hash);

  /// The cache's hash of the `size` bytes at `data`, when they are a
  /// remembered weight that `moved` named; "" otherwise.
  std::string hashOf(const char *data, size_t size);

  /// A weight of `bytes` bytes that `fill` writes, derived from the
  /// constant bytes `source` by `recipe` (see `key`), as a 64-byte aligned
  /// blob: the one an earlier compile built when a Scope attached a memo to
  /// `context` and some program still holds it (`fill` is not called), else
  /// built. Throws std::bad_alloc without memory for it.
  static mlir::AsmResourceBlob weight(mlir::MLIRContext *context, llvm::ArrayRef<char> source,
                                      llvm::StringRef recipe, size_t bytes,
                                      llvm::function_ref<void(char *)> fill);

  /// Attaches `memo` (if any) to `context` for the scope's duration, and
  /// counts the bytes `weight` reused meanwhile.
  class Scope {
  public:
    Scope(mlir::MLIRContext *context, std::shared_ptr<WeightMemo> memo);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
    int64_t reusedBytes() const { return reused; }

  private:
    friend class WeightMemo;
    mlir::MLIRContext *context;
    std::shared_ptr<WeightMemo> memo;
    std::atomic<int64_t> reused{0};
  };

private:
  struct Entry {
    std::weak_ptr<const void> owner;
    const char *data = nullptr;
    size_t size = 0;
    std::string hash; // the program cache's, once it named one
  };
  /// Forgets the entries no program holds any more (under `mutex`).
  void dropExpired();
  const llvm::StringRef stable;
  std::mutex mutex;
  std::map<std::string, Entry> entries;
};

} // namespace jitrun

#endif // JITRUN_CONTRACT_WEIGHTMEMO_H
