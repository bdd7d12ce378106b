//===- Int8Test.cpp - i8 x i8 -> i32 matmul and convolution vs oneDNN s8 -===//
//
// linalg.matmul and linalg.conv_2d_nhwc_hwcf on i8 operands accumulating in
// i32, checked exactly against oneDNN's s8 x s8 -> s32 primitives, with
// values over the whole i8 range (-128 included: the VNNI path shifts one
// operand by 128 and must undo it exactly). With 64 output columns or more,
// the right operand is the shifted one, undone with the row sums of the
// left one: a matmul's, over k split into lanes of 16 or not (k = 100), a
// 1x1 convolution's taken as a contraction, a wider convolution's as box
// sums of its input's channel sums over each window, strided or not.
// Otherwise (and for a strided 1x1 or channels not in lanes of 16) the left
// operand is, undone with the filter's sums.
// On a host with AVX-512 VNNI
// the shapes whose reduction is a multiple of four must compile to vpdpbusd
// kernels (statistics vnni_kernels); on a host with AMX, a matmul of many
// rows with K in steps of 64 runs in tiles (tdpbssd, amx_kernels) instead,
// unless --amx=false; with --force-avx2 none may; every path must give the
// same exact result.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "contract/Target.h"
#include "testing/OneDnn.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace jitrun;
using namespace jitrun::e2e;
namespace onednn = jitrun::testing::onednn;

namespace {

std::string i8Type(const std::vector<int64_t> &s) { return "tensor<" + shapeString(s) + "xi8>"; }
std::string i32Type(const std::vector<int64_t> &s) { return "tensor<" + shapeString(s) + "xi32>"; }

/// The "vnni_kernels" count of the statistics JSON, or -1.
int64_t vnniKernels(const std::string &stats) {
  return statisticsField(stats, "vnni_kernels").value_or(-1);
}

bool hostHasVnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
}

/// Runs `module` on the inputs three times (native ISA, --amx=false,
/// --force-avx2), checks each exactly against `expected` and the kernel
/// counts: in AMX tiles (tdpbssd) natively on an AMX host when
/// `amxEligible`, else VNNI dot products when `vnniEligible` on a VNNI host.
void runAllPaths(const std::string &what, const std::string &module,
                 std::vector<const HostTensor *> inputs, const HostTensor &expected,
                 bool vnniEligible, bool amxEligible, int threads) {
  for (const char *flag : {"", "--amx=false", "--force-avx2"}) {
    bool avx2 = std::string(flag) == "--force-avx2";
    std::string name = what + " " + flag + " threads=" + std::to_string(threads);
    INFO(name);
    TempDir dir(name);
    JitrunRun run = makeRun(name, module, inputs, expected, threads, avx2);
    if (*flag && !avx2)
      run.extraFlags.push_back(flag);
    std::string stats;
    run.statistics = &stats;
    HostTensor actual = runJitrun(run, dir);
    checkClose(actual, expected, 0, 0, name, dir);
    bool tiles = !*flag && amxEligible && amxTileStateGranted();
    CHECK(statisticsField(stats, "amx_kernels").value_or(-1) == (tiles ? 1 : 0));
    if (avx2 || !hostHasVnni() || tiles)
      CHECK(vnniKernels(stats) == 0);
    else if (vnniEligible)
      CHECK(vnniKernels(stats) == 1);
  }
}

void checkMatmul(int64_t m, int64_t n, int64_t k, int threads) {
  std::string what = "int8 matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  uint64_t seed = hashString(what);
  HostTensor a = randomInt8Tensor({m, k}, seed), b = randomInt8Tensor({k, n}, seed + 1);
  std::string at = i8Type({m, k}), bt = i8Type({k, n}), ct = i32Type({m, n});
  std::ostringstream os;
  os << "func.func @main(%a: " << at << ", %b: " << bt << ") -> " << ct << " {\n"
     << "  %zero = arith.constant 0 : i32\n"
     << "  %empty = tensor.empty() : " << ct << "\n"
     << "  %init = linalg.fill ins(%zero : i32) outs(%empty : " << ct << ") -> " << ct << "\n"
     << "  %r = linalg.matmul ins(%a, %b : " << at << ", " << bt << ") outs(%init : " << ct
     << ") -> " << ct << "\n"
     << "  return %r : " << ct << "\n}\n";
  HostTensor expected = onednn::matmulS8(a, b);
  // VNNI needs k in fours and n in whole 16-lane registers; AMX tiles many
  // rows, K in two or more steps of 64 and panels of whole 16-column tiles.
  bool eligible = k % 4 == 0 && n >= 16;
  bool amx = m > 8 && k % 64 == 0 && k >= 128 && n % 16 == 0;
  runAllPaths(what, os.str(), {&a, &b}, expected, eligible, amx, threads);
}

/// A convolution of `x` by `filter`, a function argument or (`constant`)
/// an arith.constant, as a quantized model's filters are.
void checkConv(int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw,
               int64_t stride, int threads, bool constant = false) {
  std::string what = "int8 conv nhwc 1x" + std::to_string(h) + "x" + std::to_string(w) + "x" +
                     std::to_string(c) + " " + std::to_string(kh) + "x" + std::to_string(kw) +
                     "x" + std::to_string(f) + " stride " + std::to_string(stride) +
                     (constant ? " constant filter" : "");
  uint64_t seed = hashString(what);
  std::vector<int64_t> is = {1, h, w, c}, fs = {kh, kw, c, f};
  onednn::Window2D win;
  win.strideH = win.strideW = stride;
  int64_t oh = (h - kh) / stride + 1, ow = (w - kw) / stride + 1;
  std::vector<int64_t> os_ = {1, oh, ow, f};
  HostTensor x = randomInt8Tensor(is, seed), filter = randomInt8Tensor(fs, seed + 1);
  std::string xt = i8Type(is), ft = i8Type(fs), ot = i32Type(os_);
  std::ostringstream os;
  if (constant)
    os << "func.func @main(%x: " << xt << ") -> " << ot << " {\n"
       << "  %w = arith.constant dense<" << hexLiteral(filter) << "> : " << ft << "\n";
  else
    os << "func.func @main(%x: " << xt << ", %w: " << ft << ") -> " << ot << " {\n";
  os << "  %zero = arith.constant 0 : i32\n"
     << "  %empty = tensor.empty() : " << ot << "\n"
     << "  %init = linalg.fill ins(%zero : i32) outs(%empty : " << ot << ") -> " << ot << "\n"
     << "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<"
     << stride << "> : tensor<2xi64>} ins(%x, %w : " << xt << ", " << ft << ") outs(%init : "
     << ot << ") -> " << ot << "\n"
     << "  return %r : " << ot << "\n}\n";
  HostTensor expected = onednn::conv2dS8(x, filter, win);
  bool eligible = c % 4 == 0 && f % 16 == 0;
  // AMX tiles take a constant KxK filter of channels in steps of 64 and
  // whole panels of 32 output channels, two or more.
  bool amx = constant && kh * kw > 1 && c % 64 == 0 && f % 32 == 0 && f >= 64 && oh * ow > 8;
  std::vector<const HostTensor *> inputs = {&x};
  if (!constant)
    inputs.push_back(&filter);
  runAllPaths(what, os.str(), inputs, expected, eligible, amx, threads);
}

} // namespace

TEST_CASE("int8 matmul 64x64x64", "[int8]") { checkMatmul(64, 64, 64, GENERATE(1, 2)); }

TEST_CASE("int8 matmul 33x48x100 (ragged M, k in fours)", "[int8]") {
  checkMatmul(33, 48, 100, 2);
}

TEST_CASE("int8 matmul 33x64x100 (ragged M, k in fours, not in lanes of 16)", "[int8]") {
  checkMatmul(33, 64, 100, 2);
}

TEST_CASE("int8 matmul 8x32x12 (k = 12: groups of four, not eight)", "[int8]") {
  checkMatmul(8, 32, 12, 1);
}

TEST_CASE("int8 matmul 37x19x23 (primes: no VNNI)", "[int8]") { checkMatmul(37, 19, 23, 2); }

TEST_CASE("int8 matmul 200x96x256", "[int8]") { checkMatmul(200, 96, 256, 2); }

TEST_CASE("int8 conv 3x3 1x10x10x16 -> 32", "[int8]") {
  checkConv(10, 10, 16, 32, 3, 3, 1, GENERATE(1, 2));
}

TEST_CASE("int8 conv 3x3 stride 2 1x17x17x12 -> 16 (channels in fours)", "[int8]") {
  checkConv(17, 17, 12, 16, 3, 3, 2, 2);
}

TEST_CASE("int8 conv 3x3 1x10x10x32 -> 64 (box sums of channel sums)", "[int8]") {
  checkConv(10, 10, 32, 64, 3, 3, 1, GENERATE(1, 2));
}

TEST_CASE("int8 conv 3x3 stride 2 1x17x17x32 -> 64 (box sums over strided windows)", "[int8]") {
  checkConv(17, 17, 32, 64, 3, 3, 2, GENERATE(1, 2));
}

TEST_CASE("int8 conv 5x3 1x13x11x48 -> 80 (a non-square window, odd image)", "[int8]") {
  checkConv(13, 11, 48, 80, 5, 3, 1, 2);
}

TEST_CASE("int8 conv 3x3 1x10x20x128 -> 64, constant filter (AMX: two K steps a tap)",
          "[int8]") {
  checkConv(10, 20, 128, 64, 3, 3, 1, GENERATE(1, 2), /*constant=*/true);
}

TEST_CASE("int8 conv 3x3 stride 2 1x17x17x64 -> 96, constant filter (AMX: three panels)",
          "[int8]") {
  checkConv(17, 17, 64, 96, 3, 3, 2, 2, /*constant=*/true);
}

TEST_CASE("int8 conv 5x3 1x13x11x64 -> 64, constant filter (AMX: rows of 9)", "[int8]") {
  checkConv(13, 11, 64, 64, 5, 3, 1, 2, /*constant=*/true);
}

TEST_CASE("int8 conv 1x1 1x14x14x64 -> 48", "[int8]") { checkConv(14, 14, 64, 48, 1, 1, 1, 2); }

TEST_CASE("int8 conv 1x1 1x14x14x32 -> 64 (as a contraction)", "[int8]") {
  checkConv(14, 14, 32, 64, 1, 1, 1, 2);
}

TEST_CASE("int8 conv 1x1 stride 2 1x15x15x32 -> 64", "[int8]") {
  checkConv(15, 15, 32, 64, 1, 1, 2, 2);
}

TEST_CASE("int8 conv 3x3 1x9x9x3 -> 16 (three channels: no VNNI)", "[int8]") {
  checkConv(9, 9, 3, 16, 3, 3, 1, 1);
}
