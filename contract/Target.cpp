//===- Target.cpp - the CPU kernels are compiled for ---------------------===//

#include "contract/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <sys/syscall.h>
#include <unistd.h>

using namespace llvm;

namespace jitrun {

/// Asks Linux for the AMX tile data state for this process (all its
/// threads): false where the kernel or the hypervisor refuses it.
static bool requestAmxPermission() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

const HostCpu &hostCpu() {
  static HostCpu cpu = [] {
    HostCpu c;
    c.name = sys::getHostCPUName().str();
    SmallVector<std::string> feats;
    bool amxBf16 = false, amxTile = false;
    for (auto &f : sys::getHostCPUFeatures()) {
      feats.push_back((f.second ? "+" : "-") + f.first().str());
      if (f.second && f.first() == "avx512f")
        c.avx512 = true;
      if (f.second && f.first() == "avx512vnni")
        c.vnni = true;
      if (f.second && f.first() == "avx512bf16")
        c.bf16 = true;
      if (f.second && f.first() == "avx2")
        c.avx2 = true;
      if (f.second && f.first() == "amx-bf16")
        amxBf16 = true;
      if (f.second && f.first() == "amx-tile")
        amxTile = true;
    }
    c.amx = c.avx512 && amxBf16 && amxTile;
    llvm::sort(feats);
    c.features = llvm::join(feats, ",");
    return c;
  }();
  return cpu;
}

bool amxTileStateGranted() {
  static const bool granted = hostCpu().amx && requestAmxPermission();
  return granted;
}

void targetFor(bool forceAvx2, std::string &cpu, std::vector<std::string> &feats) {
  const HostCpu &host = hostCpu();
  cpu = forceAvx2 ? "haswell" : host.name;
  for (StringRef f : llvm::split(host.features, ',')) {
    if (forceAvx2 && f.starts_with("+avx512"))
      feats.push_back(("-" + f.drop_front()).str());
    else
      feats.push_back(f.str());
  }
}

std::string targetId(bool forceAvx2) {
  std::string cpu;
  std::vector<std::string> feats;
  targetFor(forceAvx2, cpu, feats);
  return cpu + " " + llvm::join(feats, ",");
}

} // namespace jitrun
