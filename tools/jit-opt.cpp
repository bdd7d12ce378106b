//===- jit-opt.cpp - mlir-opt with jitrun's passes and pipelines ---------===//
//
// The driver of jitrun's lit tests: the dialects jitrun uses, its fusion and
// codegen passes and named pipelines, and the few upstream passes tests need.
// An `.onnx` input is imported first (onnx/), so `jit-opt model.onnx` prints
// the imported MLIR and passes run on it.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "fusion/Passes.h"
#include "onnx/Import.h"
#include "support/Files.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

/// Imports the ONNX model at `path` into a temporary MLIR file; its path, or
/// "" after printing the import's errors.
static std::string importToTemporary(llvm::StringRef path, const mlir::DialectRegistry &registry) {
  llvm::Expected<std::string> bytes = jitrun::readRegularFile(path, "model");
  if (!bytes) {
    llvm::errs() << "jit-opt: error: " << llvm::toString(bytes.takeError()) << "\n";
    return "";
  }
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      jitrun::importOnnx(context, *bytes, path, jitrun::OnnxImportOptions{});
  if (!module)
    return "";
  llvm::SmallString<128> tmp;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("jit-opt-onnx", "mlir", fd, tmp)) {
    llvm::errs() << "jit-opt: error: cannot create a temporary file\n";
    return "";
  }
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  module->print(os);
  return tmp.str().str();
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  jitrun::registerJitrunDialects(registry);
  jitrun::registerFusionPasses();
  jitrun::registerCodegenPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  std::vector<char *> args(argv, argv + argc);
  std::string imported;
  std::optional<llvm::FileRemover> remover;
  for (char *&arg : args) {
    llvm::StringRef a(arg);
    if (!a.starts_with("-") && a.ends_with(".onnx")) {
      imported = importToTemporary(a, registry);
      if (imported.empty())
        return 1;
      remover.emplace(imported);
      arg = imported.data();
      break;
    }
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(static_cast<int>(args.size()), args.data(),
                                                  "jitrun optimizer driver\n", registry));
}
