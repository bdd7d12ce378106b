//===- Target.cpp - the CPU kernels are compiled for ---------------------===//

#include "contract/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

namespace jitrun {

const HostCpu &hostCpu() {
  static HostCpu cpu = [] {
    HostCpu c;
    c.name = sys::getHostCPUName().str();
    SmallVector<std::string> feats;
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
    }
    llvm::sort(feats);
    c.features = llvm::join(feats, ",");
    return c;
  }();
  return cpu;
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
