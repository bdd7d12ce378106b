//===- Model.cpp - a compiled model: the compiler, then the executor ------===//
//
// A static model is one compiled program. A dynamic one keeps its bytes and
// options and compiles a specialization per distinct set of input shapes,
// keeping the most recently used ones.
//
//===----------------------------------------------------------------------===//

#include "api/Model.h"

#include "compiler/Compiler.h"
#include "compiler/KernelCompiler.h"
#include "contract/WeightMemo.h"
#include "support/Files.h"

#include <algorithm>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstring>
#include <map>

namespace jitrun {

/// The background thread's nice value (Linux: per thread, inherited by the
/// threads it starts).
static constexpr int kBackgroundNice = 10;

void registerCompilerCommandLineOptions() { registerCompilerOptions(); }

std::function<void(mlir::PassManager &)> commandLinePassManagerOptions() {
  return applyCompilerOptions;
}

/// One compiled program: for a static model the model, for a dynamic one its
/// specialization to `shapes`.
struct CompiledModel::Specialization {
  std::vector<std::vector<int64_t>> shapes;
  /// Kernels generic in the dynamic dims where they could be (the tiered
  /// policy's program for a size it cannot split, until the exact one).
  bool generic = false;
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

CompiledModel::~CompiledModel() {
  // The task running stops at its compile's next phase or kernel; those
  // queued are dropped. Joined outside the lock, which the task takes.
  std::thread task;
  cancelling = true;
  {
    std::lock_guard<std::mutex> lock(backgroundMutex);
    stopping = true;
    task = std::move(background);
  }
  if (task.joinable())
    task.join();
}

llvm::Expected<std::unique_ptr<CompiledModel>>
CompiledModel::compileBuffer(llvm::StringRef bytes, llvm::StringRef name,
                             const CompileOptions &given) {
  // Every compile of these bytes (each specialization, each twin) shares
  // one hash of them.
  CompileOptions options = given;
  options.modelHash = std::make_shared<CompileOptions::ModelHash>();
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, options);
  if (!c)
    return c.takeError();
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  model->base = std::make_shared<Specialization>(std::move(*c));
  if (model->base->compiled->dynamic) {
    model->buffer = modelCopyForCompiles(bytes, name);
    if (!model->buffer)
      return makeError(ErrorCode::ResourceExhausted,
                       "no memory to keep the model's " + llvm::Twine(bytes.size()) + " bytes");
    model->bytes =
        llvm::StringRef(model->buffer->getBufferStart(), model->buffer->getBufferSize());
    model->name = name.str();
    model->options = options;
    // A specialization compiles during a run: no caller's progress callback
    // (it may be gone by then) and no signature-only stop.
    model->options.progress = nullptr;
    model->options.signatureOnly = false;
    model->options.maxSpecializations = std::max<size_t>(1, options.maxSpecializations);
    // A compile at a new shape takes the weights (packed panels, folds) an
    // earlier one built while a program of the model still holds them,
    // instead of building them again.
    model->options.weightMemo = std::make_shared<WeightMemo>(model->bytes);
    // And the kernels earlier compiles made, with or without a cache folder.
    model->options.kernelMemo = std::make_shared<KernelMemo>();
    model->options.cancelled = [m = model.get(), outer = options.cancelled] {
      return m->cancelling.load(std::memory_order_relaxed) || (outer && outer());
    };
    // The named dims, each analyzed by the specializations (DimAnalysis).
    const std::vector<TensorSpec> &specs = model->inputs();
    for (size_t i = 0; i < specs.size(); ++i)
      for (size_t d = 0; d < specs[i].dimNames.size(); ++d) {
        const std::string &dim = specs[i].dimNames[d];
        if (dim.empty())
          continue;
        auto g = std::find_if(model->groups.begin(), model->groups.end(),
                              [&](const DimGroup &x) { return x.name == dim; });
        if (g == model->groups.end()) {
          model->groups.push_back(DimGroup{dim, std::vector<int64_t>(specs.size(), -1)});
          g = model->groups.end() - 1;
        }
        g->inputDims[i] = int64_t(d);
      }
    model->options.analyzeDims = model->groups;
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

std::shared_ptr<CompiledModel::Specialization>
CompiledModel::find(const std::vector<std::vector<int64_t>> &shapes) {
  std::lock_guard<std::mutex> lock(mutex);
  // The exact program before a generic one of the same shapes.
  auto it = std::find_if(specializations_.begin(), specializations_.end(),
                         [&](const auto &s) { return s->shapes == shapes && !s->generic; });
  if (it == specializations_.end())
    it = std::find_if(specializations_.begin(), specializations_.end(),
                      [&](const auto &s) { return s->shapes == shapes; });
  if (it == specializations_.end())
    return nullptr;
  std::rotate(specializations_.begin(), it, it + 1); // most recent first
  latest = specializations_.front();
  return latest;
}

void CompiledModel::record(const std::vector<DimAnalysis> &dims) {
  std::lock_guard<std::mutex> lock(mutex);
  for (const DimAnalysis &d : dims) {
    auto [it, inserted] = found.try_emplace(d.name, d);
    if (!inserted && !d.independent)
      it->second = d;
  }
}

llvm::Expected<std::shared_ptr<CompiledModel::Specialization>>
CompiledModel::specialization(const std::vector<std::vector<int64_t>> &shapes) {
  // `shapes` were checked by planFor. One compile at a time; a caller that
  // waited may find its shapes done.
  std::lock_guard<std::mutex> compiling(compileMutex);
  if (std::shared_ptr<Specialization> s = find(shapes); s && !s->generic)
    return s;
  CompileOptions o = options;
  o.argumentShapes = shapes;
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, o);
  if (!c)
    return c.takeError();
  record((*c)->dims);
  return keep(std::move(*c), shapes, /*generic=*/false);
}

std::shared_ptr<CompiledModel::Specialization>
CompiledModel::keep(std::unique_ptr<CompiledProgram> c,
                    const std::vector<std::vector<int64_t>> &shapes, bool generic) {
  auto s = std::make_shared<Specialization>(std::move(c));
  s->shapes = shapes;
  s->generic = generic;
  std::lock_guard<std::mutex> lock(mutex);
  if (profiling)
    s->executor->setProfiling(true);
  // An exact program replaces a generic one of its shapes (runs in flight
  // keep theirs).
  if (!generic)
    llvm::erase_if(specializations_,
                   [&](const auto &g) { return g->generic && g->shapes == shapes; });
  specializations_.insert(specializations_.begin(), s);
  if (specializations_.size() > options.maxSpecializations)
    specializations_.pop_back(); // runs in flight keep theirs alive
  latest = s;
  return s;
}

llvm::Expected<std::unique_ptr<CompiledProgram>>
CompiledModel::compileGeneric(const std::vector<std::vector<int64_t>> &shapes,
                              const std::vector<std::vector<int64_t>> &other) {
  CompileOptions o = options;
  o.argumentShapes = shapes;
  // The twin whose dispatches tell the dynamic dims: the shapes compiled
  // before, whose fused program the cache folder holds (a warm load, where
  // a size of its own was a second import and fusion: 10-15 % of the full
  // BERT's first result at a new length).
  o.genericShapes = other;
  return compileModel(bytes, name, o);
}

llvm::Expected<std::shared_ptr<CompiledModel::Specialization>>
CompiledModel::genericSpecialization(const std::vector<std::vector<int64_t>> &shapes,
                                     const std::vector<std::vector<int64_t>> &other) {
  // Not behind compileMutex: a background exact compile must not stall it.
  llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileGeneric(shapes, other);
  if (!c)
    return c.takeError();
  return keep(std::move(*c), shapes, /*generic=*/true);
}

bool CompiledModel::awaitsAnalysis(const std::vector<std::vector<int64_t>> &shapes) {
  std::lock_guard<std::mutex> lock(mutex);
  // A dim not analyzed yet, and a compiled program at these shapes but
  // along that dim: its pieces could run the call.
  auto sameBut = [&](const DimGroup &g, const std::vector<std::vector<int64_t>> &other) {
    if (other.size() != shapes.size())
      return false;
    for (size_t i = 0; i < shapes.size(); ++i)
      for (size_t d = 0; d < shapes[i].size(); ++d)
        if ((i >= g.inputDims.size() || g.inputDims[i] != int64_t(d)) &&
            (d >= other[i].size() || other[i][d] != shapes[i][d]))
          return false;
    return true;
  };
  return llvm::any_of(groups, [&](const DimGroup &g) {
    return found.count(g.name) == 0 &&
           llvm::any_of(specializations_, [&](const auto &s) { return sameBut(g, s->shapes); });
  });
}

void CompiledModel::probeDims(const std::vector<std::vector<int64_t>> &shapes) {
  for (const DimGroup &g : groups) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (found.count(g.name))
        continue;
    }
    std::vector<std::vector<int64_t>> probe = shapes;
    for (size_t i = 0; i < probe.size() && i < g.inputDims.size(); ++i)
      if (g.inputDims[i] >= 0 && g.inputDims[i] < int64_t(probe[i].size()))
        probe[i][g.inputDims[i]] = 2;
    CompileOptions o = options;
    o.argumentShapes = probe;
    o.analyzeOnly = true;
    o.analyzeDims = {g};
    llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileModel(bytes, name, o);
    if (!c) {
      // The model refuses size 2: the dim is not split.
      llvm::consumeError(c.takeError());
      record({DimAnalysis{g.name, false, {}}});
      continue;
    }
    record((*c)->dims);
  }
}

std::vector<DimAnalysis> CompiledModel::analyzeDims() {
  std::vector<DimAnalysis> result;
  if (!dynamic())
    return result;
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorSpec &spec : inputs()) {
    shapes.push_back(spec.shape);
    for (int64_t &d : shapes.back())
      if (d < 0)
        d = 3;
  }
  probeDims(shapes);
  std::lock_guard<std::mutex> lock(mutex);
  for (const DimGroup &g : groups) {
    auto it = found.find(g.name);
    result.push_back(it != found.end() ? it->second : DimAnalysis{g.name, false, {}});
  }
  return result;
}

std::optional<CompiledModel::Plan>
CompiledModel::splitPlan(const std::vector<std::vector<int64_t>> &shapes) {
  std::lock_guard<std::mutex> lock(mutex);
  for (const DimGroup &g : groups) {
    auto it = found.find(g.name);
    if (it == found.end() || !it->second.independent ||
        llvm::any_of(it->second.outputDims, [](int64_t d) { return d != 0; }) ||
        llvm::any_of(g.inputDims, [](int64_t d) { return d > 0; }))
      continue;
    Plan plan;
    plan.size = -1;
    for (size_t i = 0; i < shapes.size(); ++i) {
      plan.split.push_back(i < g.inputDims.size() && g.inputDims[i] == 0);
      if (plan.split.back())
        plan.size = shapes[i][0];
    }
    if (plan.size <= 0)
      continue;
    // The sizes compiled at these shapes but for the split dim.
    std::map<int64_t, std::shared_ptr<Specialization>> bySize;
    for (const auto &spec : specializations_) {
      bool fits = spec->shapes.size() == shapes.size();
      int64_t size = -1;
      for (size_t i = 0; fits && i < shapes.size(); ++i) {
        fits = spec->shapes[i].size() == shapes[i].size();
        for (size_t d = 0; fits && d < shapes[i].size(); ++d)
          if (d == 0 && plan.split[i])
            size = spec->shapes[i][0];
          else
            fits = spec->shapes[i][d] == shapes[i][d];
      }
      if (fits && size > 0)
        bySize.emplace(size, spec);
    }
    if (bySize.empty())
      continue;
    // The largest compiled size that fits, again and again; the rest in
    // the smallest one that holds it, its extra rows zero and dropped.
    for (int64_t begin = 0; begin < plan.size;) {
      int64_t left = plan.size - begin;
      auto fit = bySize.upper_bound(left);
      Piece p;
      if (fit != bySize.begin()) {
        --fit;
        p = Piece{fit->second, begin, fit->first, fit->first};
      } else {
        p = Piece{fit->second, begin, left, fit->first};
      }
      begin += p.rows;
      plan.pieces.push_back(std::move(p));
    }
    return plan;
  }
  return std::nullopt;
}

void CompiledModel::inBackground(const std::string &key, std::function<void()> task) {
  std::lock_guard<std::mutex> lock(backgroundMutex);
  if (stopping || !queued.insert(key).second)
    return; // going, or asked for already
  pending.emplace_back(key, std::move(task));
  if (backgroundBusy)
    return; // the running thread takes it next
  if (background.joinable())
    background.join(); // done with its last queue
  backgroundBusy = true;
  try {
    background = std::thread([this] { drainBackground(); });
  } catch (const std::exception &) {
    // No thread: nothing runs in the background; later calls ask again.
    backgroundBusy = false;
    pending.clear();
    queued.clear();
  }
}

void CompiledModel::drainBackground() {
  // Below the callers' runs: the compile (whose kernel-compiling threads
  // inherit this) takes the cores the runs leave.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kBackgroundNice);
  for (;;) {
    std::pair<std::string, std::function<void()>> next;
    {
      std::lock_guard<std::mutex> lock(backgroundMutex);
      if (pending.empty() || stopping) {
        pending.clear();
        queued.clear();
        backgroundBusy = false;
        return;
      }
      next = std::move(pending.front());
      pending.pop_front();
    }
    next.second();
    std::lock_guard<std::mutex> lock(backgroundMutex);
    queued.erase(next.first);
  }
}

void CompiledModel::compileInBackground(const std::vector<std::vector<int64_t>> &shapes) {
  std::string key = "compile";
  for (const std::vector<int64_t> &shape : shapes)
    key += " " + dimsText(shape);
  {
    std::lock_guard<std::mutex> lock(backgroundMutex);
    if (failedShapes.count(shapes))
      return;
  }
  inBackground(key, [this, shapes] {
    llvm::Expected<std::shared_ptr<Specialization>> s = specialization(shapes);
    if (!s) {
      // Kept from now on: the pieces go on serving these shapes.
      llvm::consumeError(s.takeError());
      std::lock_guard<std::mutex> failed(backgroundMutex);
      failedShapes.insert(shapes);
    }
  });
}

std::optional<std::vector<std::vector<int64_t>>>
CompiledModel::nextBucket(const Plan &plan, const std::vector<std::vector<int64_t>> &shapes) {
  // The size's powers of two, largest first (37: 32, 4, 1): the first not
  // compiled yet, so that in the end the pieces are compiled sizes, none
  // padded.
  for (int64_t bit = int64_t(1) << 62; bit; bit >>= 1) {
    if (!(plan.size & bit))
      continue;
    std::vector<std::vector<int64_t>> bucket = shapes;
    for (size_t i = 0; i < bucket.size(); ++i)
      if (plan.split[i])
        bucket[i][0] = bit;
    std::lock_guard<std::mutex> lock(mutex);
    if (llvm::none_of(specializations_, [&](const auto &s) { return s->shapes == bucket; }))
      return bucket;
  }
  return std::nullopt;
}

llvm::Expected<CompiledModel::Plan>
CompiledModel::planFor(const std::vector<std::vector<int64_t>> &shapes) {
  if (std::shared_ptr<Specialization> s = find(shapes))
    return Plan{s, {}, 0, {}};
  if (llvm::Error e = checkShapes(inputs(), shapes))
    return std::move(e);
  if (options.shapePolicy != ShapePolicy::Specialize) {
    std::optional<Plan> plan = splitPlan(shapes);
    // A dim compiled only at size 1 is not analyzed yet (its probe may
    // still be queued behind that compile): analyze it now, an import,
    // rather than compile these shapes (the CLI running MobileNetV2 at
    // batch 1, then 3: 3.3 -> 1.7 s).
    if (!plan && awaitsAnalysis(shapes)) {
      probeDims(shapes);
      plan = splitPlan(shapes);
    }
    if (plan) {
      if (options.shapePolicy == ShapePolicy::Tiered)
        compileInBackground(shapes);
      if (options.shapePolicy == ShapePolicy::Buckets)
        if (std::optional<std::vector<std::vector<int64_t>>> bucket = nextBucket(*plan, shapes))
          compileInBackground(*bucket);
      return std::move(*plan);
    }
  }
  // Tiered, at a size it cannot split (a sequence through attention): a
  // program whose kernels are generic in the dynamic dims where they can
  // be, which the kernel memo (and the cache folder, if any) holds from an
  // earlier size, runs now; the exact one compiles in the background and
  // replaces it. Generic keeps the generic program.
  bool tiered = options.shapePolicy == ShapePolicy::Tiered ||
                options.shapePolicy == ShapePolicy::Generic;
  std::vector<std::vector<int64_t>> previous; // the latest compiled shapes
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!specializations_.empty())
      previous = specializations_.front()->shapes;
  }
  bool compiledBefore = !previous.empty();
  if (tiered && compiledBefore) {
    llvm::Expected<std::shared_ptr<Specialization>> g = genericSpecialization(shapes, previous);
    if (g) {
      if (options.shapePolicy == ShapePolicy::Tiered)
        compileInBackground(shapes);
      return Plan{*g, {}, 0, {}};
    }
    llvm::consumeError(g.takeError());
  }
  llvm::Expected<std::shared_ptr<Specialization>> s = specialization(shapes);
  if (!s)
    return s.takeError();
  // A dim compiled at size 1 was not analyzed: analyze it at size 2 (an
  // import: for a big ONNX model, most of a compile's time). Split, which
  // compiles no new sizes, waits for it here; tiered stalls no call for it.
  if (options.shapePolicy == ShapePolicy::Split)
    probeDims(shapes);
  else if (options.shapePolicy != ShapePolicy::Specialize)
    inBackground("probe", [this, shapes] { probeDims(shapes); });
  // The first size: the kernels generic in each named dim that cannot be
  // split (a kernel is generic in one; a dim that splits never needs them)
  // compile in the background, after the analysis, into the kernel cache,
  // for the sizes to come.
  if (tiered && !compiledBefore)
    for (const DimGroup &g : groups)
      inBackground("generic " + g.name, [this, shapes, g] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          auto it = found.find(g.name);
          if (it != found.end() && it->second.independent)
            return;
        }
        std::vector<std::vector<int64_t>> other = shapes;
        for (size_t i = 0; i < other.size() && i < g.inputDims.size(); ++i)
          if (g.inputDims[i] >= 0 && g.inputDims[i] < int64_t(other[i].size()))
            ++other[i][g.inputDims[i]];
        if (llvm::Expected<std::unique_ptr<CompiledProgram>> c = compileGeneric(shapes, other); !c)
          llvm::consumeError(c.takeError());
      });
  return Plan{*s, {}, 0, {}};
}

llvm::Expected<CompiledModel::Plan>
CompiledModel::planFor(llvm::ArrayRef<const HostTensor *> inputs) {
  if (!dynamic())
    return Plan{base, {}, 0, {}};
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
  return planFor(shapes);
}

std::vector<TensorSpec> CompiledModel::outputsOf(const Plan &plan) const {
  if (plan.whole)
    return plan.whole->program().outputSpecs;
  std::vector<TensorSpec> specs = plan.pieces.front().spec->program().outputSpecs;
  for (TensorSpec &s : specs)
    s.shape[0] = plan.size;
  return specs;
}

llvm::Error CompiledModel::runPieces(const Plan &plan, llvm::ArrayRef<const HostTensor *> inputs,
                                     llvm::MutableArrayRef<HostTensor> results,
                                     ThreadPool &pool) {
  std::vector<TensorSpec> expected = outputsOf(plan);
  if (results.size() != expected.size())
    return makeError(ErrorCode::ShapeMismatch, "expected " + llvm::Twine(expected.size()) +
                                                   " results, got " +
                                                   llvm::Twine(results.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].elementType() != expected[i].type || results[i].shape() != expected[i].shape)
      return makeError(ErrorCode::ShapeMismatch,
                       "result " + llvm::Twine(i) + " is " + results[i].typeString() +
                           "; these inputs give " + expected[i].str());
  // Rows [begin, begin + rows) of `t` as a tensor of `compiled` rows: a view
  // when they are all there, else a copy padded with zero rows.
  auto rowsOf = [](const HostTensor &t, const Piece &p) -> llvm::Expected<HostTensor> {
    std::vector<int64_t> shape = t.shape();
    size_t rowBytes = shape[0] ? t.byteSize() / size_t(shape[0]) : 0;
    shape[0] = p.compiled;
    auto *data = static_cast<uint8_t *>(const_cast<void *>(t.data())) + p.begin * rowBytes;
    if (p.rows == p.compiled)
      return HostTensor::view(t.elementType(), shape, data);
    llvm::Expected<HostTensor> padded = HostTensor::create(t.elementType(), shape);
    if (padded)
      std::memcpy(padded->data(), data, size_t(p.rows) * rowBytes);
    return padded;
  };
  for (const Piece &p : plan.pieces) {
    std::vector<HostTensor> held;
    held.reserve(inputs.size() + results.size());
    std::vector<const HostTensor *> in;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!plan.split[i]) {
        in.push_back(inputs[i]);
        continue;
      }
      llvm::Expected<HostTensor> t = rowsOf(*inputs[i], p);
      if (!t)
        return t.takeError();
      held.push_back(std::move(*t));
      in.push_back(&held.back());
    }
    std::vector<HostTensor> out;
    for (HostTensor &r : results) {
      llvm::Expected<HostTensor> t = rowsOf(r, p);
      if (!t)
        return t.takeError();
      out.push_back(std::move(*t));
    }
    if (llvm::Error e = p.spec->executor->runInto(in, out, pool))
      return e;
    if (p.rows != p.compiled)
      for (size_t i = 0; i < results.size(); ++i) {
        size_t rowBytes = out[i].byteSize() / size_t(p.compiled);
        std::memcpy(static_cast<uint8_t *>(results[i].data()) + p.begin * rowBytes,
                    out[i].data(), size_t(p.rows) * rowBytes);
      }
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<TensorSpec>>
CompiledModel::outputsFor(llvm::ArrayRef<std::vector<int64_t>> shapes) {
  if (!dynamic()) {
    if (llvm::Error e = checkShapes(inputs(), shapes))
      return std::move(e);
    return outputs();
  }
  llvm::Expected<Plan> plan = planFor(shapes.vec());
  if (!plan)
    return plan.takeError();
  return outputsOf(*plan);
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
  llvm::Expected<Plan> plan = planFor(inputs);
  if (!plan)
    return plan.takeError();
  if (plan->whole)
    return plan->whole->executor->run(inputs, pool);
  std::vector<HostTensor> results;
  for (const TensorSpec &spec : outputsOf(*plan)) {
    llvm::Expected<HostTensor> t = HostTensor::create(spec.type, spec.shape);
    if (!t)
      return t.takeError();
    results.push_back(std::move(*t));
  }
  if (llvm::Error e = runPieces(*plan, inputs, results, pool))
    return std::move(e);
  return std::move(results);
}

llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool) {
  llvm::Expected<Plan> plan = planFor(inputs);
  if (!plan)
    return plan.takeError();
  if (!plan->whole)
    return runPieces(*plan, inputs, results, pool);
  return plan->whole->executor->runInto(inputs, results, pool);
}

llvm::Error CompiledModel::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                                   llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                                   ModelRunContext &context) {
  llvm::Expected<Plan> plan = planFor(inputs);
  if (!plan)
    return plan.takeError();
  if (!plan->whole)
    return runPieces(*plan, inputs, results, pool);
  const std::shared_ptr<Specialization> &s = plan->whole;
  if (context.owner != s) {
    // Another specialization's intermediates: this one's are made here.
    auto fresh = s->executor->createRunContext();
    if (!fresh)
      return fresh.takeError();
    context.context = std::move(*fresh);
    context.owner = s;
  }
  return s->executor->runInto(inputs, results, pool, *context.context);
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
