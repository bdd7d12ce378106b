//===- PoolingTest.cpp - NHWC max / average pooling vs oneDNN pooling -----===//
//
// Max pooling is linalg.pooling_nhwc_max on an init filled with -inf
// (padding is a tensor.pad with -inf). Average pooling is
// linalg.pooling_nhwc_sum on a zero-padded input followed by a linalg.generic
// dividing by the window size, i.e. oneDNN's "include padding" average.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "testing/OneDnn.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;
using onednn::PoolKind;
using onednn::Window2D;

namespace {

class PoolingTester {
public:
  PoolingTester &kind(PoolKind v) { kind_ = v; return *this; }
  PoolingTester &batch(int64_t v) { n_ = v; return *this; }
  PoolingTester &inputSize(int64_t h, int64_t w) { h_ = h; w_ = w; return *this; }
  PoolingTester &channels(int64_t v) { c_ = v; return *this; }
  PoolingTester &kernel(int64_t v) { k_ = v; return *this; }
  PoolingTester &stride(int64_t v) { win_.strideH = win_.strideW = v; return *this; }
  PoolingTester &padding(int64_t v) {
    win_.padTop = win_.padBottom = win_.padLeft = win_.padRight = v;
    return *this;
  }
  PoolingTester &threads(int v) { threads_ = v; return *this; }
  PoolingTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }

  int64_t oh() const { return (h_ + 2 * win_.padTop - k_) / win_.strideH + 1; }
  int64_t ow() const { return (w_ + 2 * win_.padLeft - k_) / win_.strideW + 1; }
  std::vector<int64_t> inShape() const { return {n_, h_, w_, c_}; }
  std::vector<int64_t> outShape() const { return {n_, oh(), ow(), c_}; }
  bool isMax() const { return kind_ == PoolKind::Max; }

  std::string module() const {
    std::string in = tensorType(inShape()), out = tensorType(outShape());
    std::string win = tensorType({k_, k_});
    std::string p = std::to_string(win_.padTop);
    std::ostringstream os;
    os << "func.func @main(%x: " << in << ") -> " << out << " {\n";
    // -inf is 0xFF800000; max pooling pads and initializes with it.
    os << "  %pv = arith.constant " << (isMax() ? "0xFF800000" : "0.000000e+00")
       << " : f32\n";
    std::string src = "%x", srcType = in;
    if (win_.padTop) {
      std::vector<int64_t> ps = {n_, h_ + 2 * win_.padTop, w_ + 2 * win_.padLeft, c_};
      srcType = tensorType(ps);
      os << "  %padded = tensor.pad %x low[0, " << p << ", " << p
         << ", 0] high[0, " << p << ", " << p << ", 0] {\n"
         << "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
         << "    tensor.yield %pv : f32\n"
         << "  } : " << in << " to " << srcType << "\n";
      src = "%padded";
    }
    std::string attrs = "{dilations = dense<1> : tensor<2xi64>, strides = dense<" +
                        std::to_string(win_.strideH) + "> : tensor<2xi64>}";
    os << "  %window = tensor.empty() : " << win << "\n"
       << "  %empty = tensor.empty() : " << out << "\n"
       << "  %init = linalg.fill ins(%pv : f32) outs(%empty : " << out
       << ") -> " << out << "\n"
       << "  %pool = " << (isMax() ? "linalg.pooling_nhwc_max " : "linalg.pooling_nhwc_sum ")
       << attrs << " ins(" << src << ", %window : " << srcType << ", " << win
       << ") outs(%init : " << out << ") -> " << out << "\n";
    if (isMax()) {
      os << "  return %pool : " << out << "\n";
    } else {
      std::string id = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>";
      os << "  %count = arith.constant " << f32Literal(static_cast<float>(k_ * k_))
         << " : f32\n"
         << "  %empty2 = tensor.empty() : " << out << "\n"
         << "  %avg = linalg.generic {indexing_maps = [" << id << ", " << id
         << "], iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
            "\"parallel\"]} ins(%pool : "
         << out << ") outs(%empty2 : " << out << ") {\n"
         << "  ^bb0(%in: f32, %o: f32):\n"
         << "    %d = arith.divf %in, %count : f32\n"
         << "    linalg.yield %d : f32\n"
         << "  } -> " << out << "\n"
         << "  return %avg : " << out << "\n";
    }
    os << "}\n";
    return os.str();
  }

  std::string name() const {
    std::ostringstream os;
    os << (isMax() ? "maxpool " : "avgpool ") << shapeString(inShape()) << " k"
       << k_ << " s" << win_.strideH << " p" << win_.padTop;
    return os.str();
  }

  void check() const {
    std::string base = name();
    std::string what = base + runSuffix(threads_, fusion_);
    INFO(what);
    HostTensor x = randomTensor(inShape(), hashString(base));
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&x};
    run.resultShape = outShape();
    run.threads = threads_;
    run.fusion = fusion_;
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = onednn::pool2d(x, kind_, k_, k_, win_);
    // Max is exact; the average divides a short sum.
    checkClose(actual, expected, isMax() ? 0.0 : 1e-5, isMax() ? 0.0 : 1e-5,
               what, dir);
  }

private:
  PoolKind kind_ = PoolKind::Max;
  int64_t n_ = 1, h_ = 1, w_ = 1, c_ = 1, k_ = 2;
  Window2D win_;
  int threads_ = 1;
  std::string fusion_;
};

} // namespace

TEST_CASE("max pool 1x16x16x8 2x2 stride 2", "[pooling][maxpool]") {
  PoolingTester().kind(PoolKind::Max).batch(1).inputSize(16, 16).channels(8)
      .kernel(2).stride(2).threads(GENERATE(1, 2)).check();
}

TEST_CASE("max pool 2x13x11x5 3x3 stride 2 pad 1", "[pooling][maxpool]") {
  PoolingTester().kind(PoolKind::Max).batch(2).inputSize(13, 11).channels(5)
      .kernel(3).stride(2).padding(1).threads(2).check();
}

// Inception v3's first pool: 73 output rows, a prime, split into workgroups
// of rows that do not divide it (the last one runs fewer).
TEST_CASE("max pool 1x147x147x64 3x3 stride 2, uneven workgroups of rows", "[pooling][maxpool]") {
  PoolingTester().kind(PoolKind::Max).batch(1).inputSize(147, 147).channels(64)
      .kernel(3).stride(2).threads(2).check();
}

TEST_CASE("avg pool 1x10x14x16 2x2 stride 2", "[pooling][avgpool]") {
  PoolingTester().kind(PoolKind::AvgIncludePadding).batch(1).inputSize(10, 14)
      .channels(16).kernel(2).stride(2).threads(2).check();
}

TEST_CASE("avg pool 1x15x15x3 3x3 stride 2 pad 1 (include padding)", "[pooling][avgpool]") {
  PoolingTester().kind(PoolKind::AvgIncludePadding).batch(1).inputSize(15, 15)
      .channels(3).kernel(3).stride(2).padding(1)
      .threads(GENERATE(1, 2)).check();
}

TEST_CASE("avg pool 2x9x9x7 3x3 stride 2 pad 1 without fusion", "[pooling][avgpool]") {
  PoolingTester().kind(PoolKind::AvgIncludePadding).batch(2).inputSize(9, 9)
      .channels(7).kernel(3).stride(2).padding(1).threads(2).fusion("none")
      .check();
}
