//===- jitrun/jitrun.hpp - the embedded inference API (C++) -------*- C++ -*-===//
//
// RAII wrappers over <jitrun/jitrun.h>, with xtensor arrays in and out.
// Errors are exceptions: every failing call throws jitrun::Error, which
// carries the C status code and message. Header-only: it adds no symbols to
// libjitrun, so the library's ABI is the C API alone.
//
// Zero copy: an input or output passed as an xtensor container with
// row-major layout (xt::xarray<T>, xt::xtensor<T, N>) is read or written in
// place; Model::run<T> writes straight into the arrays it returns.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_JITRUN_HPP
#define JITRUN_JITRUN_HPP

#if __cplusplus < 201703L
#error "<jitrun/jitrun.hpp> needs C++17 (-std=c++17); C++14 and C code use <jitrun/jitrun.h>"
#endif

#include "jitrun/jitrun.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace jitrun {

/// A failed call: the C status code and its readable message.
class Error : public std::runtime_error {
public:
  Error(jitrun_status_code_t code, const std::string &message)
      : std::runtime_error(message), statusCode(code) {}
  jitrun_status_code_t code() const noexcept { return statusCode; }

private:
  jitrun_status_code_t statusCode;
};

namespace detail {
/// Throws the status as an Error (after freeing it); no-op for success.
inline void check(jitrun_status_t status) {
  if (!status)
    return;
  jitrun_status_code_t code = jitrun_status_code(status);
  std::string message = jitrun_status_message(status);
  jitrun_status_free(status);
  throw Error(code, message);
}

template <typename T> struct ElementTypeOf;
template <> struct ElementTypeOf<float> { static constexpr jitrun_element_type_t value = JITRUN_F32; };
template <> struct ElementTypeOf<double> { static constexpr jitrun_element_type_t value = JITRUN_F64; };
template <> struct ElementTypeOf<bool> { static constexpr jitrun_element_type_t value = JITRUN_I1; };
template <> struct ElementTypeOf<int8_t> { static constexpr jitrun_element_type_t value = JITRUN_I8; };
template <> struct ElementTypeOf<int16_t> { static constexpr jitrun_element_type_t value = JITRUN_I16; };
template <> struct ElementTypeOf<int32_t> { static constexpr jitrun_element_type_t value = JITRUN_I32; };
template <> struct ElementTypeOf<int64_t> { static constexpr jitrun_element_type_t value = JITRUN_I64; };
template <> struct ElementTypeOf<uint8_t> { static constexpr jitrun_element_type_t value = JITRUN_U8; };

template <typename T, typename = void> struct IsXContainer : std::false_type {};
template <typename T>
struct IsXContainer<T, std::void_t<decltype(std::declval<T &>().data()),
                                   decltype(std::declval<T &>().shape()),
                                   decltype(std::declval<T &>().layout()),
                                   typename T::value_type>> : std::true_type {};
} // namespace detail

/// The element type jitrun uses for the C++ type T (float: JITRUN_F32, ...).
template <typename T> constexpr jitrun_element_type_t elementTypeOf() {
  return detail::ElementTypeOf<std::remove_cv_t<T>>::value;
}

/// The type of an input or output.
struct TensorDesc {
  jitrun_element_type_t type;
  std::vector<int64_t> shape;
  size_t byteSize;
  /// The model's name for the tensor; empty if it has none.
  std::string name;
};

/// One command of a profile (see jitrun_profile_entry_t): mean seconds per
/// profiled run, FLOPs and bytes of one run.
struct ProfileEntry {
  std::string name, op, location;
  double seconds;
  double flops;
  int64_t bytes;
};

/// The library's version, "MAJOR.MINOR.PATCH".
inline std::string version() { return jitrun_version(); }

/// A borrowed tensor: an xtensor container (row-major, contiguous) or raw
/// memory. It points at the caller's data, which must outlive the call.
class TensorRef {
public:
  /// Raw memory of `shape` and `type`.
  TensorRef(jitrun_element_type_t type, std::vector<int64_t> shape, void *data)
      : dims(std::move(shape)) {
    size_t bytes = jitrun_element_size(type);
    for (int64_t d : dims)
      bytes *= static_cast<size_t>(d < 0 ? 0 : d);
    tensor = jitrun_tensor_t{type, dims.size(), dims.data(), data, bytes};
  }
  /// An xtensor container (xt::xarray<T>, xt::xtensor<T, N>, ...). It must
  /// be row-major; inputs are only read, though the reference is mutable
  /// so that the same type also serves outputs.
  template <typename E, typename = std::enable_if_t<detail::IsXContainer<E>::value>>
  TensorRef(E &array) {
    if (array.layout() != xt::layout_type::row_major)
      throw Error(JITRUN_INVALID_ARGUMENT,
                  "jitrun: error: xtensor arrays must be row-major to be passed to jitrun");
    for (auto d : array.shape())
      dims.push_back(static_cast<int64_t>(d));
    using T = typename E::value_type;
    tensor = jitrun_tensor_t{elementTypeOf<T>(), dims.size(), dims.data(),
                             const_cast<void *>(static_cast<const void *>(array.data())),
                             array.size() * sizeof(T)};
  }
  template <typename E, typename = std::enable_if_t<detail::IsXContainer<E>::value>>
  TensorRef(const E &array) : TensorRef(const_cast<E &>(array)) {}

  TensorRef(const TensorRef &other) : dims(other.dims), tensor(other.tensor) {
    tensor.shape = dims.data();
  }
  TensorRef &operator=(const TensorRef &other) {
    dims = other.dims;
    tensor = other.tensor;
    tensor.shape = dims.data();
    return *this;
  }

  const jitrun_tensor_t &c() const { return tensor; }

private:
  std::vector<int64_t> dims;
  jitrun_tensor_t tensor{};
};

namespace detail {
inline std::vector<jitrun_tensor_t> cTensors(const std::vector<TensorRef> &refs) {
  std::vector<jitrun_tensor_t> out;
  out.reserve(refs.size());
  for (const TensorRef &r : refs)
    out.push_back(r.c());
  return out;
}
} // namespace detail

/// Worker threads shared by the models loaded on it (0: one per core).
class Runtime {
public:
  explicit Runtime(uint32_t threads = 0) {
    jitrun_runtime_t r = nullptr;
    detail::check(jitrun_runtime_create(threads, &r));
    handle.reset(r);
  }
  uint32_t threads() const { return jitrun_runtime_threads(handle.get()); }
  jitrun_runtime_t get() const { return handle.get(); }

private:
  struct Release {
    void operator()(jitrun_runtime_t r) const { jitrun_runtime_release(r); }
  };
  std::unique_ptr<jitrun_runtime_s, Release> handle;
};

/// Compile options; setters chain: Options().fusion("aggressive").memoryLimit(1 << 30).
class Options {
public:
  Options() {
    jitrun_options_t o = nullptr;
    detail::check(jitrun_options_create(&o));
    handle.reset(o);
  }
  Options &fusion(const std::string &mode) {
    detail::check(jitrun_options_set_fusion(get(), mode.c_str()));
    return *this;
  }
  Options &function(const std::string &name) {
    detail::check(jitrun_options_set_function(get(), name.c_str()));
    return *this;
  }
  Options &stackLimit(uint64_t bytes, bool fail = true) {
    detail::check(jitrun_options_set_stack_limit(get(), bytes, fail ? 1 : 0));
    return *this;
  }
  /// The cache folder; "" turns the cache off.
  Options &cacheDir(const std::string &path) {
    detail::check(jitrun_options_set_cache_dir(get(), path.c_str()));
    return *this;
  }
  /// The size cap of the cache folder (0: none).
  Options &cacheMaxBytes(uint64_t bytes) {
    detail::check(jitrun_options_set_cache_max_bytes(get(), bytes));
    return *this;
  }
  Options &memoryLimit(uint64_t bytes) {
    detail::check(jitrun_options_set_memory_limit(get(), bytes));
    return *this;
  }
  Options &compileThreads(uint32_t threads) {
    detail::check(jitrun_options_set_compile_threads(get(), threads));
    return *this;
  }
  Options &forceAvx2(bool force = true) {
    detail::check(jitrun_options_set_force_avx2(get(), force ? 1 : 0));
    return *this;
  }
  /// A static shape for an ONNX input with symbolic dims (the model is then
  /// compiled for it at load instead of per run).
  Options &inputShape(const std::string &name, const std::vector<int64_t> &dims) {
    detail::check(jitrun_options_set_input_shape(get(), name.c_str(), dims.size(), dims.data()));
    return *this;
  }
  /// How many shape specializations of a dynamic model stay in memory.
  Options &maxSpecializations(size_t count) {
    detail::check(jitrun_options_set_max_specializations(get(), count));
    return *this;
  }
  /// jitrun_options_set_shape_policy: "specialize", "tiered", "split",
  /// "buckets" or "generic".
  Options &shapePolicy(const std::string &policy) {
    detail::check(jitrun_options_set_shape_policy(get(), policy.c_str()));
    return *this;
  }
  /// Told how a load goes (see jitrun_options_set_progress): phase "read",
  /// "fuse", then "compile" with kernels done of total. An exception it
  /// throws is swallowed (it cannot cross the C library).
  Options &progress(std::function<void(const std::string &phase, size_t done, size_t total)> fn) {
    progressFn = std::make_shared<ProgressFn>(std::move(fn));
    detail::check(jitrun_options_set_progress(get(), *progressFn ? &Options::onProgress : nullptr,
                                              progressFn.get()));
    return *this;
  }
  jitrun_options_t get() const { return handle.get(); }

private:
  using ProgressFn = std::function<void(const std::string &, size_t, size_t)>;
  static void onProgress(void *user, const char *phase, size_t done, size_t total) {
    try {
      (*static_cast<ProgressFn *>(user))(phase, done, total);
    } catch (...) {
    }
  }
  std::shared_ptr<ProgressFn> progressFn;
  struct Free {
    void operator()(jitrun_options_t o) const { jitrun_options_free(o); }
  };
  std::unique_ptr<jitrun_options_s, Free> handle;
};

/// Results held by the runtime (Model::runAlloc): views without a copy, or
/// copies into xt::xarray.
class Outputs {
public:
  explicit Outputs(jitrun_outputs_t outputs) : handle(outputs) {}
  size_t size() const { return jitrun_outputs_count(handle.get()); }
  /// Result `i` as a raw C tensor (valid while this object lives).
  jitrun_tensor_t raw(size_t i) const {
    jitrun_tensor_t t;
    detail::check(jitrun_outputs_get(handle.get(), i, &t));
    return t;
  }
  /// Result `i` as an xtensor view of the runtime's memory (no copy; valid
  /// while this object lives). Throws if T is not its element type.
  template <typename T> auto view(size_t i) const {
    jitrun_tensor_t t = raw(i);
    checkType<T>(t, i);
    std::vector<size_t> shape(t.shape, t.shape + t.rank);
    size_t n = t.byte_size / sizeof(T);
    return xt::adapt(static_cast<T *>(t.data), n, xt::no_ownership(), shape);
  }
  /// Result `i` copied into an xt::xarray<T>.
  template <typename T> xt::xarray<T> get(size_t i) const { return xt::xarray<T>(view<T>(i)); }

private:
  template <typename T> static void checkType(const jitrun_tensor_t &t, size_t i) {
    if (t.type != elementTypeOf<T>())
      throw Error(JITRUN_SHAPE_MISMATCH,
                  "jitrun: error: result " + std::to_string(i) + " holds " +
                      jitrun_element_type_name(t.type) + ", not " +
                      jitrun_element_type_name(elementTypeOf<T>()));
  }
  struct Free {
    void operator()(jitrun_outputs_t o) const { jitrun_outputs_free(o); }
  };
  std::unique_ptr<jitrun_outputs_s, Free> handle;
};

/// A compiled model. Movable, not copyable; run from as many threads as you
/// like. It keeps the workers of the Runtime it was loaded on alive.
class Model {
public:
  /// Reads, fuses and compiles the model at `path` (.mlir or .mlirbc).
  static Model load(const Runtime &runtime, const std::string &path,
                    const Options &options = Options()) {
    jitrun_model_t m = nullptr;
    detail::check(jitrun_model_load_file(runtime.get(), path.c_str(), options.get(), &m));
    return Model(m);
  }
  /// The same from bytes in memory (copied); `name` appears in messages.
  static Model loadBuffer(const Runtime &runtime, const void *data, size_t size,
                          const std::string &name = "<buffer>",
                          const Options &options = Options()) {
    jitrun_model_t m = nullptr;
    detail::check(
        jitrun_model_load_buffer(runtime.get(), data, size, name.c_str(), options.get(), &m));
    return Model(m);
  }

  /// The compiled entry point.
  std::string function() const { return jitrun_model_function(get()); }
  /// The module's public functions.
  std::vector<std::string> entryPoints() const {
    std::vector<std::string> out;
    for (size_t i = 0, e = jitrun_model_num_entry_points(get()); i < e; ++i)
      out.push_back(jitrun_model_entry_point(get(), i));
    return out;
  }
  /// The signature; a dynamic dim is -1 (byte_size 0).
  std::vector<TensorDesc> inputs() const { return descs(true); }
  std::vector<TensorDesc> outputs() const { return descs(false); }
  /// True when some input has a dynamic dim: each run compiles the model for
  /// its inputs' shapes the first time it sees them.
  bool dynamic() const { return jitrun_model_is_dynamic(get()) != 0; }
  /// Shape specializations held in memory (0 for a static model).
  size_t specializations() const { return jitrun_model_num_specializations(get()); }
  /// The results' shapes for inputs of these shapes (compiles the dynamic
  /// model for them if they are new).
  std::vector<std::vector<int64_t>>
  outputShapes(const std::vector<std::vector<int64_t>> &inputShapes) const {
    std::vector<TensorDesc> ins = inputs();
    std::vector<jitrun_tensor_t> in;
    for (size_t i = 0; i < inputShapes.size(); ++i)
      in.push_back(jitrun_tensor_t{i < ins.size() ? ins[i].type : JITRUN_F32,
                                   inputShapes[i].size(), inputShapes[i].data(), nullptr, 0});
    std::vector<std::vector<int64_t>> out;
    for (size_t i = 0, e = jitrun_model_num_outputs(get()); i < e; ++i) {
      std::vector<int64_t> dims(8);
      size_t rank = 0;
      jitrun_status_t s = jitrun_model_output_shape(get(), in.data(), in.size(), i, dims.data(),
                                                    dims.size(), &rank);
      if (s && rank > dims.size()) {
        jitrun_status_free(s);
        dims.resize(rank);
        s = jitrun_model_output_shape(get(), in.data(), in.size(), i, dims.data(), dims.size(),
                                      &rank);
      }
      detail::check(s);
      dims.resize(rank);
      out.push_back(std::move(dims));
    }
    return out;
  }
  jitrun_statistics_t statistics() const {
    jitrun_statistics_t s;
    detail::check(jitrun_model_statistics(get(), &s));
    return s;
  }

  /// Starts timing every command of the runs that follow (from zero), or
  /// stops; while on, runs of this model are serialized.
  void setProfiling(bool enabled) const {
    detail::check(jitrun_model_set_profiling(get(), enabled ? 1 : 0));
  }
  /// The commands timed since setProfiling(true), in run order.
  std::vector<ProfileEntry> profile() const {
    jitrun_profile_t p = nullptr;
    detail::check(jitrun_model_profile(get(), &p));
    std::unique_ptr<jitrun_profile_s, void (*)(jitrun_profile_t)> owner(p, jitrun_profile_free);
    std::vector<ProfileEntry> out;
    for (size_t i = 0, e = jitrun_profile_count(p); i < e; ++i) {
      jitrun_profile_entry_t c;
      detail::check(jitrun_profile_get(p, i, &c));
      out.push_back(ProfileEntry{c.name, c.op, c.location, c.seconds, c.flops, c.bytes});
    }
    return out;
  }

  /// Runs into caller-owned outputs (written in place).
  void runInto(const std::vector<TensorRef> &inputs, const std::vector<TensorRef> &outputs) const {
    std::vector<jitrun_tensor_t> in = detail::cTensors(inputs), out = detail::cTensors(outputs);
    detail::check(jitrun_model_run(get(), in.data(), in.size(), out.data(), out.size()));
  }
  /// Runs and returns every result as an xt::xarray<T>, which the kernels
  /// write directly. Throws if a result's element type is not T.
  template <typename T = float>
  std::vector<xt::xarray<T>> run(const std::vector<TensorRef> &inputs) const {
    std::vector<xt::xarray<T>> results;
    std::vector<TensorRef> refs;
    std::vector<TensorDesc> descs = outputs();
    std::vector<std::vector<int64_t>> shapes;
    if (dynamic()) {
      std::vector<std::vector<int64_t>> in;
      for (const TensorRef &r : inputs) {
        jitrun_tensor_t t = r.c();
        in.emplace_back(t.shape, t.shape + t.rank);
      }
      shapes = outputShapes(in);
    }
    for (size_t i = 0; i < descs.size(); ++i) {
      const TensorDesc &d = descs[i];
      if (d.type != elementTypeOf<T>())
        throw Error(JITRUN_SHAPE_MISMATCH,
                    std::string("jitrun: error: a result holds ") +
                        jitrun_element_type_name(d.type) + ", not " +
                        jitrun_element_type_name(elementTypeOf<T>()));
      const std::vector<int64_t> &shape = shapes.empty() ? d.shape : shapes[i];
      results.emplace_back(std::vector<size_t>(shape.begin(), shape.end()));
    }
    for (xt::xarray<T> &r : results)
      refs.emplace_back(r);
    runInto(inputs, refs);
    return results;
  }
  /// Runs into results the runtime allocates (any element types).
  Outputs runAlloc(const std::vector<TensorRef> &inputs) const {
    std::vector<jitrun_tensor_t> in = detail::cTensors(inputs);
    jitrun_outputs_t out = nullptr;
    detail::check(jitrun_model_run_alloc(get(), in.data(), in.size(), &out));
    return Outputs(out);
  }

  jitrun_model_t get() const { return handle.get(); }

private:
  explicit Model(jitrun_model_t m) : handle(m) {}
  std::vector<TensorDesc> descs(bool in) const {
    std::vector<TensorDesc> out;
    size_t n = in ? jitrun_model_num_inputs(get()) : jitrun_model_num_outputs(get());
    for (size_t i = 0; i < n; ++i) {
      jitrun_tensor_desc_t d;
      detail::check(in ? jitrun_model_input(get(), i, &d) : jitrun_model_output(get(), i, &d));
      out.push_back(TensorDesc{d.type, std::vector<int64_t>(d.shape, d.shape + d.rank),
                               d.byte_size, d.name ? d.name : ""});
    }
    return out;
  }
  struct Release {
    void operator()(jitrun_model_t m) const { jitrun_model_release(m); }
  };
  std::unique_ptr<jitrun_model_s, Release> handle;
};

/// One thread's run state: runs in a session allocate nothing. The Model
/// must outlive it; use one session per thread.
class Session {
public:
  explicit Session(const Model &model) {
    jitrun_session_t s = nullptr;
    detail::check(jitrun_session_create(model.get(), &s));
    handle.reset(s);
  }
  void runInto(const std::vector<TensorRef> &inputs, const std::vector<TensorRef> &outputs) {
    std::vector<jitrun_tensor_t> in = detail::cTensors(inputs), out = detail::cTensors(outputs);
    detail::check(jitrun_session_run(handle.get(), in.data(), in.size(), out.data(), out.size()));
  }

private:
  struct Release {
    void operator()(jitrun_session_t s) const { jitrun_session_release(s); }
  };
  std::unique_ptr<jitrun_session_s, Release> handle;
};

} // namespace jitrun

#endif // JITRUN_JITRUN_HPP
