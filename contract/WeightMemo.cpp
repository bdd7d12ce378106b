//===- WeightMemo.cpp - weights the compiles of one model share ----------===//

#include "contract/WeightMemo.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <new>

namespace jitrun {

std::string WeightMemo::key(llvm::ArrayRef<char> source, llvm::StringRef recipe) {
  std::string key;
  llvm::raw_string_ostream os(key);
  auto at = reinterpret_cast<uintptr_t>(source.data()),
       begin = reinterpret_cast<uintptr_t>(stable.data());
  if (!source.empty() && source.size() <= stable.size() && at >= begin &&
      at - begin <= stable.size() - source.size()) {
    os << "model@" << (at - begin) << " " << source.size() << " " << recipe;
    return key;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Built by the memo, and alive (so still those bytes): its own key.
    for (const auto &[built, entry] : entries)
      if (entry.data == source.data() && entry.size == source.size() && !entry.owner.expired()) {
        os << "(" << built << ") " << recipe;
        return key;
      }
  }
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(source.data()), source.size()));
  os << llvm::format_hex_no_prefix(h.high64, 16) << llvm::format_hex_no_prefix(h.low64, 16) << " "
     << source.size() << " " << recipe;
  return key;
}

/// A blob of `data` that keeps `owner` (and so the bytes) alive.
static mlir::AsmResourceBlob sharedBlob(const char *data, size_t size,
                                        std::shared_ptr<const void> owner, bool mutableData) {
  return mlir::AsmResourceBlob(
      llvm::ArrayRef<char>(data, size), 64,
      [owner = std::move(owner)](void *, size_t, size_t) mutable { owner.reset(); }, mutableData);
}

mlir::AsmResourceBlob WeightMemo::allocate(size_t bytes, std::shared_ptr<const void> &owner) {
  // Not HeapAsmResourceBlob::allocate: LLVM's allocate_buffer aborts the
  // process when memory runs out; a std::bad_alloc fails the compile cleanly.
  void *data = ::operator new(bytes ? bytes : 1, std::align_val_t(64), std::nothrow);
  if (!data)
    throw std::bad_alloc();
  owner = std::shared_ptr<const void>(
      data, [](const void *p) { ::operator delete(const_cast<void *>(p), std::align_val_t(64)); });
  return sharedBlob(static_cast<const char *>(data), bytes, owner, /*mutableData=*/true);
}

mlir::AsmResourceBlob WeightMemo::get(const std::string &key, size_t bytes,
                                      llvm::function_ref<void(char *)> fill, bool &reused) {
  reused = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end()) {
      if (std::shared_ptr<const void> owner = it->second.owner.lock();
          owner && it->second.size == bytes) {
        reused = true;
        return sharedBlob(it->second.data, bytes, std::move(owner), /*mutableData=*/false);
      }
      entries.erase(it);
    }
  }
  // Built outside the lock (another compile of the model may be running),
  // and remembered only once written.
  std::shared_ptr<const void> owner;
  mlir::AsmResourceBlob blob = allocate(bytes, owner);
  fill(blob.getMutableData().data());
  std::lock_guard<std::mutex> lock(mutex);
  dropExpired();
  entries[key] = Entry{owner, blob.getData().data(), bytes, ""};
  return blob;
}

void WeightMemo::moved(const char *from, size_t size, const char *to,
                       std::shared_ptr<const void> owner, const std::string &hash) {
  std::lock_guard<std::mutex> lock(mutex);
  // Only live entries: a dead one's address may be another weight's now (a
  // mapping that went, and a new one made where it was).
  dropExpired();
  for (auto &[key, entry] : entries)
    if (entry.data == from && entry.size == size)
      entry = Entry{owner, to, size, hash};
}

void WeightMemo::dropExpired() {
  for (auto it = entries.begin(); it != entries.end();)
    it = it->second.owner.expired() ? entries.erase(it) : std::next(it);
}

std::string WeightMemo::hashOf(const char *data, size_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[key, entry] : entries)
    if (entry.data == data && entry.size == size && !entry.hash.empty() && !entry.owner.expired())
      return entry.hash;
  return "";
}

namespace {
/// The scopes attached, by context.
struct Attached {
  std::mutex mutex;
  std::map<mlir::MLIRContext *, WeightMemo::Scope *> byContext;
};
} // namespace

static Attached &attached() {
  static Attached *a = new Attached; // lives until exit
  return *a;
}

WeightMemo::Scope::Scope(mlir::MLIRContext *context, std::shared_ptr<WeightMemo> memo)
    : context(context), memo(std::move(memo)) {
  if (!this->memo)
    return;
  std::lock_guard<std::mutex> lock(attached().mutex);
  attached().byContext[context] = this;
}

WeightMemo::Scope::~Scope() {
  if (!memo)
    return;
  std::lock_guard<std::mutex> lock(attached().mutex);
  attached().byContext.erase(context);
}

mlir::AsmResourceBlob WeightMemo::weight(mlir::MLIRContext *context, llvm::ArrayRef<char> source,
                                         llvm::StringRef recipe, size_t bytes,
                                         llvm::function_ref<void(char *)> fill) {
  // The scope outlives the compile's passes, which call this.
  Scope *scope = nullptr;
  {
    std::lock_guard<std::mutex> lock(attached().mutex);
    auto it = attached().byContext.find(context);
    if (it != attached().byContext.end())
      scope = it->second;
  }
  if (!scope) {
    std::shared_ptr<const void> owner;
    mlir::AsmResourceBlob blob = allocate(bytes, owner);
    fill(blob.getMutableData().data());
    return blob;
  }
  WeightMemo &memo = *scope->memo;
  bool reused = false;
  mlir::AsmResourceBlob blob = memo.get(memo.key(source, recipe), bytes, fill, reused);
  if (reused)
    scope->reused += static_cast<int64_t>(bytes);
  return blob;
}

} // namespace jitrun
