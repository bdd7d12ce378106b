//===- Program.cpp - buffer planning and the host program's interpreter --===//
//
// The runtime half of a compiled model: plans the intermediates into one
// arena and runs the commands (see Program.h). No MLIR.
//
//===----------------------------------------------------------------------===//

#include "runtime/Program.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace jitrun {

int HostProgram::addRegister(int64_t i, double f) {
  initialInts.push_back(i);
  initialFloats.push_back(f);
  return static_cast<int>(initialInts.size() - 1);
}

int HostProgram::addBuffer(Buffer b) {
  buffers.push_back(b);
  return static_cast<int>(buffers.size() - 1);
}

void HostProgram::plan() {
  size_t n = buffers.size();
  std::vector<int64_t> first(n, std::numeric_limits<int64_t>::max()), last(n, -1);
  auto use = [&](int b, int64_t t) {
    if (b < 0)
      return;
    first[b] = std::min(first[b], t);
    last[b] = std::max(last[b], t);
  };
  for (size_t ci = 0; ci < commands.size(); ++ci) {
    const Command &c = commands[ci];
    int64_t t = static_cast<int64_t>(ci);
    switch (c.kind) {
    case Command::Dispatch:
      for (int b : c.bindings)
        use(b, t);
      break;
    case Command::Fill:
      use(c.dst, t);
      break;
    case Command::CopyWhole:
      use(c.src, t);
      use(c.dst, t);
      break;
    case Command::Copy:
      use(c.copy.src, t);
      use(c.copy.dst, t);
      break;
    case Command::Extract:
      use(c.src, t);
      break;
    case Command::Scalar:
    case Command::For:
    case Command::While:
    case Command::If:
      break;
    }
  }
  for (int b : outputs)
    use(b, static_cast<int64_t>(commands.size()));
  // A buffer that a loop uses and that was defined before it lives through
  // the whole loop: later iterations read it again.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t ci = 0; ci < commands.size(); ++ci) {
      const Command &c = commands[ci];
      if (c.kind != Command::For && c.kind != Command::While)
        continue;
      int64_t s = static_cast<int64_t>(ci), e = static_cast<int64_t>(c.end) - 1;
      for (size_t b = 0; b < n; ++b)
        if (first[b] < s && last[b] >= s && last[b] < e) {
          last[b] = e;
          changed = true;
        }
    }
  }
  auto align = [](size_t bytes) { return (bytes + 63) / 64 * 64; };
  std::vector<int> order;
  intermediateBytes = 0;
  for (size_t b = 0; b < n; ++b) {
    if (buffers[b].kind != BufferKind::Intermediate)
      continue;
    intermediateBytes += buffers[b].bytes;
    buffers[b].index = 0;
    if (last[b] >= 0)
      order.push_back(static_cast<int>(b));
  }
  llvm::stable_sort(order, [&](int a, int b) { return buffers[a].bytes > buffers[b].bytes; });
  arenaBytes = 0;
  std::vector<int> placed;
  std::vector<std::pair<size_t, size_t>> taken; // [offset, end) of overlapping lives
  for (int b : order) {
    taken.clear();
    for (int o : placed)
      if (first[o] <= last[b] && first[b] <= last[o])
        taken.push_back({static_cast<size_t>(buffers[o].index),
                         static_cast<size_t>(buffers[o].index) + align(buffers[o].bytes)});
    llvm::sort(taken);
    size_t offset = 0, size = align(buffers[b].bytes);
    for (auto [begin, end] : taken) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    buffers[b].index = static_cast<int64_t>(offset);
    arenaBytes = std::max(arenaBytes, offset + size);
    placed.push_back(b);
  }
}

void HostProgram::stridedCopy(const CopyCommand &c, const uint8_t *src, uint8_t *dst,
                        llvm::ArrayRef<int64_t> sizes,
                        llvm::ArrayRef<int64_t> srcOffsets,
                        llvm::ArrayRef<int64_t> dstOffsets) {
  if (sizes.empty())
    sizes = c.sizes;
  if (srcOffsets.empty())
    srcOffsets = c.srcOffsets;
  if (dstOffsets.empty())
    dstOffsets = c.dstOffsets;
  size_t rank = sizes.size();
  if (rank == 0) {
    std::memcpy(dst, src, c.eltBytes);
    return;
  }
  auto rowMajorStrides = [](const std::vector<int64_t> &shape) {
    llvm::SmallVector<int64_t, 8> s(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      s[i] = s[i + 1] * shape[i + 1];
    return s;
  };
  llvm::SmallVector<int64_t, 8> ss = rowMajorStrides(c.srcShape),
                                ds = rowMajorStrides(c.dstShape);
  llvm::SmallVector<int64_t, 8> idx(rank, 0);
  int64_t total = 1;
  for (int64_t s : sizes)
    total *= s;
  if (total == 0)
    return;
  // One memcpy per contiguous run: trailing dimensions that both sides
  // hold whole (NHWC padding copies whole rows of W*C, not C at a time).
  int64_t inner = 1;
  size_t innerDims = 0;
  for (int d = static_cast<int>(rank) - 1;
       d >= 0 && c.srcStrides[d] == 1 && c.dstStrides[d] == 1; --d) {
    inner *= sizes[d];
    ++innerDims;
    if (sizes[d] != c.srcShape[d] || sizes[d] != c.dstShape[d])
      break;
  }
  while (true) {
    int64_t so = 0, dof = 0;
    for (size_t d = 0; d < rank; ++d) {
      so += (srcOffsets[d] + idx[d] * c.srcStrides[d]) * ss[d];
      dof += (dstOffsets[d] + idx[d] * c.dstStrides[d]) * ds[d];
    }
    std::memcpy(dst + dof * c.eltBytes, src + so * c.eltBytes, inner * c.eltBytes);
    int d = static_cast<int>(rank - innerDims) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
}

llvm::Error HostProgram::parallelStridedCopy(const CopyCommand &c, const uint8_t *src, uint8_t *dst,
                                ThreadPool &pool) const {
  size_t bytes = c.eltBytes;
  for (int64_t s : c.sizes)
    bytes *= static_cast<size_t>(s);
  int d = 0;
  while (d < static_cast<int>(c.sizes.size()) && c.sizes[d] == 1)
    ++d;
  if (singleThreaded || pool.numThreads() < 2 || bytes < kParallelCopyBytes ||
      d == static_cast<int>(c.sizes.size())) {
    stridedCopy(c, src, dst);
    return llvm::Error::success();
  }
  int64_t extent = c.sizes[d];
  int64_t pieces = std::min<int64_t>(extent, 4 * static_cast<int64_t>(pool.numThreads()));
  int64_t step = llvm::divideCeil(extent, pieces);
  return pool.parallelFor(llvm::divideCeil(extent, step), [&](int64_t i) -> llvm::Error {
    llvm::SmallVector<int64_t, 8> sizes(c.sizes.begin(), c.sizes.end()),
        srcOffsets(c.srcOffsets.begin(), c.srcOffsets.end()),
        dstOffsets(c.dstOffsets.begin(), c.dstOffsets.end());
    int64_t begin = i * step;
    sizes[d] = std::min(step, extent - begin);
    srcOffsets[d] += begin * c.srcStrides[d];
    dstOffsets[d] += begin * c.dstStrides[d];
    stridedCopy(c, src, dst, sizes, srcOffsets, dstOffsets);
    return llvm::Error::success();
  });
}

void HostProgram::fillBytes(uint8_t *dst, size_t n, llvm::ArrayRef<uint8_t> pattern, bool zero) {
  if (zero) {
    std::memset(dst, 0, n);
    return;
  }
  size_t p = pattern.size(), whole = p ? n / p * p : 0;
  if (whole == 0)
    return;
  if (llvm::all_equal(pattern)) {
    std::memset(dst, pattern[0], whole);
    return;
  }
  // One pattern, then the filled prefix copied after itself: log2(n / p)
  // copies instead of one per element (a uint8 zero point's one byte per
  // call ran at under 1 GB/s).
  std::memcpy(dst, pattern.data(), p);
  for (size_t done = p; done < whole;) {
    size_t more = std::min(done, whole - done);
    std::memcpy(dst + done, dst, more);
    done += more;
  }
}

bool HostProgram::isZeroPattern(llvm::ArrayRef<uint8_t> pattern) {
  return llvm::all_of(pattern, [](uint8_t v) { return v == 0; });
}

void HostProgram::fillOutsideHole(const Command &c, uint8_t *dst) {
  size_t rank = c.shape.size(), eb = c.pattern.size();
  int k = static_cast<int>(rank) - 1; // innermost dimension the hole splits
  int64_t inner = 1;
  while (k >= 0 && c.holeOffsets[k] == 0 && c.holeSizes[k] == c.shape[k])
    inner *= c.shape[k--];
  if (k < 0)
    return; // the copy covers the whole buffer
  bool zero = isZeroPattern(c.pattern);
  auto fillElems = [&](int64_t at, int64_t n) {
    fillBytes(dst + at * eb, static_cast<size_t>(n) * eb, c.pattern, zero);
  };
  int64_t run = c.shape[k] * inner;
  int64_t lo = c.holeOffsets[k] * inner, hi = (c.holeOffsets[k] + c.holeSizes[k]) * inner;
  llvm::SmallVector<int64_t, 8> idx(k, 0);
  for (int64_t at = 0;; at += run) {
    bool inside = true;
    for (int d = 0; d < k; ++d)
      inside &= idx[d] >= c.holeOffsets[d] && idx[d] < c.holeOffsets[d] + c.holeSizes[d];
    if (inside) {
      fillElems(at, lo);
      fillElems(at + hi, run - hi);
    } else {
      fillElems(at, run);
    }
    int d = k - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < c.shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
}

llvm::Error HostProgram::parallelFill(uint8_t *dst, size_t n, llvm::ArrayRef<uint8_t> pattern,
                         ThreadPool &pool) const {
  size_t p = pattern.size();
  bool zero = isZeroPattern(pattern);
  auto fillRange = [&](size_t begin, size_t end) {
    fillBytes(dst + begin, end - begin, pattern, zero);
  };
  if (singleThreaded || pool.numThreads() < 2 || n < kParallelCopyBytes || p == 0) {
    fillRange(0, n);
    return llvm::Error::success();
  }
  // Pieces hold whole patterns: the pattern is one element.
  size_t pieces = 4 * pool.numThreads();
  size_t step = llvm::divideCeil(n / p, pieces) * p;
  return pool.parallelFor(static_cast<int64_t>(llvm::divideCeil(n, step)),
                          [&](int64_t i) -> llvm::Error {
                            size_t begin = static_cast<size_t>(i) * step;
                            fillRange(begin, std::min(n, begin + step));
                            return llvm::Error::success();
                          });
}

int64_t HostProgram::normalize(int64_t v, unsigned width) {
  if (width == 1)
    return v & 1;
  if (width >= 64)
    return v;
  uint64_t m = (uint64_t(1) << width) - 1;
  uint64_t u = static_cast<uint64_t>(v) & m;
  if (u >> (width - 1))
    u |= ~m;
  return static_cast<int64_t>(u);
}

uint64_t HostProgram::unsignedOf(int64_t v, unsigned width) {
  return width >= 64 ? static_cast<uint64_t>(v)
                     : static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

llvm::Error HostProgram::runScalar(const Command &c, RunContext &ctx) {
  std::vector<int64_t> &I = ctx.ints;
  std::vector<double> &F = ctx.floats;
  int64_t a = c.a >= 0 ? I[c.a] : 0, b = c.b >= 0 ? I[c.b] : 0;
  double fa = c.a >= 0 ? F[c.a] : 0, fb = c.b >= 0 ? F[c.b] : 0;
  unsigned w = c.width, ow = c.operandWidth;
  auto u = [&](int64_t v) { return unsignedOf(v, ow); };
  // Registers hold i1 as 0/1; read signed, true is -1.
  if (ow == 1 && (c.scalar == ScalarOp::DivSI || c.scalar == ScalarOp::RemSI ||
                  c.scalar == ScalarOp::MaxSI || c.scalar == ScalarOp::MinSI ||
                  c.scalar == ScalarOp::ExtSI || c.scalar == ScalarOp::CmpI)) {
    a = -(a & 1);
    b = -(b & 1);
  }
  int64_t r = 0;
  double f = 0;
  switch (c.scalar) {
  case ScalarOp::AddI: r = static_cast<int64_t>(uint64_t(a) + uint64_t(b)); break;
  case ScalarOp::SubI: r = static_cast<int64_t>(uint64_t(a) - uint64_t(b)); break;
  case ScalarOp::MulI: r = static_cast<int64_t>(uint64_t(a) * uint64_t(b)); break;
  case ScalarOp::DivSI:
    r = b == 0 ? 0 : (b == -1) ? static_cast<int64_t>(0 - uint64_t(a)) : a / b;
    break;
  case ScalarOp::RemSI:
    r = (b == 0 || b == -1) ? 0 : a % b;
    break;
  case ScalarOp::DivUI:
    r = u(b) == 0 ? 0 : static_cast<int64_t>(u(a) / u(b));
    break;
  case ScalarOp::RemUI:
    r = u(b) == 0 ? 0 : static_cast<int64_t>(u(a) % u(b));
    break;
  case ScalarOp::MaxSI: r = std::max(a, b); break;
  case ScalarOp::MinSI: r = std::min(a, b); break;
  case ScalarOp::AndI: r = a & b; break;
  case ScalarOp::OrI: r = a | b; break;
  case ScalarOp::XOrI: r = a ^ b; break;
  case ScalarOp::CmpI: {
    using P = IntPredicate;
    switch (static_cast<P>(c.predicate)) {
    case P::eq: r = a == b; break;
    case P::ne: r = a != b; break;
    case P::slt: r = a < b; break;
    case P::sle: r = a <= b; break;
    case P::sgt: r = a > b; break;
    case P::sge: r = a >= b; break;
    case P::ult: r = u(a) < u(b); break;
    case P::ule: r = u(a) <= u(b); break;
    case P::ugt: r = u(a) > u(b); break;
    case P::uge: r = u(a) >= u(b); break;
    }
    break;
  }
  case ScalarOp::Select:
    r = I[c.a] ? I[c.b] : I[c.c];
    f = I[c.a] ? F[c.b] : F[c.c];
    break;
  case ScalarOp::ExtSI: r = a; break;
  case ScalarOp::ExtUI: r = static_cast<int64_t>(u(a)); break;
  case ScalarOp::TruncI:
  case ScalarOp::IndexCast:
  case ScalarOp::Copy:
    r = a;
    f = fa;
    break;
  case ScalarOp::AddF: f = fa + fb; break;
  case ScalarOp::SubF: f = fa - fb; break;
  case ScalarOp::MulF: f = fa * fb; break;
  case ScalarOp::DivF: f = fa / fb; break;
  case ScalarOp::MaxF: f = std::max(fa, fb); break;
  case ScalarOp::MinF: f = std::min(fa, fb); break;
  case ScalarOp::CmpF: {
    using P = FloatPredicate;
    bool unordered = std::isnan(fa) || std::isnan(fb);
    switch (static_cast<P>(c.predicate)) {
    case P::AlwaysFalse: r = 0; break;
    case P::OEQ: r = !unordered && fa == fb; break;
    case P::OGT: r = !unordered && fa > fb; break;
    case P::OGE: r = !unordered && fa >= fb; break;
    case P::OLT: r = !unordered && fa < fb; break;
    case P::OLE: r = !unordered && fa <= fb; break;
    case P::ONE: r = !unordered && fa != fb; break;
    case P::ORD: r = !unordered; break;
    case P::UEQ: r = unordered || fa == fb; break;
    case P::UGT: r = unordered || fa > fb; break;
    case P::UGE: r = unordered || fa >= fb; break;
    case P::ULT: r = unordered || fa < fb; break;
    case P::ULE: r = unordered || fa <= fb; break;
    case P::UNE: r = unordered || fa != fb; break;
    case P::UNO: r = unordered; break;
    case P::AlwaysTrue: r = 1; break;
    }
    break;
  }
  case ScalarOp::SIToFP: f = static_cast<double>(a); break;
  case ScalarOp::FPToSI:
    if (!(fa > -9.3e18 && fa < 9.3e18))
      return makeError(ErrorCode::RuntimeError,
                       "fptosi of a value out of range in host arithmetic");
    r = static_cast<int64_t>(fa);
    break;
  }
  I[c.reg] = normalize(r, w);
  F[c.reg] = f;
  return llvm::Error::success();
}

llvm::Error HostProgram::runExtract(const Command &c, RunContext &ctx) const {
  const std::vector<int64_t> &shape = c.copy.srcShape;
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t i = c.indexRegs[d] >= 0 ? ctx.ints[c.indexRegs[d]] : c.indices[d];
    if (i < 0 || i >= shape[d])
      return makeError(ErrorCode::RuntimeError,
                       "tensor.extract index " + llvm::Twine(i) +
                           " out of bounds for dimension " + llvm::Twine(d) + " of size " +
                           llvm::Twine(shape[d]));
    linear = linear * shape[d] + i;
  }
  const uint8_t *p = static_cast<const uint8_t *>(ctx.pointers[c.src]) +
                     linear * static_cast<int64_t>(elementSize(c.type));
  int64_t &r = ctx.ints[c.reg];
  double &f = ctx.floats[c.reg];
  auto load = [&](auto t) {
    std::memcpy(&t, p, sizeof t);
    return t;
  };
  switch (c.type) {
  case ElementType::F32: f = load(float()); break;
  case ElementType::F64: f = load(double()); break;
  case ElementType::F16: f = halfToFloat(load(uint16_t())); break;
  case ElementType::BF16: f = bfloat16ToFloat(load(uint16_t())); break;
  case ElementType::I1: r = load(uint8_t()) & 1; break;
  case ElementType::I8: r = load(int8_t()); break;
  case ElementType::U8: r = load(uint8_t()); break;
  case ElementType::I16: r = load(int16_t()); break;
  case ElementType::I32: r = load(int32_t()); break;
  case ElementType::I64: r = load(int64_t()); break;
  }
  return llvm::Error::success();
}

llvm::Error HostProgram::kernelCheckError(const Command &c, int32_t site) const {
  const std::vector<std::string> &checks = kernelChecks[c.kernel];
  if (site < 1 || static_cast<size_t>(site) > checks.size())
    return makeError(ErrorCode::RuntimeError,
                     "kernel '" + c.name + "' reported an unknown error " +
                         llvm::Twine(site));
  return makeError(ErrorCode::RuntimeError, checks[site - 1]);
}

llvm::Error HostProgram::runRange(size_t begin, size_t end, ThreadPool &pool, RunContext &ctx,
                     double *commandSeconds) const {
  std::vector<void *> &ptrs = ctx.pointers;
  std::vector<void *> &args = ctx.arguments;
  // Checked once per run; timing costs two clock reads per command.
  const bool timed = commandSeconds != nullptr;
  for (size_t ci = begin; ci < end; ++ci) {
    const Command &c = commands[ci];
    std::chrono::steady_clock::time_point start;
    if (timed && c.kind != Command::For && c.kind != Command::While && c.kind != Command::If)
      start = std::chrono::steady_clock::now();
    switch (c.kind) {
    case Command::Dispatch: {
      args.clear();
      for (size_t i = 0; i < c.bindings.size(); ++i)
        args.push_back(c.bindingOffsets.empty()
                           ? ptrs[c.bindings[i]]
                           : static_cast<uint8_t *>(ptrs[c.bindings[i]]) + c.bindingOffsets[i]);
      if (c.dim >= 0)
        args.push_back(reinterpret_cast<void *>(static_cast<intptr_t>(c.dim)));
      // Kernels with bounds checks take the status word after their
      // buffers (and dim); the others never read it.
      const bool checked = !kernelChecks[c.kernel].empty();
      if (checked) {
        ctx.status.store(0, std::memory_order_relaxed);
        args.push_back(&ctx.status);
      }
      KernelFn fn = c.fn;
      void **argv = args.data();
      auto body = [fn, argv](int64_t wg) -> llvm::Error {
        callKernel(fn, argv, wg);
        return llvm::Error::success();
      };
      if (singleThreaded || c.workgroups == 1) {
        for (int64_t wg = 0; wg < c.workgroups; ++wg)
          callKernel(fn, argv, wg);
      } else if (llvm::Error e = pool.parallelFor(c.workgroups, body)) {
        return e;
      }
      if (checked)
        if (int32_t site = ctx.status.load(std::memory_order_relaxed))
          return kernelCheckError(c, site);
      break;
    }
    case Command::Fill:
      if (!c.holeSizes.empty()) {
        fillOutsideHole(c, static_cast<uint8_t *>(ptrs[c.dst]));
        break;
      }
      if (llvm::Error e = parallelFill(static_cast<uint8_t *>(ptrs[c.dst]),
                                       buffers[c.dst].bytes, c.pattern, pool))
        return e;
      break;
    case Command::CopyWhole:
      if (ptrs[c.dst] != ptrs[c.src])
        std::memcpy(ptrs[c.dst], ptrs[c.src], buffers[c.dst].bytes);
      break;
    case Command::Copy:
      if (llvm::Error e = runCopy(c.copy, ctx, pool))
        return e;
      break;
    case Command::Scalar:
      if (llvm::Error e = runScalar(c, ctx))
        return e;
      break;
    case Command::Extract:
      if (llvm::Error e = runExtract(c, ctx))
        return e;
      break;
    case Command::For: {
      int64_t lb = ctx.ints[c.a], ub = ctx.ints[c.b], step = ctx.ints[c.c];
      if (step <= 0)
        return makeError(ErrorCode::RuntimeError,
                         "scf.for with step " + llvm::Twine(step) +
                             "; the step must be positive");
      for (int64_t iv = lb; iv < ub; iv += step) {
        ctx.ints[c.reg] = iv;
        if (llvm::Error e = runRange(ci + 1, c.end, pool, ctx, commandSeconds))
          return e;
      }
      ci = c.end - 1;
      continue;
    }
    case Command::If:
      if (ctx.ints[c.reg] & 1) {
        if (llvm::Error e = runRange(ci + 1, c.beforeEnd, pool, ctx, commandSeconds))
          return e;
      } else if (llvm::Error e = runRange(c.beforeEnd, c.end, pool, ctx, commandSeconds)) {
        return e;
      }
      ci = c.end - 1;
      continue;
    case Command::While:
      while (true) {
        if (llvm::Error e = runRange(ci + 1, c.beforeEnd, pool, ctx, commandSeconds))
          return e;
        if (!ctx.ints[c.reg])
          break;
        if (llvm::Error e = runRange(c.beforeEnd, c.end, pool, ctx, commandSeconds))
          return e;
      }
      ci = c.end - 1;
      continue;
    }
    if (timed)
      commandSeconds[ci] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return llvm::Error::success();
}

llvm::Error HostProgram::runCopy(const CopyCommand &copy, RunContext &ctx, ThreadPool &pool) const {
  const uint8_t *src = static_cast<const uint8_t *>(ctx.pointers[copy.src]);
  uint8_t *dst = static_cast<uint8_t *>(ctx.pointers[copy.dst]);
  if (copy.srcOffsetRegs.empty() && copy.dstOffsetRegs.empty())
    return parallelStridedCopy(copy, src, dst, pool);
  // Resolved offsets on the stack: this runs once per loop iteration.
  llvm::SmallVector<int64_t, 8> srcOffsets(copy.srcOffsets.begin(), copy.srcOffsets.end()),
      dstOffsets(copy.dstOffsets.begin(), copy.dstOffsets.end());
  auto resolve = [&](llvm::MutableArrayRef<int64_t> offsets, const std::vector<int> &regs,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides) -> llvm::Error {
    for (size_t d = 0; d < regs.size(); ++d) {
      if (regs[d] < 0)
        continue;
      offsets[d] = ctx.ints[regs[d]];
      int64_t lastIndex = offsets[d] + (copy.sizes[d] - 1) * strides[d];
      if (copy.sizes[d] > 0 && (offsets[d] < 0 || lastIndex >= shape[d]))
        return makeError(ErrorCode::RuntimeError,
                         "slice offset " + llvm::Twine(offsets[d]) +
                             " out of bounds for dimension " + llvm::Twine(d) +
                             " of size " + llvm::Twine(shape[d]));
    }
    return llvm::Error::success();
  };
  if (llvm::Error e = resolve(srcOffsets, copy.srcOffsetRegs, copy.srcShape, copy.srcStrides))
    return e;
  if (llvm::Error e = resolve(dstOffsets, copy.dstOffsetRegs, copy.dstShape, copy.dstStrides))
    return e;
  stridedCopy(copy, src, dst, copy.sizes, srcOffsets, dstOffsets);
  return llvm::Error::success();
}

llvm::Error HostProgram::runInto(llvm::ArrayRef<const HostTensor *> inputs,
                    llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                    RunContext &ctx, double *commandSeconds) const {
  if (inputs.size() != inputSpecs.size())
    return makeError(ErrorCode::ShapeMismatch, "expected " + llvm::Twine(inputSpecs.size()) +
                                                   " inputs, got " + llvm::Twine(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor *t = inputs[i];
    if (!t)
      return makeError(ErrorCode::InvalidArgument, "input " + llvm::Twine(i) + " is null");
    if (t->elementType() != inputSpecs[i].type || t->shape() != inputSpecs[i].shape)
      return makeError(ErrorCode::ShapeMismatch, "input " + llvm::Twine(i) +
                                                     ": expected shape and type " +
                                                     inputSpecs[i].str() + ", got " +
                                                     t->typeString());
    if (!t->data() && t->byteSize() != 0)
      return makeError(ErrorCode::InvalidArgument, "input " + llvm::Twine(i) + " has no data");
  }
  if (results.size() != outputSpecs.size())
    return makeError(ErrorCode::ShapeMismatch, "expected " + llvm::Twine(outputSpecs.size()) +
                                                   " result tensors, got " +
                                                   llvm::Twine(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].elementType() != outputSpecs[i].type ||
        results[i].shape() != outputSpecs[i].shape)
      return makeError(ErrorCode::ShapeMismatch, "result " + llvm::Twine(i) +
                                                     ": expected shape and type " +
                                                     outputSpecs[i].str() + ", got " +
                                                     results[i].typeString());
    if (!results[i].data() && results[i].byteSize() != 0)
      return makeError(ErrorCode::InvalidArgument, "result " + llvm::Twine(i) + " has no data");
  }
  std::vector<void *> &ptrs = ctx.pointers;
  ptrs.resize(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    const Buffer &buf = buffers[b];
    switch (buf.kind) {
    case BufferKind::Input:
      ptrs[b] = const_cast<void *>(inputs[buf.index]->data());
      break;
    case BufferKind::Constant:
      ptrs[b] = const_cast<void *>(buf.constant);
      break;
    case BufferKind::Intermediate:
      ptrs[b] = ctx.arena + buf.index;
      break;
    case BufferKind::Output:
      ptrs[b] = results[buf.index].data();
      break;
    }
  }
  ctx.ints = initialInts;
  ctx.floats = initialFloats;
  if (llvm::Error e = runRange(0, commands.size(), pool, ctx, commandSeconds))
    return e;
  // Results not computed in place (an input, a constant, a buffer shared
  // by two results) are copied.
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Buffer &buf = buffers[outputs[i]];
    if (buf.kind == BufferKind::Output && buf.index == static_cast<int64_t>(i))
      continue;
    std::memcpy(results[i].data(), ptrs[outputs[i]], results[i].byteSize());
  }
  return llvm::Error::success();
}

RunContext::~RunContext() = default;

llvm::Expected<std::unique_ptr<RunContext>> HostProgram::createRunContext() const {
  std::unique_ptr<RunContext> ctx(new RunContext());
  // 64-byte aligned; a large arena in huge pages (allocateAligned).
  ctx->storage = allocateAligned(std::max<size_t>(arenaBytes, 1));
  if (!ctx->storage)
    return makeError(ErrorCode::ResourceExhausted,
                     "cannot allocate " + llvm::Twine(arenaBytes) +
                         " bytes of intermediates for a run");
  ctx->arena = static_cast<uint8_t *>(ctx->storage.get());
  ctx->pointers.reserve(buffers.size());
  return std::move(ctx);
}

} // namespace jitrun
