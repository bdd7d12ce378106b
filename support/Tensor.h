//===- Tensor.h - Dense host tensors for jitrun ---------------------------===//
//
// HostTensor is the value that crosses every host-side boundary of jitrun: CLI
// inputs and outputs, .npy files, the reference comparison. It is a dense
// row-major buffer with 64-byte aligned storage (so JIT-compiled kernels may
// use aligned vector loads on it) and no dependency on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_TENSOR_H
#define JITRUN_SUPPORT_TENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jitrun {

/// The element types a HostTensor can hold.
enum class ElementType { F32, F64, F16, BF16, I1, I8, I16, I32, I64, U8 };

/// Returns the storage size of one element in bytes (I1 is stored as 1 byte).
size_t elementSize(ElementType t);

/// Returns the MLIR spelling of `t`: "f32", "f64", "f16", "bf16", "i1", "i8",
/// "i16", "i32", "i64", "ui8".
llvm::StringRef elementTypeName(ElementType t);

/// Parses the spelling produced by elementTypeName; std::nullopt otherwise.
std::optional<ElementType> parseElementType(llvm::StringRef s);

/// Returns true for F32, F64, F16 and BF16.
bool isFloatType(ElementType t);

/// Converts an IEEE binary16 bit pattern to float (exact).
float halfToFloat(uint16_t bits);
/// Converts a float to the nearest IEEE binary16 bit pattern (ties to even).
uint16_t floatToHalf(float value);
/// Converts a bfloat16 bit pattern to float (exact).
float bfloat16ToFloat(uint16_t bits);
/// Converts a float to the nearest bfloat16 bit pattern (ties to even).
uint16_t floatToBFloat16(float value);

/// Writes into `out` the dense row-major elements of `in` (of `inShape`,
/// `eltBytes` bytes each) with their dims permuted: output dim i is input
/// dim perm[i]. A 2-D transpose goes in square blocks, so that neither side
/// walks a large stride element by element; other permutations walk the
/// output in order with the source offset kept up to date.
void permuteElements(const char *in, char *out, llvm::ArrayRef<int64_t> inShape,
                     llvm::ArrayRef<int64_t> perm, size_t eltBytes);

/// Frees storage from allocateAligned.
struct AlignedFree {
  void operator()(void *p) const;
};
using AlignedStorage = std::unique_ptr<void, AlignedFree>;

/// Zero-filled storage of `bytes` bytes, 64-byte aligned; from 2 MiB up,
/// 2 MiB aligned and backed by transparent huge pages where the system
/// allows. Null when out of memory.
AlignedStorage allocateAligned(size_t bytes);

/// A dense row-major host tensor with 64-byte aligned storage it owns (or a
/// non-owning view). Rank 0 tensors hold one element; a zero dimension makes
/// an empty tensor. Movable; copying is explicit through clone().
class HostTensor {
public:
  /// An empty tensor: no elements, no storage (data() is null). Moved-from
  /// tensors are in this state too.
  HostTensor() = default;

  /// An owning, zero-filled, 64-byte aligned tensor. Every dimension must be
  /// non-negative (asserted); throws std::bad_alloc if memory runs out. Use
  /// create() for shapes that come from user input.
  HostTensor(ElementType type, std::vector<int64_t> shape);

  /// Like the constructor, but returns an error for a negative dimension, an
  /// element count that overflows, or a failed allocation.
  static llvm::Expected<HostTensor> create(ElementType type,
                                           std::vector<int64_t> shape);

  /// A non-owning view of `data`, which must hold the whole tensor and outlive
  /// the view.
  static HostTensor view(ElementType type, std::vector<int64_t> shape,
                         void *data);

  HostTensor(HostTensor &&other) noexcept;
  HostTensor &operator=(HostTensor &&other) noexcept;
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;
  ~HostTensor() = default;

  /// The element type.
  ElementType elementType() const { return type; }
  /// The dimensions, outermost first.
  const std::vector<int64_t> &shape() const { return dims; }
  /// The rank (number of dimensions).
  size_t rank() const { return dims.size(); }
  /// The product of the dimensions (1 for rank 0; 0 for an empty tensor).
  int64_t numElements() const { return count; }
  /// numElements() * elementSize(elementType()).
  size_t byteSize() const {
    return static_cast<size_t>(count) * elementSize(type);
  }
  /// True if the tensor owns its storage (false for views).
  bool isOwning() const { return static_cast<bool>(storage); }

  /// The first byte of the elements.
  void *data() { return ptr; }
  /// The first byte of the elements.
  const void *data() const { return ptr; }
  /// The elements reinterpreted as T (T must match the element storage).
  template <typename T> T *dataAs() { return static_cast<T *>(ptr); }
  /// The elements reinterpreted as T (T must match the element storage).
  template <typename T> const T *dataAs() const {
    return static_cast<const T *>(ptr);
  }

  /// A deep, owning copy (also of a view).
  HostTensor clone() const;

  /// The MLIR-like type string: "2x3xf32", or "f32" for rank 0.
  std::string typeString() const;

  /// Element `i` (row-major linear index) converted to double; i1 reads as
  /// 0/1. Handy for tests and comparisons.
  double getAsDouble(int64_t i) const;
  /// Element `i` of an integer or i1 tensor as int64_t.
  int64_t getAsInt(int64_t i) const;

private:
  ElementType type = ElementType::F32;
  std::vector<int64_t> dims;
  int64_t count = 0;
  std::unique_ptr<void, AlignedFree> storage;
  void *ptr = nullptr;
};

/// Prints like iree-run-module: "2x3xf32=[1 2 3][4 5 6]" (rank 1:
/// "3xf32=1 2 3", rank 0: "f32=1"). Floats use up to 6 significant digits
/// (%g), i1 prints as 0/1. If the tensor has more than `maxElements` elements
/// only the first `maxElements` are printed, followed by "...".
void printTensor(llvm::raw_ostream &os, const HostTensor &t,
                 int64_t maxElements = 1024);

/// Compares element-wise: |a-e| <= atol + rtol*|e| for floats (NaN matches
/// only NaN, an infinity only the same infinity), exact for integers and i1.
/// On mismatch the error names the first bad index as [i,j,k], both values
/// and the number of mismatching elements. A type or shape mismatch is an
/// error too.
llvm::Error compareTensors(const HostTensor &actual,
                           const HostTensor &expected, double atol,
                           double rtol);

/// The type of one input or output.
struct TensorSpec {
  ElementType type;
  std::vector<int64_t> shape;
  /// The model's name for the tensor (an ONNX input or output name, or the
  /// `jitrun.name` attribute of an MLIR argument or result); may be empty.
  std::string name = {};
  /// A dynamic dim's name, per dim ("" for a static or unnamed dim): dims of
  /// the same name must be equal at run time (ONNX's dim_param, or the ties
  /// jitrun finds between an MLIR model's arguments).
  std::vector<std::string> dimNames = {};
  /// `1x3x224x224xf32`; a dynamic dim (-1) is `?`.
  std::string str() const;
  /// True when some dim is dynamic (-1).
  bool dynamic() const;
  /// `NAME: 1x3x224x224xf32`, or str() without a name.
  std::string described() const;
};

} // namespace jitrun

#endif // JITRUN_SUPPORT_TENSOR_H
