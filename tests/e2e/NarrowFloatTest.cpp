//===- NarrowFloatTest.cpp - bf16 and f16 contractions vs oneDNN ----------===//
//
// Matmuls and convolutions on bf16 and f16 tensors against oneDNN's
// primitives on the same values. jitrun accumulates them in f32 and rounds
// the result once (as oneDNN and PyTorch do), whatever the program's
// accumulator type: a bf16 or f16 result is within one unit in its last
// place of oneDNN's (the f32 sums differ by summation order only); an f32
// result within summation-order rounding. On an AVX512_BF16 host bf16
// register tiles are vdpbf16ps dot products (k or input channels in pairs);
// with --force-avx2 they multiply widened values; f16 operands are widened
// to f32 (F16C). Odd K, columns no register fills and ragged rows take the
// edge paths.
//
// NumPy has no bf16, so jitrun is given the narrow values as f32 (exactly)
// and the module rounds them to the narrow type first (exact), and widens a
// narrow result back to f32 (exact), as a model that stores its weights and
// activations in bf16 or f16 would compute. oneDNN 2.6 has f16 primitives
// only on AVX512-FP16 hosts: elsewhere the expected values are oneDNN's f32
// primitive on the same (exact) values, rounded to f16 once.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "contract/Target.h"
#include "testing/OneDnn.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;

namespace {

const char *typeName(ElementType t) {
  return t == ElementType::BF16 ? "bf16" : t == ElementType::F16 ? "f16" : "f32";
}

std::string typedTensor(const std::vector<int64_t> &s, ElementType t) {
  return "tensor<" + shapeString(s) + "x" + typeName(t) + ">";
}

/// `t` (f32) rounded to `type` (nearest even), or (bf16, f16) widened to f32.
HostTensor converted(const HostTensor &t, ElementType type) {
  HostTensor r(type, t.shape());
  for (int64_t i = 0; i < t.numElements(); ++i) {
    float v = static_cast<float>(t.getAsDouble(i));
    if (type == ElementType::F32)
      r.dataAs<float>()[i] = v;
    else
      r.dataAs<uint16_t>()[i] =
          type == ElementType::BF16 ? floatToBFloat16(v) : floatToHalf(v);
  }
  return r;
}

/// Seeded values in [-1, 1] of `type`: the narrow tensor, and `exact` the
/// same values as f32.
HostTensor randomNarrow(const std::vector<int64_t> &shape, uint64_t seed, ElementType type,
                        HostTensor &exact) {
  HostTensor t = converted(randomTensor(shape, seed), type);
  exact = converted(t, ElementType::F32);
  return t;
}

/// `%name` = `%value` converted elementwise from `from` to `to`.
std::string castValue(const std::string &name, const std::string &value,
                      const std::vector<int64_t> &shape, ElementType from, ElementType to) {
  std::string dims, ids, iters;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += (i ? ", d" : "d") + std::to_string(i);
    iters += i ? ", \"parallel\"" : "\"parallel\"";
  }
  std::string map = "affine_map<(" + dims + ") -> (" + dims + ")>";
  std::string ft = typedTensor(shape, from), tt = typedTensor(shape, to);
  const char *op = to == ElementType::F32 ? "arith.extf" : "arith.truncf";
  return "  %" + name + "e = tensor.empty() : " + tt + "\n  %" + name +
         " = linalg.generic {indexing_maps = [" + map + ", " + map + "], iterator_types = [" +
         iters + "]} ins(%" + value + " : " + ft + ") outs(%" + name + "e : " + tt + ") {\n" +
         "  ^bb0(%x: " + typeName(from) + ", %o: " + typeName(to) + "):\n    %t = " + op +
         " %x : " + typeName(from) + " to " + typeName(to) + "\n    linalg.yield %t : " +
         typeName(to) + "\n  } -> " + tt + "\n";
}

/// A module of one contraction `opText` (its result %r) on a, b of `in`
/// into a zero-filled `acc` of `outShape`, inputs and result as f32.
std::string contractionModule(const std::vector<int64_t> &aShape,
                              const std::vector<int64_t> &bShape,
                              const std::vector<int64_t> &outShape, ElementType in,
                              ElementType acc, const std::string &opText) {
  std::string at = typedTensor(aShape, in), bt = typedTensor(bShape, in),
              ct = typedTensor(outShape, acc), rt = tensorType(outShape);
  std::ostringstream os;
  os << "func.func @main(%af: " << tensorType(aShape) << ", %bf: " << tensorType(bShape)
     << ") -> " << rt << " {\n"
     << castValue("a", "af", aShape, ElementType::F32, in)
     << castValue("b", "bf", bShape, ElementType::F32, in)
     << "  %zero = arith.constant 0.0 : " << typeName(acc) << "\n"
     << "  %empty = tensor.empty() : " << ct << "\n"
     << "  %init = linalg.fill ins(%zero : " << typeName(acc) << ") outs(%empty : " << ct
     << ") -> " << ct << "\n"
     << "  %r = " << opText << " ins(%a, %b : " << at << ", " << bt << ") outs(%init : " << ct
     << ") -> " << ct << "\n";
  if (acc == ElementType::F32)
    os << "  return %r : " << rt << "\n}\n";
  else
    os << castValue("w", "r", outShape, acc, ElementType::F32) << "  return %w : " << rt
       << "\n}\n";
  return os.str();
}

/// oneDNN's result of `typed` (the primitive on narrow values into `out`),
/// widened to f32; where oneDNN has no f16 primitive, `f32` (the f32
/// primitive on the same values) rounded to `out` once.
template <typename Typed, typename F32>
HostTensor expectedResult(ElementType in, ElementType out, Typed typed, F32 f32) {
  if (in != ElementType::F16)
    return converted(typed(), ElementType::F32);
  try {
    return converted(typed(), ElementType::F32);
  } catch (const std::exception &) {
    return converted(converted(f32(), out), ElementType::F32);
  }
}

void runBoth(const std::string &what, const std::string &module, const HostTensor &af,
             const HostTensor &bf, const HostTensor &expected, ElementType acc, int threads) {
  // One unit in the last place of the result's type, and summation order.
  double rtol = acc == ElementType::BF16 ? 1.01 / 128 : acc == ElementType::F16 ? 1.01 / 1024
                                                                                : 1e-4;
  for (bool avx2 : {false, true}) {
    std::string name = what + (avx2 ? " avx2" : "") + " threads=" + std::to_string(threads);
    INFO(name);
    TempDir dir(name);
    HostTensor actual =
        runJitrun(makeRun(name, module, {&af, &bf}, expected, threads, avx2), dir);
    checkClose(actual, expected, 1e-4, rtol, name, dir);
  }
}

void checkMatmul(int64_t m, int64_t n, int64_t k, ElementType in, ElementType acc,
                 int threads) {
  std::string what = std::string(typeName(in)) + " -> " + typeName(acc) + " matmul " +
                     std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  uint64_t seed = hashString(what);
  HostTensor af, bf;
  HostTensor a = randomNarrow({m, k}, seed, in, af), b = randomNarrow({k, n}, seed + 1, in, bf);
  std::string module = contractionModule({m, k}, {k, n}, {m, n}, in, acc, "linalg.matmul");
  HostTensor expected = expectedResult(
      in, acc, [&] { return onednn::matmulTyped(a, b, acc); },
      [&] { return onednn::matmul(af, bf); });
  runBoth(what, module, af, bf, expected, acc, threads);
}

/// `batch` matmuls of [m, k] x [k, n] in one linalg.batch_matmul.
void checkBatchMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, ElementType in,
                      ElementType acc, int threads) {
  std::string what = std::string(typeName(in)) + " -> " + typeName(acc) + " batch_matmul " +
                     std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(n) +
                     "x" + std::to_string(k);
  uint64_t seed = hashString(what);
  HostTensor af, bf;
  HostTensor a = randomNarrow({batch, m, k}, seed, in, af),
             b = randomNarrow({batch, k, n}, seed + 1, in, bf);
  std::string module = contractionModule({batch, m, k}, {batch, k, n}, {batch, m, n}, in, acc,
                                         "linalg.batch_matmul");
  HostTensor expected = expectedResult(
      in, acc, [&] { return onednn::matmulTyped(a, b, acc); },
      [&] { return onednn::matmul(af, bf); });
  runBoth(what, module, af, bf, expected, acc, threads);
}

/// A 3x3 (or kh x kw) NHWC convolution, stride 1, no padding.
void checkConv(int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw,
               ElementType in, ElementType acc, int threads) {
  std::string what = std::string(typeName(in)) + " -> " + typeName(acc) + " conv " +
                     std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c) +
                     "->" + std::to_string(f) + " " + std::to_string(kh) + "x" +
                     std::to_string(kw);
  uint64_t seed = hashString(what);
  HostTensor xf, wf;
  HostTensor x = randomNarrow({1, h, w, c}, seed, in, xf),
             filter = randomNarrow({kh, kw, c, f}, seed + 1, in, wf);
  std::vector<int64_t> out = {1, h - kh + 1, w - kw + 1, f};
  std::string module = contractionModule(
      {1, h, w, c}, {kh, kw, c, f}, out, in, acc,
      "linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : "
      "tensor<2xi64>}");
  onednn::Window2D window;
  HostTensor expected = expectedResult(
      in, acc, [&] { return onednn::conv2dTyped(x, filter, window, acc); },
      [&] { return onednn::conv2d(xf, wf, onednn::ConvLayout::NHWC_HWCF, window); });
  runBoth(what, module, xf, wf, expected, acc, threads);
}

constexpr ElementType BF16Type = ElementType::BF16;

/// Runs `module` with `flags` (an empty one ignored), checks it against
/// `expected` (1e-4) and that it ran in AMX tiles (statistics amx_kernels 1)
/// exactly when `amxEligible`, the host grants the tile state, and no flag
/// (--amx=false, --force-avx2) turns them off.
void checkTiles(const std::string &what, const std::string &module,
                std::vector<const HostTensor *> inputs, const HostTensor &expected, int threads,
                std::vector<std::string> flags, bool amxEligible) {
  std::string name = what;
  bool off = false;
  for (const std::string &f : flags) {
    name += " " + f;
    off |= f == "--amx=false" || f == "--force-avx2";
  }
  name += " threads=" + std::to_string(threads);
  INFO(name);
  TempDir dir(name);
  JitrunRun run = makeRun(name, module, inputs, expected, threads, /*avx2=*/false);
  for (const std::string &f : flags)
    if (!f.empty())
      run.extraFlags.push_back(f);
  std::string stats;
  run.statistics = &stats;
  checkClose(runJitrun(run, dir), expected, 1e-4, 1e-4, name, dir);
  bool tiles = !off && amxEligible && amxTileStateGranted();
  CHECK(statisticsField(stats, "amx_kernels").value_or(-1) == (tiles ? 1 : 0));
}

/// A bf16 matmul whose right operand is a constant of the model (weights):
/// packed at compile time, in AMX tiles on an AMX host (pairs of K
/// interleaved for tdpbf16ps), else in panels for AVX-512 dot products;
/// also with --amx=false and --force-avx2. `amxEligible`: the shape takes
/// the tiles on an AMX host (statistics amx_kernels 1, else 0). With
/// `constantB` false, B is the model's second input instead (packed for the
/// tiles at run time, by a dispatch of its own).
void checkConstantMatmul(int64_t m, int64_t n, int64_t k, int threads, bool amxEligible,
                         bool constantB = true) {
  std::string what = std::string(constantB ? "bf16 weights matmul " : "bf16 matmul of inputs ") +
                     std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  uint64_t seed = hashString(what);
  HostTensor af, bf;
  HostTensor a = randomNarrow({m, k}, seed, BF16Type, af),
             b = randomNarrow({k, n}, seed + 1, BF16Type, bf);
  std::string at = typedTensor({m, k}, BF16Type), bt = typedTensor({k, n}, BF16Type),
              ct = typedTensor({m, n}, ElementType::F32);
  std::ostringstream os;
  os << "func.func @main(%af: " << tensorType({m, k})
     << (constantB ? std::string() : ", %bf: " + tensorType({k, n})) << ") -> " << ct << " {\n"
     << castValue("a", "af", {m, k}, ElementType::F32, BF16Type)
     << (constantB ? "  %b = arith.constant dense<" + hexLiteral(b) + "> : " + bt + "\n"
                   : castValue("b", "bf", {k, n}, ElementType::F32, BF16Type))
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %empty = tensor.empty() : " << ct << "\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << ct << ") -> " << ct << "\n"
     << "  %r = linalg.matmul ins(%a, %b : " << at << ", " << bt << ") outs(%init : " << ct
     << ") -> " << ct << "\n  return %r : " << ct << "\n}\n";
  HostTensor expected = converted(onednn::matmulTyped(a, b, ElementType::F32), ElementType::F32);
  std::vector<const HostTensor *> inputs = {&af};
  if (!constantB)
    inputs.push_back(&bf);
  for (const char *flag : {"", "--amx=false", "--force-avx2"})
    checkTiles(what, os.str(), inputs, expected, threads, {flag}, amxEligible);
}

/// An f32 NHWC convolution of `%x` (1 x h x w x c) with the f32 constant
/// `filter` (kh x kw x c x f) at `stride`, into a zero fill.
std::string constantFilterConv(int64_t h, int64_t w, const HostTensor &filter, int64_t stride) {
  const std::vector<int64_t> &fs = filter.shape();
  std::vector<int64_t> out = {1, (h - fs[0]) / stride + 1, (w - fs[1]) / stride + 1, fs[3]};
  std::string xt = tensorType({1, h, w, fs[2]}), ft = tensorType(fs), ot = tensorType(out);
  std::ostringstream os;
  os << "func.func @main(%x: " << xt << ") -> " << ot << " {\n"
     << "  %w = arith.constant dense<" << hexLiteral(filter) << "> : " << ft << "\n"
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %empty = tensor.empty() : " << ot << "\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << ot << ") -> " << ot << "\n"
     << "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<"
     << stride << "> : tensor<2xi64>} ins(%x, %w : " << xt << ", " << ft << ") outs(%init : "
     << ot << ") -> " << ot << "\n  return %r : " << ot << "\n}\n";
  return os.str();
}

/// --weights=bf16 on an f32 NHWC convolution with a constant filter: its
/// input and filter values are bf16 values, so that rounding them is exact
/// and the result is oneDNN's bf16 convolution (f32 sums) up to the order
/// of the sums. On an AMX host, when `amxEligible`, it runs in tiles
/// (statistics amx_kernels 1, else 0); with --amx=false it stays f32.
void checkBf16WeightsConv(int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw,
                          int64_t stride, int threads, bool amxEligible) {
  std::string what = "bf16 weights conv " + std::to_string(h) + "x" + std::to_string(w) + "x" +
                     std::to_string(c) + "->" + std::to_string(f) + " " + std::to_string(kh) +
                     "x" + std::to_string(kw) + " stride " + std::to_string(stride);
  uint64_t seed = hashString(what);
  HostTensor xf, wf;
  HostTensor x = randomNarrow({1, h, w, c}, seed, BF16Type, xf),
             filter = randomNarrow({kh, kw, c, f}, seed + 1, BF16Type, wf);
  std::string module = constantFilterConv(h, w, wf, stride);
  onednn::Window2D window;
  window.strideH = window.strideW = stride;
  HostTensor expected = onednn::conv2dTyped(x, filter, window, ElementType::F32);
  for (const char *flag : {"", "--amx=false"})
    checkTiles(what, module, {&xf}, expected, threads, {"--weights=bf16", flag}, amxEligible);
}

/// --weights=bf16 on a 1x1 NHWC convolution of f32 values that bf16 does
/// not hold: on a host with AVX512_BF16 (AMX or not) its input and filter
/// are rounded to bf16, so the result is oneDNN's bf16 convolution of the
/// rounded values (f32 sums); elsewhere, and with --force-avx2, it stays
/// the f32 convolution. The two references differ by more than the
/// tolerance, so each run tells which path it took.
void checkBf16WeightsPointwise(int64_t h, int64_t w, int64_t c, int64_t f, int threads) {
  std::string what = "bf16 weights 1x1 conv " + std::to_string(h) + "x" + std::to_string(w) +
                     "x" + std::to_string(c) + "->" + std::to_string(f);
  uint64_t seed = hashString(what);
  HostTensor xf = randomTensor({1, h, w, c}, seed), wf = randomTensor({1, 1, c, f}, seed + 1);
  std::string module = constantFilterConv(h, w, wf, 1);
  onednn::Window2D window;
  HostTensor rounded = onednn::conv2dTyped(converted(xf, BF16Type), converted(wf, BF16Type),
                                           window, ElementType::F32),
             exact = onednn::conv2d(xf, wf, onednn::ConvLayout::NHWC_HWCF, window);
  double apart = 0;
  for (int64_t i = 0; i < exact.numElements(); ++i)
    apart = std::max(apart, std::abs(exact.getAsDouble(i) - rounded.getAsDouble(i)));
  REQUIRE(apart > 1e-2);
  bool bf16 = hostCpu().avx512Bf16();
  for (const char *flag : {"", "--force-avx2"}) {
    std::string name = what + " --weights=bf16 " + flag + " threads=" + std::to_string(threads);
    INFO(name);
    TempDir dir(name);
    bool rounds = bf16 && std::string(flag).empty();
    JitrunRun run = makeRun(name, module, {&xf}, rounds ? rounded : exact, threads,
                            /*avx2=*/!std::string(flag).empty());
    run.extraFlags.push_back("--weights=bf16");
    checkClose(runJitrun(run, dir), rounds ? rounded : exact, 1e-4, 1e-4, name, dir);
  }
}

constexpr ElementType BF16 = ElementType::BF16, F16 = ElementType::F16, F32 = ElementType::F32;

} // namespace

TEST_CASE("bf16 matmul 64x128x96", "[bf16]") {
  checkMatmul(64, 128, 96, BF16, F32, GENERATE(1, 2));
}

TEST_CASE("bf16 matmul 384x768x768", "[bf16]") { checkMatmul(384, 768, 768, BF16, F32, 2); }

TEST_CASE("bf16 matmul 33x40x63 (ragged rows, columns not in 16s, odd k)", "[bf16]") {
  checkMatmul(33, 40, 63, BF16, F32, 2);
}

TEST_CASE("bf16 matmul 7x1000x256 (few rows, a classifier)", "[bf16]") {
  checkMatmul(7, 1000, 256, BF16, F32, 2);
}

TEST_CASE("bf16 matmul into bf16 (an all-bf16 model)", "[bf16]") {
  checkMatmul(64, 128, 96, BF16, BF16, 1);
  checkMatmul(33, 40, 63, BF16, BF16, 2);
}

// Weights in the model: the shapes of BERT's projections (two tiles of 16
// rows by two of 16 columns, K in steps of 32), ViT's 197 tokens (an edge
// tile of 5 rows), a ragged one: 33 rows (an edge of one row), 48 columns
// (panels of 16: one tile of columns); and K = 70, not a whole number of
// AMX steps (dot products on every host).
TEST_CASE("bf16 weights matmul 128x768x768", "[bf16]") {
  checkConstantMatmul(128, 768, 768, 2, true);
}

TEST_CASE("bf16 weights matmul 197x256x512, a ragged 33x48x96, and 33x48x70", "[bf16]") {
  checkConstantMatmul(197, 256, 512, 1, true);
  checkConstantMatmul(33, 48, 96, 2, true);
  checkConstantMatmul(33, 48, 70, 2, false);
}

// B an input (a bf16 model's activations): on an AMX host, packed at run
// time for the tiles when the shape takes them (rows past 8, K in two or
// more steps of 32, columns in panels of 16s); else dot products.
TEST_CASE("bf16 matmul of two inputs in AMX tiles: 384x768x768, 64x128x96, 33x48x70", "[bf16]") {
  checkConstantMatmul(384, 768, 768, 2, true, /*constantB=*/false);
  checkConstantMatmul(64, 128, 96, 1, true, /*constantB=*/false);
  checkConstantMatmul(33, 48, 70, 2, false, /*constantB=*/false);
}

// A bf16 transformer's attention: batches of 128 x 64 x 128 (AMX tiles on an
// AMX host, each batch's B packed at run time), and a ragged one.
TEST_CASE("bf16 batch_matmul 12x128x128x64 and 3x33x40x63", "[bf16]") {
  checkBatchMatmul(12, 128, 128, 64, BF16, F32, 2);
  checkBatchMatmul(3, 33, 40, 63, BF16, F32, 1);
}

TEST_CASE("bf16 convolution 3x3", "[bf16]") {
  checkConv(18, 20, 64, 64, 3, 3, BF16, F32, 2);
  checkConv(17, 13, 32, 48, 3, 3, BF16, BF16, 1);
  checkConv(9, 9, 7, 16, 1, 7, BF16, BF16, 2); // odd input channels: one at a time
}

// Input channels in steps of 32 and two or more panels of 32 output
// channels take the tiles; 48 output channels do not (f32 on every host).
TEST_CASE("bf16 weights convolution: 3x3 64->64, stride 2 32->96, 1x1 64->64, 3x3 32->48",
          "[bf16]") {
  checkBf16WeightsConv(18, 20, 64, 64, 3, 3, 1, GENERATE(1, 2), true);
  checkBf16WeightsConv(17, 17, 32, 96, 3, 3, 2, 2, true);
  checkBf16WeightsConv(14, 14, 64, 64, 1, 1, 1, 2, true);
  checkBf16WeightsConv(10, 10, 32, 48, 3, 3, 1, 1, false);
}

// 1x1 convolutions take bf16 wherever AVX512_BF16 dot products run (AMX or
// not); which shapes stay f32: tests/fusion/pack_weights_bf16_convolutions.mlir.
TEST_CASE("bf16 weights 1x1 convolution of f32 values: 14x14 64->128, 7x9 96->64",
          "[bf16]") {
  checkBf16WeightsPointwise(14, 14, 64, 128, GENERATE(1, 2));
  checkBf16WeightsPointwise(7, 9, 96, 64, 2);
}

TEST_CASE("f16 matmul into f16 (an all-f16 model)", "[f16]") {
  checkMatmul(64, 128, 96, F16, F16, GENERATE(1, 2));
  checkMatmul(33, 40, 63, F16, F16, 2);
  checkMatmul(7, 1000, 256, F16, F16, 2);
}

TEST_CASE("f16 matmul into f32", "[f16]") { checkMatmul(64, 128, 96, F16, F32, 2); }

TEST_CASE("f16 convolution", "[f16]") {
  checkConv(18, 20, 64, 64, 3, 3, F16, F16, 2);
  checkConv(9, 9, 7, 16, 1, 7, F16, F16, 1);
}
