//===- ProgramCache.cpp - fused programs on disk --------------------------===//

#include "compiler/ProgramCache.h"

#include "compiler/Cache.h"
#include "contract/Dispatch.h"
#include "contract/Target.h"
#include "fusion/Passes.h"
#include "support/Files.h"
#include "support/Hash.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace jitrun {

/// Bump when import or fusion changes what a model fuses into.
static constexpr llvm::StringLiteral kProgramCacheVersion = "jitrun-program-3";
static constexpr llvm::StringLiteral kMagic = "jitrun-program";
/// The header's size: the payload starts page-aligned in a mapping, so
/// every blob keeps its alignment.
static constexpr size_t kHeaderBytes = 4096;
/// Host constants this large or larger are written as mappable blobs.
static constexpr int64_t kMappableBytes = 4096;

bool usesAmx(const CompileOptions &options) {
  return options.amx && !options.reference && !options.forceAvx2 && amxTileStateGranted();
}

ProgramCache::ProgramCache(const CompileOptions &options, llvm::StringRef modelBytes) {
  if (options.cacheDir.empty() || options.signatureOnly || options.explainFusion ||
      !options.dispatchGraphPath.empty())
    return;
  if (!cacheDirProblem(options.cacheDir).empty())
    return; // the kernel cache reports the problem
  std::string hash;
  if (options.modelHash) {
    std::call_once(options.modelHash->once,
                   [&] { options.modelHash->hex = pieceHashHex(modelBytes); });
    hash = options.modelHash->hex;
  } else {
    hash = pieceHashHex(modelBytes);
  }
  std::string text = hash + "\nfunction=" + options.function +
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
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file = mapRegularFile(path, "cache entry");
  if (!file) {
    llvm::consumeError(file.takeError());
    return nullptr;
  }
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < kHeaderBytes)
    return nullptr;
  llvm::StringRef header = bytes.take_front(kHeaderBytes).split('\n').first;
  llvm::StringRef payload = bytes.drop_front(kHeaderBytes);
  llvm::SmallVector<llvm::StringRef, 4> f;
  header.split(f, ' ');
  uint64_t size;
  if (f.size() != 4 || f[0] != kMagic || f[1] != key || f[2].getAsInteger(10, size) ||
      size != payload.size() || pieceHashHex(payload) != f[3])
    return nullptr;
  // A small entry is read, not mapped: align its payload as a mapping is.
  std::shared_ptr<llvm::MemoryBuffer> owner = std::move(*file);
  if (reinterpret_cast<uintptr_t>(payload.data()) % kHeaderBytes != 0) {
    std::unique_ptr<llvm::WritableMemoryBuffer> copy =
        llvm::WritableMemoryBuffer::getNewUninitMemBuffer(payload.size(), path,
                                                          llvm::Align(kHeaderBytes));
    if (!copy)
      return nullptr;
    std::memcpy(copy->getBufferStart(), payload.data(), payload.size());
    payload = llvm::StringRef(copy->getBufferStart(), copy->getBufferSize());
    owner = std::move(copy);
  }
  // Resources stay references into the payload: the source manager, and
  // through its deleter the mapping, live as long as they do.
  std::shared_ptr<llvm::SourceMgr> sourceMgr(new llvm::SourceMgr,
                                             [owner](llvm::SourceMgr *s) { delete s; });
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(payload, path, /*RequiresNullTerminator=*/false),
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
  if (!module)
    return nullptr;
  touchCacheEntry(path);
  mapped = payload;
  mapping = sourceMgr;
  return module;
}

/// The host function's constants of kMappableBytes or more as blobs aligned
/// to 64 bytes (the alignment of the program's own buffers); dispatch
/// functions keep theirs (their text is a kernel's cache key). Host lowering
/// then holds the new blobs instead of copying them again.
static void makeConstantsMappable(mlir::ModuleOp module) {
  module.walk([&](mlir::arith::ConstantOp cst) {
    auto fn = cst->getParentOfType<mlir::func::FuncOp>();
    if (!fn || fn->hasAttr(kDispatchAttrName))
      return;
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(cst.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return;
    int64_t bytes = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
    if (bytes < kMappableBytes)
      return;
    llvm::ArrayRef<char> data;
    if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(cst.getValue())) {
      if (dense.isSplat())
        return;
      data = dense.getRawData();
    } else if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(cst.getValue())) {
      mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob || blob->getDataAlignment() >= 64)
        return;
      data = blob->getData();
    } else {
      return;
    }
    if (static_cast<int64_t>(data.size()) != bytes)
      return;
    mlir::AsmResourceBlob blob = weightBlob(data);
    cst.setValueAttr(mlir::DenseResourceElementsAttr::get(type, "weight", std::move(blob)));
  });
}

namespace {
/// Writes to a file descriptor and hashes what it writes.
class HashingFileStream : public llvm::raw_ostream {
public:
  explicit HashingFileStream(int fd) : fd(fd) { SetBufferSize(1 << 20); }
  ~HashingFileStream() override { flush(); }
  PieceHash hash;
  std::string error;

private:
  void write_impl(const char *data, size_t size) override {
    hash.update(llvm::StringRef(data, size));
    written += size;
    if (error.empty())
      writeAll(fd, llvm::StringRef(data, size), error);
  }
  uint64_t current_pos() const override { return written; }
  int fd;
  uint64_t written = 0;
};
} // namespace

std::string ProgramCache::write(mlir::ModuleOp module) {
  if (!enabled())
    return "";
  makeConstantsMappable(module);
  // The payload streams to the file after room for the header, hashed on
  // the way: no copy of the weights in memory.
  llvm::Error e = writeFileSafely(path, [&](int fd, std::string &err) {
    if (!writeAll(fd, std::string(kHeaderBytes, ' '), err))
      return false;
    HashingFileStream os(fd);
    if (mlir::failed(mlir::writeBytecodeToFile(module, os))) {
      err = "the fused program cannot be written as bytecode";
      return false;
    }
    os.flush();
    if (!os.error.empty()) {
      err = os.error;
      return false;
    }
    std::string header = kMagic.str() + " " + key + " " + std::to_string(os.tell()) + " " +
                         os.hash.finalHex() + "\n";
    if (::pwrite(fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
      err = std::strerror(errno);
      return false;
    }
    return true;
  });
  if (e)
    return llvm::toString(std::move(e));
  return "";
}

} // namespace jitrun
