//===- MatmulTest.cpp - linalg.matmul / batch_matmul vs oneDNN matmul -----===//
//
// Sizes that are and are not multiples of the vector widths (8/16/32),
// including primes and a degenerate M=1, on one and two threads, with and
// without fusion.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "testing/OneDnn.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;

namespace {

/// C = A*B with linalg.fill(0) into tensor.empty as the accumulator.
class MatmulTester {
public:
  MatmulTester &m(int64_t v) { m_ = v; return *this; }
  MatmulTester &n(int64_t v) { n_ = v; return *this; }
  MatmulTester &k(int64_t v) { k_ = v; return *this; }
  /// Batch size; 0 means a plain linalg.matmul.
  MatmulTester &batch(int64_t v) { batch_ = v; return *this; }
  MatmulTester &threads(int v) { threads_ = v; return *this; }
  MatmulTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }

  std::vector<int64_t> aShape() const {
    return batch_ ? std::vector<int64_t>{batch_, m_, k_}
                  : std::vector<int64_t>{m_, k_};
  }
  std::vector<int64_t> bShape() const {
    return batch_ ? std::vector<int64_t>{batch_, k_, n_}
                  : std::vector<int64_t>{k_, n_};
  }
  std::vector<int64_t> cShape() const {
    return batch_ ? std::vector<int64_t>{batch_, m_, n_}
                  : std::vector<int64_t>{m_, n_};
  }

  std::string module() const {
    std::string a = tensorType(aShape()), b = tensorType(bShape()),
                c = tensorType(cShape());
    std::string op = batch_ ? "linalg.batch_matmul" : "linalg.matmul";
    std::ostringstream os;
    os << "func.func @main(%a: " << a << ", %b: " << b << ") -> " << c
       << " {\n"
       << "  %zero = arith.constant 0.000000e+00 : f32\n"
       << "  %empty = tensor.empty() : " << c << "\n"
       << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << c
       << ") -> " << c << "\n"
       << "  %r = " << op << " ins(%a, %b : " << a << ", " << b
       << ") outs(%init : " << c << ") -> " << c << "\n"
       << "  return %r : " << c << "\n"
       << "}\n";
    return os.str();
  }

  std::string name() const {
    std::string s = batch_ ? "batch_matmul " + std::to_string(batch_) + "x"
                           : "matmul ";
    return s + std::to_string(m_) + "x" + std::to_string(n_) + "x" +
           std::to_string(k_) + runSuffix(threads_, fusion_);
  }

  void check() const {
    std::string what = name();
    INFO(what);
    uint64_t seed = hashString(what.substr(0, what.find(" threads")));
    HostTensor a = randomTensor(aShape(), seed);
    HostTensor b = randomTensor(bShape(), seed + 1);
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&a, &b};
    run.resultShape = cShape();
    run.threads = threads_;
    run.fusion = fusion_;
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = onednn::matmul(a, b);
    double atol = 1e-4 * std::sqrt(static_cast<double>(k_));
    checkClose(actual, expected, atol, 1e-4, what, dir);
  }

private:
  int64_t m_ = 1, n_ = 1, k_ = 1, batch_ = 0;
  int threads_ = 1;
  std::string fusion_;
};

} // namespace

TEST_CASE("matmul 64x64x64", "[matmul]") {
  MatmulTester().m(64).n(64).k(64).threads(GENERATE(1, 2)).check();
}

TEST_CASE("matmul 37x19x23 (primes)", "[matmul]") {
  int threads = GENERATE(1, 2);
  MatmulTester().m(37).n(19).k(23).threads(threads).check();
}

TEST_CASE("matmul 37x19x23 without fusion", "[matmul]") {
  MatmulTester().m(37).n(19).k(23).threads(2).fusion("none").check();
}

TEST_CASE("matmul 1x130x7 (M=1 ragged N and K)", "[matmul]") {
  MatmulTester().m(1).n(130).k(7).threads(GENERATE(1, 2)).check();
}

TEST_CASE("matmul 256x256x256", "[matmul]") {
  MatmulTester().m(256).n(256).k(256).threads(2).check();
}

TEST_CASE("matmul 48x33x100 (mixed multiples)", "[matmul]") {
  MatmulTester().m(48).n(33).k(100).threads(2).check();
}

// B of 1 MiB or more, which is no constant, packed into panels at run time
// (a dispatch of its own) for 64 rows or more: whole panels, and an edge of
// rows (100 = 8 x 12 + 4).
TEST_CASE("matmul 100x512x512 and 64x1024x320 (B packed at run time)", "[matmul]") {
  MatmulTester().m(100).n(512).k(512).threads(GENERATE(1, 2)).check();
  MatmulTester().m(64).n(320).k(1024).threads(2).check();
}

TEST_CASE("batch_matmul 3x17x33x9", "[batch_matmul]") {
  MatmulTester().batch(3).m(17).n(33).k(9).threads(GENERATE(1, 2)).check();
}

TEST_CASE("batch_matmul 2x32x16x64", "[batch_matmul]") {
  MatmulTester().batch(2).m(32).n(16).k(64).threads(2).check();
}

TEST_CASE("batch_matmul 5x7x3x13 without fusion", "[batch_matmul]") {
  MatmulTester().batch(5).m(7).n(3).k(13).threads(1).fusion("none").check();
}
