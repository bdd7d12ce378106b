//===- Model.cpp - a compiled model: the compiler, then the executor ------===//

#include "api/Model.h"

#include "compiler/Compiler.h"

namespace jitrun {

void registerCompilerCommandLineOptions() { registerCompilerOptions(); }

std::function<void(mlir::PassManager &)> commandLinePassManagerOptions() {
  return applyCompilerOptions;
}

CompiledModel::CompiledModel(std::unique_ptr<CompiledProgram> c) : compiled(std::move(c)) {
  executor = std::make_unique<Executor>(std::move(compiled->program),
                                        std::move(compiled->loader));
}

CompiledModel::~CompiledModel() = default;

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileBuffer(llvm::StringRef bytes, llvm::StringRef name,
                             const CompileOptions &options) {
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, options);
  if (!c)
    return c.takeError();
  return std::unique_ptr<CompiledModel>(new CompiledModel(std::move(*c)));
}

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileFile(llvm::StringRef path, const CompileOptions &options) {
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModelFile(path, options);
  if (!c)
    return c.takeError();
  return std::unique_ptr<CompiledModel>(new CompiledModel(std::move(*c)));
}

const std::vector<TensorSpec> &CompiledModel::inputs() const {
  return executor->program().inputSpecs;
}
const std::vector<TensorSpec> &CompiledModel::outputs() const {
  return executor->program().outputSpecs;
}
const Statistics &CompiledModel::statistics() const { return compiled->stats; }
const std::vector<std::string> &CompiledModel::warnings() const { return compiled->warnings; }
const std::vector<std::string> &CompiledModel::fusionExplanations() const {
  return compiled->explanations;
}
const std::vector<std::string> &CompiledModel::entryPoints() const {
  return compiled->entryPoints;
}

llvm::Expected<std::unique_ptr<RunContext>> CompiledModel::createRunContext() const {
  return executor->createRunContext();
}
llvm::Expected<std::vector<HostTensor>>
CompiledModel::run(llvm::ArrayRef<const HostTensor *> inputs, ThreadPool &pool) {
  return executor->run(inputs, pool);
}
llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool) {
  return executor->runInto(inputs, results, pool);
}
llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                                   RunContext &context) {
  return executor->runInto(inputs, results, pool, context);
}
void CompiledModel::setProfiling(bool enabled) { executor->setProfiling(enabled); }
Profile CompiledModel::profile() const { return executor->profile(); }

} // namespace jitrun
