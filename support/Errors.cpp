//===- Errors.cpp - jitrun's error codes in llvm::Error values ----------===//

#include "support/Errors.h"

#include <optional>

namespace jitrun {

namespace {
class JitrunErrorCategory final : public std::error_category {
public:
  const char *name() const noexcept override { return "jitrun"; }
  std::string message(int c) const override {
    switch (static_cast<ErrorCode>(c)) {
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::NotFound:
      return "not found";
    case ErrorCode::CompileError:
      return "compile error";
    case ErrorCode::ShapeMismatch:
      return "shape mismatch";
    case ErrorCode::ResourceExhausted:
      return "resource exhausted";
    case ErrorCode::RuntimeError:
      return "runtime error";
    }
    return "unknown error";
  }
};
} // namespace

const std::error_category &jitrunErrorCategory() {
  static JitrunErrorCategory category;
  return category;
}

llvm::Error makeError(ErrorCode code, const llvm::Twine &msg) {
  return llvm::createStringError(make_error_code(code), msg);
}

ErrorCode takeErrorCode(llvm::Error e, std::string &message) {
  std::optional<ErrorCode> code;
  message.clear();
  llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) {
    std::error_code ec = info.convertToErrorCode();
    if (!code && ec.category() == jitrunErrorCategory())
      code = static_cast<ErrorCode>(ec.value());
    if (!message.empty())
      message += "\n";
    message += info.message();
  });
  return code.value_or(ErrorCode::CompileError);
}

} // namespace jitrun
