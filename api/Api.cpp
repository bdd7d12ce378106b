//===- Api.cpp - the embedded C API over CompiledModel --------------------===//
//
// Every entry point validates its handles and tensors, turns llvm::Error
// values into jitrun_status_t (keeping the ErrorCode they carry), and catches
// anything thrown (std::bad_alloc above all), so that no call aborts, exits
// or prints. The handles are thin structs around the C++ runtime objects.
//
//===----------------------------------------------------------------------===//

#include "jitrun/jitrun.h"

#include "api/Model.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <string>

using jitrun::CompiledModel;
using jitrun::ErrorCode;
using jitrun::HostTensor;

struct jitrun_status_s {
  jitrun_status_code_t code;
  std::string message;
};

/// Handles share what they use: a model keeps its runtime's threads alive and
/// a session its model, so the caller may release them in any order.
struct jitrun_runtime_s {
  std::shared_ptr<jitrun::ThreadPool> pool;
};

struct jitrun_options_s {
  jitrun::CompileOptions options;
};

struct jitrun_model_s {
  std::shared_ptr<jitrun::ThreadPool> pool;
  std::shared_ptr<CompiledModel> model;
};

struct jitrun_session_s {
  jitrun_model_s model; // shares the model's pool and compiled model
  std::unique_ptr<jitrun::ModelRunContext> context;
};

struct jitrun_outputs_s {
  std::vector<HostTensor> tensors;
};

struct jitrun_profile_s {
  jitrun::Profile profile;
};

namespace {

/// The most worker threads a runtime starts: as many as the CLI's --threads
/// takes. More would only exhaust the host's thread and memory limits.
constexpr uint32_t kMaxRuntimeThreads = 1024;

/// Returned when even a status cannot be allocated; never freed.
jitrun_status_s outOfMemoryStatus{JITRUN_RESOURCE_EXHAUSTED,
                                  "out of memory"};

jitrun_status_t makeStatus(jitrun_status_code_t code, std::string message) {
  try {
    return new jitrun_status_s{code, std::move(message)};
  } catch (...) {
    return &outOfMemoryStatus;
  }
}

jitrun_status_t invalid(const std::string &message) {
  return makeStatus(JITRUN_INVALID_ARGUMENT, message);
}

jitrun_status_t fromError(llvm::Error e) {
  if (!e)
    return nullptr;
  std::string message;
  ErrorCode code = jitrun::takeErrorCode(std::move(e), message);
  return makeStatus(static_cast<jitrun_status_code_t>(code), std::move(message));
}

/// Runs `body`, turning an escaping exception into a status.
template <typename Fn> jitrun_status_t guarded(Fn &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeStatus(JITRUN_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception &e) {
    return makeStatus(JITRUN_RUNTIME_ERROR, e.what());
  } catch (...) {
    return makeStatus(JITRUN_RUNTIME_ERROR, "unknown exception");
  }
}

/// The element type a C caller passed, read as an int without loading it as
/// the enum: C may pass any int, and loading one outside the enumerators as
/// the C++ enum is undefined (UBSan's invalid-enum-load in build-asan).
int rawType(const jitrun_element_type_t &t) {
  static_assert(sizeof(t) == sizeof(int), "jitrun_element_type_t is an int");
  int v;
  std::memcpy(&v, &t, sizeof v);
  return v;
}

bool validType(const jitrun_element_type_t &t) {
  int v = rawType(t);
  return v >= JITRUN_F32 && v <= JITRUN_U8;
}

/// A view of a caller's tensor after checking that it describes itself
/// consistently; `what` names it in messages ("input 2").
llvm::Expected<HostTensor> viewOf(const jitrun_tensor_t &t, const std::string &what) {
  auto bad = [&](const std::string &why) {
    return jitrun::makeError(ErrorCode::InvalidArgument, what + ": " + why);
  };
  if (!validType(t.type))
    return bad("element type " + std::to_string(rawType(t.type)) +
               " is not a jitrun_element_type_t");
  if (t.rank > 0 && !t.shape)
    return bad("rank " + std::to_string(t.rank) + " with a null shape");
  std::vector<int64_t> shape(t.shape, t.shape + t.rank);
  uint64_t bytes = jitrun_element_size(t.type);
  for (int64_t d : shape) {
    if (d < 0)
      return bad("negative dimension " + std::to_string(d));
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      return bad("its size overflows");
  }
  if (bytes != t.byte_size)
    return jitrun::makeError(ErrorCode::ShapeMismatch,
                             what + ": its shape needs " +
                                 std::to_string(bytes) + " bytes but byte_size is " +
                                 std::to_string(t.byte_size));
  if (!t.data && bytes != 0)
    return bad("null data");
  auto type = static_cast<jitrun::ElementType>(t.type);
  return HostTensor::view(type, std::move(shape), t.data);
}

/// Views of `count` tensors at `tensors`.
llvm::Error viewsOf(const jitrun_tensor_t *tensors, size_t count, const char *what,
                    std::vector<HostTensor> &out) {
  if (count && !tensors)
    return jitrun::makeError(ErrorCode::InvalidArgument,
                             std::string() + what + "s: null array of " +
                                 std::to_string(count));
  out.clear();
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    llvm::Expected<HostTensor> v = viewOf(tensors[i], what + (" " + std::to_string(i)));
    if (!v)
      return v.takeError();
    out.push_back(std::move(*v));
  }
  return llvm::Error::success();
}

/// Runs `model` with the caller's tensors, in `context` when given.
jitrun_status_t runWith(jitrun_model_s *model, jitrun::ModelRunContext *context,
                        const jitrun_tensor_t *inputs, size_t numInputs,
                        const jitrun_tensor_t *outputs, size_t numOutputs) {
  std::vector<HostTensor> in, out;
  if (llvm::Error e = viewsOf(inputs, numInputs, "input", in))
    return fromError(std::move(e));
  if (llvm::Error e = viewsOf(outputs, numOutputs, "output", out))
    return fromError(std::move(e));
  std::vector<const HostTensor *> ptrs;
  for (const HostTensor &t : in)
    ptrs.push_back(&t);
  if (context)
    return fromError(model->model->runInto(ptrs, out, *model->pool, *context));
  return fromError(model->model->runInto(ptrs, out, *model->pool));
}

jitrun_status_t describe(const jitrun::TensorSpec &spec, jitrun_tensor_desc_t *out) {
  out->type = static_cast<jitrun_element_type_t>(spec.type);
  out->rank = spec.shape.size();
  out->shape = spec.shape.data();
  size_t bytes = jitrun::elementSize(spec.type);
  for (int64_t d : spec.shape)
    bytes *= d < 0 ? 0 : static_cast<size_t>(d); // a dynamic dim: 0
  out->byte_size = bytes;
  out->name = spec.name.c_str();
  return nullptr;
}

jitrun_status_t load(jitrun_runtime_t runtime, const jitrun_options_t options,
                     jitrun_model_t *out,
                     llvm::function_ref<llvm::Expected<std::unique_ptr<CompiledModel>>(
                         const jitrun::CompileOptions &)>
                         compile) {
  if (!out)
    return invalid("jitrun_model_load: null output handle");
  *out = nullptr;
  if (!runtime)
    return invalid("jitrun_model_load: null runtime");
  jitrun::CompileOptions defaults;
  auto model = compile(options ? options->options : defaults);
  if (!model)
    return fromError(model.takeError());
  auto handle = std::make_unique<jitrun_model_s>();
  handle->pool = runtime->pool;
  handle->model = std::move(*model);
  *out = handle.release();
  return nullptr;
}

} // namespace

extern "C" {

const char *jitrun_version(void) { return JITRUN_VERSION; }

jitrun_status_code_t jitrun_status_code(jitrun_status_t status) {
  return status ? status->code : JITRUN_OK;
}

const char *jitrun_status_message(jitrun_status_t status) {
  return status ? status->message.c_str() : "";
}

void jitrun_status_free(jitrun_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

size_t jitrun_element_size(jitrun_element_type_t type) {
  return validType(type) ? jitrun::elementSize(static_cast<jitrun::ElementType>(rawType(type))) : 0;
}

const char *jitrun_element_type_name(jitrun_element_type_t type) {
  // elementTypeName returns literals, so the StringRef's data is terminated.
  return validType(type) ? jitrun::elementTypeName(static_cast<jitrun::ElementType>(rawType(type))).data()
                         : "?";
}

jitrun_status_t jitrun_runtime_create(uint32_t threads, jitrun_runtime_t *out) {
  if (!out)
    return invalid("jitrun_runtime_create: null output handle");
  *out = nullptr;
  return guarded([&]() -> jitrun_status_t {
    if (threads > kMaxRuntimeThreads)
      return invalid("jitrun_runtime_create: " + std::to_string(threads) +
                     " threads is more than the " + std::to_string(kMaxRuntimeThreads) +
                     " a runtime may start (0: one per core)");
    auto runtime = std::make_unique<jitrun_runtime_s>();
    runtime->pool = std::make_shared<jitrun::ThreadPool>(threads);
    *out = runtime.release();
    return nullptr;
  });
}

uint32_t jitrun_runtime_threads(jitrun_runtime_t runtime) {
  return runtime ? runtime->pool->numThreads() : 0;
}

void jitrun_runtime_release(jitrun_runtime_t runtime) { delete runtime; }

jitrun_status_t jitrun_options_create(jitrun_options_t *out) {
  if (!out)
    return invalid("jitrun_options_create: null output handle");
  *out = nullptr;
  return guarded([&]() -> jitrun_status_t {
    *out = new jitrun_options_s();
    return nullptr;
  });
}

void jitrun_options_free(jitrun_options_t options) { delete options; }

jitrun_status_t jitrun_options_set_fusion(jitrun_options_t options, const char *mode) {
  if (!options)
    return invalid("jitrun_options_set_fusion: null options");
  std::string m = mode ? mode : "";
  std::optional<jitrun::FusionMode> parsed = jitrun::parseFusionMode(m);
  if (!parsed)
    return invalid(std::string("fusion mode must be ") + jitrun::kFusionModeNames + ", not '" + m + "'");
  return guarded([&]() -> jitrun_status_t {
    options->options.fusion = *parsed;
    return nullptr;
  });
}

jitrun_status_t jitrun_options_set_function(jitrun_options_t options, const char *name) {
  if (!options)
    return invalid("jitrun_options_set_function: null options");
  return guarded([&]() -> jitrun_status_t {
    options->options.function = name ? name : "";
    return nullptr;
  });
}

jitrun_status_t jitrun_options_set_stack_limit(jitrun_options_t options, uint64_t bytes,
                                               int fail) {
  if (!options)
    return invalid("jitrun_options_set_stack_limit: null options");
  options->options.stackLimitBytes = bytes;
  options->options.failOnStackLimit = fail != 0;
  return nullptr;
}

jitrun_status_t jitrun_options_set_cache_dir(jitrun_options_t options, const char *path) {
  if (!options)
    return invalid("jitrun_options_set_cache_dir: null options");
  return guarded([&]() -> jitrun_status_t {
    options->options.cacheDir = path ? path : "";
    return nullptr;
  });
}

jitrun_status_t jitrun_options_set_cache_max_bytes(jitrun_options_t options, uint64_t bytes) {
  if (!options)
    return invalid("jitrun_options_set_cache_max_bytes: null options");
  options->options.cacheMaxBytes = bytes;
  return nullptr;
}

jitrun_status_t jitrun_options_set_memory_limit(jitrun_options_t options, uint64_t bytes) {
  if (!options)
    return invalid("jitrun_options_set_memory_limit: null options");
  options->options.memoryLimitBytes = bytes;
  return nullptr;
}

jitrun_status_t jitrun_options_set_compile_threads(jitrun_options_t options,
                                                   uint32_t threads) {
  if (!options)
    return invalid("jitrun_options_set_compile_threads: null options");
  options->options.compileThreads = threads;
  return nullptr;
}

jitrun_status_t jitrun_options_set_weights(jitrun_options_t options, const char *weights) {
  if (!options || !weights)
    return invalid("jitrun_options_set_weights: null options or weights");
  std::string w = weights;
  if (w != "f32" && w != "bf16")
    return invalid("jitrun_options_set_weights: \"f32\" or \"bf16\", not \"" + w + "\"");
  options->options.bf16Weights = w == "bf16";
  return nullptr;
}

jitrun_status_t jitrun_options_set_force_avx2(jitrun_options_t options, int force) {
  if (!options)
    return invalid("jitrun_options_set_force_avx2: null options");
  options->options.forceAvx2 = force != 0;
  return nullptr;
}

jitrun_status_t jitrun_options_set_amx(jitrun_options_t options, int use) {
  if (!options)
    return invalid("jitrun_options_set_amx: null options");
  options->options.amx = use != 0;
  return nullptr;
}

jitrun_status_t jitrun_options_set_input_shape(jitrun_options_t options, const char *name,
                                               size_t rank, const int64_t *dims) {
  if (!options || !name)
    return invalid("jitrun_options_set_input_shape: null options or name");
  if (rank > 0 && !dims)
    return invalid("jitrun_options_set_input_shape: rank " + std::to_string(rank) +
                   " with null dims");
  return guarded([&]() -> jitrun_status_t {
    for (size_t i = 0; i < rank; ++i)
      if (dims[i] < 0)
        return invalid("jitrun_options_set_input_shape: dim " + std::to_string(i) + " of '" +
                       name + "' is negative");
    auto &shapes = options->options.inputShapes;
    std::vector<int64_t> shape(dims, dims + rank);
    for (auto &entry : shapes)
      if (entry.first == name) {
        entry.second = std::move(shape);
        return nullptr;
      }
    shapes.emplace_back(name, std::move(shape));
    return nullptr;
  });
}

jitrun_status_t jitrun_options_set_max_specializations(jitrun_options_t options,
                                                       size_t count) {
  if (!options)
    return invalid("jitrun_options_set_max_specializations: null options");
  if (count < 1)
    return invalid("jitrun_options_set_max_specializations: at least 1, not 0");
  options->options.maxSpecializations = count;
  return nullptr;
}

jitrun_status_t jitrun_options_set_shape_policy(jitrun_options_t options, const char *policy) {
  if (!options)
    return invalid("jitrun_options_set_shape_policy: null options");
  llvm::StringRef p = policy ? policy : "";
  std::optional<jitrun::ShapePolicy> parsed = jitrun::parseShapePolicy(p);
  if (!parsed)
    return invalid("jitrun_options_set_shape_policy: '" + p.str() + "' is not a policy; use " +
                   jitrun::kShapePolicyNames);
  options->options.shapePolicy = *parsed;
  return nullptr;
}

jitrun_status_t jitrun_options_set_progress(jitrun_options_t options, jitrun_progress_fn fn,
                                            void *user_data) {
  if (!options)
    return invalid("jitrun_options_set_progress: null options");
  return guarded([&]() -> jitrun_status_t {
    options->options.progress = nullptr;
    if (fn)
      options->options.progress = [fn, user_data](const char *phase, size_t done,
                                                   size_t total) {
        fn(user_data, phase, done, total);
      };
    return nullptr;
  });
}

jitrun_status_t jitrun_model_load_file(jitrun_runtime_t runtime, const char *path,
                                       jitrun_options_t options, jitrun_model_t *out) {
  if (!path) {
    if (out)
      *out = nullptr;
    return invalid("jitrun_model_load_file: null path");
  }
  return guarded([&] {
    return load(runtime, options, out, [&](const jitrun::CompileOptions &o) {
      return CompiledModel::compileFile(path, o);
    });
  });
}

jitrun_status_t jitrun_model_load_buffer(jitrun_runtime_t runtime, const void *data,
                                         size_t size, const char *name,
                                         jitrun_options_t options, jitrun_model_t *out) {
  if (!data && size) {
    if (out)
      *out = nullptr;
    return invalid("jitrun_model_load_buffer: null data of " + std::to_string(size) + " bytes");
  }
  return guarded([&] {
    return load(runtime, options, out, [&](const jitrun::CompileOptions &o) {
      llvm::StringRef bytes(static_cast<const char *>(data), data ? size : 0);
      return CompiledModel::compileBuffer(bytes, name ? name : "<buffer>", o);
    });
  });
}

void jitrun_model_release(jitrun_model_t model) { delete model; }

const char *jitrun_model_function(jitrun_model_t model) {
  return model ? model->model->function().c_str() : "";
}

int jitrun_model_is_dynamic(jitrun_model_t model) {
  return model && model->model->dynamic() ? 1 : 0;
}

size_t jitrun_model_num_specializations(jitrun_model_t model) {
  return model ? model->model->specializations() : 0;
}

jitrun_status_t jitrun_model_output_shape(jitrun_model_t model, const jitrun_tensor_t *inputs,
                                          size_t num_inputs, size_t index, int64_t *shape,
                                          size_t capacity, size_t *rank) {
  if (!model || !rank || (capacity && !shape))
    return invalid("jitrun_model_output_shape: null model, rank or shape");
  if (num_inputs && !inputs)
    return invalid("jitrun_model_output_shape: null array of " + std::to_string(num_inputs) +
                   " inputs");
  return guarded([&]() -> jitrun_status_t {
    std::vector<std::vector<int64_t>> shapes;
    for (size_t i = 0; i < num_inputs; ++i) {
      const jitrun_tensor_t &t = inputs[i];
      if (t.rank && !t.shape)
        return invalid("input " + std::to_string(i) + ": rank " + std::to_string(t.rank) +
                       " with a null shape");
      shapes.emplace_back(t.shape, t.shape + t.rank);
      const auto &specs = model->model->inputs();
      if (i < specs.size() && (!validType(t.type) ||
                               static_cast<jitrun::ElementType>(t.type) != specs[i].type))
        return makeStatus(JITRUN_SHAPE_MISMATCH, "input " + std::to_string(i) +
                                                     ": expected element type " +
                                                     jitrun::elementTypeName(specs[i].type).str());
    }
    auto specs = model->model->outputsFor(shapes);
    if (!specs)
      return fromError(specs.takeError());
    if (index >= specs->size())
      return invalid("output index " + std::to_string(index) + " out of range: the model has " +
                     std::to_string(specs->size()) + " outputs");
    const std::vector<int64_t> &dims = (*specs)[index].shape;
    *rank = dims.size();
    if (capacity < dims.size())
      return invalid("output " + std::to_string(index) + " has rank " +
                     std::to_string(dims.size()) + "; the shape array holds " +
                     std::to_string(capacity));
    std::copy(dims.begin(), dims.end(), shape);
    return nullptr;
  });
}

size_t jitrun_model_num_entry_points(jitrun_model_t model) {
  return model ? model->model->entryPoints().size() : 0;
}

const char *jitrun_model_entry_point(jitrun_model_t model, size_t index) {
  if (!model || index >= model->model->entryPoints().size())
    return nullptr;
  return model->model->entryPoints()[index].c_str();
}

size_t jitrun_model_num_inputs(jitrun_model_t model) {
  return model ? model->model->inputs().size() : 0;
}

size_t jitrun_model_num_outputs(jitrun_model_t model) {
  return model ? model->model->outputs().size() : 0;
}

jitrun_status_t jitrun_model_input(jitrun_model_t model, size_t index,
                                   jitrun_tensor_desc_t *out) {
  if (!model || !out)
    return invalid("jitrun_model_input: null model or output");
  if (index >= model->model->inputs().size())
    return invalid("input index " + std::to_string(index) + " out of range: the model has " +
                   std::to_string(model->model->inputs().size()) + " inputs");
  return describe(model->model->inputs()[index], out);
}

jitrun_status_t jitrun_model_output(jitrun_model_t model, size_t index,
                                    jitrun_tensor_desc_t *out) {
  if (!model || !out)
    return invalid("jitrun_model_output: null model or output");
  if (index >= model->model->outputs().size())
    return invalid("output index " + std::to_string(index) + " out of range: the model has " +
                   std::to_string(model->model->outputs().size()) + " outputs");
  return describe(model->model->outputs()[index], out);
}

jitrun_status_t jitrun_model_statistics(jitrun_model_t model, jitrun_statistics_t *out) {
  if (!model || !out)
    return invalid("jitrun_model_statistics: null model or output");
  const jitrun::Statistics s = model->model->statistics();
  *out = jitrun_statistics_t{s.genericBefore, s.genericAfter, s.rootOps, s.dispatchRegions,
                             s.dispatches, s.executables, s.fills, s.copies, s.workgroups,
                             s.transientBytes, s.intermediateBytes, s.stackBytesMax,
                             s.vectorizedOps, s.scalarOps, s.cachedKernels,
                             s.compileSeconds, s.vnniKernels, s.cachedProgram,
                             s.amxKernels, s.genericKernels, s.mappedConstantBytes,
                             s.reusedWeightBytes};
  return nullptr;
}

jitrun_status_t jitrun_model_set_profiling(jitrun_model_t model, int enabled) {
  if (!model)
    return invalid("jitrun_model_set_profiling: null model");
  return guarded([&]() -> jitrun_status_t {
    model->model->setProfiling(enabled != 0);
    return nullptr;
  });
}

jitrun_status_t jitrun_model_profile(jitrun_model_t model, jitrun_profile_t *out) {
  if (!out)
    return invalid("jitrun_model_profile: null output handle");
  *out = nullptr;
  if (!model)
    return invalid("jitrun_model_profile: null model");
  return guarded([&]() -> jitrun_status_t {
    *out = new jitrun_profile_s{model->model->profile()};
    return nullptr;
  });
}

int64_t jitrun_profile_runs(jitrun_profile_t profile) {
  return profile ? profile->profile.runs : 0;
}

size_t jitrun_profile_count(jitrun_profile_t profile) {
  return profile ? profile->profile.commands.size() : 0;
}

jitrun_status_t jitrun_profile_get(jitrun_profile_t profile, size_t index,
                                   jitrun_profile_entry_t *out) {
  if (!profile || !out)
    return invalid("jitrun_profile_get: null profile or output");
  const std::vector<jitrun::CommandProfile> &commands = profile->profile.commands;
  if (index >= commands.size())
    return invalid("profile entry " + std::to_string(index) + " out of range: the profile has " +
                   std::to_string(commands.size()) + " entries");
  const jitrun::CommandProfile &c = commands[index];
  double runs = static_cast<double>(std::max<int64_t>(1, profile->profile.runs));
  *out = jitrun_profile_entry_t{c.name.c_str(), c.op.c_str(), c.location.c_str(),
                                c.seconds / runs, c.flops, c.bytes};
  return nullptr;
}

void jitrun_profile_free(jitrun_profile_t profile) { delete profile; }

jitrun_status_t jitrun_model_run(jitrun_model_t model, const jitrun_tensor_t *inputs,
                                 size_t num_inputs, const jitrun_tensor_t *outputs,
                                 size_t num_outputs) {
  if (!model)
    return invalid("jitrun_model_run: null model");
  return guarded(
      [&] { return runWith(model, nullptr, inputs, num_inputs, outputs, num_outputs); });
}

jitrun_status_t jitrun_model_run_alloc(jitrun_model_t model, const jitrun_tensor_t *inputs,
                                       size_t num_inputs, jitrun_outputs_t *out) {
  if (!out)
    return invalid("jitrun_model_run_alloc: null output handle");
  *out = nullptr;
  if (!model)
    return invalid("jitrun_model_run_alloc: null model");
  return guarded([&]() -> jitrun_status_t {
    std::vector<HostTensor> in;
    if (llvm::Error e = viewsOf(inputs, num_inputs, "input", in))
      return fromError(std::move(e));
    std::vector<const HostTensor *> ptrs;
    for (const HostTensor &t : in)
      ptrs.push_back(&t);
    auto results = model->model->run(ptrs, *model->pool);
    if (!results)
      return fromError(results.takeError());
    auto handle = std::make_unique<jitrun_outputs_s>();
    handle->tensors = std::move(*results);
    *out = handle.release();
    return nullptr;
  });
}

size_t jitrun_outputs_count(jitrun_outputs_t outputs) {
  return outputs ? outputs->tensors.size() : 0;
}

jitrun_status_t jitrun_outputs_get(jitrun_outputs_t outputs, size_t index,
                                   jitrun_tensor_t *out) {
  if (!outputs || !out)
    return invalid("jitrun_outputs_get: null outputs or output");
  if (index >= outputs->tensors.size())
    return invalid("result index " + std::to_string(index) + " out of range: there are " +
                   std::to_string(outputs->tensors.size()) + " results");
  HostTensor &t = outputs->tensors[index];
  *out = jitrun_tensor_t{static_cast<jitrun_element_type_t>(t.elementType()), t.rank(),
                         t.shape().data(), t.data(), t.byteSize()};
  return nullptr;
}

void jitrun_outputs_free(jitrun_outputs_t outputs) { delete outputs; }

jitrun_status_t jitrun_session_create(jitrun_model_t model, jitrun_session_t *out) {
  if (!out)
    return invalid("jitrun_session_create: null output handle");
  *out = nullptr;
  if (!model)
    return invalid("jitrun_session_create: null model");
  return guarded([&]() -> jitrun_status_t {
    auto context = model->model->createRunContext();
    if (!context)
      return fromError(context.takeError());
    auto session = std::make_unique<jitrun_session_s>();
    session->model = *model;
    session->context = std::move(*context);
    *out = session.release();
    return nullptr;
  });
}

jitrun_status_t jitrun_session_run(jitrun_session_t session, const jitrun_tensor_t *inputs,
                                   size_t num_inputs, const jitrun_tensor_t *outputs,
                                   size_t num_outputs) {
  if (!session)
    return invalid("jitrun_session_run: null session");
  return guarded([&] {
    return runWith(&session->model, session->context.get(), inputs, num_inputs, outputs,
                   num_outputs);
  });
}

void jitrun_session_release(jitrun_session_t session) { delete session; }

} // extern "C"
