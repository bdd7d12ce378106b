//===- ConvTest.cpp - 2-D convolutions vs oneDNN convolution_forward ------===//
//
// linalg.conv_2d_nhwc_hwcf, linalg.conv_2d_nchw_fchw and
// linalg.depthwise_conv_2d_nhwc_hwc with strides, dilations and padding. The
// padding is a tensor.pad of the input with 0.0 before the convolution, as
// torch-mlir emits it.
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
using onednn::ConvLayout;
using onednn::Window2D;

namespace {

std::string i64Pair(int64_t a, int64_t b) {
  return "dense<[" + std::to_string(a) + ", " + std::to_string(b) +
         "]> : tensor<2xi64>";
}

/// `%name = tensor.pad %src` with zeros on H and W of a rank-4 tensor whose
/// spatial dims are at (hDim, hDim+1).
std::string padOp(const std::string &name, const std::string &src,
                  const std::vector<int64_t> &shape, int hDim,
                  const Window2D &w, std::vector<int64_t> &paddedShape) {
  std::vector<int64_t> lo(4, 0), hi(4, 0);
  lo[hDim] = w.padTop;
  hi[hDim] = w.padBottom;
  lo[hDim + 1] = w.padLeft;
  hi[hDim + 1] = w.padRight;
  paddedShape = shape;
  for (int i = 0; i < 4; ++i)
    paddedShape[i] += lo[i] + hi[i];
  auto list = [](const std::vector<int64_t> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
  };
  std::ostringstream os;
  os << "  " << name << " = tensor.pad " << src << " low[" << list(lo)
     << "] high[" << list(hi) << "] {\n"
     << "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
     << "    tensor.yield %zero : f32\n"
     << "  } : " << tensorType(shape) << " to " << tensorType(paddedShape)
     << "\n";
  return os.str();
}

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pl,
                int64_t pr) {
  return (in + pl + pr - d * (k - 1) - 1) / s + 1;
}

/// A direct 2-D convolution in NHWC/HWCF or NCHW/FCHW.
class Conv2DTester {
public:
  Conv2DTester &layout(ConvLayout v) { layout_ = v; return *this; }
  Conv2DTester &batch(int64_t v) { n_ = v; return *this; }
  Conv2DTester &inputSize(int64_t h, int64_t w) { h_ = h; w_ = w; return *this; }
  Conv2DTester &inputChannels(int64_t v) { c_ = v; return *this; }
  Conv2DTester &outputChannels(int64_t v) { f_ = v; return *this; }
  Conv2DTester &kernel(int64_t h, int64_t w) { kh_ = h; kw_ = w; return *this; }
  Conv2DTester &stride(int64_t v) { win_.strideH = win_.strideW = v; return *this; }
  Conv2DTester &dilation(int64_t v) { win_.dilationH = win_.dilationW = v; return *this; }
  Conv2DTester &padding(int64_t v) { return padding(v, v, v, v); }
  Conv2DTester &padding(int64_t top, int64_t bottom, int64_t left, int64_t right) {
    win_.padTop = top; win_.padBottom = bottom;
    win_.padLeft = left; win_.padRight = right;
    return *this;
  }
  Conv2DTester &threads(int v) { threads_ = v; return *this; }
  Conv2DTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }
  Conv2DTester &avx2(bool v) { avx2_ = v; return *this; }

  bool nhwc() const { return layout_ == ConvLayout::NHWC_HWCF; }
  int64_t oh() const { return outSize(h_, kh_, win_.strideH, win_.dilationH, win_.padTop, win_.padBottom); }
  int64_t ow() const { return outSize(w_, kw_, win_.strideW, win_.dilationW, win_.padLeft, win_.padRight); }
  std::vector<int64_t> inShape() const {
    return nhwc() ? std::vector<int64_t>{n_, h_, w_, c_} : std::vector<int64_t>{n_, c_, h_, w_};
  }
  std::vector<int64_t> filterShape() const {
    return nhwc() ? std::vector<int64_t>{kh_, kw_, c_, f_} : std::vector<int64_t>{f_, c_, kh_, kw_};
  }
  std::vector<int64_t> outShape() const {
    return nhwc() ? std::vector<int64_t>{n_, oh(), ow(), f_} : std::vector<int64_t>{n_, f_, oh(), ow()};
  }
  bool padded() const {
    return win_.padTop || win_.padBottom || win_.padLeft || win_.padRight;
  }

  std::string module() const {
    std::string in = tensorType(inShape()), flt = tensorType(filterShape()),
                out = tensorType(outShape());
    std::ostringstream os;
    os << "func.func @main(%x: " << in << ", %w: " << flt << ") -> " << out
       << " {\n"
       << "  %zero = arith.constant 0.000000e+00 : f32\n";
    std::string src = "%x", srcType = in;
    if (padded()) {
      std::vector<int64_t> ps;
      os << padOp("%padded", "%x", inShape(), nhwc() ? 1 : 2, win_, ps);
      src = "%padded";
      srcType = tensorType(ps);
    }
    os << "  %empty = tensor.empty() : " << out << "\n"
       << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << out
       << ") -> " << out << "\n"
       << "  %r = " << (nhwc() ? "linalg.conv_2d_nhwc_hwcf" : "linalg.conv_2d_nchw_fchw")
       << " {dilations = " << i64Pair(win_.dilationH, win_.dilationW)
       << ", strides = " << i64Pair(win_.strideH, win_.strideW) << "} ins("
       << src << ", %w : " << srcType << ", " << flt << ") outs(%init : "
       << out << ") -> " << out << "\n"
       << "  return %r : " << out << "\n"
       << "}\n";
    return os.str();
  }

  std::string name() const {
    std::ostringstream os;
    os << (nhwc() ? "conv_nhwc " : "conv_nchw ") << shapeString(inShape())
       << " f" << f_ << " k" << kh_ << "x" << kw_ << " s" << win_.strideH
       << " d" << win_.dilationH << " p" << win_.padTop << win_.padBottom
       << win_.padLeft << win_.padRight;
    return os.str();
  }

  void check() const {
    std::string base = name();
    std::string what = base + runSuffix(threads_, fusion_) + (avx2_ ? " avx2" : "");
    INFO(what);
    HostTensor x = randomTensor(inShape(), hashString(base));
    HostTensor w = randomTensor(filterShape(), hashString(base) + 1);
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&x, &w};
    run.resultShape = outShape();
    run.threads = threads_;
    run.fusion = fusion_;
    if (avx2_)
      run.extraFlags.push_back("--force-avx2");
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = onednn::conv2d(x, w, layout_, win_);
    double atol = 1e-4 * std::sqrt(static_cast<double>(c_ * kh_ * kw_));
    checkClose(actual, expected, atol, 1e-4, what, dir);
  }

private:
  ConvLayout layout_ = ConvLayout::NHWC_HWCF;
  int64_t n_ = 1, h_ = 1, w_ = 1, c_ = 1, f_ = 1, kh_ = 1, kw_ = 1;
  Window2D win_;
  int threads_ = 1;
  std::string fusion_;
  bool avx2_ = false;
};

/// linalg.depthwise_conv_2d_nhwc_hwc (channel multiplier 1).
class DepthwiseConvTester {
public:
  DepthwiseConvTester &batch(int64_t v) { n_ = v; return *this; }
  DepthwiseConvTester &inputSize(int64_t h, int64_t w) { h_ = h; w_ = w; return *this; }
  DepthwiseConvTester &channels(int64_t v) { c_ = v; return *this; }
  DepthwiseConvTester &kernel(int64_t h, int64_t w) { kh_ = h; kw_ = w; return *this; }
  DepthwiseConvTester &stride(int64_t v) { win_.strideH = win_.strideW = v; return *this; }
  DepthwiseConvTester &padding(int64_t v) {
    win_.padTop = win_.padBottom = win_.padLeft = win_.padRight = v;
    return *this;
  }
  DepthwiseConvTester &nchw(bool v) { nchw_ = v; return *this; }
  DepthwiseConvTester &threads(int v) { threads_ = v; return *this; }
  DepthwiseConvTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }
  DepthwiseConvTester &avx2(bool v) { avx2_ = v; return *this; }

  int64_t oh() const { return outSize(h_, kh_, win_.strideH, 1, win_.padTop, win_.padBottom); }
  int64_t ow() const { return outSize(w_, kw_, win_.strideW, 1, win_.padLeft, win_.padRight); }
  std::vector<int64_t> inShape() const {
    return nchw_ ? std::vector<int64_t>{n_, c_, h_, w_}
                 : std::vector<int64_t>{n_, h_, w_, c_};
  }
  std::vector<int64_t> filterShape() const {
    return nchw_ ? std::vector<int64_t>{c_, kh_, kw_}
                 : std::vector<int64_t>{kh_, kw_, c_};
  }
  std::vector<int64_t> outShape() const {
    return nchw_ ? std::vector<int64_t>{n_, c_, oh(), ow()}
                 : std::vector<int64_t>{n_, oh(), ow(), c_};
  }

  std::string module() const {
    std::string in = tensorType(inShape()), flt = tensorType(filterShape()),
                out = tensorType(outShape());
    std::ostringstream os;
    os << "func.func @main(%x: " << in << ", %w: " << flt << ") -> " << out
       << " {\n"
       << "  %zero = arith.constant 0.000000e+00 : f32\n";
    std::string src = "%x", srcType = in;
    if (win_.padTop) {
      std::vector<int64_t> ps;
      os << padOp("%padded", "%x", inShape(), nchw_ ? 2 : 1, win_, ps);
      src = "%padded";
      srcType = tensorType(ps);
    }
    os << "  %empty = tensor.empty() : " << out << "\n"
       << "  %init = linalg.fill ins(%zero : f32) outs(%empty : " << out
       << ") -> " << out << "\n"
       << "  %r = linalg."
       << (nchw_ ? "depthwise_conv_2d_nchw_chw" : "depthwise_conv_2d_nhwc_hwc")
       << " {dilations = "
       << i64Pair(1, 1) << ", strides = " << i64Pair(win_.strideH, win_.strideW)
       << "} ins(" << src << ", %w : " << srcType << ", " << flt
       << ") outs(%init : " << out << ") -> " << out << "\n"
       << "  return %r : " << out << "\n"
       << "}\n";
    return os.str();
  }

  std::string name() const {
    std::ostringstream os;
    os << (nchw_ ? "depthwise_nchw " : "depthwise_nhwc ") << shapeString(inShape()) << " k" << kh_ << "x"
       << kw_ << " s" << win_.strideH << " p" << win_.padTop;
    return os.str();
  }

  void check() const {
    std::string base = name();
    std::string what = base + runSuffix(threads_, fusion_) + (avx2_ ? " avx2" : "");
    INFO(what);
    HostTensor x = randomTensor(inShape(), hashString(base));
    HostTensor w = randomTensor(filterShape(), hashString(base) + 1);
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&x, &w};
    run.resultShape = outShape();
    run.threads = threads_;
    run.fusion = fusion_;
    if (avx2_)
      run.extraFlags.push_back("--force-avx2");
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = onednn::depthwiseConv2d(x, w, win_, nchw_);
    double atol = 1e-4 * std::sqrt(static_cast<double>(kh_ * kw_));
    checkClose(actual, expected, atol, 1e-4, what, dir);
  }

private:
  int64_t n_ = 1, h_ = 1, w_ = 1, c_ = 1, kh_ = 3, kw_ = 3;
  bool nchw_ = false, avx2_ = false;
  Window2D win_;
  int threads_ = 1;
  std::string fusion_;
};

} // namespace

TEST_CASE("conv2d nhwc 1x14x14x8 -> 16 3x3 pad 1", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(14, 14)
      .inputChannels(8).outputChannels(16).kernel(3, 3).padding(1)
      .threads(GENERATE(1, 2)).check();
}

// Inception v3's 1x7 convolutions: 5 workgroups of 32 output channels, then
// 17 rows (a prime) in workgroups of 3 that do not divide it (30 in all).
TEST_CASE("conv2d nhwc 1x17x17x160 -> 160 1x7 pad 3, uneven workgroups of rows",
          "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(17, 17)
      .inputChannels(160).outputChannels(160).kernel(1, 7).padding(0, 0, 3, 3)
      .threads(2).check();
}

// Filters that are inputs and too large to stay in cache: packed into
// panels at run time (jitrun-fusion-pack-weights), KxK and 1x1, strided.
TEST_CASE("conv2d nhwc 1x7x7x512 -> 512 3x3 pad 1, the filter packed at run time",
          "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(7, 7)
      .inputChannels(512).outputChannels(512).kernel(3, 3).padding(1)
      .threads(GENERATE(1, 2)).check();
}

TEST_CASE("conv2d nhwc 1x14x14x256 -> 256 3x3 stride 2 pad 1, the filter packed at run time",
          "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(14, 14)
      .inputChannels(256).outputChannels(256).kernel(3, 3).stride(2).padding(1)
      .threads(2).check();
}

TEST_CASE("conv2d nhwc 1x7x7x512 -> 2048 1x1, the filter packed at run time",
          "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(7, 7)
      .inputChannels(512).outputChannels(2048).kernel(1, 1)
      .threads(GENERATE(1, 2)).check();
}

TEST_CASE("conv2d nhwc 1x13x13x512 -> 1024 1x1 stride 2, the filter packed at run time",
          "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(13, 13)
      .inputChannels(512).outputChannels(1024).kernel(1, 1).stride(2)
      .threads(2).check();
}

TEST_CASE("conv2d nhwc 1x15x13x3 -> 5 3x3 stride 2 pad 1", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(15, 13)
      .inputChannels(3).outputChannels(5).kernel(3, 3).stride(2).padding(1)
      .threads(2).check();
}

TEST_CASE("conv2d nhwc 2x7x7x4 -> 4 1x1", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(2).inputSize(7, 7)
      .inputChannels(4).outputChannels(4).kernel(1, 1)
      .threads(1).fusion("none").check();
}

TEST_CASE("conv2d nhwc 1x11x9x6 -> 7 3x2 dilation 2 asymmetric pad", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(11, 9)
      .inputChannels(6).outputChannels(7).kernel(3, 2).dilation(2)
      .padding(1, 2, 0, 1).threads(2).check();
}

TEST_CASE("conv2d nchw 1x8x14x14 -> 16 3x3 pad 1", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(14, 14)
      .inputChannels(8).outputChannels(16).kernel(3, 3).padding(1)
      .threads(GENERATE(1, 2)).check();
}

TEST_CASE("conv2d nchw 1x3x15x13 -> 5 3x3 stride 2 pad 1", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(15, 13)
      .inputChannels(3).outputChannels(5).kernel(3, 3).stride(2).padding(1)
      .threads(2).fusion(GENERATE(std::string(), std::string("none"))).check();
}

TEST_CASE("conv2d nchw 2x4x7x7 -> 4 1x1", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(2).inputSize(7, 7)
      .inputChannels(4).outputChannels(4).kernel(1, 1).threads(2).check();
}

TEST_CASE("conv2d nchw 1x5x10x12 -> 3 5x5 stride 2 dilation 1 pad 2", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(10, 12)
      .inputChannels(5).outputChannels(3).kernel(5, 5).stride(2).padding(2)
      .threads(1).check();
}

// NCHW convolutions run in NHWC between transposes (ConvNchwToNhwc): odd
// channel counts and image sizes, both ISA paths; a 1x1 convolution of an
// image under 32 pixels (NHWC, not the matmul); a 2x2 image whose 2-pixel
// rows give the register tile more channels (96 of them here, 6 registers
// on AVX-512, 12 on AVX2).
TEST_CASE("conv2d nchw 1x13x11x7 -> 19 3x3 pad 1, both ISAs", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(11, 7)
      .inputChannels(13).outputChannels(19).kernel(3, 3).padding(1)
      .threads(2).avx2(GENERATE(false, true)).check();
}

TEST_CASE("conv2d nchw 1x24x4x4 -> 40 1x1, small image", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(4, 4)
      .inputChannels(24).outputChannels(40).kernel(1, 1)
      .threads(2).avx2(GENERATE(false, true)).check();
}

TEST_CASE("conv2d nchw 1x64x2x2 -> 96 3x3 pad 1, narrow rows", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(2, 2)
      .inputChannels(64).outputChannels(96).kernel(3, 3).padding(1)
      .threads(GENERATE(1, 2)).avx2(GENERATE(false, true)).check();
}

// Taps that read only padding for every output are dropped
// (DropPaddingOnlyTaps): a 3x3 filter over a 1x1 image keeps its centre, a
// 1x3 image keeps the middle row, stride 2 over a 2x2 image drops the first
// row and column of taps, a 5x5 filter with dilation 2 over 2x2 keeps 1x1.
TEST_CASE("conv2d nchw 1x32x1x1 -> 48 3x3 pad 1, padding-only taps", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(1).inputSize(1, 1)
      .inputChannels(32).outputChannels(48).kernel(3, 3).padding(1)
      .threads(2).avx2(GENERATE(false, true)).check();
}

TEST_CASE("conv2d nhwc 1x1x3x24 -> 40 3x3 pad 1, padding-only taps", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(1, 3)
      .inputChannels(24).outputChannels(40).kernel(3, 3).padding(1).threads(2).check();
}

TEST_CASE("conv2d nchw 2x16x2x2 -> 24 3x3 stride 2 pad 1, padding-only taps", "[conv][conv_nchw]") {
  Conv2DTester().layout(ConvLayout::NCHW_FCHW).batch(2).inputSize(2, 2)
      .inputChannels(16).outputChannels(24).kernel(3, 3).stride(2).padding(1)
      .threads(2).check();
}

TEST_CASE("conv2d nhwc 1x2x2x8 -> 16 5x5 dilation 2 pad 4, padding-only taps", "[conv][conv_nhwc]") {
  Conv2DTester().layout(ConvLayout::NHWC_HWCF).batch(1).inputSize(2, 2)
      .inputChannels(8).outputChannels(16).kernel(5, 5).dilation(2).padding(4)
      .threads(1).check();
}

TEST_CASE("depthwise conv nhwc 1x12x12x16 3x3 stride 1 pad 1", "[conv][depthwise]") {
  DepthwiseConvTester().batch(1).inputSize(12, 12).channels(16).kernel(3, 3)
      .stride(1).padding(1).threads(GENERATE(1, 2)).check();
}

TEST_CASE("depthwise conv nhwc 2x13x11x7 3x3 stride 2 pad 1", "[conv][depthwise]") {
  DepthwiseConvTester().batch(2).inputSize(13, 11).channels(7).kernel(3, 3)
      .stride(2).padding(1).threads(2).check();
}

TEST_CASE("depthwise conv nhwc 1x9x9x32 3x3 stride 2 no pad no fusion", "[conv][depthwise]") {
  DepthwiseConvTester().batch(1).inputSize(9, 9).channels(32).kernel(3, 3)
      .stride(2).padding(0).threads(1).fusion("none").check();
}

// Large enough that most tiles lie inside the unpadded input (read in place)
// and the rest touch the border (padded on the stack), on both ISA paths;
// 24 and 20 channels leave partial vectors of channels (NHWC) or rows (NCHW).
TEST_CASE("depthwise conv nhwc 1x40x37x24 5x5 stride 1 pad 2, border tiles", "[conv][depthwise]") {
  DepthwiseConvTester().batch(1).inputSize(40, 37).channels(24).kernel(5, 5)
      .stride(1).padding(2).threads(GENERATE(1, 2)).avx2(GENERATE(false, true)).check();
}

TEST_CASE("depthwise conv nchw 1x20x29x40 3x3 stride 1 pad 1, border tiles", "[conv][depthwise]") {
  DepthwiseConvTester().nchw(true).batch(1).inputSize(29, 40).channels(20).kernel(3, 3)
      .stride(1).padding(1).threads(2).avx2(GENERATE(false, true)).check();
}

TEST_CASE("depthwise conv nchw 1x16x12x12 3x3 stride 1 pad 1", "[conv][depthwise]") {
  DepthwiseConvTester().nchw(true).batch(1).inputSize(12, 12).channels(16)
      .kernel(3, 3).stride(1).padding(1).threads(GENERATE(1, 2)).check();
}

TEST_CASE("depthwise conv nchw 2x7x13x11 3x3 stride 2 pad 1", "[conv][depthwise]") {
  DepthwiseConvTester().nchw(true).batch(2).inputSize(13, 11).channels(7)
      .kernel(3, 3).stride(2).padding(1).threads(2).check();
}

TEST_CASE("depthwise conv nchw 1x32x9x9 5x5 stride 2 no pad no fusion", "[conv][depthwise]") {
  DepthwiseConvTester().nchw(true).batch(1).inputSize(9, 9).channels(32)
      .kernel(5, 5).stride(2).padding(0).threads(1).fusion("none").check();
}
