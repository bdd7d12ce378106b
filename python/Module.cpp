//===- Module.cpp - jitrun._jitrun: the Python binding of the C API -------===//
//
// The extension under the `jitrun` package (python/jitrun/__init__.py). It
// uses the C API alone (<jitrun/jitrun.h>, libjitrun.so), as any embedder
// would: NumPy arrays and DLPack tensors in, NumPy arrays out.
//
// - Zero copy: a C-contiguous input of the model's dtype (a NumPy array, or
//   any object with __dlpack__, such as a torch tensor) is read in place;
//   results are NumPy arrays that the kernels write directly, and out=
//   arrays are written in place. Anything else is copied once into a
//   contiguous array of the right dtype (non-contiguous inputs), or refused
//   (a dtype that would need a lossy cast).
// - The GIL is released while a model compiles and while it runs, so Python
//   threads run one model concurrently (each run takes its own intermediates).
// - Every failure is a Python exception of the class registered for the
//   status code (jitrun.CompileError, jitrun.ShapeError, ...) with the
//   library's message.
// - bfloat16 has no NumPy dtype: bf16 inputs are float32 arrays (rounded to
//   nearest even) or bf16 DLPack tensors, bf16 results come back as float32
//   (exact).
//
//===----------------------------------------------------------------------===//

#include <jitrun/jitrun.h>

#include <dlpack/dlpack.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// The exception class of each status code, set by jitrun/__init__.py.
std::map<int, py::object> &errorClasses() {
  static auto *classes = new std::map<int, py::object>();
  return *classes;
}

[[noreturn]] void raise(int code, const std::string &message) {
  auto it = errorClasses().find(code);
  if (it == errorClasses().end())
    throw std::runtime_error(message);
  PyErr_SetObject(it->second.ptr(), py::make_tuple(message, code).ptr());
  throw py::error_already_set();
}

/// Raises the status as its exception class (freeing it); no-op on success.
void check(jitrun_status_t status) {
  if (!status)
    return;
  int code = jitrun_status_code(status);
  std::string message = jitrun_status_message(status);
  jitrun_status_free(status);
  raise(code, message);
}

/// A status released on every path.
struct StatusGuard {
  jitrun_status_t status = nullptr;
  ~StatusGuard() { jitrun_status_free(status); }
};

/// The NumPy dtype of an element type; bf16 travels as float32.
py::dtype dtypeOf(jitrun_element_type_t t) {
  switch (t) {
  case JITRUN_F32:
  case JITRUN_BF16:
    return py::dtype::of<float>();
  case JITRUN_F64:
    return py::dtype::of<double>();
  case JITRUN_F16:
    return py::dtype("float16");
  case JITRUN_I1:
    return py::dtype::of<bool>();
  case JITRUN_I8:
    return py::dtype::of<int8_t>();
  case JITRUN_I16:
    return py::dtype::of<int16_t>();
  case JITRUN_I32:
    return py::dtype::of<int32_t>();
  case JITRUN_I64:
    return py::dtype::of<int64_t>();
  case JITRUN_U8:
    return py::dtype::of<uint8_t>();
  }
  return py::dtype::of<float>();
}

/// The dtype name users see ("float32", "bfloat16", ...).
std::string dtypeName(jitrun_element_type_t t) {
  if (t == JITRUN_BF16)
    return "bfloat16";
  return py::str(dtypeOf(t));
}

/// The element type of a DLPack dtype, or -1.
int elementTypeOfDl(DLDataType d) {
  if (d.lanes != 1)
    return -1;
  switch (d.code) {
  case kDLFloat:
    return d.bits == 32 ? JITRUN_F32 : d.bits == 64 ? JITRUN_F64 : d.bits == 16 ? JITRUN_F16 : -1;
  case kDLBfloat:
    return d.bits == 16 ? JITRUN_BF16 : -1;
  case kDLInt:
    return d.bits == 8    ? JITRUN_I8
           : d.bits == 16 ? JITRUN_I16
           : d.bits == 32 ? JITRUN_I32
           : d.bits == 64 ? JITRUN_I64
                          : -1;
  case kDLUInt:
    return d.bits == 8 ? JITRUN_U8 : -1;
  case 6: // kDLBool (DLPack 0.8)
    return d.bits == 8 ? JITRUN_I1 : -1;
  default:
    return -1;
  }
}

uint16_t bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a (quiet) NaN
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float bf16Value(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// One input or output of the model.
struct Desc {
  std::string name;
  std::vector<int64_t> shape;
  jitrun_element_type_t type;
  size_t bytes;
};

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("None") : std::to_string(shape[i]));
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// The DLManagedTensor of a consumed capsule, released with its deleter.
struct DlOwner {
  DLManagedTensor *managed = nullptr;
  ~DlOwner() {
    if (managed && managed->deleter)
      managed->deleter(managed);
  }
};

/// A tensor ready for the C API: `data` stays valid while `keep` lives.
struct Prepared {
  jitrun_tensor_t tensor{};
  /// The tensor's shape (tensor.shape points here).
  std::vector<int64_t> shape;
  py::object keep;
  std::shared_ptr<DlOwner> dl;
};

class Runtime {
public:
  explicit Runtime(uint32_t threads) {
    jitrun_runtime_t r = nullptr;
    check(jitrun_runtime_create(threads, &r));
    handle = r;
  }
  ~Runtime() { jitrun_runtime_release(handle); }
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;
  uint32_t threads() const { return jitrun_runtime_threads(handle); }
  jitrun_runtime_t get() const { return handle; }

private:
  jitrun_runtime_t handle = nullptr;
};

/// Load options, as jitrun.load takes them.
struct LoadOptions {
  std::string fusion = "default";
  std::string function;
  /// None: the library's default folder; "" (or False in jitrun.load): none.
  std::optional<std::string> cacheDir;
  std::optional<uint64_t> cacheMaxBytes;
  uint64_t memoryLimit = 0;
  uint32_t compileThreads = 0;
  bool forceAvx2 = false;
  int64_t stackLimit = -1;
  bool failOnStackLimit = true;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  size_t maxSpecializations = 8;
  std::string shapePolicy = "tiered";
  std::string weights = "f32";
  bool amx = true;
  py::object progress = py::none();
};

class Model {
public:
  Model(std::shared_ptr<Runtime> rt, py::object source, const LoadOptions &o)
      : runtime(std::move(rt)) {
    jitrun_options_t opts = nullptr;
    check(jitrun_options_create(&opts));
    std::unique_ptr<jitrun_options_s, void (*)(jitrun_options_t)> owner(opts,
                                                                       jitrun_options_free);
    check(jitrun_options_set_fusion(opts, o.fusion.c_str()));
    check(jitrun_options_set_function(opts, o.function.c_str()));
    if (o.cacheDir)
      check(jitrun_options_set_cache_dir(opts, o.cacheDir->c_str()));
    if (o.cacheMaxBytes)
      check(jitrun_options_set_cache_max_bytes(opts, *o.cacheMaxBytes));
    check(jitrun_options_set_memory_limit(opts, o.memoryLimit));
    check(jitrun_options_set_compile_threads(opts, o.compileThreads));
    check(jitrun_options_set_force_avx2(opts, o.forceAvx2 ? 1 : 0));
    if (o.stackLimit >= 0)
      check(jitrun_options_set_stack_limit(opts, static_cast<uint64_t>(o.stackLimit),
                                           o.failOnStackLimit ? 1 : 0));
    for (const auto &[name, dims] : o.inputShapes)
      check(jitrun_options_set_input_shape(opts, name.c_str(), dims.size(), dims.data()));
    check(jitrun_options_set_max_specializations(opts, o.maxSpecializations));
    check(jitrun_options_set_shape_policy(opts, o.shapePolicy.c_str()));
    check(jitrun_options_set_weights(opts, o.weights.c_str()));
    check(jitrun_options_set_amx(opts, o.amx ? 1 : 0));
    Progress progress{o.progress};
    if (!o.progress.is_none())
      check(jitrun_options_set_progress(opts, &Progress::call, &progress));

    jitrun_model_t m = nullptr;
    StatusGuard status;
    if (py::isinstance<py::bytes>(source) || py::isinstance<py::bytearray>(source) ||
        py::isinstance<py::memoryview>(source)) {
      // A strided or reversed memoryview is copied into contiguous bytes
      // first: its buffer pointer and size alone do not describe its bytes.
      if (py::isinstance<py::memoryview>(source) && !source.attr("c_contiguous").cast<bool>())
        source = source.attr("tobytes")();
      py::buffer_info info = py::buffer(source).request();
      const void *data = info.ptr;
      size_t size = static_cast<size_t>(info.size * info.itemsize);
      py::gil_scoped_release release;
      status.status = jitrun_model_load_buffer(runtime->get(), data, size, "<bytes>", opts, &m);
    } else {
      std::string path = py::str(py::module_::import("os").attr("fspath")(source));
      py::gil_scoped_release release;
      status.status = jitrun_model_load_file(runtime->get(), path.c_str(), opts, &m);
    }
    if (progress.error) {
      if (m)
        jitrun_model_release(m);
      progress.error->restore();
      throw py::error_already_set();
    }
    jitrun_status_t failed = status.status;
    status.status = nullptr; // check() frees it
    check(failed);
    handle = m;
    dynamic = jitrun_model_is_dynamic(m) != 0;
    for (bool in : {true, false}) {
      size_t n = in ? jitrun_model_num_inputs(m) : jitrun_model_num_outputs(m);
      for (size_t i = 0; i < n; ++i) {
        jitrun_tensor_desc_t d;
        check(in ? jitrun_model_input(m, i, &d) : jitrun_model_output(m, i, &d));
        (in ? inputs : outputs)
            .push_back(Desc{d.name ? d.name : "", std::vector<int64_t>(d.shape, d.shape + d.rank),
                            d.type, d.byte_size});
      }
    }
  }
  ~Model() { jitrun_model_release(handle); }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// Runs with positional or named inputs; returns the results in order.
  std::vector<py::object> run(py::object feeds, py::object out) {
    std::vector<py::object> args = orderInputs(feeds);
    std::vector<Prepared> in(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      in[i] = prepareInput(args[i], i);
    std::vector<jitrun_tensor_t> cin, cout;
    for (Prepared &p : in)
      cin.push_back(p.tensor);
    // A dynamic model's results take the shapes of these inputs (compiled
    // for them if they are new).
    std::vector<Desc> shapes = dynamic ? outputShapes(cin) : outputs;
    std::vector<py::object> results(outputs.size());
    std::vector<Prepared> res(outputs.size());
    std::vector<py::object> outArgs = orderOutputs(out);
    for (size_t i = 0; i < outputs.size(); ++i)
      res[i] = prepareOutput(outArgs[i], i, results[i], shapes[i]);
    for (Prepared &p : res)
      cout.push_back(p.tensor);
    StatusGuard status;
    {
      py::gil_scoped_release release;
      status.status =
          jitrun_model_run(handle, cin.data(), cin.size(), cout.data(), cout.size());
    }
    if (status.status) {
      jitrun_status_t s = status.status;
      status.status = nullptr;
      check(s);
    }
    // bf16 results were written as bits; they come back as float32.
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].type != JITRUN_BF16)
        continue;
      py::array_t<float> f = results[i];
      const uint16_t *bits = static_cast<const uint16_t *>(res[i].tensor.data);
      float *dst = f.mutable_data();
      for (py::ssize_t k = 0; k < f.size(); ++k)
        dst[k] = bf16Value(bits[k]);
    }
    return results;
  }

  py::dict statistics() const {
    jitrun_statistics_t s;
    check(jitrun_model_statistics(handle, &s));
    py::dict d;
    d["function"] = std::string(jitrun_model_function(handle));
    d["generic_before"] = s.generic_before;
    d["generic_after"] = s.generic_after;
    d["root_ops"] = s.root_ops;
    d["dispatch_regions"] = s.dispatch_regions;
    d["dispatches"] = s.dispatches;
    d["executables"] = s.executables;
    d["fills"] = s.fills;
    d["copies"] = s.copies;
    d["workgroups"] = s.workgroups;
    d["transient_bytes"] = s.transient_bytes;
    d["intermediate_bytes"] = s.intermediate_bytes;
    d["stack_bytes_max"] = s.stack_bytes_max;
    d["vector_kernels"] = s.vector_kernels;
    d["scalar_kernels"] = s.scalar_kernels;
    d["vnni_kernels"] = s.vnni_kernels;
    d["amx_kernels"] = s.amx_kernels;
    d["generic_kernels"] = s.generic_kernels;
    d["cached_kernels"] = s.cached_kernels;
    d["cached_program"] = s.cached_program;
    d["mapped_constant_bytes"] = s.mapped_constant_bytes;
    d["reused_weight_bytes"] = s.reused_weight_bytes;
    d["compile_seconds"] = s.compile_seconds;
    return d;
  }

  void setProfiling(bool enabled) { check(jitrun_model_set_profiling(handle, enabled ? 1 : 0)); }

  /// (runs, [(name, op, location, seconds, flops, bytes), ...]).
  py::tuple profile() const {
    jitrun_profile_t p = nullptr;
    check(jitrun_model_profile(handle, &p));
    std::unique_ptr<jitrun_profile_s, void (*)(jitrun_profile_t)> owner(p, jitrun_profile_free);
    py::list rows;
    for (size_t i = 0, e = jitrun_profile_count(p); i < e; ++i) {
      jitrun_profile_entry_t c;
      check(jitrun_profile_get(p, i, &c));
      rows.append(py::make_tuple(c.name, c.op, c.location, c.seconds, c.flops, c.bytes));
    }
    return py::make_tuple(jitrun_profile_runs(p), rows);
  }

  py::list describe(bool in) const {
    py::list l;
    for (const Desc &d : in ? inputs : outputs)
      l.append(py::make_tuple(d.name, shapeTuple(d.shape), dtypeName(d.type)));
    return l;
  }

  /// The results' shapes for inputs of `shapes` (a dynamic model compiles
  /// for them if they are new).
  py::list outputShapesFor(const std::vector<std::vector<int64_t>> &shapes) {
    if (shapes.size() != inputs.size())
      raise(JITRUN_SHAPE_MISMATCH, "jitrun: expected " + std::to_string(inputs.size()) +
                                       " input shapes (" + expectedInputs() + "), got " +
                                       std::to_string(shapes.size()));
    std::vector<jitrun_tensor_t> cin;
    for (size_t i = 0; i < shapes.size(); ++i)
      cin.push_back(jitrun_tensor_t{inputs[i].type, shapes[i].size(), shapes[i].data(), nullptr, 0});
    py::list l;
    for (const Desc &d : outputShapes(cin))
      l.append(shapeTuple(d.shape));
    return l;
  }
  bool isDynamic() const { return dynamic; }
  size_t specializations() const { return jitrun_model_num_specializations(handle); }
  std::string function() const { return jitrun_model_function(handle); }
  uint32_t threads() const { return runtime->threads(); }

private:
  /// Calls the Python progress callback from the compiling threads.
  struct Progress {
    py::object fn;
    std::unique_ptr<py::error_already_set> error;
    std::mutex mutex;
    static void call(void *user, const char *phase, size_t done, size_t total) {
      auto *self = static_cast<Progress *>(user);
      std::lock_guard<std::mutex> lock(self->mutex);
      py::gil_scoped_acquire gil;
      if (self->error)
        return;
      try {
        self->fn(phase, done, total);
      } catch (py::error_already_set &e) {
        self->error = std::make_unique<py::error_already_set>(std::move(e));
      }
    }
  };

  /// A shape as Python shows it: None for a dynamic dim.
  static py::tuple shapeTuple(const std::vector<int64_t> &shape) {
    py::list l;
    for (int64_t d : shape)
      l.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
    return py::tuple(l);
  }

  /// The outputs for inputs `cin` (only their types and shapes are read).
  std::vector<Desc> outputShapes(const std::vector<jitrun_tensor_t> &cin) {
    std::vector<Desc> descs = outputs;
    for (size_t i = 0; i < descs.size(); ++i) {
      std::vector<int64_t> dims(16);
      size_t rank = 0;
      StatusGuard status;
      {
        py::gil_scoped_release release;
        status.status = jitrun_model_output_shape(handle, cin.data(), cin.size(), i, dims.data(),
                                                  dims.size(), &rank);
        if (status.status && rank > dims.size()) {
          jitrun_status_free(status.status);
          dims.resize(rank);
          status.status = jitrun_model_output_shape(handle, cin.data(), cin.size(), i,
                                                    dims.data(), dims.size(), &rank);
        }
      }
      jitrun_status_t failed = status.status;
      status.status = nullptr;
      check(failed);
      dims.resize(rank);
      size_t bytes = jitrun_element_size(descs[i].type);
      for (int64_t d : dims)
        bytes *= static_cast<size_t>(d);
      descs[i].shape = std::move(dims);
      descs[i].bytes = bytes;
    }
    return descs;
  }

  std::string label(bool in, size_t i) const {
    const Desc &d = in ? inputs[i] : outputs[i];
    return std::string(in ? "input " : "output ") + std::to_string(i) +
           (d.name.empty() ? "" : " ('" + d.name + "')");
  }

  std::string expectedInputs() const {
    std::string s;
    for (size_t i = 0; i < inputs.size(); ++i)
      s += (i ? ", " : "") + (inputs[i].name.empty() ? "#" + std::to_string(i) : inputs[i].name) +
           ": " + shapeText(inputs[i].shape) + " " + dtypeName(inputs[i].type);
    return s;
  }

  std::vector<py::object> orderInputs(py::object feeds) const {
    std::vector<py::object> args;
    if (py::isinstance<py::dict>(feeds)) {
      py::dict d = feeds;
      for (size_t i = 0; i < inputs.size(); ++i) {
        py::str key(inputs[i].name);
        if (inputs[i].name.empty() || !d.contains(key))
          raise(JITRUN_SHAPE_MISMATCH, "jitrun: no value for " + label(true, i) +
                                           "; the model takes " + expectedInputs());
        args.push_back(d[key]);
      }
      if (d.size() != inputs.size())
        for (auto item : d) {
          std::string k = py::str(item.first);
          bool known = false;
          for (const Desc &in : inputs)
            known = known || in.name == k;
          if (!known)
            raise(JITRUN_SHAPE_MISMATCH, "jitrun: the model has no input named '" + k +
                                             "'; it takes " + expectedInputs());
        }
      return args;
    }
    for (py::handle h : feeds)
      args.push_back(py::reinterpret_borrow<py::object>(h));
    if (args.size() != inputs.size())
      raise(JITRUN_SHAPE_MISMATCH, "jitrun: expected " + std::to_string(inputs.size()) +
                                       " inputs (" + expectedInputs() + "), got " +
                                       std::to_string(args.size()));
    return args;
  }

  std::vector<py::object> orderOutputs(py::object out) const {
    std::vector<py::object> outs(outputs.size(), py::none());
    if (out.is_none())
      return outs;
    if (py::isinstance<py::array>(out)) {
      if (outputs.size() != 1)
        raise(JITRUN_SHAPE_MISMATCH, "jitrun: out= is one array but the model has " +
                                         std::to_string(outputs.size()) + " outputs");
      outs[0] = out;
      return outs;
    }
    if (py::isinstance<py::dict>(out)) {
      py::dict d = out;
      for (size_t i = 0; i < outputs.size(); ++i) {
        py::str key(outputs[i].name);
        if (!outputs[i].name.empty() && d.contains(key))
          outs[i] = d[key];
      }
      return outs;
    }
    std::vector<py::object> given;
    for (py::handle h : out)
      given.push_back(py::reinterpret_borrow<py::object>(h));
    if (given.size() != outputs.size())
      raise(JITRUN_SHAPE_MISMATCH, "jitrun: out= has " + std::to_string(given.size()) +
                                       " arrays for " + std::to_string(outputs.size()) +
                                       " outputs");
    return given;
  }

  /// Checks `shape` against input or output `i`.
  /// Checks `shape` against input or output `i` (`want`, if given; a
  /// dynamic dim takes any size).
  void checkShape(bool in, size_t i, const std::vector<int64_t> &shape,
                  const Desc *want = nullptr) const {
    const std::vector<int64_t> &model = (want ? *want : (in ? inputs : outputs)[i]).shape;
    bool fits = shape.size() == model.size();
    for (size_t k = 0; fits && k < shape.size(); ++k)
      fits = model[k] < 0 || model[k] == shape[k];
    if (!fits)
      raise(JITRUN_SHAPE_MISMATCH, "jitrun: " + label(in, i) + " has shape " + shapeText(shape) +
                                       ", the model takes " + shapeText(model));
  }

  /// Bytes of a tensor of `shape` and `d`'s element type.
  static size_t bytesOf(const Desc &d, const std::vector<int64_t> &shape) {
    size_t bytes = jitrun_element_size(d.type);
    for (int64_t k : shape)
      bytes *= static_cast<size_t>(k);
    return bytes;
  }

  Prepared prepareInput(const py::object &value, size_t i) {
    const Desc &d = inputs[i];
    Prepared p;
    if (!py::isinstance<py::array>(value) && py::hasattr(value, "__dlpack__"))
      if (prepareDlpack(value, i, p))
        return p;
    py::array a;
    if (py::isinstance<py::array>(value)) {
      a = py::reinterpret_borrow<py::array>(value);
    } else {
      // Lists and scalars: converted to the model's dtype.
      a = py::module_::import("numpy").attr("asarray")(value, dtypeOf(d.type));
    }
    py::dtype want = dtypeOf(d.type);
    if (!a.dtype().is(want) && !a.dtype().equal(want))
      raise(JITRUN_SHAPE_MISMATCH, "jitrun: " + label(true, i) + " is " +
                                       std::string(py::str(a.dtype())) + ", the model takes " +
                                       dtypeName(d.type) + " (convert it with .astype)");
    std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
    checkShape(true, i, shape);
    if (!(a.flags() & py::array::c_style))
      a = py::module_::import("numpy").attr("ascontiguousarray")(a);
    if (d.type == JITRUN_BF16) {
      py::array_t<float, py::array::c_style> f = a;
      py::array_t<uint16_t> bits(std::vector<py::ssize_t>(shape.begin(), shape.end()));
      const float *src = f.data();
      uint16_t *dst = bits.mutable_data();
      for (py::ssize_t k = 0; k < f.size(); ++k)
        dst[k] = bf16Bits(src[k]);
      a = bits;
    }
    p.keep = a;
    p.shape = shape;
    p.tensor = jitrun_tensor_t{d.type, p.shape.size(), p.shape.data(),
                               const_cast<void *>(a.data()), static_cast<size_t>(a.nbytes())};
    return p;
  }

  /// A DLPack tensor: zero copy when it is on the CPU, contiguous and of the
  /// model's dtype. Returns false to fall back to NumPy (a copy).
  bool prepareDlpack(const py::object &value, size_t i, Prepared &p) {
    const Desc &d = inputs[i];
    py::object capsule = value.attr("__dlpack__")();
    auto *managed = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed)
      throw py::error_already_set();
    // Consumed: the capsule no longer frees it; we call its deleter.
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    auto owner = std::make_shared<DlOwner>();
    owner->managed = managed;
    const DLTensor &t = managed->dl_tensor;
    if (t.device.device_type != kDLCPU)
      raise(JITRUN_INVALID_ARGUMENT, "jitrun: " + label(true, i) +
                                         " is not in CPU memory (DLPack device type " +
                                         std::to_string(t.device.device_type) + ")");
    int type = elementTypeOfDl(t.dtype);
    bool boolAsU8 = d.type == JITRUN_I1 && type == JITRUN_U8; // torch 1.13 exports bool so
    if (type != d.type && !boolAsU8)
      raise(JITRUN_SHAPE_MISMATCH,
            "jitrun: " + label(true, i) + " is a DLPack tensor of " +
                (type < 0 ? "an unsupported dtype"
                          : dtypeName(static_cast<jitrun_element_type_t>(type))) +
                ", the model takes " + dtypeName(d.type));
    std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
    checkShape(true, i, shape);
    bool contiguous = true;
    if (t.strides) {
      int64_t expect = 1;
      for (int k = t.ndim - 1; k >= 0; --k) {
        if (t.shape[k] != 1 && t.strides[k] != expect)
          contiguous = false;
        expect *= t.shape[k];
      }
    }
    size_t bytes = bytesOf(d, shape);
    char *data = static_cast<char *>(t.data) + t.byte_offset;
    if (!contiguous) {
      // Copied into a contiguous NumPy array of the element's size.
      std::vector<py::ssize_t> strides, dims(shape.begin(), shape.end());
      size_t eb = jitrun_element_size(d.type);
      for (int k = 0; k < t.ndim; ++k)
        strides.push_back(static_cast<py::ssize_t>(t.strides[k] * static_cast<int64_t>(eb)));
      py::dtype raw = eb == 1 ? py::dtype::of<uint8_t>()
                      : eb == 2 ? py::dtype::of<uint16_t>()
                      : eb == 4 ? py::dtype::of<uint32_t>()
                                : py::dtype::of<uint64_t>();
      py::capsule base(new std::shared_ptr<DlOwner>(owner), [](void *o) {
        delete static_cast<std::shared_ptr<DlOwner> *>(o);
      });
      py::array view(raw, dims, strides, data, base);
      py::array copy = py::module_::import("numpy").attr("ascontiguousarray")(view);
      p.keep = copy;
      data = static_cast<char *>(const_cast<void *>(copy.data()));
    } else {
      p.dl = owner;
      p.keep = capsule;
    }
    p.shape = shape;
    p.tensor = jitrun_tensor_t{d.type, p.shape.size(), p.shape.data(), data, bytes};
    return true;
  }

  /// An out= array (checked, written in place) or a new NumPy array.
  Prepared prepareOutput(const py::object &given, size_t i, py::object &result, const Desc &d) {
    Prepared p;
    py::array a;
    if (given.is_none()) {
      a = py::array(dtypeOf(d.type), std::vector<py::ssize_t>(d.shape.begin(), d.shape.end()));
    } else {
      if (!py::isinstance<py::array>(given))
        raise(JITRUN_INVALID_ARGUMENT, "jitrun: out= for " + label(false, i) +
                                           " must be a NumPy array");
      a = py::reinterpret_borrow<py::array>(given);
      py::dtype want = dtypeOf(d.type);
      if (!a.dtype().equal(want))
        raise(JITRUN_SHAPE_MISMATCH, "jitrun: out= for " + label(false, i) + " is " +
                                         std::string(py::str(a.dtype())) + ", the result is " +
                                         std::string(py::str(want)));
      checkShape(false, i, std::vector<int64_t>(a.shape(), a.shape() + a.ndim()), &d);
      if (!(a.flags() & py::array::c_style) || !a.writeable())
        raise(JITRUN_INVALID_ARGUMENT, "jitrun: out= for " + label(false, i) +
                                           " must be a writeable C-contiguous array");
    }
    result = a;
    void *data = a.mutable_data();
    if (d.type == JITRUN_BF16) {
      py::array_t<uint16_t> bits(std::vector<py::ssize_t>(d.shape.begin(), d.shape.end()));
      data = bits.mutable_data();
      p.keep = bits;
    }
    p.shape = d.shape;
    p.tensor = jitrun_tensor_t{d.type, p.shape.size(), p.shape.data(), data, d.bytes};
    return p;
  }

  std::shared_ptr<Runtime> runtime;
  jitrun_model_t handle = nullptr;
  bool dynamic = false;
  std::vector<Desc> inputs, outputs;
};

} // namespace

PYBIND11_MODULE(_jitrun, m) {
  m.doc() = "jitrun's C API for Python; use the jitrun package.";
  m.def("version", [] { return std::string(jitrun_version()); });
  m.def("_set_error_classes", [](py::dict classes) {
    for (auto item : classes)
      errorClasses()[item.first.cast<int>()] = py::reinterpret_borrow<py::object>(item.second);
  });
  py::class_<Runtime, std::shared_ptr<Runtime>>(m, "Runtime")
      .def(py::init<uint32_t>(), py::arg("threads") = 0)
      .def_property_readonly("threads", &Runtime::threads);
  py::class_<LoadOptions>(m, "LoadOptions")
      .def(py::init<>())
      .def_readwrite("fusion", &LoadOptions::fusion)
      .def_readwrite("function", &LoadOptions::function)
      .def_readwrite("cache_dir", &LoadOptions::cacheDir)
      .def_readwrite("cache_max_bytes", &LoadOptions::cacheMaxBytes)
      .def_readwrite("memory_limit", &LoadOptions::memoryLimit)
      .def_readwrite("compile_threads", &LoadOptions::compileThreads)
      .def_readwrite("force_avx2", &LoadOptions::forceAvx2)
      .def_readwrite("stack_limit", &LoadOptions::stackLimit)
      .def_readwrite("fail_on_stack_limit", &LoadOptions::failOnStackLimit)
      .def_readwrite("input_shapes", &LoadOptions::inputShapes)
      .def_readwrite("max_specializations", &LoadOptions::maxSpecializations)
      .def_readwrite("shape_policy", &LoadOptions::shapePolicy)
      .def_readwrite("weights", &LoadOptions::weights)
      .def_readwrite("amx", &LoadOptions::amx)
      .def_readwrite("progress", &LoadOptions::progress);
  py::class_<Model>(m, "Model")
      .def(py::init<std::shared_ptr<Runtime>, py::object, const LoadOptions &>())
      .def("run", &Model::run, py::arg("inputs"), py::arg("out") = py::none())
      .def("statistics", &Model::statistics)
      .def("set_profiling", &Model::setProfiling)
      .def("profile", &Model::profile)
      .def("describe", &Model::describe)
      .def("output_shapes", &Model::outputShapesFor)
      .def_property_readonly("dynamic", &Model::isDynamic)
      .def_property_readonly("specializations", &Model::specializations)
      .def_property_readonly("function", &Model::function)
      .def_property_readonly("threads", &Model::threads);
}
