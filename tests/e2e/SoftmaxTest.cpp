//===- SoftmaxTest.cpp - torch-mlir style row softmax vs oneDNN softmax ---===//
//
// The softmax is spelled the way torch-mlir decomposes it into linalg: a max
// reduction over the last dim (linalg.generic with a reduction iterator on a
// -inf init), a broadcast subtract, an exp, a sum reduction and a broadcast
// divide, five generics for fusion and dispatch formation to handle.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "testing/OneDnn.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;

namespace {

class SoftmaxTester {
public:
  SoftmaxTester &rows(int64_t v) { rows_ = v; return *this; }
  SoftmaxTester &cols(int64_t v) { cols_ = v; return *this; }
  SoftmaxTester &threads(int v) { threads_ = v; return *this; }
  SoftmaxTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }

  std::string module() const {
    std::string t = tensorType({rows_, cols_}), r = tensorType({rows_});
    const char *id = "affine_map<(d0, d1) -> (d0, d1)>";
    const char *row = "affine_map<(d0, d1) -> (d0)>";
    const char *red = "[\"parallel\", \"reduction\"]";
    const char *par = "[\"parallel\", \"parallel\"]";
    std::ostringstream os;
    os << "func.func @main(%x: " << t << ") -> " << t << " {\n"
       << "  %ninf = arith.constant 0xFF800000 : f32\n"
       << "  %zero = arith.constant 0.000000e+00 : f32\n"
       // max over the last dim
       << "  %e0 = tensor.empty() : " << r << "\n"
       << "  %minit = linalg.fill ins(%ninf : f32) outs(%e0 : " << r << ") -> " << r << "\n"
       << "  %max = linalg.generic {indexing_maps = [" << id << ", " << row
       << "], iterator_types = " << red << "} ins(%x : " << t << ") outs(%minit : "
       << r << ") {\n"
       << "  ^bb0(%in: f32, %acc: f32):\n"
       << "    %m = arith.maximumf %in, %acc : f32\n"
       << "    linalg.yield %m : f32\n"
       << "  } -> " << r << "\n"
       // x - max
       << "  %e1 = tensor.empty() : " << t << "\n"
       << "  %sub = linalg.generic {indexing_maps = [" << id << ", " << row << ", "
       << id << "], iterator_types = " << par << "} ins(%x, %max : " << t << ", "
       << r << ") outs(%e1 : " << t << ") {\n"
       << "  ^bb0(%in: f32, %mx: f32, %o: f32):\n"
       << "    %s = arith.subf %in, %mx : f32\n"
       << "    linalg.yield %s : f32\n"
       << "  } -> " << t << "\n"
       // exp
       << "  %e2 = tensor.empty() : " << t << "\n"
       << "  %exp = linalg.generic {indexing_maps = [" << id << ", " << id
       << "], iterator_types = " << par << "} ins(%sub : " << t << ") outs(%e2 : "
       << t << ") {\n"
       << "  ^bb0(%in: f32, %o: f32):\n"
       << "    %v = math.exp %in : f32\n"
       << "    linalg.yield %v : f32\n"
       << "  } -> " << t << "\n"
       // sum over the last dim
       << "  %e3 = tensor.empty() : " << r << "\n"
       << "  %sinit = linalg.fill ins(%zero : f32) outs(%e3 : " << r << ") -> " << r << "\n"
       << "  %sum = linalg.generic {indexing_maps = [" << id << ", " << row
       << "], iterator_types = " << red << "} ins(%exp : " << t << ") outs(%sinit : "
       << r << ") {\n"
       << "  ^bb0(%in: f32, %acc: f32):\n"
       << "    %a = arith.addf %in, %acc : f32\n"
       << "    linalg.yield %a : f32\n"
       << "  } -> " << r << "\n"
       // exp / sum
       << "  %e4 = tensor.empty() : " << t << "\n"
       << "  %div = linalg.generic {indexing_maps = [" << id << ", " << row << ", "
       << id << "], iterator_types = " << par << "} ins(%exp, %sum : " << t << ", "
       << r << ") outs(%e4 : " << t << ") {\n"
       << "  ^bb0(%in: f32, %sm: f32, %o: f32):\n"
       << "    %q = arith.divf %in, %sm : f32\n"
       << "    linalg.yield %q : f32\n"
       << "  } -> " << t << "\n"
       << "  return %div : " << t << "\n"
       << "}\n";
    return os.str();
  }

  void check() const {
    std::string base = "softmax " + shapeString({rows_, cols_});
    std::string what = base + runSuffix(threads_, fusion_);
    INFO(what);
    HostTensor x = randomTensor({rows_, cols_}, hashString(base), -4.0f, 4.0f);
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&x};
    run.resultShape = {rows_, cols_};
    run.threads = threads_;
    run.fusion = fusion_;
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = onednn::softmaxLastDim(x);
    // Results are <= 1; the sum of `cols` terms sets the relative error.
    checkClose(actual, expected, 1e-6, 1e-5 + 1e-6 * static_cast<double>(cols_) / 10.0,
               what, dir);
  }

private:
  int64_t rows_ = 1, cols_ = 1;
  int threads_ = 1;
  std::string fusion_;
};

} // namespace

TEST_CASE("softmax 4x1000", "[softmax]") {
  SoftmaxTester().rows(4).cols(1000).threads(GENERATE(1, 2)).check();
}

TEST_CASE("softmax 7x33", "[softmax]") {
  std::string fusion = GENERATE(std::string(), std::string("none"));
  SoftmaxTester().rows(7).cols(33).threads(2).fusion(fusion).check();
}
