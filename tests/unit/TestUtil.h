//===- TestUtil.h - Helpers shared by the jitrun unit tests ---------------===//
//
// Turns llvm::Error / llvm::Expected into strings Catch2 can check, and
// provides a scratch directory that removes itself.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_TESTS_UNIT_TESTUTIL_H
#define JITRUN_TESTS_UNIT_TESTUTIL_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <string>

namespace jitrun {
namespace test {

/// The message of `err`, or "" for success (the error is consumed).
inline std::string errorMessage(llvm::Error err) {
  if (!err)
    return std::string();
  return llvm::toString(std::move(err));
}

/// The error message of `value`, or "" if it holds a value.
template <typename T> std::string errorMessage(llvm::Expected<T> &value) {
  if (value)
    return std::string();
  return llvm::toString(value.takeError());
}

/// The error message of a temporary `value`, or "" if it holds a value.
template <typename T> std::string errorMessage(llvm::Expected<T> &&value) {
  return errorMessage(value);
}

/// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
public:
  TempDir() {
    if (llvm::sys::fs::createUniqueDirectory("jitrun-unit", path))
      path.clear();
  }
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  /// True if the directory was created.
  bool valid() const { return !path.empty(); }
  /// The path of `name` inside the directory.
  std::string file(const llvm::Twine &name) const {
    return (path + "/" + name).str();
  }
  /// The directory itself.
  std::string dir() const { return std::string(path.str()); }

private:
  llvm::SmallString<128> path;
};

} // namespace test
} // namespace jitrun

#endif // JITRUN_TESTS_UNIT_TESTUTIL_H
