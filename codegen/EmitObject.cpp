//===- EmitObject.cpp - a kernel module to an object file ----------------===//
//
// LLVM dialect -> LLVM IR -> host-tuned O3 -> machine code. Errors come back
// as llvm::Error, never as aborts.
//
//===----------------------------------------------------------------------===//

#include "codegen/EmitObject.h"

#include "contract/KernelAbi.h"
#include "contract/Target.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace llvm;

namespace jitrun {

static Error makeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

/// Adds `i64 NAME_abi(ptr buffers, i64 wg)` that loads each buffer pointer
/// (and a generic kernel's dim) and calls the bare-pointer kernel
/// `NAME(ptr..., [i64 dim,] i64 wg)`, returning the size of a grid that
/// depends on the dim (else 0).
static Error addAbiWrapper(Module &m, StringRef name) {
  Function *kernel = m.getFunction(name);
  if (!kernel)
    return makeError("kernel '" + name + "' is missing from its module");
  LLVMContext &ctx = m.getContext();
  Type *ptr = PointerType::getUnqual(ctx);
  Type *i64 = Type::getInt64Ty(ctx);
  auto *fnType = FunctionType::get(i64, {ptr, i64}, false);
  Function *abi = Function::Create(fnType, GlobalValue::ExternalLinkage,
                                   name + kKernelEntrySuffix, m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", abi));
  SmallVector<Value *> args;
  unsigned numParams = kernel->arg_size();
  for (unsigned i = 0; i + 1 < numParams; ++i) {
    Type *t = kernel->getArg(i)->getType();
    // A buffer pointer, or a generic kernel's dim (an i64 in its slot).
    if (!t->isPointerTy() && t != i64)
      return makeError("kernel '" + name + "' argument " + Twine(i) +
                       " is neither a buffer pointer nor a dim");
    Value *slot = b.CreateConstInBoundsGEP1_64(ptr, abi->getArg(0), i);
    args.push_back(b.CreateLoad(t, slot));
  }
  args.push_back(abi->getArg(1));
  Value *count = b.CreateCall(kernel, args);
  // A grid that depends on the dim: its size (KernelAbi.h).
  if (kernel->getReturnType() == i64)
    b.CreateRet(count);
  else if (kernel->getReturnType()->isVoidTy())
    b.CreateRet(b.getInt64(0));
  else
    return makeError("kernel '" + name + "' returns neither nothing nor its grid's size");
  kernel->setLinkage(GlobalValue::InternalLinkage);
  return Error::success();
}

Expected<std::string> emitKernelObject(mlir::ModuleOp module,
                                                 ArrayRef<std::string> kernels,
                                                 bool forceAvx2) {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  LLVMContext ctx;
  std::unique_ptr<Module> m;
  {
    // Kernels compile on several threads, each with its own MLIRContext and
    // LLVMContext, yet ThreadSanitizer saw translations on two threads race
    // on memory inside libMLIR (state shared beyond the contexts). The
    // translation is serialized; LLVM's optimization and code generation
    // below, which take most of the time, still run in parallel.
    static std::mutex translateMutex;
    std::lock_guard<std::mutex> lock(translateMutex);
    m = mlir::translateModuleToLLVMIR(module, ctx);
  }
  if (!m)
    return makeError("failed to translate a kernel module to LLVM IR");
  for (const std::string &k : kernels)
    if (Error e = addAbiWrapper(*m, k))
      return std::move(e);
  std::string cpu;
  std::vector<std::string> featureList;
  targetFor(forceAvx2, cpu, featureList);
  std::string features = llvm::join(featureList, ",");
  auto jtmb = orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCPU(cpu);
  jtmb->getFeatures() = SubtargetFeatures();
  jtmb->addFeatures(featureList);
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return tm.takeError();
  m->setDataLayout((*tm)->createDataLayout());
  m->setTargetTriple((*tm)->getTargetTriple());
  for (Function &f : *m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpu);
    f.addFnAttr("target-features", features);
  }
  std::string verifyMessage;
  raw_string_ostream verifyStream(verifyMessage);
  if (verifyModule(*m, &verifyStream))
    return makeError("kernel module failed LLVM verification: " + verifyMessage);
  {
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    PassBuilder pb(tm->get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    mpm.run(*m, mam);
  }
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, os, nullptr, CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  codegen.run(*m);
  return std::string(buffer.begin(), buffer.end());
}

} // namespace jitrun
