//===- Main.cpp - modelgen: write a zoo model as MLIR ---------------------===//
//
//   modelgen --list
//   modelgen NAME --size=test|full [--dynamic] -o FILE.mlirbc   (FILE.mlir: text)
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace jitrun::modelgen;

namespace {
llvm::cl::OptionCategory category("modelgen options");
llvm::cl::opt<std::string> modelName(llvm::cl::Positional, llvm::cl::desc("<model>"),
                                     llvm::cl::cat(category));
llvm::cl::opt<bool> list("list", llvm::cl::desc("Print the model names, one per line"),
                         llvm::cl::cat(category));
llvm::cl::opt<std::string> size("size", llvm::cl::desc("test or full"), llvm::cl::init("test"),
                                llvm::cl::cat(category));
llvm::cl::opt<bool> dynamic("dynamic",
                            llvm::cl::desc("The model's dynamic variant: its batch or sequence "
                                           "length left open (`?`)"),
                            llvm::cl::cat(category));
llvm::cl::opt<std::string> output("o", llvm::cl::desc("Output file (.mlirbc bytecode, .mlir text)"),
                                  llvm::cl::value_desc("FILE"), llvm::cl::cat(category));
} // namespace

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "modelgen: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(argc, argv, "modelgen: the jitrun model zoo\n");
  std::vector<ModelSpec> models;
  addLinalgModels(models);
  addTosaModels(models);
  std::sort(models.begin(), models.end(),
            [](const ModelSpec &a, const ModelSpec &b) { return a.name < b.name; });
  if (list) {
    // With --dynamic: the models that have a dynamic variant, and its dim.
    for (const ModelSpec &m : models)
      if (!dynamic)
        llvm::outs() << m.name << "\n";
      else if (!m.dynamicDim.empty())
        llvm::outs() << m.name << " " << m.dynamicDim << "\n";
    return 0;
  }
  if (modelName.empty())
    return fail("no model name; `modelgen --list` prints them");
  auto it = std::find_if(models.begin(), models.end(),
                         [](const ModelSpec &m) { return m.name == modelName; });
  if (it == models.end())
    return fail("unknown model '" + modelName + "'; `modelgen --list` prints them");
  if (size != "test" && size != "full")
    return fail("--size must be test or full, got '" + size + "'");
  if (output.empty())
    return fail("-o FILE is required");
  if (dynamic && it->dynamicDim.empty())
    return fail("'" + modelName + "' has no dynamic variant; `modelgen --list --dynamic` "
                "prints the models that have one");

  MLIRContext context;
  context.loadDialect<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                      math::MathDialect, scf::SCFDialect, tensor::TensorDialect,
                      tosa::TosaDialect>();
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  std::mt19937_64 rng(std::hash<std::string>{}(modelName + "/" + size));
  ModelContext ctx{*module, builder, size == "full" ? Size::Full : Size::Test, rng, dynamic};
  if (failed(it->build(ctx)))
    return fail("building '" + modelName + "' failed");
  if (failed(verify(*module)))
    return fail("'" + modelName + "' does not verify");

  std::error_code ec;
  auto file = std::make_unique<llvm::ToolOutputFile>(output, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  if (llvm::StringRef(output).ends_with(".mlirbc")) {
    if (failed(writeBytecodeToFile(*module, file->os())))
      return fail("writing bytecode failed");
  } else {
    module->print(file->os());
  }
  file->keep();
  return 0;
}
