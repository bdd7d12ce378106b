//===- CompileFuzzer.cpp - libFuzzer target: bytes -> compiled model ------===//
//
// jitrun-fuzz-compile feeds arbitrary bytes through the whole compile path of
// the embedded API (parse as MLIR text or bytecode, verify, fuse, codegen,
// ORC), never running the result. An llvm::Error is the expected answer to a
// bad input; a crash, abort or sanitizer report is a finding (issue 6).
//
//===----------------------------------------------------------------------===//

#include "api/Model.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jitrun::CompileOptions options;
  // One compile thread: findings reproduce deterministically and the fuzzer
  // does not compete with itself for the cores.
  options.compileThreads = 1;
  // No cache: every input is new, and the user's cache folder is not the
  // fuzzer's to fill.
  options.cacheDir.clear();
  llvm::Expected<std::unique_ptr<jitrun::CompiledModel>> model =
      jitrun::CompiledModel::compileBuffer(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz-input",
          options);
  if (!model)
    llvm::consumeError(model.takeError());
  return 0;
}
