//===- Blob.cpp - the bytes of the importer's constants ------------------===//
//
// The blobs the importer writes its constants into, and the initializers it
// reads from external data files.
//
//===----------------------------------------------------------------------===//

#include "onnx/Importer.h"
#include "onnx/Wire.h"
#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <new>

using namespace mlir;
using llvm::SmallString;
using llvm::StringRef;

namespace jitrun {
namespace onnximport {

// Not HeapAsmResourceBlob::allocate, whose allocate_buffer aborts the process
// when memory runs out: a std::bad_alloc fails the compile cleanly.
mlir::AsmResourceBlob newBlob(size_t bytes) {
  void *data = ::operator new(bytes ? bytes : 1, std::align_val_t(64), std::nothrow);
  if (!data)
    throw std::bad_alloc();
  auto free = [](void *p, size_t, size_t) { ::operator delete(p, std::align_val_t(64)); };
  return mlir::AsmResourceBlob(llvm::ArrayRef<char>(static_cast<char *>(data), bytes), 64, free,
                               /*dataIsMutable=*/true);
}

mlir::AsmResourceBlob rawDataBlob(StringRef raw, bool inPlace) {
  if (inPlace && reinterpret_cast<uintptr_t>(raw.data()) % kRawDataAlignment == 0)
    return mlir::AsmResourceBlob(llvm::ArrayRef<char>(raw.data(), raw.size()), kRawDataAlignment,
                                 /*deleter=*/nullptr, /*dataIsMutable=*/false);
  mlir::AsmResourceBlob blob = newBlob(raw.size());
  std::memcpy(blob.getMutableData().data(), raw.data(), raw.size());
  return blob;
}

FailureOr<std::string> externalData(const onnx::TensorProto &t, StringRef baseDir,
                                    size_t tensorBytes, std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    auto number = [&](int64_t &out) {
      if (StringRef(e.value()).getAsInteger(10, out) || out < 0) {
        error = "tensor '" + t.name() + "': external data " + e.key() + " '" + e.value() +
                "' is not a number";
        return false;
      }
      return true;
    };
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset" && !number(offset))
      return failure();
    else if (e.key() == "length" && !number(length))
      return failure();
  }
  if (location.empty() || llvm::sys::path::is_absolute(location) ||
      llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                    llvm::sys::path::end(location)),
                   [](StringRef c) { return c == ".."; })) {
    error = "tensor '" + t.name() + "': external data location '" + location +
            "' must be a file name relative to the model's directory";
    return failure();
  }
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  // A length that is not the tensor's is refused before anything is read
  // (a tensor without one runs to the end of the file, which may be huge).
  uint64_t fileBytes = 0;
  if (length < 0 && !llvm::sys::fs::file_size(path, fileBytes) &&
      static_cast<uint64_t>(offset) <= fileBytes)
    length = static_cast<int64_t>(fileBytes - static_cast<uint64_t>(offset));
  if (length >= 0 && static_cast<uint64_t>(length) != tensorBytes) {
    error = "tensor '" + t.name() + "' holds " + std::to_string(length) +
            " bytes of data, not " + std::to_string(tensorBytes);
    return failure();
  }
  // Only the tensor's own bytes: one file often holds every weight, which
  // read whole for each of them took time in the square of the model's size.
  llvm::Expected<std::string> bytes =
      readRegularFileRange(path, "external data", static_cast<uint64_t>(offset), length);
  if (!bytes) {
    error = "tensor '" + t.name() + "': " + llvm::toString(bytes.takeError());
    return failure();
  }
  return std::move(*bytes);
}

} // namespace onnximport
} // namespace jitrun
