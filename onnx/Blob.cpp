//===- Blob.cpp - blobs the importer writes its constants into -----------===//

#include "onnx/Importer.h"

#include <new>

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

} // namespace onnximport
} // namespace jitrun
