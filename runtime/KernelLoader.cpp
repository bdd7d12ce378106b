//===- KernelLoader.cpp - compiled kernels into the process --------------===//

#include "runtime/KernelLoader.h"

#include "contract/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace llvm;

namespace jitrun {

Expected<std::unique_ptr<KernelLoader>> KernelLoader::create(bool forceAvx2) {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  auto jtmb = orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  std::unique_ptr<KernelLoader> self(new KernelLoader());
  std::vector<std::string> feats;
  targetFor(forceAvx2, self->cpu, feats);
  self->features = llvm::join(feats, ",");
  jtmb->setCPU(self->cpu);
  jtmb->getFeatures() = SubtargetFeatures();
  jtmb->addFeatures(feats);
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  auto jit = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit)
    return jit.takeError();
  self->jit = std::move(*jit);
  return self;
}

KernelLoader::~KernelLoader() = default;

Error KernelLoader::addObject(StringRef object, StringRef name) {
  return jit->addObjectFile(MemoryBuffer::getMemBufferCopy(object, name));
}

Expected<KernelFn> KernelLoader::lookup(StringRef name) {
  auto addr = jit->lookup((name + kKernelEntrySuffix).str());
  if (!addr)
    return addr.takeError();
  return addr->toPtr<KernelFn>();
}

Expected<const char *> KernelLoader::lookupChecks(StringRef name) {
  auto addr = jit->lookup((name + kKernelChecksSuffix).str());
  if (!addr)
    return addr.takeError();
  return addr->toPtr<const char *>();
}

} // namespace jitrun
