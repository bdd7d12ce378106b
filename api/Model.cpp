//===- Model.cpp - a compiled model: the compiler, then the executor ------===//
//
// A static model is one compiled program. A dynamic one keeps its bytes and
// options and compiles a specialization per distinct set of input shapes,
// keeping the most recently used ones.
//
//===----------------------------------------------------------------------===//

#include "api/Model.h"

#include "compiler/Compiler.h"

#include <algorithm>
#include <map>

namespace jitrun {

void registerCompilerCommandLineOptions() { registerCompilerOptions(); }

std::function<void(mlir::PassManager &)> commandLinePassManagerOptions() {
  return applyCompilerOptions;
}

/// One compiled program: for a static model the model, for a dynamic one its
/// specialization to `shapes`.
struct CompiledModel::Specialization {
  std::vector<std::vector<int64_t>> shapes;
  std::unique_ptr<CompiledProgram> compiled;
  std::unique_ptr<Executor> executor; // null for a dynamic model's signature
  HostProgram signature;              // the specs when there is no executor

  explicit Specialization(std::unique_ptr<CompiledProgram> c) : compiled(std::move(c)) {
    if (compiled->dynamic)
      signature = std::move(compiled->program);
    else
      executor = std::make_unique<Executor>(std::move(compiled->program),
                                            std::move(compiled->loader));
  }
  const HostProgram &program() const { return executor ? executor->program() : signature; }
};

ModelRunContext::ModelRunContext() = default;
ModelRunContext::~ModelRunContext() = default;

CompiledModel::~CompiledModel() = default;

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileBuffer(llvm::StringRef bytes, llvm::StringRef name,
                             const CompileOptions &options) {
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, options);
  if (!c)
    return c.takeError();
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  model->base = std::make_shared<Specialization>(std::move(*c));
  if (model->base->compiled->dynamic) {
    model->bytes = bytes.str();
    model->name = name.str();
    model->options = options;
    // A specialization compiles during a run: no caller's progress callback
    // (it may be gone by then) and no signature-only stop.
    model->options.progress = nullptr;
    model->options.signatureOnly = false;
    model->options.maxSpecializations = std::max<size_t>(1, options.maxSpecializations);
  }
  return model;
}

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileFile(llvm::StringRef path, const CompileOptions &options) {
  llvm::Expected<std::string> bytes = readModelFile(path);
  if (!bytes)
    return bytes.takeError();
  return compileBuffer(*bytes, path, options);
}

const std::vector<TensorSpec> &CompiledModel::inputs() const {
  return base->program().inputSpecs;
}
const std::vector<TensorSpec> &CompiledModel::outputs() const {
  return base->program().outputSpecs;
}
bool CompiledModel::dynamic() const { return base->compiled->dynamic; }
const std::string &CompiledModel::function() const { return base->compiled->stats.function; }

Statistics CompiledModel::statistics() const {
  std::lock_guard<std::mutex> lock(mutex);
  return (latest ? latest : base)->compiled->stats;
}
std::vector<std::string> CompiledModel::warnings() const {
  std::lock_guard<std::mutex> lock(mutex);
  return (latest ? latest : base)->compiled->warnings;
}
std::vector<std::string> CompiledModel::fusionExplanations() const {
  std::lock_guard<std::mutex> lock(mutex);
  return (latest ? latest : base)->compiled->explanations;
}
const std::vector<std::string> &CompiledModel::entryPoints() const {
  return base->compiled->entryPoints;
}

size_t CompiledModel::specializations() const {
  std::lock_guard<std::mutex> lock(mutex);
  return specializations_.size();
}

/// `shape` as `3x4` (a scalar: `scalar`).
static std::string dimsText(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

/// Input `i` as messages name it: `input 1 ('mask')`.
static std::string inputName(const TensorSpec &spec, size_t i) {
  return "input " + std::to_string(i) + (spec.name.empty() ? "" : " ('" + spec.name + "')");
}

/// Checks `shapes` against a dynamic signature: count, rank, static dims,
/// and dims of one name equal across the inputs.
static llvm::Error checkShapes(const std::vector<TensorSpec> &specs,
                               llvm::ArrayRef<std::vector<int64_t>> shapes) {
  if (shapes.size() != specs.size())
    return makeError(ErrorCode::ShapeMismatch, "expected " + llvm::Twine(specs.size()) +
                                                   " inputs, got " + llvm::Twine(shapes.size()));
  // A named dim's first binding: its value, and which input and dim bound it.
  std::map<std::string, std::pair<int64_t, std::string>> bound;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &spec = specs[i];
    const std::vector<int64_t> &shape = shapes[i];
    bool fits = shape.size() == spec.shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = shape[d] >= 0 && (spec.shape[d] < 0 || spec.shape[d] == shape[d]);
    if (!fits)
      return makeError(ErrorCode::ShapeMismatch,
                       inputName(spec, i) + ": expected shape " + spec.str() + ", got " +
                           dimsText(shape));
    for (size_t d = 0; d < spec.dimNames.size() && d < shape.size(); ++d) {
      const std::string &dimName = spec.dimNames[d];
      if (dimName.empty())
        continue;
      std::string where = inputName(spec, i) + " dim " + std::to_string(d);
      auto [it, inserted] = bound.try_emplace(dimName, shape[d], where);
      if (!inserted && it->second.first != shape[d])
        return makeError(ErrorCode::ShapeMismatch,
                         where + " is " + llvm::Twine(shape[d]) + " but " + it->second.second +
                             " is " + llvm::Twine(it->second.first) +
                             "; the model needs them equal (dynamic dim '" + dimName + "')");
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::shared_ptr<CompiledModel::Specialization>>
CompiledModel::specialization(const std::vector<std::vector<int64_t>> &shapes) {
  auto lookup = [&]() -> std::shared_ptr<Specialization> {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find_if(specializations_.begin(), specializations_.end(),
                           [&](const auto &s) { return s->shapes == shapes; });
    if (it == specializations_.end())
      return nullptr;
    std::rotate(specializations_.begin(), it, it + 1); // most recent first
    latest = specializations_.front();
    return latest;
  };
  if (std::shared_ptr<Specialization> s = lookup())
    return s;
  if (llvm::Error e = checkShapes(inputs(), shapes))
    return std::move(e);
  // One compile at a time; a caller that waited may find its shapes done.
  std::lock_guard<std::mutex> compiling(compileMutex);
  if (std::shared_ptr<Specialization> s = lookup())
    return s;
  CompileOptions o = options;
  o.argumentShapes = shapes;
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, o);
  if (!c)
    return c.takeError();
  auto s = std::make_shared<Specialization>(std::move(*c));
  s->shapes = shapes;
  std::lock_guard<std::mutex> lock(mutex);
  if (profiling)
    s->executor->setProfiling(true);
  specializations_.insert(specializations_.begin(), s);
  if (specializations_.size() > options.maxSpecializations)
    specializations_.pop_back(); // runs in flight keep theirs alive
  latest = s;
  return s;
}

llvm::Expected<std::shared_ptr<CompiledModel::Specialization>>
CompiledModel::programFor(llvm::ArrayRef<const HostTensor *> inputs) {
  if (!dynamic())
    return base;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor *t = inputs[i];
    if (!t)
      return makeError(ErrorCode::InvalidArgument, "input " + llvm::Twine(i) + " is null");
    if (i < this->inputs().size() && t->elementType() != this->inputs()[i].type)
      return makeError(ErrorCode::ShapeMismatch,
                       inputName(this->inputs()[i], i) + ": expected shape and type " +
                           this->inputs()[i].str() + ", got " + t->typeString());
    shapes.emplace_back(t->shape().begin(), t->shape().end());
  }
  return specialization(shapes);
}

llvm::Expected<std::vector<TensorSpec>>
CompiledModel::outputsFor(llvm::ArrayRef<std::vector<int64_t>> shapes) {
  if (!dynamic()) {
    if (llvm::Error e = checkShapes(inputs(), shapes))
      return std::move(e);
    return outputs();
  }
  llvm::Expected<std::shared_ptr<Specialization>> s = specialization(shapes.vec());
  if (!s)
    return s.takeError();
  return (*s)->program().outputSpecs;
}

llvm::Expected<std::unique_ptr<ModelRunContext>> CompiledModel::createRunContext() const {
  std::unique_ptr<ModelRunContext> c(new ModelRunContext());
  if (!dynamic()) {
    auto context = base->executor->createRunContext();
    if (!context)
      return context.takeError();
    c->owner = base;
    c->context = std::move(*context);
  }
  return c;
}

llvm::Expected<std::vector<HostTensor>>
CompiledModel::run(llvm::ArrayRef<const HostTensor *> inputs, ThreadPool &pool) {
  llvm::Expected<std::shared_ptr<Specialization>> s = programFor(inputs);
  if (!s)
    return s.takeError();
  return (*s)->executor->run(inputs, pool);
}

llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool) {
  llvm::Expected<std::shared_ptr<Specialization>> s = programFor(inputs);
  if (!s)
    return s.takeError();
  return (*s)->executor->runInto(inputs, results, pool);
}

llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                                   ModelRunContext &context) {
  llvm::Expected<std::shared_ptr<Specialization>> s = programFor(inputs);
  if (!s)
    return s.takeError();
  if (context.owner != *s) {
    // Another specialization's intermediates: this one's are made here.
    auto fresh = (*s)->executor->createRunContext();
    if (!fresh)
      return fresh.takeError();
    context.context = std::move(*fresh);
    context.owner = *s;
  }
  return (*s)->executor->runInto(inputs, results, pool, *context.context);
}

void CompiledModel::setProfiling(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex);
  profiling = enabled;
  if (base->executor)
    base->executor->setProfiling(enabled);
  for (const auto &s : specializations_)
    s->executor->setProfiling(enabled);
}

Profile CompiledModel::profile() const {
  std::lock_guard<std::mutex> lock(mutex);
  const std::shared_ptr<Specialization> &s = latest ? latest : base;
  return s->executor ? s->executor->profile() : Profile{};
}

} // namespace jitrun
