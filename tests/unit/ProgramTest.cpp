//===- ProgramTest.cpp - the host program without a compiler -------------===//
//
// The runtime half of a compiled model, built by hand: the buffer planner's
// arena layout, strided copies at constant and register offsets, host
// loops and scalars, bounds errors, and dispatches of real kernels (plain
// functions with the kernel ABI) on a real thread pool, status word
// included.
//
//===----------------------------------------------------------------------===//

#include "runtime/Program.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>

using namespace jitrun;

namespace {

Buffer buffer(BufferKind kind, int64_t index, size_t bytes) {
  Buffer b{kind};
  b.index = index;
  b.bytes = bytes;
  return b;
}

Command copyWhole(int src, int dst) {
  Command c{Command::CopyWhole};
  c.src = src;
  c.dst = dst;
  return c;
}

Command fill(int dst, float value) {
  Command c{Command::Fill};
  c.dst = dst;
  c.pattern.resize(sizeof value);
  std::memcpy(c.pattern.data(), &value, sizeof value);
  return c;
}

/// A float tensor of `shape` holding 0, 1, 2, ...
HostTensor iota(std::vector<int64_t> shape) {
  HostTensor t(ElementType::F32, shape);
  std::iota(t.dataAs<float>(), t.dataAs<float>() + t.numElements(), 0.0f);
  return t;
}

std::vector<float> values(const HostTensor &t) {
  return {t.dataAs<float>(), t.dataAs<float>() + t.numElements()};
}

/// Runs `p` (planned here) on `inputs` into results shaped as its outputSpecs.
llvm::Expected<std::vector<HostTensor>> run(HostProgram &p, std::vector<const HostTensor *> inputs,
                                            ThreadPool &pool) {
  p.plan();
  std::vector<HostTensor> results;
  for (const TensorSpec &s : p.outputSpecs)
    results.emplace_back(s.type, s.shape);
  auto ctx = p.createRunContext();
  if (!ctx)
    return ctx.takeError();
  if (llvm::Error e = p.runInto(inputs, results, pool, **ctx, nullptr))
    return std::move(e);
  return std::move(results);
}

} // namespace

TEST_CASE("buffer planner: buffers whose lives never meet share bytes", "[program]") {
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 400));
  int a = p.addBuffer(buffer(BufferKind::Intermediate, 0, 100));
  int b = p.addBuffer(buffer(BufferKind::Intermediate, 0, 200));
  int c = p.addBuffer(buffer(BufferKind::Intermediate, 0, 100));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 100));
  p.commands = {copyWhole(x, a), copyWhole(a, b), copyWhole(b, c), copyWhole(c, y)};
  p.outputs = {y};
  p.plan();
  // Largest first: b at 0; a lives alongside b (command 1), so after it at
  // the next 64-byte boundary; c lives alongside b but not a: a's bytes.
  CHECK(p.buffers[b].index == 0);
  CHECK(p.buffers[a].index == 256);
  CHECK(p.buffers[c].index == 256);
  CHECK(p.arenaBytes == 384);
  CHECK(p.intermediateBytes == 400);
}

TEST_CASE("buffer planner: a buffer read in a loop lives through the loop", "[program]") {
  HostProgram p;
  int a = p.addBuffer(buffer(BufferKind::Intermediate, 0, 64));
  int b = p.addBuffer(buffer(BufferKind::Intermediate, 0, 64));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 64));
  int lb = p.addRegister(0), ub = p.addRegister(2), step = p.addRegister(1);
  Command loop{Command::For};
  loop.a = lb;
  loop.b = ub;
  loop.c = step;
  loop.reg = p.addRegister();
  // 0: fill a; 1: for { 2: a -> b (a's last use); 3: fill y }; b dies at 2.
  p.commands = {fill(a, 1.0f), loop, copyWhole(a, b), fill(y, 2.0f)};
  p.commands[1].end = 4;
  p.outputs = {y};
  p.plan();
  // Without the loop rule a (last use 2) and b (first use 2) overlap anyway;
  // the rule keeps a alive to 3, the loop's end; they never share bytes.
  CHECK(p.buffers[a].index != p.buffers[b].index);
  CHECK(p.arenaBytes == 128);
}

TEST_CASE("interpreter: whole and strided copies, fills", "[program]") {
  ThreadPool pool(2);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 12 * 4));
  int t = p.addBuffer(buffer(BufferKind::Intermediate, 0, 12 * 4));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 16 * 4));
  p.inputSpecs = {{ElementType::F32, {3, 4}}};
  p.outputSpecs = {{ElementType::F32, {4, 4}}};
  // y = -1 everywhere, then the 2x2 box of x at (1, 1), every second column
  // of it (x[1][1], x[1][3]; x[2][1], x[2][3]), lands at y's (2, 0), (2, 1).
  Command box{Command::Copy};
  box.copy = CopyCommand{t, y, 4, {2, 2}, {3, 4}, {4, 4}, {1, 1}, {2, 0}, {1, 2}, {1, 1}, {}, {}};
  p.commands = {copyWhole(x, t), fill(y, -1.0f), box};
  p.outputs = {y};
  HostTensor in = iota({3, 4});
  auto r = run(p, {&in}, pool);
  REQUIRE(static_cast<bool>(r));
  std::vector<float> want(16, -1.0f);
  want[8] = 5, want[9] = 7, want[12] = 9, want[13] = 11;
  CHECK(values((*r)[0]) == want);
}

TEST_CASE("interpreter: fills of every element width, whole and around a hole", "[program]") {
  // Patterns of 1, 2, 4 and 8 bytes (a uint8 zero point, an i16, an f32, an
  // i64) over odd element counts, on two threads past the parallel split;
  // then the same patterns around a box the next command would write (a
  // pad's border), where the box's bytes stay as they were (zero here).
  ThreadPool pool(2);
  struct Case {
    ElementType type;
    std::vector<uint8_t> pattern;
  };
  std::vector<Case> cases = {{ElementType::I8, {0x85}},
                             {ElementType::I16, {0x34, 0x12}},
                             {ElementType::F32, {0x00, 0x00, 0x80, 0x3f}},
                             {ElementType::I64, {1, 2, 3, 4, 5, 6, 7, 8}}};
  for (const Case &k : cases) {
    size_t eb = k.pattern.size();
    for (bool hole : {false, true}) {
      CAPTURE(eb, hole);
      std::vector<int64_t> shape = hole ? std::vector<int64_t>{3, 37, 41, 5}
                                        : std::vector<int64_t>{300007};
      int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
      HostProgram p;
      int y = p.addBuffer(buffer(BufferKind::Output, 0, n * eb));
      p.outputSpecs = {{k.type, shape}};
      Command c{Command::Fill};
      c.dst = y;
      c.pattern = k.pattern;
      c.shape = shape;
      if (hole) {
        c.holeOffsets = {1, 2, 3, 0};
        c.holeSizes = {1, 30, 35, 5};
      }
      p.commands = {c};
      p.outputs = {y};
      p.plan();
      HostTensor out(k.type, shape);
      std::memset(out.data(), 0, n * eb);
      std::vector<HostTensor> results;
      results.push_back(std::move(out));
      auto ctx = p.createRunContext();
      REQUIRE(static_cast<bool>(ctx));
      llvm::Error e = p.runInto({}, results, pool, **ctx, nullptr);
      std::string error = e ? llvm::toString(std::move(e)) : "";
      REQUIRE(error.empty());
      const uint8_t *bytes = static_cast<const uint8_t *>(results[0].data());
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t w = i / 5 % 41, h = i / 5 / 41 % 37, b = i / 5 / 41 / 37;
        bool inBox = hole && b == 1 && h >= 2 && h < 32 && w >= 3 && w < 38;
        for (size_t j = 0; j < eb; ++j)
          wrong += bytes[i * eb + j] != (inBox ? 0 : k.pattern[j]);
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("interpreter: a host loop copies at register offsets", "[program]") {
  ThreadPool pool(1);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 5 * 4));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 5 * 4));
  p.inputSpecs = {{ElementType::F32, {5}}};
  p.outputSpecs = {{ElementType::F32, {5}}};
  int zero = p.addRegister(0), five = p.addRegister(5), one = p.addRegister(1),
      four = p.addRegister(4), iv = p.addRegister(), mirror = p.addRegister();
  // for iv in [0, 5): mirror = 4 - iv; y[mirror] = x[iv]
  Command loop{Command::For};
  loop.a = zero, loop.b = five, loop.c = one, loop.reg = iv, loop.end = 3;
  Command sub{Command::Scalar};
  sub.scalar = ScalarOp::SubI;
  sub.a = four, sub.b = iv, sub.reg = mirror;
  Command copy{Command::Copy};
  copy.copy = CopyCommand{x, y, 4, {1}, {5}, {5}, {0}, {0}, {1}, {1}, {iv}, {mirror}};
  p.commands = {loop, sub, copy};
  p.outputs = {y};
  HostTensor in = iota({5});
  auto r = run(p, {&in}, pool);
  REQUIRE(static_cast<bool>(r));
  CHECK(values((*r)[0]) == std::vector<float>{4, 3, 2, 1, 0});

  SECTION("an offset past the end is an error, not a write") {
    p.initialInts[five] = 6; // iv reaches 5: x[5] does not exist
    auto bad = run(p, {&in}, pool);
    REQUIRE(!bad);
    std::string message;
    CHECK(takeErrorCode(bad.takeError(), message) == ErrorCode::RuntimeError);
    CHECK(message == "slice offset 5 out of bounds for dimension 0 of size 5");
  }
}

TEST_CASE("interpreter: integer division on the host never traps", "[program]") {
  ThreadPool pool(1);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 4));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 4));
  p.inputSpecs = {{ElementType::F32, {1}}};
  p.outputSpecs = {{ElementType::F32, {1}}};
  int seven = p.addRegister(7), zero = p.addRegister(0), q = p.addRegister();
  int lb = p.addRegister(0), step = p.addRegister(1), iv = p.addRegister();
  Command div{Command::Scalar};
  div.scalar = ScalarOp::DivSI;
  div.width = 32;
  div.a = seven, div.b = zero, div.reg = q;
  // for iv in [0, q): y = x   (q = 7 / 0 = 0: the loop never runs)
  Command loop{Command::For};
  loop.a = lb, loop.b = q, loop.c = step, loop.reg = iv, loop.end = 3;
  p.commands = {div, loop, copyWhole(x, y), fill(y, 3.0f)};
  p.commands[1].end = 3;
  p.outputs = {y};
  HostTensor in = iota({1});
  auto r = run(p, {&in}, pool);
  REQUIRE(static_cast<bool>(r));
  CHECK(values((*r)[0]) == std::vector<float>{3});
}

namespace {
/// Real kernels with the kernel ABI: buffers[0] in, buffers[1] out, then
/// the status word. Each workgroup doubles one element.
int64_t doubleKernel(void **buffers, int64_t wg) {
  const float *in = static_cast<const float *>(buffers[0]);
  float *out = static_cast<float *>(buffers[1]);
  out[wg] = 2 * in[wg];
  return 0;
}
/// Reports bounds-check site 2 from workgroup 3 (and site 1 from 1).
int64_t failingKernel(void **buffers, int64_t wg) {
  doubleKernel(buffers, wg);
  auto *status = static_cast<std::atomic<KernelStatus> *>(buffers[2]);
  if (wg == 3)
    status->fetch_add(2);
  return 0;
}
} // namespace

TEST_CASE("interpreter: dispatches run every workgroup on the pool", "[program]") {
  ThreadPool pool(2);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 64 * 4));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 64 * 4));
  p.inputSpecs = {{ElementType::F32, {64}}};
  p.outputSpecs = {{ElementType::F32, {64}}};
  Command d{Command::Dispatch};
  d.fn = doubleKernel;
  d.kernel = 0;
  d.workgroups = 64;
  d.bindings = {x, y};
  d.name = "double";
  p.commands = {d};
  p.outputs = {y};
  p.kernelChecks = {{}};
  HostTensor in = iota({64});
  auto r = run(p, {&in}, pool);
  REQUIRE(static_cast<bool>(r));
  std::vector<float> want(64);
  for (int i = 0; i < 64; ++i)
    want[i] = 2.0f * i;
  CHECK(values((*r)[0]) == want);

  SECTION("a status word set by a kernel fails the run with its site's message") {
    p.commands[0].fn = failingKernel;
    p.commands[0].workgroups = 8;
    p.kernelChecks = {{"site one", "model.mlir:3:5: error: index out of range"}};
    auto bad = run(p, {&in}, pool);
    REQUIRE(!bad);
    std::string message;
    CHECK(takeErrorCode(bad.takeError(), message) == ErrorCode::RuntimeError);
    CHECK(message == "model.mlir:3:5: error: index out of range");
    // The next run starts with a clear status word.
    p.commands[0].fn = doubleKernel;
    CHECK(static_cast<bool>(run(p, {&in}, pool)));
  }
}

TEST_CASE("interpreter: a binding's offset points the kernel into its box", "[program]") {
  // Two dispatches double halves of the input into the two ends of one
  // 80-float result (a concat whose parts are written in place): bytes
  // 0-127 and 192-319; the fill's 7s stay in between.
  ThreadPool pool(2);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 64 * 4));
  int y = p.addBuffer(buffer(BufferKind::Output, 0, 80 * 4));
  p.inputSpecs = {{ElementType::F32, {64}}};
  p.outputSpecs = {{ElementType::F32, {80}}};
  Command fill{Command::Fill};
  fill.dst = y;
  float seven = 7;
  fill.pattern.resize(4);
  std::memcpy(fill.pattern.data(), &seven, 4);
  fill.shape = {80};
  Command low{Command::Dispatch};
  low.fn = doubleKernel;
  low.kernel = 0;
  low.workgroups = 32;
  low.bindings = {x, y};
  low.name = "low";
  Command high = low;
  high.name = "high";
  high.bindingOffsets = {32 * 4, 48 * 4};
  p.commands = {fill, low, high};
  p.outputs = {y};
  p.kernelChecks = {{}};
  HostTensor in = iota({64});
  auto r = run(p, {&in}, pool);
  REQUIRE(static_cast<bool>(r));
  std::vector<float> want(80, 7.0f);
  for (int i = 0; i < 32; ++i) {
    want[i] = 2.0f * i;
    want[48 + i] = 2.0f * (32 + i);
  }
  CHECK(values((*r)[0]) == want);
}

TEST_CASE("interpreter: inputs are checked against the program", "[program]") {
  ThreadPool pool(1);
  HostProgram p;
  int x = p.addBuffer(buffer(BufferKind::Input, 0, 16));
  p.inputSpecs = {{ElementType::F32, {4}}};
  p.outputs = {};
  (void)x;
  HostTensor wrong = iota({5});
  auto r = run(p, {&wrong}, pool);
  REQUIRE(!r);
  std::string message;
  CHECK(takeErrorCode(r.takeError(), message) == ErrorCode::ShapeMismatch);
  CHECK(message.find("expected shape and type 4xf32") != std::string::npos);
}
