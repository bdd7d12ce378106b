//===- Files.cpp - bounded reads and safe writes --------------------------===//

#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace jitrun;

static llvm::Error fileError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

uint64_t jitrun::physicalMemoryBytes() {
  // Read once: the memory check runs for every constant of a model.
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size)
                                 : uint64_t(0);
  }();
  return bytes;
}

static const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

namespace {
/// An open regular file, checked as readRegularFile promises.
struct OpenedFile {
  int fd = -1;
  uint64_t size = 0;
  ~OpenedFile() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

static llvm::Error openRegularFile(llvm::StringRef path, llvm::StringRef what, uint64_t maxBytes,
                                   OpenedFile &file) {
  std::string p = path.str();
  auto cannot = [&](const llvm::Twine &why) {
    return fileError("cannot read " + what + " '" + path + "': " + why);
  };
  // O_NONBLOCK: opening a FIFO with no writer must not hang; the file is
  // refused below anyway unless it is regular.
  file.fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) {
    int e = errno;
    return llvm::createStringError(std::error_code(e, std::generic_category()),
                                   "cannot open " + what + " '" + path + "': " +
                                       std::strerror(e));
  }
  struct stat st;
  if (::fstat(file.fd, &st) != 0)
    return cannot(std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return cannot(llvm::Twine("it is ") + kindOf(st.st_mode) + ", not a regular file");
  uint64_t limit = maxBytes ? maxBytes : physicalMemoryBytes();
  file.size = static_cast<uint64_t>(st.st_size);
  if (limit && file.size > limit)
    return cannot("it has " + llvm::Twine(file.size) + " bytes, more than the " +
                  llvm::Twine(limit) + " bytes " +
                  (maxBytes ? "allowed" : "of this host's memory"));
  return llvm::Error::success();
}

/// `want` bytes of `file` from `offset`, fewer if it ends first (it shrank
/// while read).
static llvm::Expected<std::string> readAt(const OpenedFile &file, uint64_t offset, uint64_t want,
                                          llvm::StringRef path, llvm::StringRef what) {
  std::string data;
  data.resize(want);
  size_t done = 0;
  while (done < want) {
    ssize_t n = ::pread(file.fd, data.data() + done, want - done, off_t(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fileError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  data.resize(done);
  return data;
}

llvm::Expected<std::string> jitrun::readRegularFile(llvm::StringRef path, llvm::StringRef what,
                                                    uint64_t maxBytes) {
  OpenedFile file;
  if (llvm::Error e = openRegularFile(path, what, maxBytes, file))
    return std::move(e);
  return readAt(file, 0, file.size, path, what);
}

llvm::Expected<std::string> jitrun::readRegularFileRange(llvm::StringRef path,
                                                         llvm::StringRef what, uint64_t offset,
                                                         int64_t length) {
  OpenedFile file;
  if (llvm::Error e =
          openRegularFile(path, what, std::numeric_limits<uint64_t>::max(), file))
    return std::move(e);
  uint64_t want = length < 0 ? (offset <= file.size ? file.size - offset : 0)
                             : static_cast<uint64_t>(length);
  if (offset > file.size || want > file.size - offset)
    return fileError(what + " [" + llvm::Twine(offset) + ", +" +
                     llvm::Twine(length < 0 ? int64_t(want) : length) + ") is outside '" + path +
                     "' (" + llvm::Twine(file.size) + " bytes)");
  uint64_t limit = physicalMemoryBytes();
  if (limit && want > limit)
    return fileError("cannot read " + what + " '" + path + "': " + llvm::Twine(want) +
                     " bytes, more than the " + llvm::Twine(limit) +
                     " bytes of this host's memory");
  llvm::Expected<std::string> data = readAt(file, offset, want, path, what);
  if (data && data->size() != want)
    return fileError("cannot read " + what + " '" + path + "': it shrank while read");
  return data;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
jitrun::mapRegularFile(llvm::StringRef path, llvm::StringRef what, uint64_t maxBytes) {
  OpenedFile file;
  if (llvm::Error e = openRegularFile(path, what, maxBytes, file))
    return std::move(e);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getOpenFile(
      llvm::sys::fs::convertFDToNativeFile(file.fd), path, file.size,
      /*RequiresNullTerminator=*/false, /*IsVolatile=*/false);
  if (!buffer)
    return fileError("cannot read " + what + " '" + path + "': " + buffer.getError().message());
  return std::move(*buffer);
}

std::unique_ptr<llvm::WritableMemoryBuffer> jitrun::pageAlignedCopy(llvm::StringRef bytes,
                                                                    llvm::StringRef name) {
  std::unique_ptr<llvm::WritableMemoryBuffer> copy =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(bytes.size(), name,
                                                        llvm::Align(kPageBytes));
  if (copy && !bytes.empty())
    std::memcpy(copy->getBufferStart(), bytes.data(), bytes.size());
  return copy;
}

bool jitrun::writeAll(int fd, llvm::StringRef data, std::string &err) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = std::strerror(errno);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

llvm::Error jitrun::writeFileSafely(llvm::StringRef path, llvm::StringRef data) {
  return writeFileSafely(path, [&](int fd, std::string &err) { return writeAll(fd, data, err); });
}

llvm::Error jitrun::writeFileSafely(llvm::StringRef path,
                                    llvm::function_ref<bool(int fd, std::string &err)> write) {
  auto cannot = [&](const llvm::Twine &why) {
    return fileError("cannot write '" + path + "': " + why);
  };
  if (path.empty())
    return cannot("empty path");
  // Follow symlinks: the target is what gets replaced, never the link.
  std::string target = path.str();
  llvm::SmallString<256> resolved;
  struct stat st;
  bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !llvm::sys::fs::real_path(path, resolved))
    target = resolved.str().str();
  if (exists && S_ISDIR(st.st_mode))
    return cannot("it is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or FIFO: write through it, never replace it.
    int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return cannot(std::strerror(errno));
    std::string err;
    bool ok = write(fd, err);
    if (::close(fd) != 0 && ok) {
      ok = false;
      err = std::strerror(errno);
    }
    return ok ? llvm::Error::success() : cannot(err);
  }
  if (!exists && ::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return cannot("it is a dangling symbolic link");
  int fd = -1;
  llvm::SmallString<256> temp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(target + ".tmp-%%%%%%%%", fd, temp))
    return cannot("cannot create a temporary file next to it: " + ec.message());
  std::string err;
  bool ok = write(fd, err);
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = std::strerror(errno);
  }
  // Keep the permissions of the file being replaced.
  if (ok && exists)
    ::chmod(temp.c_str(), st.st_mode & 07777);
  if (ok && ::rename(temp.c_str(), target.c_str()) != 0) {
    ok = false;
    err = std::strerror(errno);
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return cannot(err);
  }
  return llvm::Error::success();
}
