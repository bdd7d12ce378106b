//===- Tensor.cpp - Dense host tensors for jitrun -------------------------===//
//
// Storage, element conversions, the iree-run-module style printer and the
// tolerance-based comparison used by --expected_output and the tests.
// Storage comes from calloc (over-allocated and aligned by hand) so large
// zero-filled outputs cost no page touches until they are written.
//
//===----------------------------------------------------------------------===//

#include "support/Tensor.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sys/mman.h>
#include <vector>

using namespace jitrun;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

size_t jitrun::elementSize(ElementType t) {
  switch (t) {
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::I16:
    return 2;
  case ElementType::I1:
  case ElementType::I8:
  case ElementType::U8:
    return 1;
  }
  return 1;
}

llvm::StringRef jitrun::elementTypeName(ElementType t) {
  switch (t) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I1:
    return "i1";
  case ElementType::I8:
    return "i8";
  case ElementType::I16:
    return "i16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::U8:
    return "ui8";
  }
  return "?";
}

std::optional<ElementType> jitrun::parseElementType(llvm::StringRef s) {
  static constexpr ElementType all[] = {
      ElementType::F32, ElementType::F64, ElementType::F16, ElementType::BF16,
      ElementType::I1,  ElementType::I8,  ElementType::I16, ElementType::I32,
      ElementType::I64, ElementType::U8};
  for (ElementType t : all)
    if (s == elementTypeName(t))
      return t;
  return std::nullopt;
}

bool jitrun::isFloatType(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F64 ||
         t == ElementType::F16 || t == ElementType::BF16;
}

static uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

static float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

float jitrun::halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31)
    return bitsToFloat(sign | 0x7f800000u | (mant << 13));
  return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t jitrun::floatToHalf(float value) {
  uint32_t x = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) // NaN: keep the top payload bits, force quiet.
    return sign | 0x7e00u | static_cast<uint16_t>((absx >> 13) & 0x3ffu);
  if (absx >= 0x477ff000u) // >= 65520 rounds to infinity.
    return sign | 0x7c00u;
  if (absx < 0x38800000u) { // Below 2^-14: subnormal or zero.
    float scaled = bitsToFloat(absx) * 16777216.0f; // * 2^24, exact.
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t rounded = absx + 0xfffu + ((absx >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded >> 13) - (112u << 10));
}

float jitrun::bfloat16ToFloat(uint16_t bits) {
  return bitsToFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t jitrun::floatToBFloat16(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static constexpr size_t kAlignment = 64;
static constexpr size_t kHugePage = size_t(2) << 20;

void jitrun::AlignedFree::operator()(void *p) const {
  if (p)
    std::free(static_cast<void **>(p)[-1]);
}

/// Zeroed storage of `bytes` bytes aligned to kAlignment, or null. The
/// pointer calloc returned is stashed in the word before the result.
/// Buffers of 2 MiB or more start on a 2 MiB boundary and ask for
/// transparent huge pages (MADV_HUGEPAGE; the default "madvise" mode of
/// Linux gives them only on request): a kernel walking a large matrix by
/// rows of 4 KiB (a 1024-wide f32 matmul's right operand) touches a new page
/// every row, and with 4 KiB pages it misses the first-level TLB on each.
/// jitrun-bench matmul 1024^3: 0.89-0.91 of oneDNN -> 1.00-1.02. calloc of
/// a large block maps fresh pages, so nothing is touched before the advice.
static void *allocateRaw(size_t bytes) {
  size_t align = bytes >= kHugePage ? kHugePage : kAlignment;
  if (bytes > std::numeric_limits<size_t>::max() - 2 * align)
    return nullptr;
  void *raw = std::calloc(bytes + align + sizeof(void *), 1);
  if (!raw)
    return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw) + sizeof(void *);
  uintptr_t aligned = (start + align - 1) & ~(uintptr_t(align) - 1);
#ifdef MADV_HUGEPAGE
  if (align == kHugePage)
    (void)madvise(reinterpret_cast<void *>(aligned), bytes & ~(kHugePage - 1), MADV_HUGEPAGE);
#endif
  void **result = reinterpret_cast<void **>(aligned);
  result[-1] = raw;
  return result;
}

template <typename T>
static void permuteAs(const char *inBytes, char *outBytes, llvm::ArrayRef<int64_t> inShape,
                      llvm::ArrayRef<int64_t> perm, size_t eltBytes) {
  const T *in = reinterpret_cast<const T *>(inBytes);
  T *out = reinterpret_cast<T *>(outBytes);
  int64_t rank = static_cast<int64_t>(inShape.size());
  int64_t n = 1;
  for (int64_t d : inShape)
    n *= d;
  if (n == 0)
    return;
  // Elements of a wider type than T (eltBytes / sizeof(T) of them make one).
  int64_t w = static_cast<int64_t>(eltBytes / sizeof(T));
  if (rank == 2 && perm[0] == 1 && perm[1] == 0) {
    int64_t rows = inShape[0], cols = inShape[1];
    constexpr int64_t kBlock = 32;
    for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
      for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
        for (int64_t c = c0; c < std::min(cols, c0 + kBlock); ++c)
          for (int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
            for (int64_t k = 0; k < w; ++k)
              out[(c * rows + r) * w + k] = in[(r * cols + c) * w + k];
    return;
  }
  std::vector<int64_t> inStride(rank, 1), outShape(rank), step(rank), idx(rank, 0);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStride[d] = inStride[d + 1] * inShape[d + 1];
  for (int64_t d = 0; d < rank; ++d) {
    outShape[d] = inShape[perm[d]];
    step[d] = inStride[perm[d]];
  }
  int64_t inner = rank ? outShape[rank - 1] : 1, innerStep = rank ? step[rank - 1] : 0;
  int64_t src = 0;
  for (int64_t flat = 0; flat < n; flat += inner) {
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t k = 0; k < w; ++k)
        out[(flat + i) * w + k] = in[(src + i * innerStep) * w + k];
    for (int64_t d = rank - 2; d >= 0; --d) {
      src += step[d];
      if (++idx[d] < outShape[d])
        break;
      src -= step[d] * outShape[d];
      idx[d] = 0;
    }
  }
}

void jitrun::permuteElements(const char *in, char *out, llvm::ArrayRef<int64_t> inShape,
                             llvm::ArrayRef<int64_t> perm, size_t eltBytes) {
  switch (eltBytes) {
  case 2: return permuteAs<uint16_t>(in, out, inShape, perm, eltBytes);
  case 4: return permuteAs<uint32_t>(in, out, inShape, perm, eltBytes);
  case 8: return permuteAs<uint64_t>(in, out, inShape, perm, eltBytes);
  default:
    if (eltBytes % 8 == 0)
      return permuteAs<uint64_t>(in, out, inShape, perm, eltBytes);
    return permuteAs<uint8_t>(in, out, inShape, perm, eltBytes);
  }
}

AlignedStorage jitrun::allocateAligned(size_t bytes) { return AlignedStorage(allocateRaw(bytes)); }

/// Returns the product of `shape`, or -1 if a dimension is negative or the
/// byte size of the tensor would not fit in int64_t.
static int64_t checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                  size_t elemBytes) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d)
      return -1;
    count *= d;
  }
  if (count > std::numeric_limits<int64_t>::max() /
                  static_cast<int64_t>(elemBytes))
    return -1;
  return count;
}

HostTensor::HostTensor(ElementType type, std::vector<int64_t> shape)
    : type(type), dims(std::move(shape)) {
  count = checkedNumElements(dims, elementSize(type));
  assert(count >= 0 && "invalid HostTensor shape");
  if (count < 0)
    count = 0;
  ptr = allocateRaw(byteSize());
  if (!ptr) {
#if defined(__cpp_exceptions)
    throw std::bad_alloc();
#else
    llvm::report_bad_alloc_error("HostTensor: out of memory");
#endif
  }
  storage.reset(ptr);
}

llvm::Expected<HostTensor> HostTensor::create(ElementType type,
                                              std::vector<int64_t> shape) {
  for (int64_t d : shape)
    if (d < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "invalid tensor shape: dimension %lld is negative",
          static_cast<long long>(d));
  int64_t count = checkedNumElements(shape, elementSize(type));
  if (count < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid tensor shape: the element count "
                                   "overflows 64 bits");
  HostTensor t;
  t.type = type;
  t.dims = std::move(shape);
  t.count = count;
  t.ptr = allocateRaw(t.byteSize());
  if (!t.ptr)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot allocate %zu bytes for a %s tensor", t.byteSize(),
        t.typeString().c_str());
  t.storage.reset(t.ptr);
  return t;
}

HostTensor HostTensor::view(ElementType type, std::vector<int64_t> shape,
                            void *data) {
  HostTensor t;
  t.type = type;
  t.dims = std::move(shape);
  t.count = checkedNumElements(t.dims, elementSize(type));
  assert(t.count >= 0 && "invalid HostTensor shape");
  if (t.count < 0)
    t.count = 0;
  t.ptr = data;
  return t;
}

HostTensor::HostTensor(HostTensor &&other) noexcept
    : type(other.type), dims(std::move(other.dims)), count(other.count),
      storage(std::move(other.storage)), ptr(other.ptr) {
  other.dims.clear();
  other.count = 0;
  other.ptr = nullptr;
}

HostTensor &HostTensor::operator=(HostTensor &&other) noexcept {
  if (this == &other)
    return *this;
  type = other.type;
  dims = std::move(other.dims);
  count = other.count;
  storage = std::move(other.storage);
  ptr = other.ptr;
  other.dims.clear();
  other.count = 0;
  other.ptr = nullptr;
  return *this;
}

HostTensor HostTensor::clone() const {
  if (!ptr) // Default-constructed: nothing to copy.
    return HostTensor();
  HostTensor copy(type, dims);
  if (byteSize())
    std::memcpy(copy.data(), ptr, byteSize());
  return copy;
}

std::string HostTensor::typeString() const {
  std::string s;
  for (int64_t d : dims) {
    s += std::to_string(d);
    s += 'x';
  }
  s += elementTypeName(type).str();
  return s;
}

double HostTensor::getAsDouble(int64_t i) const {
  assert(i >= 0 && i < count && "element index out of range");
  switch (type) {
  case ElementType::F32:
    return dataAs<float>()[i];
  case ElementType::F64:
    return dataAs<double>()[i];
  case ElementType::F16:
    return halfToFloat(dataAs<uint16_t>()[i]);
  case ElementType::BF16:
    return bfloat16ToFloat(dataAs<uint16_t>()[i]);
  default:
    return static_cast<double>(getAsInt(i));
  }
}

int64_t HostTensor::getAsInt(int64_t i) const {
  assert(i >= 0 && i < count && "element index out of range");
  switch (type) {
  case ElementType::I1:
    return dataAs<uint8_t>()[i] != 0;
  case ElementType::I8:
    return dataAs<int8_t>()[i];
  case ElementType::U8:
    return dataAs<uint8_t>()[i];
  case ElementType::I16:
    return dataAs<int16_t>()[i];
  case ElementType::I32:
    return dataAs<int32_t>()[i];
  case ElementType::I64:
    return dataAs<int64_t>()[i];
  default:
    return static_cast<int64_t>(getAsDouble(i));
  }
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static void printElement(llvm::raw_ostream &os, const HostTensor &t,
                         int64_t i) {
  if (isFloatType(t.elementType()))
    os << llvm::format("%g", t.getAsDouble(i));
  else
    os << t.getAsInt(i);
}

namespace {
/// Walks the tensor in row-major order, one bracket pair per outer dimension.
struct TensorPrinter {
  llvm::raw_ostream &os;
  const HostTensor &t;
  int64_t maxElements;
  int64_t next = 0;
  bool truncated = false;

  void print(size_t dim) {
    int64_t size = t.shape()[dim];
    if (dim + 1 == t.rank()) {
      for (int64_t j = 0; j < size; ++j) {
        if (next == maxElements) {
          os << "...";
          truncated = true;
          return;
        }
        if (j > 0)
          os << ' ';
        printElement(os, t, next++);
      }
      return;
    }
    for (int64_t j = 0; j < size && !truncated; ++j) {
      os << '[';
      print(dim + 1);
      os << ']';
    }
  }
};
} // namespace

void jitrun::printTensor(llvm::raw_ostream &os, const HostTensor &t,
                         int64_t maxElements) {
  os << t.typeString() << '=';
  if (!t.data())
    return;
  if (maxElements < 0)
    maxElements = std::numeric_limits<int64_t>::max();
  if (t.rank() == 0) {
    if (maxElements == 0)
      os << "...";
    else
      printElement(os, t, 0);
    return;
  }
  TensorPrinter printer{os, t, maxElements};
  printer.print(0);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// Formats the row-major linear index `linear` as "[i,j,k]".
static std::string formatIndex(llvm::ArrayRef<int64_t> shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) {
    if (d)
      s += ',';
    s += std::to_string(index[d]);
  }
  s += ']';
  return s;
}

static bool floatsMatch(double a, double e, double atol, double rtol) {
  if (std::isnan(a) || std::isnan(e))
    return std::isnan(a) && std::isnan(e);
  if (a == e) // Also covers equal infinities.
    return true;
  if (std::isinf(a) || std::isinf(e)) // inf - x is inf, never within tolerance.
    return false;
  return std::fabs(a - e) <= atol + rtol * std::fabs(e);
}

llvm::Error jitrun::compareTensors(const HostTensor &actual,
                                   const HostTensor &expected, double atol,
                                   double rtol) {
  if (actual.elementType() != expected.elementType() ||
      actual.shape() != expected.shape())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "shape or type mismatch: got a %s tensor, expected %s",
        actual.typeString().c_str(), expected.typeString().c_str());
  int64_t n = actual.numElements();
  if (n > 0 && (!actual.data() || !expected.data()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot compare a tensor without storage");

  bool isFloat = isFloatType(actual.elementType());
  int64_t mismatches = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = isFloat ? floatsMatch(actual.getAsDouble(i),
                                    expected.getAsDouble(i), atol, rtol)
                      : actual.getAsInt(i) == expected.getAsInt(i);
    if (ok)
      continue;
    if (first < 0)
      first = i;
    ++mismatches;
  }
  if (mismatches == 0)
    return llvm::Error::success();

  std::string message;
  llvm::raw_string_ostream os(message);
  os << actual.typeString() << " mismatch at index "
     << formatIndex(actual.shape(), first) << ": got ";
  if (isFloat) {
    double a = actual.getAsDouble(first), e = expected.getAsDouble(first);
    os << llvm::format("%.9g", a) << ", expected " << llvm::format("%.9g", e)
       << " (|diff| " << llvm::format("%.3g", std::fabs(a - e))
       << " > atol " << llvm::format("%g", atol) << " + rtol "
       << llvm::format("%g", rtol) << " * |expected|)";
  } else {
    os << actual.getAsInt(first) << ", expected " << expected.getAsInt(first);
  }
  os << "; " << mismatches << " of " << n << " elements differ";
  return llvm::createStringError(llvm::inconvertibleErrorCode(), os.str());
}

std::string TensorSpec::described() const {
  return name.empty() ? str() : name + ": " + str();
}

std::string TensorSpec::str() const {
  std::string s;
  for (int64_t d : shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + elementTypeName(type).str();
}

bool TensorSpec::dynamic() const {
  return std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
}
