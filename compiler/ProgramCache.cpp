//===- ProgramCache.cpp - fused programs on disk --------------------------===//

#include "compiler/ProgramCache.h"

#include "compiler/Cache.h"
#include "contract/Target.h"
#include "support/Files.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace jitrun {

/// Bump when import or fusion changes what a model fuses into.
static constexpr llvm::StringLiteral kProgramCacheVersion = "jitrun-program-1";
static constexpr llvm::StringLiteral kMagic = "jitrun-program";

bool usesAmx(const CompileOptions &options) {
  return options.amx && !options.reference && !options.forceAvx2 && amxTileStateGranted();
}

static std::string blake3Hex(llvm::StringRef bytes) {
  llvm::BLAKE3 hash;
  hash.update(bytes);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

ProgramCache::ProgramCache(const CompileOptions &options, llvm::StringRef modelBytes) {
  if (options.cacheDir.empty() || options.signatureOnly || options.explainFusion ||
      !options.dispatchGraphPath.empty())
    return;
  if (!cacheDirProblem(options.cacheDir).empty())
    return; // the kernel cache reports the problem
  std::string text = blake3Hex(modelBytes) + "\nfunction=" + options.function +
                     "\nfusion=" + fusionModeName(options.fusion).str() +
                     (options.reference ? " reference" : "") +
                     (options.bf16Weights ? " bf16-weights" : "") +
                     (usesAmx(options) ? " amx" : "") + "\n" +
                     targetId(options.forceAvx2) + "\n";
  for (const auto &[name, dims] : options.inputShapes) {
    text += "shape " + name + ":";
    for (int64_t d : dims)
      text += " " + std::to_string(d);
    text += "\n";
  }
  for (const std::vector<int64_t> &dims : options.argumentShapes) {
    text += "argument:";
    for (int64_t d : dims)
      text += " " + std::to_string(d);
    text += "\n";
  }
  text += kProgramCacheVersion.str() + " " + compilerBinaryId();
  llvm::SHA256 sha;
  sha.update(text);
  key = llvm::toHex(sha.final(), /*LowerCase=*/true).substr(0, 32);
  path = options.cacheDir + "/" + key + ".jrp";
}

mlir::OwningOpRef<mlir::ModuleOp> ProgramCache::read(mlir::MLIRContext &context) {
  if (!enabled() || !llvm::sys::fs::exists(path))
    return nullptr;
  llvm::Expected<std::string> bytes = readRegularFile(path, "cache entry");
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return nullptr;
  }
  auto [header, payload] = llvm::StringRef(*bytes).split('\n');
  llvm::SmallVector<llvm::StringRef, 4> f;
  header.split(f, ' ');
  uint64_t size;
  if (f.size() != 4 || f[0] != kMagic || f[1] != key || f[2].getAsInteger(10, size) ||
      size != payload.size() || blake3Hex(payload) != f[3])
    return nullptr;
  // Resources may stay references into the buffer: the shared source
  // manager lives as long as they do.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(payload, path),
                                llvm::SMLoc());
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    // A sound checksum over a payload that does not parse (an entry from a
    // jitrun whose bytecode differs) is a miss too, silently.
    mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
      return mlir::success();
    });
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  }
  if (module)
    touchCacheEntry(path);
  return module;
}

std::string ProgramCache::write(mlir::ModuleOp module) {
  if (!enabled())
    return "";
  std::string payload;
  llvm::raw_string_ostream os(payload);
  if (mlir::failed(mlir::writeBytecodeToFile(module, os)))
    return "the fused program cannot be written as bytecode";
  os.flush();
  std::string image = kMagic.str() + " " + key + " " + std::to_string(payload.size()) + " " +
                      blake3Hex(payload) + "\n" + payload;
  if (llvm::Error e = writeFileSafely(path, image))
    return llvm::toString(std::move(e));
  return "";
}

} // namespace jitrun
