//===- jit-opt.cpp - mlir-opt with jitrun's passes and pipelines ---------===//
//
// The driver of jitrun's lit tests: the dialects jitrun uses, its fusion and
// codegen passes and named pipelines, and the few upstream passes tests need.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "fusion/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  jitrun::registerJitrunDialects(registry);
  jitrun::registerFusionPasses();
  jitrun::registerCodegenPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "jitrun optimizer driver\n", registry));
}
