//===- Target.h - the CPU kernels are compiled for --------------*- C++ -*-===//
//
// The host CPU as LLVM names it, and the target (CPU name and features)
// codegen emits kernels for and the runtime loads them with. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_TARGET_H
#define JITRUN_CONTRACT_TARGET_H

#include <string>
#include <vector>

namespace jitrun {

/// What the host CPU offers, as LLVM names it.
struct HostCpu {
  std::string name;
  std::string features; // "+avx2,+fma,..."
  bool avx512 = false;
  bool avx2 = false;
  /// AVX-512 VNNI (vpdpbusd).
  bool vnni = false;
  /// AVX512_BF16 (vdpbf16ps: bf16 pairs into f32 lanes).
  bool bf16 = false;
  /// AMX tiles with bf16 (tdpbf16ps). Usable only once Linux grants the
  /// process the tile data state: amxTileStateGranted().
  bool amx = false;
  /// vdpbf16ps on zmm registers: bf16 contractions at twice the f32 rate.
  bool avx512Bf16() const { return avx512 && bf16; }
  /// Widest vector register to use, in bits (512, 256 or 128).
  unsigned vectorBits() const { return avx512 ? 512 : avx2 ? 256 : 128; }
};

/// Detects the host CPU once.
const HostCpu &hostCpu();

/// True when the host has AMX and Linux grants this process the AMX tile
/// data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once, on the first
/// call): without it the first tile instruction dies of SIGILL. Asked only
/// by a compile that may use the tiles, since the grant enlarges the signal
/// frames of every thread of the host process (a sigaltstack too small for
/// them is refused from then on).
bool amxTileStateGranted();

/// The CPU name and feature list kernels are compiled for: the host's, or
/// Haswell without AVX-512 with `forceAvx2`.
void targetFor(bool forceAvx2, std::string &cpu, std::vector<std::string> &features);

/// "cpu features" of targetFor: part of the kernel cache key.
std::string targetId(bool forceAvx2);

} // namespace jitrun

#endif // JITRUN_CONTRACT_TARGET_H
