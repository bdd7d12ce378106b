//===- Errors.h - jitrun's error codes in llvm::Error values ----*- C++ -*-===//
//
// Every fallible function of the library returns an llvm::Error (or
// Expected) whose error_code names one of these kinds; the C API maps them
// to its status codes. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_ERRORS_H
#define JITRUN_SUPPORT_ERRORS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <system_error>

namespace jitrun {

/// What kind of failure an llvm::Error from this library reports; its
/// std::error_code (llvm::errorToErrorCode, or StringError::convertToErrorCode)
/// carries one of these in jitrunErrorCategory(). The values are the C API's
/// jitrun_status_code_t.
enum class ErrorCode {
  InvalidArgument = 1,
  NotFound = 2,
  CompileError = 3,
  ShapeMismatch = 4,
  ResourceExhausted = 5,
  RuntimeError = 6,
};
const std::error_category &jitrunErrorCategory();
inline std::error_code make_error_code(ErrorCode c) {
  return {static_cast<int>(c), jitrunErrorCategory()};
}
/// A string error of kind `code`.
llvm::Error makeError(ErrorCode code, const llvm::Twine &msg);
/// The kind of the first error in `e` (CompileError when it carries none of
/// ours) and all messages; consumes `e`.
ErrorCode takeErrorCode(llvm::Error e, std::string &message);

} // namespace jitrun

#endif // JITRUN_SUPPORT_ERRORS_H
