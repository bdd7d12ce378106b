//===- ApiTest.cpp - <jitrun/jitrun.hpp>: RAII, xtensor, errors, soak -----===//
//
// The C++ wrapper against the installed-style library (libjitrun.so): typed
// xtensor inputs and outputs (f32 and i8 -> i32), zero-copy results, every
// error surfacing as jitrun::Error with the C status code, sessions, and the
// concurrency soak: one runtime, several zoo models, 8 threads x 1000 runs,
// every result bit-identical to the serial run of the same input.
//
//===----------------------------------------------------------------------===//

#include <jitrun/jitrun.hpp>

#include <catch2/catch.hpp>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xrandom.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kZoo = JITRUN_TEST_ZOO_DIR;

/// A fresh folder under /tmp (a cache folder), removed with everything in it
/// when the test leaves, passed or not.
struct ScratchDir {
  std::string path;
  explicit ScratchDir(const std::string &name) {
    std::string pattern = "/tmp/jitrun-api-" + name + "-XXXXXX";
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  ~ScratchDir() {
    if (!path.empty())
      std::filesystem::remove_all(path);
  }
};

/// The zoo's BERT encoder with a dynamic sequence length, loaded with
/// `options`, run at each of `lengths` (random inputs from `seed`) against
/// the same model unfused; `after(model, length, last)` checks the model
/// after each run (`last`: after the last one).
void bertAtLengths(const jitrun::Options &options, std::initializer_list<size_t> lengths,
                   int seed, const std::function<void(jitrun::Model &, size_t, bool)> &after) {
  jitrun::Runtime rt(2);
  const std::string path = kZoo + "/dynamic/bert_encoder.mlirbc";
  jitrun::Model model = jitrun::Model::load(rt, path, options);
  jitrun::Model unfused =
      jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").fusion("none"));
  xt::random::seed(seed);
  size_t i = 0;
  for (size_t s : lengths) {
    INFO("sequence length " << s);
    xt::xarray<float> x = xt::random::rand<float>({size_t(1), s, size_t(64)}, -1, 1);
    CHECK(xt::allclose(model.run<float>({x})[0], unfused.run<float>({x})[0], 1e-3, 1e-3));
    after(model, s, ++i == lengths.size());
  }
}

const char *kMatmulBias = R"(
func.func @main(%a: tensor<5x7xf32>, %w: tensor<7x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %m = linalg.matmul ins(%a, %w : tensor<5x7xf32>, tensor<7x3xf32>) outs(%f : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<5x3xf32>, tensor<3xf32>) outs(%e : tensor<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
)";

// i8 in, i32 out (x * 3 widened), and a second f32 result.
const char *kInt8 = R"(
func.func @main(%a: tensor<6xi8>) -> (tensor<6xi32>, tensor<6xf32>) {
  %e = tensor.empty() : tensor<6xi32>
  %ef = tensor.empty() : tensor<6xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<6xi8>) outs(%e, %ef : tensor<6xi32>, tensor<6xf32>) {
  ^bb0(%x: i8, %o: i32, %of: f32):
    %w = arith.extsi %x : i8 to i32
    %c3 = arith.constant 3 : i32
    %m = arith.muli %w, %c3 : i32
    %f = arith.sitofp %w : i32 to f32
    linalg.yield %m, %f : i32, f32
  } -> (tensor<6xi32>, tensor<6xf32>)
  return %r#0, %r#1 : tensor<6xi32>, tensor<6xf32>
}
)";

jitrun::Model loadText(const jitrun::Runtime &rt, const char *text,
                       const jitrun::Options &options = jitrun::Options()) {
  return jitrun::Model::loadBuffer(rt, text, std::strlen(text), "test.mlir", options);
}

/// Deterministic input for a model input: values in [-1, 1] for floats,
/// [-100, 100] for integers, from `seed`.
struct Input {
  jitrun::TensorDesc desc;
  std::vector<uint8_t> bytes;
  jitrun::TensorRef ref() { return jitrun::TensorRef(desc.type, desc.shape, bytes.data()); }
};

Input makeInput(const jitrun::TensorDesc &d, uint32_t seed) {
  Input in{d, std::vector<uint8_t>(d.byteSize)};
  size_t n = d.byteSize / jitrun_element_size(d.type);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    double u = static_cast<double>(x >> 8) / static_cast<double>(1u << 24); // [0, 1)
    if (d.type == JITRUN_F32) {
      float v = static_cast<float>(2 * u - 1);
      std::memcpy(in.bytes.data() + 4 * i, &v, 4);
    } else if (d.type == JITRUN_I8) {
      in.bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(u * 200 - 100));
    } else {
      FAIL("soak inputs of type " << jitrun_element_type_name(d.type) << " are not generated");
    }
  }
  return in;
}

/// The status code `fn` throws as jitrun::Error, or JITRUN_OK.
template <typename Fn> jitrun_status_code_t codeOf(Fn &&fn) {
  try {
    fn();
  } catch (const jitrun::Error &e) {
    return e.code();
  }
  return JITRUN_OK;
}

} // namespace

TEST_CASE("C++ API: xtensor in and out, zero copy", "[api]") {
  jitrun::Runtime rt(2);
  REQUIRE(rt.threads() == 2);
  jitrun::Model model = loadText(rt, kMatmulBias);
  REQUIRE(model.function() == "main");
  REQUIRE(model.entryPoints() == std::vector<std::string>{"main"});
  auto ins = model.inputs();
  REQUIRE(ins.size() == 3);
  CHECK(ins[0].shape == std::vector<int64_t>{5, 7});
  CHECK(ins[2].shape == std::vector<int64_t>{3});
  CHECK(model.outputs().at(0).shape == std::vector<int64_t>{5, 3});
  CHECK(model.statistics().dispatches == 1); // matmul + bias add fuse

  xt::random::seed(7);
  xt::xarray<float> a = xt::random::rand<float>({5, 7}, -1, 1);
  xt::xtensor<float, 2> w = xt::random::rand<float>({7, 3}, -1, 1);
  xt::xarray<float> b = {0.5f, -1.5f, 2.0f};
  xt::xarray<float> expected = xt::zeros<float>({5, 3});
  for (size_t i = 0; i < 5; ++i)
    for (size_t j = 0; j < 3; ++j) {
      float s = 0;
      for (size_t k = 0; k < 7; ++k)
        s += a(i, k) * w(k, j);
      expected(i, j) = s + b(j);
    }

  SECTION("run<float> returns arrays the kernels wrote") {
    std::vector<xt::xarray<float>> r = model.run<float>({a, w, b});
    REQUIRE(r.size() == 1);
    REQUIRE(r[0].shape() == std::vector<size_t>{5, 3});
    CHECK(xt::allclose(r[0], expected, 1e-5, 1e-5));
  }
  SECTION("runInto writes the caller's array in place") {
    xt::xtensor<float, 2> out = xt::zeros<float>({5, 3});
    const float *storage = out.data();
    model.runInto({a, w, b}, {out});
    CHECK(out.data() == storage);
    CHECK(xt::allclose(out, expected, 1e-5, 1e-5));
  }
  SECTION("runAlloc: a view of the runtime's result, and a copy") {
    jitrun::Outputs outs = model.runAlloc({a, w, b});
    REQUIRE(outs.size() == 1);
    auto view = outs.view<float>(0);
    CHECK(view.data() == static_cast<float *>(outs.raw(0).data));
    CHECK(xt::allclose(view, expected, 1e-5, 1e-5));
    xt::xarray<float> copy = outs.get<float>(0);
    CHECK(xt::allclose(copy, expected, 1e-5, 1e-5));
    CHECK_THROWS_AS(outs.view<int32_t>(0), jitrun::Error);
    CHECK_THROWS_AS(outs.raw(1), jitrun::Error);
  }
  SECTION("a session gives the same bits as the model") {
    jitrun::Session session(model);
    xt::xarray<float> out1 = xt::zeros<float>({5, 3}), out2 = xt::zeros<float>({5, 3});
    session.runInto({a, w, b}, {out1});
    model.runInto({a, w, b}, {out2});
    CHECK(std::memcmp(out1.data(), out2.data(), 15 * sizeof(float)) == 0);
  }
}

// The same matmul + bias with a dynamic row count, as torch-mlir writes it.
const char *kDynamicMatmulBias = R"(
func.func @main(%a: tensor<?x7xf32>, %w: tensor<7x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x7xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %m = linalg.matmul ins(%a, %w : tensor<?x7xf32>, tensor<7x3xf32>) outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<?x3xf32>, tensor<3xf32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
)";

/// a * w + b, computed here.
xt::xarray<float> matmulBias(const xt::xarray<float> &a, const xt::xarray<float> &w,
                             const xt::xarray<float> &b) {
  size_t n = a.shape()[0], k = a.shape()[1], m = w.shape()[1];
  xt::xarray<float> r = xt::zeros<float>({n, m});
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) {
      float s = 0;
      for (size_t l = 0; l < k; ++l)
        s += a(i, l) * w(l, j);
      r(i, j) = s + b(j);
    }
  return r;
}

TEST_CASE("C++ API: a dynamic model at several shapes", "[api]") {
  jitrun::Runtime rt(2);
  // Specialize: each new batch compiles (counted below), none runs in pieces.
  jitrun::Model model = loadText(
      rt, kDynamicMatmulBias,
      jitrun::Options().cacheDir("").maxSpecializations(2).shapePolicy("specialize"));
  REQUIRE(model.dynamic());
  CHECK(model.inputs()[0].shape == std::vector<int64_t>{-1, 7});
  CHECK(model.inputs()[0].byteSize == 0);
  CHECK(model.outputs()[0].shape == std::vector<int64_t>{-1, 3});
  CHECK(model.specializations() == 0);
  xt::random::seed(11);
  xt::xarray<float> w = xt::random::rand<float>({7, 3}, -1, 1);
  xt::xarray<float> b = {0.5f, -1.5f, 2.0f};
  jitrun::Session session(model);
  for (size_t n : std::vector<size_t>{1, 5, 17, 5, 64}) {
    xt::xarray<float> a = xt::random::rand<float>(std::vector<size_t>{n, 7}, -1, 1);
    xt::xarray<float> expected = matmulBias(a, w, b);
    CHECK(model.outputShapes({{static_cast<int64_t>(n), 7}, {7, 3}, {3}}) ==
          std::vector<std::vector<int64_t>>{{static_cast<int64_t>(n), 3}});
    std::vector<xt::xarray<float>> r = model.run<float>({a, w, b});
    REQUIRE(r[0].shape() == std::vector<size_t>{n, 3});
    CHECK(xt::allclose(r[0], expected, 1e-5, 1e-5));
    jitrun::Outputs outs = model.runAlloc({a, w, b});
    CHECK(outs.raw(0).shape[0] == static_cast<int64_t>(n));
    CHECK(xt::allclose(outs.get<float>(0), expected, 1e-5, 1e-5));
    // A session follows the shapes (its intermediates are remade on a change).
    xt::xarray<float> out = xt::zeros<float>(std::vector<size_t>{n, 3});
    session.runInto({a, w, b}, {out});
    CHECK(xt::allclose(out, expected, 1e-5, 1e-5));
    // Results of the wrong shape for these inputs are refused.
    xt::xarray<float> wrong = xt::zeros<float>(std::vector<size_t>{n + 1, 3});
    CHECK(codeOf([&] { model.runInto({a, w, b}, {wrong}); }) == JITRUN_SHAPE_MISMATCH);
  }
  CHECK(model.specializations() == 2); // bounded: the two most recent
  // Shapes the model does not take: the static dim, the rank, the count.
  xt::xarray<float> bad = xt::zeros<float>({4, 6});
  CHECK(codeOf([&] { model.run<float>({bad, w, b}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(codeOf([&] { model.outputShapes({{4, 7, 1}, {7, 3}, {3}}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(codeOf([&] { model.outputShapes({{4, 7}}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(model.specializations() == 2);
}

TEST_CASE("C++ API: the generic policy runs new sequence lengths on generic kernels", "[api]") {
  // BERT's encoder with a dynamic sequence length: after the first length,
  // each new one runs on kernels generic in it (compiled once, kept in the
  // cache folder), for good: nothing compiles its own program.
  ScratchDir dir("generic");
  REQUIRE(!dir.path.empty());
  bertAtLengths(jitrun::Options().cacheDir(dir.path).shapePolicy("generic"), {16, 7, 33, 7}, 6,
                [](jitrun::Model &model, size_t s, bool last) {
                  if (s != 16)
                    CHECK(model.statistics().generic_kernels > 0);
                  if (last)
                    CHECK(model.specializations() == 3);
                });
}

TEST_CASE("C++ API: without a cache folder, a model's kernels stay in memory", "[api]") {
  // No cache folder. Generic policy: the first new length compiles the
  // kernels generic in it, and later lengths take them from the model's
  // memory (before, each new length compiled a program of its own, every
  // kernel anew). One program kept: a length compiled again after its
  // program went takes all its kernels from memory.
  bertAtLengths(jitrun::Options().cacheDir("").shapePolicy("generic"), {16, 7, 33, 9}, 7,
                [](jitrun::Model &model, size_t s, bool last) {
                  jitrun_statistics_t st = model.statistics();
                  if (s != 16)
                    CHECK(st.generic_kernels > 0);
                  if (s == 33 || s == 9)
                    CHECK(st.cached_kernels > 0);
                  if (last)
                    CHECK(model.specializations() == 4);
                });
  int runs = 0;
  bertAtLengths(jitrun::Options().cacheDir("").shapePolicy("specialize").maxSpecializations(1),
                {16, 7, 16}, 8, [&](jitrun::Model &model, size_t, bool) {
                  jitrun_statistics_t st = model.statistics();
                  if (++runs < 3) {
                    CHECK(st.cached_kernels < st.executables);
                  } else {
                    CHECK(st.executables > 0);
                    CHECK(st.cached_kernels == st.executables);
                  }
                });
}

TEST_CASE("C++ API: weights shared between shapes stay right as programs come and go", "[api]") {
  // One program kept at a time and a cache folder: each length's weights
  // live in mapped weight files that go with its program, and lengths of
  // more and of at most 8 rows pack the weights in different layouts. A
  // compile must never take weights that went with an evicted program (a
  // new mapping may sit where theirs was): every result against the
  // unfused program.
  ScratchDir dir("memo");
  REQUIRE(!dir.path.empty());
  bool reused = false;
  bertAtLengths(
      jitrun::Options().cacheDir(dir.path).shapePolicy("specialize").maxSpecializations(1),
      {16, 4, 5, 6, 20, 3, 24, 7, 16, 2}, 12, [&](jitrun::Model &model, size_t, bool last) {
        reused = reused || model.statistics().reused_weight_bytes > 0;
        if (last)
          CHECK(model.specializations() == 1);
      });
  CHECK(reused);
}

TEST_CASE("C++ API: the zoo's dynamic variants at five shapes in one process", "[api]") {
  // Each dynamic zoo variant (modelgen --dynamic) at five shapes, every
  // result against the same model compiled without fusion (a second,
  // independent program); at the static zoo model's shape, bit-identical
  // to the static model. A batch's rows must also come out as each image
  // run alone.
  struct Case {
    std::string name;
    std::vector<size_t> shape; // the static model's
    size_t open;               // the dim the variant leaves open
    std::vector<size_t> sizes;
  };
  const std::vector<Case> cases = {
      {"bert_encoder", {1, 16, 64}, 1, {16, 1, 7, 33, 16}},
      {"minilm", {1, 16, 64}, 1, {3, 16, 29, 64, 1}},
      {"resnet50", {1, 3, 32, 32}, 0, {1, 2, 3, 5, 1}},
      {"mobilenet_v2", {1, 32, 32, 3}, 0, {4, 1, 7, 2, 4}},
  };
  jitrun::Runtime rt(2);
  xt::random::seed(5);
  for (const Case &c : cases) {
    INFO(c.name);
    std::string path = kZoo + "/dynamic/" + c.name + ".mlirbc";
    // Specialize: every shape compiles before its run (counted below).
    jitrun::Model model =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("specialize"));
    jitrun::Model unfused =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").fusion("none"));
    REQUIRE(model.dynamic());
    CHECK(model.inputs()[0].shape[c.open] == -1);
    jitrun::Model fixed =
        jitrun::Model::load(rt, kZoo + "/" + c.name + ".mlirbc", jitrun::Options().cacheDir(""));
    xt::xarray<float> one = xt::random::rand<float>(c.shape, -1, 1);
    bool same = model.run<float>({one})[0] == fixed.run<float>({one})[0];
    CHECK(same);
    bool reused = false;
    for (size_t size : c.sizes) {
      INFO("size " << size);
      std::vector<size_t> shape = c.shape;
      shape[c.open] = size;
      xt::xarray<float> x = xt::random::rand<float>(shape, -1, 1);
      xt::xarray<float> y = model.run<float>({x})[0];
      xt::xarray<float> ref = unfused.run<float>({x})[0];
      REQUIRE(y.shape() == ref.shape());
      CHECK(xt::allclose(y, ref, 1e-3, 1e-3));
      // A new size's compile takes the weights an earlier one packed in the
      // same layout (the statistics are the latest compile's).
      reused = reused || model.statistics().reused_weight_bytes > 0;
      if (c.open != 0 || size == 1)
        continue;
      for (size_t i = 0; i < size; ++i) {
        xt::xarray<float> image = xt::view(x, xt::range(i, i + 1));
        xt::xarray<float> alone = model.run<float>({image})[0];
        xt::xarray<float> row = xt::view(y, xt::range(i, i + 1));
        CHECK(xt::allclose(row, alone, 1e-4, 1e-5));
      }
    }
    // One specialization per distinct shape, the static one included.
    std::set<size_t> distinct(c.sizes.begin(), c.sizes.end());
    distinct.insert(c.shape[c.open]);
    CHECK(model.specializations() == distinct.size());
    CHECK(reused); // each packs weights
  }
}

// y = x - (the column sums over the batch): every row depends on the whole
// batch, so no run may be split along it.
const char *kBatchMixing = R"(
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                         iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x4xf32>, tensor<4xf32>) outs(%e2 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
)";

TEST_CASE("C++ API: shape policies run a new batch as pieces of compiled ones", "[api]") {
  jitrun::Runtime rt(2);
  xt::random::seed(9);
  const std::string path = kZoo + "/dynamic/mobilenet_v2.mlirbc";
  // The reference: the model compiled without fusion for every shape.
  jitrun::Model unfused = jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").fusion("none"));
  auto image = [](size_t n) {
    return xt::xarray<float>(xt::random::rand<float>(std::vector<size_t>{n, 32, 32, 3}, -1, 1));
  };
  SECTION("split: one compile, then every batch in pieces") {
    // The first compile is at batch 1, so the batch is analyzed at 2 first.
    jitrun::Model split =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("split"));
    for (size_t n : std::vector<size_t>{1, 4, 3, 6, 2}) {
      INFO("batch " << n);
      xt::xarray<float> x = image(n);
      xt::xarray<float> y = split.run<float>({x})[0];
      REQUIRE(y.shape() == std::vector<size_t>{n, 10});
      CHECK(xt::allclose(y, unfused.run<float>({x})[0], 1e-4, 1e-5));
    }
    CHECK(split.specializations() == 1);
    CHECK(split.outputShapes({{9, 32, 32, 3}}) == std::vector<std::vector<int64_t>>{{9, 10}});
    // Into the caller's results, through a session, and the wrong shape.
    xt::xarray<float> x = image(5), out = xt::zeros<float>({5, 10});
    xt::xarray<float> expected = unfused.run<float>({x})[0];
    split.runInto({x}, {out});
    CHECK(xt::allclose(out, expected, 1e-4, 1e-5));
    jitrun::Session session(split);
    out.fill(0);
    session.runInto({x}, {out});
    CHECK(xt::allclose(out, expected, 1e-4, 1e-5));
    xt::xarray<float> wrong = xt::zeros<float>({4, 10});
    CHECK(codeOf([&] { split.runInto({x}, {wrong}); }) == JITRUN_SHAPE_MISMATCH);
    CHECK(split.specializations() == 1);
  }
  SECTION("tiered: a new batch runs at once, its own compile follows") {
    jitrun::Model tiered =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("tiered"));
    xt::xarray<float> x2 = image(2), x5 = image(5);
    tiered.run<float>({x2}); // compiles batch 2, which analyzes the batch
    CHECK(tiered.specializations() == 1);
    xt::xarray<float> expected = unfused.run<float>({x5})[0];
    CHECK(xt::allclose(tiered.run<float>({x5})[0], expected, 1e-4, 1e-5)); // 2 + 2 + 2 (1 padded)
    for (int i = 0; i < 1200 && tiered.specializations() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(tiered.specializations() == 2); // batch 5's own program
    CHECK(xt::allclose(tiered.run<float>({x5})[0], expected, 1e-4, 1e-5));
  }
  SECTION("tiered after a compile at batch 1: a new batch waits for the analysis, not a compile") {
    jitrun::Model tiered =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("tiered"));
    xt::xarray<float> x1 = image(1), x3 = image(3);
    xt::xarray<float> expected = unfused.run<float>({x3})[0];
    tiered.run<float>({x1}); // compiles batch 1; the batch is not analyzed at size 1
    // At once, before the background analysis of batch 1's compile is done.
    CHECK(xt::allclose(tiered.run<float>({x3})[0], expected, 1e-4, 1e-5)); // 1 + 1 + 1
    CHECK(tiered.specializations() == 1); // batch 3 compiling in the background
  }
  SECTION("the default is tiered, and a model going away stops its background compile") {
    // Counted in the kernel cache, not timed: each kernel compiled is an
    // entry, and a model that stops its compile leaves batch 5's unwritten.
    ScratchDir scratch("cancel");
    REQUIRE(!scratch.path.empty());
    const std::string &dir = scratch.path;
    auto entries = [&] {
      size_t n = 0;
      for (const auto &e : std::filesystem::directory_iterator(dir))
        n += e.path().extension() == ".jrk";
      return n;
    };
    xt::xarray<float> x2 = image(2), x5 = image(5);
    xt::xarray<float> expected = unfused.run<float>({x5})[0];
    std::optional<jitrun::Model> model(jitrun::Model::load(rt, path, jitrun::Options().cacheDir(dir)));
    model->run<float>({x2}); // compiles batch 2
    size_t batch2 = entries();
    CHECK(batch2 > 0);
    CHECK(xt::allclose(model->run<float>({x5})[0], expected, 1e-4, 1e-5)); // in pieces
    CHECK(model->specializations() == 1); // batch 5 compiling in the background
    // Once that compile has written its first kernel, the model goes.
    for (int i = 0; i < 120000 && entries() == batch2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(entries() > batch2);
    model.reset(); // stops that compile at its next kernel
    size_t stopped = entries();
    // The same two batches compiled to the end, into the same cache.
    jitrun::Model full = jitrun::Model::load(rt, path, jitrun::Options().cacheDir(dir).shapePolicy("specialize"));
    full.run<float>({x2});
    CHECK(xt::allclose(full.run<float>({x5})[0], expected, 1e-4, 1e-5));
    size_t both = entries();
    INFO("cache entries: batch 2 " << batch2 << ", when the model went " << stopped << ", both batches " << both);
    CHECK(both > batch2);
    CHECK(stopped < both);
  }
  SECTION("buckets: only powers of two compile, each size runs in their pieces") {
    jitrun::Model buckets =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("buckets"));
    auto waitFor = [&](size_t count) {
      for (int i = 0; i < 1200 && buckets.specializations() < count; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return buckets.specializations();
    };
    buckets.run<float>({image(2)}); // compiled, and the batch analyzed
    xt::xarray<float> x7 = image(7);
    xt::xarray<float> expected = unfused.run<float>({x7})[0];
    // 7 = 4 + 2 + 1: each call runs in pieces of what is compiled and
    // compiles the next missing power of two (4, then 1), then nothing.
    for (size_t count : std::vector<size_t>{2, 3, 3}) {
      CHECK(xt::allclose(buckets.run<float>({x7})[0], expected, 1e-4, 1e-5));
      CHECK(waitFor(count) == count);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(buckets.specializations() == 3); // 1, 2 and 4: no 7
    CHECK(buckets.outputShapes({{3, 32, 32, 3}}) == std::vector<std::vector<int64_t>>{{3, 10}});
    xt::xarray<float> x3 = image(3);
    CHECK(xt::allclose(buckets.run<float>({x3})[0], unfused.run<float>({x3})[0], 1e-4, 1e-5));
    CHECK(buckets.specializations() == 3); // 3 = 2 + 1, both there
  }
  SECTION("tiered under a memory limit: a batch too big to compile runs in pieces") {
    // Batch 2 fits in 2 MB; batch 64's one run needs 2.4 MB of intermediates.
    auto limited = [] {
      jitrun::Options o;
      o.cacheDir("").memoryLimit(2000000);
      return o;
    };
    jitrun::Model tiered = jitrun::Model::load(rt, path, limited().shapePolicy("tiered"));
    tiered.run<float>({image(2)});
    xt::xarray<float> x = image(64);
    xt::xarray<float> expected = unfused.run<float>({x})[0];
    for (int i = 0; i < 3; ++i) { // the background compile fails once, quietly
      CHECK(xt::allclose(tiered.run<float>({x})[0], expected, 1e-4, 1e-5));
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    CHECK(tiered.specializations() == 1);
    jitrun::Model specialize = jitrun::Model::load(rt, path, limited());
    CHECK(codeOf([&] { specialize.run<float>({x}); }) == JITRUN_RESOURCE_EXHAUSTED);
  }
  SECTION("threads at many batch sizes while programs compile behind them") {
    jitrun::Model buckets =
        jitrun::Model::load(rt, path, jitrun::Options().cacheDir("").shapePolicy("buckets"));
    buckets.run<float>({image(2)});
    std::vector<xt::xarray<float>> xs, refs;
    for (size_t n = 1; n <= 8; ++n) {
      xs.push_back(image(n));
      refs.push_back(unfused.run<float>({xs.back()})[0]);
    }
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < 6; ++round)
          for (size_t i = 0; i < xs.size(); ++i) {
            size_t k = (i + size_t(t) * 3) % xs.size();
            if (!xt::allclose(buckets.run<float>({xs[k]})[0], refs[k], 1e-4, 1e-5))
              ++wrong;
          }
      });
    for (std::thread &t : threads)
      t.join();
    CHECK(wrong == 0);
    CHECK(buckets.specializations() <= 4); // 1, 2, 4, 8
  }
  SECTION("a dim the model mixes is compiled for each size") {
    jitrun::Model bert = jitrun::Model::load(rt, kZoo + "/dynamic/bert_encoder.mlirbc",
                                             jitrun::Options().cacheDir("").shapePolicy("split"));
    jitrun::Model bertUnfused = jitrun::Model::load(
        rt, kZoo + "/dynamic/bert_encoder.mlirbc", jitrun::Options().cacheDir("").fusion("none"));
    for (size_t seq : std::vector<size_t>{16, 7}) {
      xt::xarray<float> x = xt::random::rand<float>(std::vector<size_t>{1, seq, 64}, -1, 1);
      CHECK(xt::allclose(bert.run<float>({x})[0], bertUnfused.run<float>({x})[0], 1e-3, 1e-3));
    }
    CHECK(bert.specializations() == 2); // attention mixes the sequence
    jitrun::Model mixing = loadText(rt, kBatchMixing, jitrun::Options().cacheDir("").shapePolicy("split"));
    for (size_t n : std::vector<size_t>{1, 3, 5}) { // at 1, then the analysis at 2
      xt::xarray<float> x = xt::random::rand<float>(std::vector<size_t>{n, 4}, -1, 1);
      xt::xarray<float> expected = x - xt::sum(x, {0});
      CHECK(xt::allclose(mixing.run<float>({x})[0], expected, 1e-5, 1e-5));
    }
    CHECK(mixing.specializations() == 3);
  }
  CHECK(codeOf([] { jitrun::Options().shapePolicy("eager"); }) == JITRUN_INVALID_ARGUMENT);
}

TEST_CASE("C++ API: i8 in, i32 and f32 out", "[api]") {
  jitrun::Runtime rt(1);
  jitrun::Model model = loadText(rt, kInt8, jitrun::Options().fusion("none"));
  xt::xarray<int8_t> a = {-128, -1, 0, 1, 42, 127};
  jitrun::Outputs outs = model.runAlloc({a});
  REQUIRE(outs.size() == 2);
  xt::xarray<int32_t> times3 = outs.get<int32_t>(0);
  xt::xarray<float> asFloat = outs.get<float>(1);
  bool timesOk = times3 == xt::xarray<int32_t>({-384, -3, 0, 3, 126, 381});
  bool floatOk = asFloat == xt::xarray<float>({-128, -1, 0, 1, 42, 127});
  CHECK(timesOk);
  CHECK(floatOk);
  // run<T> needs every result to be T.
  CHECK_THROWS_AS(model.run<int32_t>({a}), jitrun::Error);
}

TEST_CASE("C++ API: errors are jitrun::Error with the C status code", "[api]") {
  jitrun::Runtime rt(1);
  CHECK(codeOf([&] { jitrun::Model::load(rt, "/no/such/model.mlirbc"); }) == JITRUN_NOT_FOUND);
  CHECK(codeOf([&] { loadText(rt, "func.func @main( {"); }) == JITRUN_COMPILE_ERROR);
  CHECK(codeOf([&] { jitrun::Options().fusion("max"); }) == JITRUN_INVALID_ARGUMENT);
  // Its only allocation is the 5x3xf32 result: 60 bytes.
  CHECK(codeOf([&] { loadText(rt, kMatmulBias, jitrun::Options().memoryLimit(60)); }) == JITRUN_OK);
  CHECK(codeOf([&] { loadText(rt, kMatmulBias, jitrun::Options().memoryLimit(59)); }) ==
        JITRUN_RESOURCE_EXHAUSTED);
  jitrun::Model model = loadText(rt, kMatmulBias);
  xt::xarray<float> a = xt::zeros<float>({5, 7}), w = xt::zeros<float>({7, 3});
  xt::xarray<float> b = xt::zeros<float>({3}), wrong = xt::zeros<float>({3, 7});
  xt::xarray<double> asDouble = xt::zeros<double>({3});
  CHECK(codeOf([&] { model.run<float>({a, w}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(codeOf([&] { model.run<float>({a, wrong, b}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(codeOf([&] { model.run<float>({a, w, asDouble}); }) == JITRUN_SHAPE_MISMATCH);
  CHECK(codeOf([&] { model.run<int32_t>({a, w, b}); }) == JITRUN_SHAPE_MISMATCH);
  xt::xarray<float, xt::layout_type::column_major> colMajor = xt::zeros<float>({5, 7});
  CHECK(codeOf([&] { model.run<float>({colMajor, w, b}); }) == JITRUN_INVALID_ARGUMENT);
  try {
    model.run<float>({a, wrong, b});
  } catch (const jitrun::Error &e) {
    CHECK(std::string(e.what()) == "input 1: expected shape and type 7x3xf32, got 3x7xf32");
  }
}

TEST_CASE("C++ API: a model from a file and from memory agree", "[api]") {
  jitrun::Runtime rt(2);
  std::ifstream file(kZoo + "/mnist.mlirbc", std::ios::binary);
  REQUIRE(file);
  std::stringstream bytes;
  bytes << file.rdbuf();
  std::string data = bytes.str();
  jitrun::Model fromFile = jitrun::Model::load(rt, kZoo + "/mnist.mlirbc");
  jitrun::Model fromMemory = jitrun::Model::loadBuffer(rt, data.data(), data.size(), "mnist");
  Input in = makeInput(fromFile.inputs().at(0), 3);
  auto r1 = fromFile.run<float>({in.ref()});
  auto r2 = fromMemory.run<float>({in.ref()});
  REQUIRE(r1.at(0).size() == 10);
  CHECK(std::memcmp(r1[0].data(), r2[0].data(), 10 * sizeof(float)) == 0);
  jitrun_statistics_t s = fromFile.statistics();
  CHECK(s.transient_bytes < s.intermediate_bytes);
}

// Bytecode is parsed in place: from page-aligned bytes the weights are parsed
// where they lie (BERT's encoder: its matmul weights reach the program as
// they are in the file), and the model must not keep them (without a cache
// folder, whose weight files it would read instead). Zeroed and freed after
// the load, they leave the results as they were.
TEST_CASE("C++ API: a model does not keep the caller's bytes", "[api]") {
  std::ifstream file(kZoo + "/bert_encoder.mlirbc", std::ios::binary);
  REQUIRE(file);
  std::stringstream bytes;
  bytes << file.rdbuf();
  std::string data = bytes.str();
  jitrun::Runtime rt(2);
  jitrun::Model fromFile = jitrun::Model::load(rt, kZoo + "/bert_encoder.mlirbc");
  size_t rounded = (data.size() + 4095) / 4096 * 4096;
  char *aligned = static_cast<char *>(std::aligned_alloc(4096, rounded));
  REQUIRE(aligned);
  std::memcpy(aligned, data.data(), data.size());
  jitrun::Model fromMemory = jitrun::Model::loadBuffer(rt, aligned, data.size(), "bert",
                                                       jitrun::Options().cacheDir(""));
  std::memset(aligned, 0, rounded);
  std::free(aligned);
  Input in = makeInput(fromFile.inputs().at(0), 5);
  auto r1 = fromFile.run<float>({in.ref()});
  auto r2 = fromMemory.run<float>({in.ref()});
  REQUIRE(r1.at(0).size() == r2.at(0).size());
  REQUIRE(r1[0].size() > 1000);
  CHECK(std::memcmp(r1[0].data(), r2[0].data(), r1[0].size() * sizeof(float)) == 0);
  // Bytes at an odd address parse as well (from a page-aligned copy).
  std::vector<char> shifted(data.size() + 4);
  std::memcpy(shifted.data() + 4, data.data(), data.size());
  jitrun::Model fromShifted =
      jitrun::Model::loadBuffer(rt, shifted.data() + 4, data.size(), "bert", jitrun::Options().cacheDir(""));
  auto r3 = fromShifted.run<float>({in.ref()});
  CHECK(std::memcmp(r1[0].data(), r3[0].data(), r1[0].size() * sizeof(float)) == 0);
}

// An ONNX model (Debian's conformance data: Relu on a 3x4x5 input) loads from
// a file and from memory like .mlirbc, keeps its tensor names and computes.
TEST_CASE("C++ API: an ONNX model from a file and from memory", "[api]") {
  const std::string path = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";
  std::ifstream file(path, std::ios::binary);
  REQUIRE(file);
  std::stringstream bytes;
  bytes << file.rdbuf();
  std::string data = bytes.str();
  jitrun::Runtime rt(1);
  jitrun::Model fromFile = jitrun::Model::load(rt, path);
  jitrun::Model fromMemory = jitrun::Model::loadBuffer(rt, data.data(), data.size(), "relu");
  for (jitrun::Model *m : {&fromFile, &fromMemory}) {
    REQUIRE(m->inputs().size() == 1);
    CHECK(m->inputs()[0].name == "x");
    CHECK(m->inputs()[0].shape == std::vector<int64_t>{3, 4, 5});
    CHECK(m->outputs()[0].name == "y");
    xt::xtensor<float, 3> x = xt::zeros<float>({3, 4, 5});
    for (size_t i = 0; i < 60; ++i)
      x.data()[i] = -3.0f + 0.1f * static_cast<float>(i);
    auto y = m->run<float>({jitrun::TensorRef(x)});
    REQUIRE(y.at(0).size() == 60);
    for (size_t i = 0; i < 60; ++i)
      CHECK(y[0].data()[i] == std::max(0.0f, x.data()[i]));
  }
  // An ONNX model in memory that does not parse is an error, not a crash.
  std::string broken = data.substr(0, data.size() / 2);
  try {
    jitrun::Model::loadBuffer(rt, broken.data(), broken.size(), "broken.onnx");
    FAIL("a truncated ONNX model loaded");
  } catch (const jitrun::Error &e) {
    CHECK(std::string(e.what()).find("is not a valid ONNX model") != std::string::npos);
  }
}

TEST_CASE("C++ API: version, compile progress and the profile", "[api]") {
  std::string v = jitrun::version();
  CHECK(v == JITRUN_VERSION);
  jitrun::Runtime rt(2);
  std::vector<std::string> phases;
  size_t lastDone = 0, total = 0;
  bool monotonic = true;
  jitrun::Options options;
  options.progress([&](const std::string &phase, size_t done, size_t all) {
    if (phases.empty() || phases.back() != phase)
      phases.push_back(phase);
    if (phase == "compile") {
      monotonic = monotonic && done >= lastDone && done <= all;
      lastDone = done;
      total = all;
    }
  });
  jitrun::Model m = jitrun::Model::load(rt, kZoo + "/mobilenet_v2.mlirbc", options);
  CHECK(phases == std::vector<std::string>{"read", "fuse", "compile"});
  CHECK(monotonic);
  CHECK(total == static_cast<size_t>(m.statistics().executables));
  CHECK(lastDone == total);

  Input in = makeInput(m.inputs()[0], 7);
  m.setProfiling(true);
  for (int i = 0; i < 3; ++i)
    m.runAlloc({in.ref()});
  std::vector<jitrun::ProfileEntry> profile = m.profile();
  m.setProfiling(false);
  size_t dispatches = 0;
  for (const jitrun::ProfileEntry &e : profile) {
    CHECK(e.seconds >= 0);
    if (e.name.rfind("main_dispatch_", 0) == 0) {
      ++dispatches;
      CHECK(!e.op.empty());
      CHECK(e.bytes > 0);
    }
  }
  CHECK(dispatches == static_cast<size_t>(m.statistics().dispatches));
  CHECK(codeOf([&] {
          jitrun_profile_entry_t e;
          jitrun_profile_t p = nullptr;
          jitrun::detail::check(jitrun_model_profile(m.get(), &p));
          jitrun_status_t s = jitrun_profile_get(p, profile.size(), &e);
          jitrun_profile_free(p);
          jitrun::detail::check(s);
        }) == JITRUN_INVALID_ARGUMENT);
}

// 8 threads x 1000 runs over several zoo models at once on one runtime;
// every result must equal, bit for bit, the serial run of the same input.
TEST_CASE("C++ API: concurrency soak", "[soak]") {
  const int threads = 8, runsPerThread = 1000, inputsPerModel = 4;
  jitrun::Runtime rt(2);
  const char *names[] = {"mnist", "mobilenet_v2", "bert_encoder", "edge_detection",
                         "person_detect_int8", "resnet50"};
  struct Case {
    std::string name;
    std::unique_ptr<jitrun::Model> model;
    std::vector<Input> inputs;                   // one per variant
    std::vector<std::vector<uint8_t>> expected;  // the first result, serial
    jitrun::TensorDesc out;
  };
  std::vector<Case> cases;
  for (const char *name : names) {
    Case c;
    c.name = name;
    c.model = std::make_unique<jitrun::Model>(jitrun::Model::load(rt, kZoo + "/" + name + ".mlirbc"));
    REQUIRE(c.model->inputs().size() == 1);
    c.out = c.model->outputs().at(0);
    for (int v = 0; v < inputsPerModel; ++v) {
      c.inputs.push_back(makeInput(c.model->inputs()[0], 100 * v + static_cast<uint32_t>(cases.size())));
      jitrun::Outputs o = c.model->runAlloc({c.inputs.back().ref()});
      jitrun_tensor_t t = o.raw(0);
      const uint8_t *p = static_cast<const uint8_t *>(t.data);
      c.expected.emplace_back(p, p + t.byte_size);
    }
    cases.push_back(std::move(c));
  }

  std::atomic<int> mismatches{0}, errors{0}, runs{0};
  std::vector<std::string> firstProblem(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // Odd threads run in a session of their own per model, even ones
      // through the model's shared free list of run contexts.
      std::vector<std::unique_ptr<jitrun::Session>> sessions;
      if (t % 2)
        for (Case &c : cases)
          sessions.push_back(std::make_unique<jitrun::Session>(*c.model));
      std::vector<uint8_t> result;
      for (int r = 0; r < runsPerThread; ++r) {
        size_t ci = static_cast<size_t>(t + r) % cases.size();
        Case &c = cases[ci];
        int v = (r / static_cast<int>(cases.size()) + t) % inputsPerModel;
        result.assign(c.out.byteSize, 0xAB);
        std::vector<jitrun::TensorRef> outs{
            jitrun::TensorRef(c.out.type, c.out.shape, result.data())};
        // Models with more than one result get them runtime-owned.
        try {
          if (c.model->outputs().size() == 1) {
            if (t % 2)
              sessions[ci]->runInto({c.inputs[v].ref()}, outs);
            else
              c.model->runInto({c.inputs[v].ref()}, outs);
          } else {
            jitrun::Outputs o = c.model->runAlloc({c.inputs[v].ref()});
            jitrun_tensor_t raw = o.raw(0);
            std::memcpy(result.data(), raw.data, raw.byte_size);
          }
        } catch (const jitrun::Error &e) {
          if (errors++ == 0)
            firstProblem[t] = c.name + ": " + e.what();
          continue;
        }
        ++runs;
        if (result != c.expected[v] && mismatches++ == 0)
          firstProblem[t] = c.name + " variant " + std::to_string(v) + " differs from serial";
      }
    });
  }
  for (std::thread &th : pool)
    th.join();
  for (const std::string &p : firstProblem)
    if (!p.empty())
      UNSCOPED_INFO(p);
  CHECK(errors == 0);
  CHECK(mismatches == 0);
  CHECK(runs == threads * runsPerThread);
  // The numbers the issue note reports.
  std::printf("soak: %d threads x %d runs over %zu models: %d runs, %d mismatches, %d errors\n",
              threads, runsPerThread, cases.size(), runs.load(), mismatches.load(),
              errors.load());
}

// Hostile but ordinary use (issue 22): every case is a status or a correct
// result, never a signal, an abort or heap corruption.
TEST_CASE("C++ API: hostile inputs and release orders", "[api]") {
  SECTION("a model keeps its runtime's workers alive") {
    std::optional<jitrun::Model> model;
    {
      jitrun::Runtime rt(2);
      model.emplace(loadText(rt, kMatmulBias));
    } // the runtime handle is released first
    xt::xarray<float> a = xt::ones<float>({5, 7}), w = xt::ones<float>({7, 3});
    xt::xarray<float> b = xt::ones<float>({3});
    auto r = model->run<float>({a, w, b});
    CHECK(r.at(0)(0, 0) == 8.0f);
  }
  SECTION("a session keeps its model alive (C API)") {
    jitrun_runtime_t rt = nullptr;
    REQUIRE(jitrun_runtime_create(1, &rt) == nullptr);
    jitrun_model_t m = nullptr;
    REQUIRE(jitrun_model_load_buffer(rt, kMatmulBias, std::strlen(kMatmulBias), "t", nullptr,
                                     &m) == nullptr);
    jitrun_session_t s = nullptr;
    REQUIRE(jitrun_session_create(m, &s) == nullptr);
    jitrun_runtime_release(rt);
    jitrun_model_release(m);
    std::vector<float> a(35, 1.0f), w(21, 2.0f), b(3, 0.5f), out(15, 0.0f);
    int64_t sa[] = {5, 7}, sw[] = {7, 3}, sb[] = {3}, so[] = {5, 3};
    jitrun_tensor_t in[] = {{JITRUN_F32, 2, sa, a.data(), a.size() * 4},
                            {JITRUN_F32, 2, sw, w.data(), w.size() * 4},
                            {JITRUN_F32, 1, sb, b.data(), b.size() * 4}};
    jitrun_tensor_t o[] = {{JITRUN_F32, 2, so, out.data(), out.size() * 4}};
    jitrun_status_t st = jitrun_session_run(s, in, 3, o, 1);
    CHECK(st == nullptr);
    jitrun_status_free(st);
    CHECK(out[14] == 14.5f);
    jitrun_session_release(s);
  }
  SECTION("too many threads") {
    jitrun_runtime_t rt = nullptr;
    jitrun_status_t st = jitrun_runtime_create(100000, &rt);
    CHECK(jitrun_status_code(st) == JITRUN_INVALID_ARGUMENT);
    CHECK(std::string(jitrun_status_message(st)).find("100000 threads") != std::string::npos);
    CHECK(rt == nullptr);
    jitrun_status_free(st);
  }
  jitrun::Runtime rt(2);
  SECTION("integer division by zero and MIN / -1") {
    const char *div = R"(
#map = affine_map<(i) -> (i)>
func.func @main(%a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16xi32> {
  %e = tensor.empty() : tensor<16xi32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xi32>, tensor<16xi32>) outs(%e : tensor<16xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %q = arith.divsi %x, %y : i32
    linalg.yield %q : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
})";
    jitrun::Model model = loadText(rt, div);
    xt::xarray<int32_t> a = xt::xarray<int32_t>::from_shape({16});
    xt::xarray<int32_t> b = xt::xarray<int32_t>::from_shape({16});
    for (int i = 0; i < 16; ++i) {
      a(i) = i < 8 ? 7 : INT32_MIN;
      b(i) = i < 8 ? 0 : -1;
    }
    auto r = model.run<int32_t>({a, b});
    CHECK(r.at(0)(0) == 0);
    CHECK(r.at(0)(15) == INT32_MIN);
  }
  SECTION("a gather by an out-of-range index fails the run") {
    const char *gather = R"(
#map = affine_map<(i) -> (i)>
func.func @main(%t: tensor<8xf32>, %idx: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%idx : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %j = arith.index_cast %i : i32 to index
    %v = tensor.extract %t[%j] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
})";
    jitrun::Model model = loadText(rt, gather);
    xt::xarray<float> table = xt::arange<float>(8);
    xt::xarray<int32_t> good = {3, 1, 7, 0}, bad = {3, 1, 8, 0};
    auto r = model.run<float>({table, good});
    CHECK(r.at(0)(0) == 3.0f);
    CHECK(r.at(0)(2) == 7.0f);
    CHECK(codeOf([&] { model.run<float>({table, bad}); }) == JITRUN_RUNTIME_ERROR);
    std::string message;
    try {
      model.run<float>({table, bad});
    } catch (const jitrun::Error &e) {
      message = e.what();
    }
    INFO(message);
    CHECK(message.find(":9:10: error: index out of range") != std::string::npos);
    // The model still runs after the failed run.
    CHECK(model.run<float>({table, good}).at(0)(1) == 1.0f);
  }
  SECTION("deep nesting through load_buffer") {
    std::string text = "func.func @main() -> tensor<1xf32> {\n %c = arith.constant dense<" +
                       std::string(20000, '[') + "1.0" + std::string(20000, ']') +
                       "> : tensor<1xf32>\n return %c : tensor<1xf32>\n}\n";
    CHECK(codeOf([&] { jitrun::Model::loadBuffer(rt, text.data(), text.size(), "deep"); }) ==
          JITRUN_INVALID_ARGUMENT);
  }
  SECTION("a constant larger than the host") {
    const char *huge = R"(
func.func @main() -> tensor<100000x100000xf32> {
  %c = arith.constant dense<1.0> : tensor<100000x100000xf32>
  return %c : tensor<100000x100000xf32>
})";
    CHECK(codeOf([&] { loadText(rt, huge); }) == JITRUN_RESOURCE_EXHAUSTED);
  }
  SECTION("a device as the model") {
    CHECK(codeOf([&] { jitrun::Model::load(rt, "/dev/zero"); }) == JITRUN_INVALID_ARGUMENT);
  }
}
