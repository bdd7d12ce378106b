//===- ElementwiseTest.cpp - linalg.generic element-wise ops vs oneDNN ----===//
//
// Element-wise linalg.generic ops with arith/math bodies (add, mul, a
// broadcast add, relu, clamp, relu6, sigmoid, tanh, exp, and an add followed
// by a relu as two generics so fusion has something to do), compared with
// oneDNN binary and eltwise primitives.
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

enum class EwOp { Add, Mul, AddBroadcast, Relu, Clamp, Relu6, Sigmoid, Tanh, Exp, AddRelu };

const char *opName(EwOp op) {
  switch (op) {
  case EwOp::Add: return "add";
  case EwOp::Mul: return "mul";
  case EwOp::AddBroadcast: return "add_broadcast";
  case EwOp::Relu: return "relu";
  case EwOp::Clamp: return "clamp";
  case EwOp::Relu6: return "relu6";
  case EwOp::Sigmoid: return "sigmoid";
  case EwOp::Tanh: return "tanh";
  case EwOp::Exp: return "exp";
  case EwOp::AddRelu: return "add_relu";
  }
  return "?";
}

std::string identityMap(size_t rank) {
  std::string dims;
  for (size_t i = 0; i < rank; ++i)
    dims += (i ? ", d" : "d") + std::to_string(i);
  return "affine_map<(" + dims + ") -> (" + dims + ")>";
}

std::string lastDimMap(size_t rank) {
  std::string dims;
  for (size_t i = 0; i < rank; ++i)
    dims += (i ? ", d" : "d") + std::to_string(i);
  return "affine_map<(" + dims + ") -> (d" + std::to_string(rank - 1) + ")>";
}

std::string parallelIterators(size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i)
    s += i ? ", \"parallel\"" : "\"parallel\"";
  return s + "]";
}

class ElementwiseTester {
public:
  ElementwiseTester &op(EwOp v) { op_ = v; return *this; }
  ElementwiseTester &shape(std::vector<int64_t> v) { shape_ = std::move(v); return *this; }
  /// Bounds of clamp.
  ElementwiseTester &bounds(float lo, float hi) { lo_ = lo; hi_ = hi; return *this; }
  ElementwiseTester &threads(int v) { threads_ = v; return *this; }
  ElementwiseTester &fusion(std::string v) { fusion_ = std::move(v); return *this; }
  /// Inputs in -v..v instead of the op's default range.
  ElementwiseTester &range(float v) { range_ = v; return *this; }

  bool isBinary() const {
    return op_ == EwOp::Add || op_ == EwOp::Mul || op_ == EwOp::AddBroadcast ||
           op_ == EwOp::AddRelu;
  }
  std::vector<int64_t> secondShape() const {
    if (op_ == EwOp::AddBroadcast)
      return {shape_.back()};
    return shape_;
  }
  /// Input value range: wide enough to reach the interesting parts of each
  /// function (relu6's upper bound, sigmoid's and tanh's saturation).
  float inputRange() const {
    if (range_ > 0)
      return range_;
    switch (op_) {
    case EwOp::Relu6: return 8.0f;
    case EwOp::Sigmoid: return 6.0f;
    case EwOp::Tanh: return 4.0f;
    case EwOp::Exp: return 4.0f;
    default: return 1.0f;
    }
  }
  bool isTranscendental() const {
    return op_ == EwOp::Sigmoid || op_ == EwOp::Tanh || op_ == EwOp::Exp;
  }

  /// The body lines computing %r from %x (and %y).
  std::string body() const {
    switch (op_) {
    case EwOp::Add:
    case EwOp::AddBroadcast:
    case EwOp::AddRelu:
      return "    %r = arith.addf %x, %y : f32\n";
    case EwOp::Mul:
      return "    %r = arith.mulf %x, %y : f32\n";
    case EwOp::Relu:
      return "    %c0 = arith.constant 0.000000e+00 : f32\n"
             "    %r = arith.maximumf %x, %c0 : f32\n";
    case EwOp::Clamp:
    case EwOp::Relu6: {
      float lo = op_ == EwOp::Relu6 ? 0.0f : lo_;
      float hi = op_ == EwOp::Relu6 ? 6.0f : hi_;
      return "    %lo = arith.constant " + f32Literal(lo) + " : f32\n" +
             "    %hi = arith.constant " + f32Literal(hi) + " : f32\n" +
             "    %m = arith.maximumf %x, %lo : f32\n" +
             "    %r = arith.minimumf %m, %hi : f32\n";
    }
    case EwOp::Sigmoid:
      return "    %one = arith.constant 1.000000e+00 : f32\n"
             "    %n = arith.negf %x : f32\n"
             "    %e = math.exp %n : f32\n"
             "    %d = arith.addf %one, %e : f32\n"
             "    %r = arith.divf %one, %d : f32\n";
    case EwOp::Tanh:
      return "    %r = math.tanh %x : f32\n";
    case EwOp::Exp:
      return "    %r = math.exp %x : f32\n";
    }
    return "";
  }

  std::string module() const {
    std::string t = tensorType(shape_);
    size_t rank = shape_.size();
    std::string id = identityMap(rank), it = parallelIterators(rank);
    std::ostringstream os;
    if (isBinary()) {
      std::string t2 = tensorType(secondShape());
      std::string map2 = op_ == EwOp::AddBroadcast ? lastDimMap(rank) : id;
      os << "func.func @main(%a: " << t << ", %b: " << t2 << ") -> " << t << " {\n"
         << "  %empty = tensor.empty() : " << t << "\n"
         << "  %0 = linalg.generic {indexing_maps = [" << id << ", " << map2
         << ", " << id << "], iterator_types = " << it << "} ins(%a, %b : " << t
         << ", " << t2 << ") outs(%empty : " << t << ") {\n"
         << "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
         << body() << "    linalg.yield %r : f32\n"
         << "  } -> " << t << "\n";
      if (op_ == EwOp::AddRelu) {
        os << "  %empty1 = tensor.empty() : " << t << "\n"
           << "  %1 = linalg.generic {indexing_maps = [" << id << ", " << id
           << "], iterator_types = " << it << "} ins(%0 : " << t
           << ") outs(%empty1 : " << t << ") {\n"
           << "  ^bb0(%x: f32, %o: f32):\n"
           << "    %c0 = arith.constant 0.000000e+00 : f32\n"
           << "    %r = arith.maximumf %x, %c0 : f32\n"
           << "    linalg.yield %r : f32\n"
           << "  } -> " << t << "\n"
           << "  return %1 : " << t << "\n";
      } else {
        os << "  return %0 : " << t << "\n";
      }
    } else {
      os << "func.func @main(%a: " << t << ") -> " << t << " {\n"
         << "  %empty = tensor.empty() : " << t << "\n"
         << "  %0 = linalg.generic {indexing_maps = [" << id << ", " << id
         << "], iterator_types = " << it << "} ins(%a : " << t
         << ") outs(%empty : " << t << ") {\n"
         << "  ^bb0(%x: f32, %o: f32):\n"
         << body() << "    linalg.yield %r : f32\n"
         << "  } -> " << t << "\n"
         << "  return %0 : " << t << "\n";
    }
    os << "}\n";
    return os.str();
  }

  HostTensor reference(const HostTensor &a, const HostTensor *b) const {
    switch (op_) {
    case EwOp::Add:
      return onednn::binary(a, *b, onednn::Binary::Add);
    case EwOp::AddRelu:
      return onednn::binary(a, *b, onednn::Binary::Add, /*reluPostOp=*/true);
    case EwOp::Mul:
      return onednn::binary(a, *b, onednn::Binary::Mul);
    case EwOp::AddBroadcast: {
      // oneDNN broadcasts size-1 dims of a same-rank src1: view b as 1x..xC.
      std::vector<int64_t> bs(shape_.size(), 1);
      bs.back() = shape_.back();
      HostTensor bv = HostTensor::view(ElementType::F32, bs,
                                       const_cast<void *>(b->data()));
      return onednn::binary(a, bv, onednn::Binary::Add);
    }
    case EwOp::Relu:
      return onednn::eltwise(a, onednn::Eltwise::Relu);
    case EwOp::Clamp:
      return onednn::eltwise(a, onednn::Eltwise::Clip, lo_, hi_);
    case EwOp::Relu6:
      return onednn::eltwise(a, onednn::Eltwise::Clip, 0.0f, 6.0f);
    case EwOp::Sigmoid:
      return onednn::eltwise(a, onednn::Eltwise::Logistic);
    case EwOp::Tanh:
      return onednn::eltwise(a, onednn::Eltwise::Tanh);
    case EwOp::Exp:
      return onednn::eltwise(a, onednn::Eltwise::Exp);
    }
    FAIL("unknown op");
    return HostTensor();
  }

  void check() const {
    std::string base = std::string(opName(op_)) + " " + shapeString(shape_);
    std::string what = base + runSuffix(threads_, fusion_);
    INFO(what);
    float r = inputRange();
    HostTensor a = randomTensor(shape_, hashString(base), -r, r);
    HostTensor b = randomTensor(secondShape(), hashString(base) + 1, -r, r);
    TempDir dir(what);
    JitrunRun run;
    run.caseName = what;
    run.module = module();
    run.inputs = {&a};
    if (isBinary())
      run.inputs.push_back(&b);
    run.resultShape = shape_;
    run.threads = threads_;
    run.fusion = fusion_;
    HostTensor actual = runJitrun(run, dir);
    HostTensor expected = reference(a, isBinary() ? &b : nullptr);
    // Exact ops should match bit for bit up to rounding; exp/tanh/sigmoid are
    // polynomial approximations on both sides.
    double atol = isTranscendental() ? 1e-6 : 1e-7;
    double rtol = isTranscendental() ? 2e-5 : 1e-6;
    checkClose(actual, expected, atol, rtol, what, dir);
  }

private:
  EwOp op_ = EwOp::Add;
  std::vector<int64_t> shape_ = {1};
  float lo_ = -0.5f, hi_ = 0.5f;
  int threads_ = 1;
  std::string fusion_;
  float range_ = 0;
};

} // namespace

TEST_CASE("elementwise add", "[elementwise][add]") {
  ElementwiseTester().op(EwOp::Add).shape({1, 1000}).threads(1).check();
  ElementwiseTester().op(EwOp::Add).shape({2, 64, 31}).threads(2).fusion("none").check();
}

TEST_CASE("elementwise mul", "[elementwise][mul]") {
  ElementwiseTester().op(EwOp::Mul).shape({3, 5, 7}).threads(2).check();
}

TEST_CASE("elementwise add with a broadcast bias", "[elementwise][add]") {
  ElementwiseTester().op(EwOp::AddBroadcast).shape({2, 64, 31}).threads(2).check();
}

TEST_CASE("elementwise relu", "[elementwise][relu]") {
  ElementwiseTester().op(EwOp::Relu).shape({1, 1000}).threads(2).check();
  ElementwiseTester().op(EwOp::Relu).shape({3, 5, 7}).threads(1).check();
}

TEST_CASE("elementwise clamp to -0.5..0.5", "[elementwise][clamp]") {
  ElementwiseTester().op(EwOp::Clamp).shape({2, 64, 31}).bounds(-0.5f, 0.5f).threads(1).check();
}

TEST_CASE("elementwise relu6", "[elementwise][clamp]") {
  ElementwiseTester().op(EwOp::Relu6).shape({1, 1000}).threads(2).check();
}

TEST_CASE("elementwise sigmoid", "[elementwise][sigmoid]") {
  ElementwiseTester().op(EwOp::Sigmoid).shape({2, 64, 31}).threads(2).check();
}

// Its division is a refined reciprocal estimate of a denominator whose exp
// is capped at e^88 (codegen/LowerVectors.cpp): inputs in -120..120 reach
// both saturations and the cap, where exp(-x) alone would be infinite.
TEST_CASE("elementwise sigmoid over its whole range", "[elementwise][sigmoid]") {
  ElementwiseTester().op(EwOp::Sigmoid).shape({4, 1000}).range(120.0f).threads(1).check();
}

TEST_CASE("elementwise tanh", "[elementwise][tanh]") {
  ElementwiseTester().op(EwOp::Tanh).shape({1, 1000}).threads(1).check();
  ElementwiseTester().op(EwOp::Tanh).shape({3, 5, 7}).threads(2).check();
}

// Its rational approximation divides by a reciprocal estimate
// (codegen/LowerVectors.cpp); -20..20 covers the clamped tails too.
TEST_CASE("elementwise tanh over its whole range", "[elementwise][tanh]") {
  ElementwiseTester().op(EwOp::Tanh).shape({4, 1000}).range(20.0f).threads(1).check();
}

TEST_CASE("elementwise exp", "[elementwise][exp]") {
  ElementwiseTester().op(EwOp::Exp).shape({2, 64, 31}).threads(2).check();
}

TEST_CASE("elementwise add then relu (two generics)", "[elementwise][fusion]") {
  std::string fusion = GENERATE(std::string(), std::string("none"));
  ElementwiseTester().op(EwOp::AddRelu).shape({2, 64, 31}).threads(2).fusion(fusion).check();
}
