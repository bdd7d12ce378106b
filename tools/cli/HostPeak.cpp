//===- HostPeak.cpp - the host's measured FP32 peak and bandwidth --------===//

#include "tools/cli/HostPeak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <immintrin.h>
#include <memory>
#include <thread>
#include <vector>

namespace jitrun::cli {

/// Runs fn(t) on n threads at once (the caller is thread 0) and returns the
/// wall time from the start until the last one finished.
static double runOnThreads(unsigned n, const std::function<void(unsigned)> &fn) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t)
    threads.emplace_back(fn, t);
  fn(0);
  for (std::thread &t : threads)
    t.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}


/// `iters` rounds of kFmaChains independent 16-float FMAs; returns a sum so
/// that nothing is optimized away.
__attribute__((target("avx512f"))) static float fmaLoopAvx512(int64_t iters) {
  __m512 acc[kFmaChains];
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-6f);
  for (int i = 0; i < kFmaChains; ++i)
    acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kFmaChains; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

/// The same with 8-float AVX2 vectors.
__attribute__((target("avx2,fma"))) static float fmaLoopAvx2(int64_t iters) {
  __m256 acc[kFmaChains];
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-6f);
  for (int i = 0; i < kFmaChains; ++i)
    acc[i] = _mm256_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kFmaChains; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes)
    total += v;
  return total;
}

/// Plain SSE multiply and add (no FMA): 4 floats, 2 FLOPs per lane.
static float fmaLoopSse(int64_t iters) {
  __m128 acc[kFmaChains];
  const __m128 m = _mm_set1_ps(0.999999f), a = _mm_set1_ps(1e-6f);
  for (int i = 0; i < kFmaChains; ++i)
    acc[i] = _mm_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i)
      acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], m), a);
  }
  __m128 sum = acc[0];
  for (int i = 1; i < kFmaChains; ++i)
    sum = _mm_add_ps(sum, acc[i]);
  float lanes[4];
  _mm_storeu_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}


HostPeak measureHostPeak(unsigned threads, bool avx2Only) {
  HostPeak peak;
  peak.threads = std::max(1u, threads);
  float (*loop)(int64_t) = fmaLoopSse;
  int lanes = 4;
  peak.isa = "sse";
  __builtin_cpu_init();
  if (!avx2Only && __builtin_cpu_supports("avx512f")) {
    loop = fmaLoopAvx512, lanes = 16, peak.isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    loop = fmaLoopAvx2, lanes = 8, peak.isa = "avx2+fma";
  }
  volatile float sink = 0;
  auto timeLoop = [&](int64_t iters) {
    auto start = std::chrono::steady_clock::now();
    sink = sink + loop(iters);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Calibrate: grow the count until a run takes 2 ms, then aim at 10 ms a
  // run; the best of 5 runs (~50 ms) on one thread, of 5 on all of them
  // (the best resists other processes on the machine).
  int64_t iters = 1 << 12;
  double t = timeLoop(iters);
  while (t < 2e-3 && iters < (int64_t(1) << 40)) {
    iters *= 4;
    t = timeLoop(iters);
  }
  iters = std::max<int64_t>(1, static_cast<int64_t>(iters * (10e-3 / std::max(t, 1e-9))));
  double flopsPerThread = static_cast<double>(iters) * kFmaChains * lanes * 2;
  double best1 = 1e30;
  for (int trial = 0; trial < 5; ++trial)
    best1 = std::min(best1, timeLoop(iters));
  peak.gflops1 = flopsPerThread / best1 / 1e9;
  if (peak.threads == 1) {
    peak.gflops = peak.gflops1;
  } else {
    std::vector<float> sinks(peak.threads);
    // One untimed round first: an idle core (or a descheduled virtual
    // CPU) takes milliseconds to join, which made whole 3-trial probes
    // come out at one thread's rate (2 threads: 250 GFLOP/s once in four
    // probes, 500 otherwise). Then the best of 5.
    runOnThreads(peak.threads, [&](unsigned i) { sinks[i] = loop(iters); });
    double best = 1e30;
    for (int trial = 0; trial < 5; ++trial)
      best = std::min(best, runOnThreads(peak.threads, [&](unsigned i) { sinks[i] = loop(iters); }));
    // Never below one thread's rate (a busy machine can make it so).
    peak.gflops = std::max(peak.gflops1, flopsPerThread * peak.threads / best / 1e9);
    for (float v : sinks)
      sink = sink + v;
  }

  size_t n = (size_t(64) << 20) / (3 * sizeof(float));
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  unsigned nt = peak.threads;
  auto range = [&](unsigned i) {
    return std::make_pair(n * i / nt, n * (i + 1) / nt);
  };
  // First touch on the threads that run the triad.
  runOnThreads(nt, [&](unsigned i) {
    auto [lo, hi] = range(i);
    for (size_t k = lo; k < hi; ++k)
      a[k] = 0.0f, b[k] = 1.0f, c[k] = 2.0f;
  });
  const float s = 3.0f;
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    best = std::min(best, runOnThreads(nt, [&](unsigned i) {
      auto [lo, hi] = range(i);
      float *pa = a.get();
      const float *pb = b.get(), *pc = c.get();
      for (size_t k = lo; k < hi; ++k)
        pa[k] = pb[k] + s * pc[k];
    }));
  }
  sink = sink + a[n / 2];
  peak.triadGBs = 3.0 * sizeof(float) * static_cast<double>(n) / best / 1e9;
  return peak;
}

} // namespace jitrun::cli
