//===- ProgramCache.cpp - fused programs on disk --------------------------===//

#include "compiler/ProgramCache.h"

#include "compiler/Cache.h"
#include "contract/Dispatch.h"
#include "contract/Target.h"
#include "contract/WeightMemo.h"
#include "fusion/Passes.h"
#include "support/Files.h"
#include "support/Hash.h"
#include "support/ThreadPool.h"

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
#include <map>
#include <mutex>
#include <memory>
#include <unistd.h>

namespace jitrun {

/// Bump when import or fusion changes what a model fuses into.
static constexpr llvm::StringLiteral kProgramCacheVersion = "jitrun-program-4";
static constexpr llvm::StringLiteral kMagic = "jitrun-program";
/// The header's size: the payload starts page-aligned in a mapping, so
/// every blob keeps its alignment.
static constexpr size_t kHeaderBytes = kPageBytes;
/// Host constants this large or larger are written as mappable blobs.
static constexpr int64_t kMappableBytes = 4096;
static constexpr llvm::StringLiteral kWeightsMagic = "jitrun-weights";
/// A weight's resource key in an entry: this, then the BLAKE3 of its bytes.
static constexpr llvm::StringLiteral kWeightKeyPrefix = "jitrun_weight_";
static constexpr size_t kHashHexChars = 64;

bool usesAmx(const CompileOptions &options) {
  return options.amx && !options.reference && !options.forceAvx2 && amxTileStateGranted();
}

ProgramCache::ProgramCache(const CompileOptions &options, llvm::StringRef modelBytes) {
  if (options.cacheDir.empty() || options.signatureOnly || options.explainFusion ||
      !options.dispatchGraphPath.empty())
    return;
  if (!cacheDirProblem(options.cacheDir).empty())
    return; // the kernel cache reports the problem
  memo = options.weightMemo;
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
  dir = options.cacheDir;
  path = options.cacheDir + "/" + key + ".jrp";
}

namespace {
/// A host constant that goes to a weight file.
struct Weight {
  mlir::arith::ConstantOp op;
  llvm::StringRef bytes;
};
} // namespace

/// The host function's constants of kMappableBytes or more, with their
/// bytes; dispatch functions keep theirs (their text is a kernel's cache
/// key).
static std::vector<Weight> hostWeights(mlir::ModuleOp module) {
  std::vector<Weight> weights;
  module.walk([&](mlir::arith::ConstantOp cst) {
    auto fn = cst->getParentOfType<mlir::func::FuncOp>();
    if (!fn || fn->hasAttr(kDispatchAttrName))
      return;
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(cst.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return;
    int64_t size = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
    if (size < kMappableBytes)
      return;
    llvm::ArrayRef<char> data;
    if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(cst.getValue())) {
      if (dense.isSplat())
        return;
      data = dense.getRawData();
    } else if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(cst.getValue())) {
      if (mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob())
        data = blob->getData();
    }
    if (static_cast<int64_t>(data.size()) == size)
      weights.push_back({cst, llvm::StringRef(data.data(), data.size())});
  });
  return weights;
}

static std::string weightPath(const std::string &dir, llvm::StringRef hash) {
  return dir + "/" + hash.str() + ".jrw";
}

static std::string weightHeader(llvm::StringRef hash, size_t size) {
  return (kWeightsMagic + " " + hash + " " + llvm::Twine(size)).str();
}

namespace {
/// The weight files this process has mapped and checked, by path: the
/// programs of a model (each specialization of a dynamic one) share one
/// mapping of each, checked once.
struct MappedWeights {
  std::mutex mutex;
  std::map<std::string, std::pair<std::weak_ptr<const void>, llvm::StringRef>> byPath;
};
} // namespace

static MappedWeights &mappedWeights() {
  static MappedWeights *weights = new MappedWeights; // lives until exit
  return *weights;
}

/// The weight file at `file` holding `hash`'s `size` bytes, mapped (read
/// when small, aligned as a mapping is), its contents not checked yet; an
/// empty region if there is none.
static MappedRegion mapWeightFile(const std::string &file, llvm::StringRef hash, size_t size) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = mapRegularFile(file, "weight file");
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return {};
  }
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() != kHeaderBytes + size ||
      bytes.take_front(kHeaderBytes).split('\n').first != weightHeader(hash, size))
    return {};
  llvm::StringRef payload = bytes.drop_front(kHeaderBytes);
  std::shared_ptr<const void> owner = std::shared_ptr<llvm::MemoryBuffer>(std::move(*buffer));
  if (reinterpret_cast<uintptr_t>(payload.data()) % kHeaderBytes != 0) {
    std::shared_ptr<llvm::WritableMemoryBuffer> copy = pageAlignedCopy(payload, file);
    if (!copy)
      return {};
    payload = llvm::StringRef(copy->getBufferStart(), copy->getBufferSize());
    owner = copy;
  }
  return MappedRegion{payload, owner};
}

/// The weight files of `hashes` (holding `sizes` bytes), mapped and
/// checked, the new ones' contents hashed on all cores unless `written` (by
/// this process just now, from bytes of those hashes: their pages are left
/// for the runs to bring in): a region for each, empty where the file is
/// missing or does not check out.
static std::vector<MappedRegion> mapWeightFiles(const std::string &dir,
                                                const std::vector<std::string> &hashes,
                                                const std::vector<size_t> &sizes,
                                                bool written = false) {
  std::vector<MappedRegion> regions(hashes.size());
  std::vector<bool> known(hashes.size(), false);
  MappedWeights &shared = mappedWeights();
  for (size_t i = 0; i < hashes.size(); ++i) {
    std::string file = weightPath(dir, hashes[i]);
    if (!llvm::sys::fs::exists(file))
      continue; // (a mapping of a pruned file would leave the entry a miss)
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      auto it = shared.byPath.find(file);
      if (it != shared.byPath.end())
        if (std::shared_ptr<const void> owner = it->second.first.lock();
            owner && it->second.second.size() == sizes[i]) {
          regions[i] = MappedRegion{it->second.second, owner};
          known[i] = true;
          continue;
        }
    }
    regions[i] = mapWeightFile(file, hashes[i], sizes[i]);
  }
  std::vector<llvm::StringRef> contents;
  for (size_t i = 0; i < regions.size(); ++i)
    contents.push_back(known[i] || written ? llvm::StringRef() : regions[i].bytes);
  std::vector<std::string> found = pieceHashesHex(contents);
  std::lock_guard<std::mutex> lock(shared.mutex);
  for (auto it = shared.byPath.begin(); it != shared.byPath.end();)
    it = it->second.first.expired() ? shared.byPath.erase(it) : std::next(it);
  for (size_t i = 0; i < regions.size(); ++i) {
    if (!regions[i].owner || (!known[i] && !written && found[i] != hashes[i])) {
      regions[i] = MappedRegion{};
      continue;
    }
    std::string file = weightPath(dir, hashes[i]);
    touchCacheEntry(file);
    shared.byPath[file] = {regions[i].owner, regions[i].bytes};
  }
  return regions;
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
    std::unique_ptr<llvm::WritableMemoryBuffer> copy = pageAlignedCopy(payload, path);
    if (!copy)
      return nullptr;
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
  // The weights: each constant without bytes names its weight file.
  std::vector<mlir::DialectResourceBlobManager::BlobEntry *> entries;
  std::vector<std::string> hashes;
  std::vector<size_t> sizes;
  bool complete = true;
  module->walk([&](mlir::arith::ConstantOp cst) {
    auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(cst.getValue());
    if (!resource || resource.getRawHandle().getBlob())
      return;
    auto type = llvm::cast<mlir::ShapedType>(resource.getType());
    llvm::StringRef name = resource.getRawHandle().getKey();
    if (!name.consume_front(kWeightKeyPrefix) || name.size() < kHashHexChars ||
        !type.hasStaticShape() || type.getElementTypeBitWidth() % 8 != 0) {
      complete = false;
      return;
    }
    entries.push_back(resource.getRawHandle().getResource());
    hashes.push_back(name.take_front(kHashHexChars).str());
    sizes.push_back(size_t(type.getNumElements()) * (type.getElementTypeBitWidth() / 8));
  });
  if (!complete)
    return nullptr;
  std::vector<MappedRegion> weights = mapWeightFiles(dir, hashes, sizes);
  if (llvm::any_of(weights, [](const MappedRegion &r) { return !r.owner; }))
    return nullptr; // a weight file missing or damaged: compiled again
  mapped = {MappedRegion{payload, sourceMgr}};
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!entries[i]->getBlob())
      entries[i]->setBlob(mlir::UnmanagedAsmResourceBlob::allocateWithAlign(
          llvm::ArrayRef<char>(weights[i].bytes.data(), weights[i].bytes.size()), 64));
    mapped.push_back(weights[i]);
  }
  touchCacheEntry(path);
  return module;
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
  // Each weight's file: kept if it checks out (written by an earlier
  // program of this model), else written and read back.
  std::vector<Weight> weights = hostWeights(module);
  std::vector<llvm::StringRef> contents;
  std::vector<size_t> sizes;
  for (const Weight &w : weights) {
    contents.push_back(w.bytes);
    sizes.push_back(w.bytes.size());
  }
  // A weight an earlier compile of the model built and wrote (the memo
  // knows its hash) is not hashed again.
  std::vector<std::string> known(weights.size());
  if (memo)
    for (size_t i = 0; i < weights.size(); ++i) {
      known[i] = memo->hashOf(contents[i].data(), contents[i].size());
      if (!known[i].empty())
        contents[i] = llvm::StringRef();
    }
  std::vector<std::string> hashes = pieceHashesHex(contents);
  for (size_t i = 0; i < weights.size(); ++i)
    if (!known[i].empty()) {
      hashes[i] = known[i];
      contents[i] = weights[i].bytes;
    }
  std::vector<MappedRegion> regions = mapWeightFiles(dir, hashes, sizes);
  // The missing ones, written on all cores (copying into the page cache is
  // most of a cold compile's time for a big model: ViT-B/16's 330 MB).
  std::vector<std::string> written;
  std::vector<size_t> writtenSizes, from;
  for (size_t i = 0; i < weights.size(); ++i)
    if (!regions[i].owner && !llvm::is_contained(written, hashes[i])) {
      written.push_back(hashes[i]);
      writtenSizes.push_back(sizes[i]);
      from.push_back(i);
    }
  std::vector<std::string> writeErrors(written.size());
  ThreadPool pool(ThreadPool::threadsFor(written.size()));
  llvm::Error wrote = pool.parallelFor(static_cast<int64_t>(written.size()), [&](int64_t w) {
    size_t i = from[w];
    llvm::Error e = writeFileSafely(weightPath(dir, hashes[i]), [&](int fd, std::string &err) {
      std::string header = weightHeader(hashes[i], sizes[i]) + "\n";
      header.resize(kHeaderBytes, ' ');
      return writeAll(fd, header, err) && writeAll(fd, contents[i], err);
    });
    if (e)
      writeErrors[w] = llvm::toString(std::move(e));
    return llvm::Error::success();
  });
  // (A task that threw, out of memory: nothing written is used.)
  if (wrote)
    return llvm::toString(std::move(wrote));
  for (const std::string &e : writeErrors)
    if (!e.empty())
      return e;
  std::vector<MappedRegion> fresh = mapWeightFiles(dir, written, writtenSizes, /*written=*/true);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (regions[i].owner)
      continue;
    size_t at = llvm::find(written, hashes[i]) - written.begin();
    if (at == written.size() || !fresh[at].owner)
      return "a weight file cannot be read back";
    regions[i] = fresh[at];
  }
  // The entry names each weight by its hash, without its bytes (a resource
  // without a blob is not written).
  std::vector<mlir::Attribute> originals;
  std::map<std::string, mlir::DenseResourceElementsHandle> handles;
  auto &manager = mlir::DenseResourceElementsHandle::getManagerInterface(module.getContext());
  for (size_t i = 0; i < weights.size(); ++i) {
    originals.push_back(weights[i].op.getValue());
    auto it = handles.find(hashes[i]);
    if (it == handles.end())
      it = handles.emplace(hashes[i], manager.insert((kWeightKeyPrefix + hashes[i]).str())).first;
    weights[i].op.setValueAttr(mlir::DenseResourceElementsAttr::get(
        llvm::cast<mlir::ShapedType>(weights[i].op.getType()), it->second));
  }
  auto restore = [&] {
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i].op.setValueAttr(llvm::cast<mlir::TypedAttr>(originals[i]));
  };
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
  if (e) {
    restore();
    return llvm::toString(std::move(e));
  }
  // From now on the module reads its weights from the files.
  mapped.clear();
  for (size_t i = 0; i < weights.size(); ++i) {
    mlir::DialectResourceBlobManager::BlobEntry *entry = handles.at(hashes[i]).getResource();
    if (!entry->getBlob())
      entry->setBlob(mlir::UnmanagedAsmResourceBlob::allocateWithAlign(
          llvm::ArrayRef<char>(regions[i].bytes.data(), regions[i].bytes.size()), 64));
    mapped.push_back(regions[i]);
    // The memo's weights follow theirs to the files.
    if (memo)
      memo->moved(weights[i].bytes.data(), weights[i].bytes.size(), regions[i].bytes.data(),
                  regions[i].owner, hashes[i]);
  }
  return "";
}

} // namespace jitrun
