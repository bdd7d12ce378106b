//===- HostPeak.h - the host's measured FP32 peak and bandwidth -*- C++ -*-===//
//
// What --profile compares each command with: this machine's FP32 FMA rate
// and triad bandwidth, measured in a fraction of a second.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_TOOLS_CLI_HOSTPEAK_H
#define JITRUN_TOOLS_CLI_HOSTPEAK_H

#include <string>

namespace jitrun::cli {

/// Independent FMA chains: enough to cover the FMA latency times the number
/// of FMA ports (4 cycles x 2 ports) with room to spare.
constexpr int kFmaChains = 12;

struct HostPeak {
  std::string isa;
  double gflops1 = 0, gflops = 0, triadGBs = 0;
  unsigned threads = 1;
};

/// Peak FP32: the widest FMA the kernels use (AVX-512 unless --force-avx2),
/// calibrated to 10 ms a run, best of 5 on one thread (~50 ms), then best of
/// 5 with the same loop on `threads` threads at once, after an untimed round. Bandwidth: a[i] = b[i] + s * c[i] over three arrays of
/// 64 MiB in total split across the threads, best of 3, counting 12 bytes
/// per element (two reads, one write; STREAM's convention).
HostPeak measureHostPeak(unsigned threads, bool avx2Only);

} // namespace jitrun::cli

#endif // JITRUN_TOOLS_CLI_HOSTPEAK_H
