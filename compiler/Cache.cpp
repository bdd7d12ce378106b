//===- Cache.cpp - the on-disk cache's folder -----------------------------===//

#include "compiler/Cache.h"

#include "compiler/Options.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace jitrun {

std::string defaultCacheDir() {
  if (const char *dir = std::getenv("JITRUN_CACHE_DIR"))
    return dir; // "" turns the cache off
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/jitrun";
  if (const char *home = std::getenv("HOME"); home && *home == '/')
    return std::string(home) + "/.cache/jitrun";
  return "";
}

std::string cacheDirProblem(const std::string &dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return ec.message();
  if (!llvm::sys::fs::is_directory(dir))
    return "not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return std::strerror(errno);
  return "";
}

const std::string &compilerBinaryId() {
  static const std::string id = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&compilerBinaryId), &info) || !info.dli_fname)
      return std::string("unknown-binary");
    llvm::sys::fs::file_status st;
    if (llvm::sys::fs::status(info.dli_fname, st))
      return std::string(info.dli_fname);
    return std::string(info.dli_fname) + " " + std::to_string(st.getSize()) + " " +
           std::to_string(st.getLastModificationTime().time_since_epoch().count());
  }();
  return id;
}

void touchCacheEntry(const std::string &path) {
  (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // both times: now
}

int pruneCacheDir(const std::string &dir, uint64_t maxBytes) {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef ext = llvm::sys::path::extension(it->path());
    if (ext != ".jrk" && ext != ".jrp" && ext != ".jrw")
      continue;
    llvm::sys::fs::file_status st;
    if (llvm::sys::fs::status(it->path(), st, /*Follow=*/false) ||
        st.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    entries.push_back(Entry{it->path(), st.getSize(), st.getLastModificationTime()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  auto expired = std::chrono::system_clock::now() - std::chrono::hours(24 * 30);
  uint64_t total = 0;
  for (const Entry &e : entries)
    total += e.size;
  int removed = 0;
  bool overCap = maxBytes && total > maxBytes;
  for (const Entry &e : entries) {
    overCap = overCap && total > maxBytes / 10 * 9;
    if (!overCap && e.used >= expired)
      break; // the rest are newer
    if (!llvm::sys::fs::remove(e.path)) {
      total -= e.size;
      ++removed;
    }
  }
  return removed;
}

} // namespace jitrun
