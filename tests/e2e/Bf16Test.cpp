//===- Bf16Test.cpp - bf16 x bf16 -> f32 matmul vs oneDNN's bf16 primitive -===//
//
// linalg.matmul of bf16 operands accumulating in f32, against oneDNN's
// bf16 x bf16 -> f32 matmul on the same inputs: on an AVX512_BF16 host the
// register tiles are vdpbf16ps dot products (k in pairs, 16 columns a
// register), with --force-avx2 multiplies and adds of widened values;
// both within summation-order rounding of oneDNN. Shapes with an odd K,
// columns that no register fills, and ragged rows take the edge paths.
// NumPy has no bf16, so jitrun is given the bf16 values as f32 (exactly)
// and the module rounds them to bf16 first (exact), as a model whose
// weights are stored in bf16 would.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "testing/OneDnn.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;

namespace {

std::string bf16Type(const std::vector<int64_t> &s) {
  return "tensor<" + shapeString(s) + "xbf16>";
}

/// Seeded values in [-1, 1] rounded to bf16 (nearest even): the bf16
/// tensor, and `exact` the same values as f32.
HostTensor randomBf16Tensor(const std::vector<int64_t> &shape, uint64_t seed,
                            HostTensor &exact) {
  exact = randomTensor(shape, seed);
  HostTensor t(ElementType::BF16, shape);
  float *src = exact.dataAs<float>();
  uint16_t *dst = t.dataAs<uint16_t>();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    uint32_t u;
    std::memcpy(&u, &src[i], 4);
    u += 0x7fff + ((u >> 16) & 1);
    dst[i] = static_cast<uint16_t>(u >> 16);
    u = static_cast<uint32_t>(dst[i]) << 16;
    std::memcpy(&src[i], &u, 4);
  }
  return t;
}

/// `name` = `value` (f32, holding bf16 values) rounded to bf16.
std::string toBf16(const std::string &name, const std::string &value,
                   const std::vector<int64_t> &shape) {
  std::string ft = tensorType(shape), bt = bf16Type(shape);
  return "  %" + name + "e = tensor.empty() : " + bt + "\n  %" + name +
         " = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
         "affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]} "
         "ins(%" + value + " : " + ft + ") outs(%" + name + "e : " + bt + ") {\n"
         "  ^bb0(%x: f32, %o: bf16):\n    %t = arith.truncf %x : f32 to bf16\n"
         "    linalg.yield %t : bf16\n  } -> " + bt + "\n";
}

void checkMatmul(int64_t m, int64_t n, int64_t k, int threads) {
  std::string what = "bf16 matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  uint64_t seed = hashString(what);
  HostTensor af, bf;
  HostTensor a = randomBf16Tensor({m, k}, seed, af), b = randomBf16Tensor({k, n}, seed + 1, bf);
  std::string at = bf16Type({m, k}), bt = bf16Type({k, n}), ct = tensorType({m, n});
  std::ostringstream os;
  os << "func.func @main(%af: " << tensorType({m, k}) << ", %bf: " << tensorType({k, n})
     << ") -> " << ct << " {\n"
     << toBf16("a", "af", {m, k}) << toBf16("b", "bf", {k, n})
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %empty = tensor.empty() : " << ct << "\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << ct << ") -> " << ct << "\n"
     << "  %r = linalg.matmul ins(%a, %b : " << at << ", " << bt << ") outs(%init : " << ct
     << ") -> " << ct << "\n"
     << "  return %r : " << ct << "\n}\n";
  HostTensor expected = onednn::matmulBf16(a, b);
  for (bool avx2 : {false, true}) {
    std::string name = what + (avx2 ? " avx2" : "") + " threads=" + std::to_string(threads);
    INFO(name);
    TempDir dir(name);
    JitrunRun run;
    run.caseName = name;
    run.module = os.str();
    run.inputs = {&af, &bf};
    run.resultShape = expected.shape();
    run.resultType = ElementType::F32;
    run.threads = threads;
    if (avx2)
      run.extraFlags.push_back("--force-avx2");
    HostTensor actual = runJitrun(run, dir);
    checkClose(actual, expected, 1e-4, 1e-4, name, dir);
  }
}

} // namespace

TEST_CASE("bf16 matmul 64x128x96", "[bf16]") { checkMatmul(64, 128, 96, GENERATE(1, 2)); }

TEST_CASE("bf16 matmul 384x768x768", "[bf16]") { checkMatmul(384, 768, 768, 2); }

TEST_CASE("bf16 matmul 33x40x63 (ragged rows, columns not in 16s, odd k)", "[bf16]") {
  checkMatmul(33, 40, 63, 2);
}

TEST_CASE("bf16 matmul 7x1000x256 (few rows, a classifier)", "[bf16]") {
  checkMatmul(7, 1000, 256, 2);
}
