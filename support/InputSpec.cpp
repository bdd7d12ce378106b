//===- InputSpec.cpp - Parse --input / --expected_output values -----------===//
//
// The grammar is "[DIMxDIMx...]TYPE[=VALUES]" or "@FILE.npy". Random data
// comes from std::mt19937_64 (whose output the standard fixes) mapped to a
// value grid by bit manipulation, not by std::*_distribution (whose
// algorithm is implementation-defined), so a seed means the same data on
// every platform.
//
//===----------------------------------------------------------------------===//

#include "support/InputSpec.h"

#include "support/Npy.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace jitrun;

namespace {
/// Builds errors that quote the whole spec.
struct SpecErrors {
  llvm::StringRef spec;
  llvm::Error operator()(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid input spec '" + spec.str() +
                                       "': " + message.str());
  }
};
} // namespace

static bool isDecimalInteger(llvm::StringRef s) {
  s.consume_front("-");
  return !s.empty() && llvm::all_of(s, llvm::isDigit);
}

/// Parses a float token; `why` is set on failure.
static bool parseFloatToken(llvm::StringRef token, double &value,
                            std::string &why) {
  if (token.getAsDouble(value, /*AllowInexact=*/true)) {
    why = "'" + token.str() + "' is not a floating-point number";
    return false;
  }
  if (std::isinf(value) && !token.contains_insensitive("inf")) {
    why = "'" + token.str() + "' is out of range for f64";
    return false;
  }
  return true;
}

/// Stores the float `value` as element `i` of `t`; fails if a finite value
/// overflows the element type.
static bool storeFloat(HostTensor &t, int64_t i, double value,
                       llvm::StringRef token, std::string &why) {
  auto outOfRange = [&]() {
    why = "'" + token.str() + "' is out of range for " +
          elementTypeName(t.elementType()).str();
    return false;
  };
  if (t.elementType() == ElementType::F64) {
    t.dataAs<double>()[i] = value;
    return true;
  }
  if (std::isfinite(value) && std::fabs(value) > FLT_MAX)
    return outOfRange();
  float f = static_cast<float>(value);
  switch (t.elementType()) {
  case ElementType::F32:
    t.dataAs<float>()[i] = f;
    return true;
  case ElementType::F16: {
    uint16_t h = floatToHalf(f);
    if (std::isfinite(f) && (h & 0x7fffu) == 0x7c00u)
      return outOfRange();
    t.dataAs<uint16_t>()[i] = h;
    return true;
  }
  case ElementType::BF16: {
    uint16_t b = floatToBFloat16(f);
    if (std::isfinite(f) && (b & 0x7fffu) == 0x7f80u)
      return outOfRange();
    t.dataAs<uint16_t>()[i] = b;
    return true;
  }
  default:
    return false;
  }
}

/// Parses an integer or boolean token and stores it as element `i` of `t`.
static bool storeInt(HostTensor &t, int64_t i, llvm::StringRef token,
                     std::string &why) {
  ElementType type = t.elementType();
  if (type == ElementType::I1) {
    std::string lower = token.lower();
    if (lower == "true" || lower == "1") {
      t.dataAs<uint8_t>()[i] = 1;
      return true;
    }
    if (lower == "false" || lower == "0") {
      t.dataAs<uint8_t>()[i] = 0;
      return true;
    }
    why = "'" + token.str() + "' is not a boolean (use true/false/0/1)";
    return false;
  }

  auto outOfRange = [&](int64_t lo, int64_t hi) {
    why = "'" + token.str() + "' is out of range for " +
          elementTypeName(type).str() + " [" + std::to_string(lo) + ", " +
          std::to_string(hi) + "]";
    return false;
  };
  int64_t lo = 0, hi = 0;
  switch (type) {
  case ElementType::I8:
    lo = INT8_MIN, hi = INT8_MAX;
    break;
  case ElementType::U8:
    lo = 0, hi = UINT8_MAX;
    break;
  case ElementType::I16:
    lo = INT16_MIN, hi = INT16_MAX;
    break;
  case ElementType::I32:
    lo = INT32_MIN, hi = INT32_MAX;
    break;
  default:
    lo = INT64_MIN, hi = INT64_MAX;
    break;
  }
  int64_t value;
  if (token.getAsInteger(10, value)) {
    if (isDecimalInteger(token))
      return outOfRange(lo, hi);
    why = "'" + token.str() + "' is not a decimal integer";
    return false;
  }
  if (value < lo || value > hi)
    return outOfRange(lo, hi);
  switch (type) {
  case ElementType::I8:
    t.dataAs<int8_t>()[i] = static_cast<int8_t>(value);
    break;
  case ElementType::U8:
    t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(value);
    break;
  case ElementType::I16:
    t.dataAs<int16_t>()[i] = static_cast<int16_t>(value);
    break;
  case ElementType::I32:
    t.dataAs<int32_t>()[i] = static_cast<int32_t>(value);
    break;
  default:
    t.dataAs<int64_t>()[i] = value;
    break;
  }
  return true;
}

/// Parses and stores one token as element `i`.
static bool storeToken(HostTensor &t, int64_t i, llvm::StringRef token,
                       std::string &why) {
  if (!isFloatType(t.elementType()))
    return storeInt(t, i, token, why);
  double value;
  return parseFloatToken(token, value, why) &&
         storeFloat(t, i, value, token, why);
}

/// Copies element 0 over the rest of the tensor.
static void fillFromFirst(HostTensor &t) {
  size_t size = elementSize(t.elementType());
  char *p = static_cast<char *>(t.data());
  for (int64_t i = 1; i < t.numElements(); ++i)
    std::memcpy(p + i * size, p, size);
}

/// Fills `t` with deterministic pseudo-random values.
static void fillRandom(HostTensor &t, uint64_t seed) {
  std::mt19937_64 gen(seed);
  int64_t n = t.numElements();
  // Floats: k * 2^(1-p) - 1 with k in [0, 2^p) is exact at precision p and
  // lies in [-1, 1).
  auto uniform = [&](int precision) {
    uint64_t k = gen() >> (64 - precision);
    return std::ldexp(static_cast<double>(k), 1 - precision) - 1.0;
  };
  switch (t.elementType()) {
  case ElementType::F64:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<double>()[i] = uniform(53);
    break;
  case ElementType::F32:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<float>()[i] = static_cast<float>(uniform(24));
    break;
  case ElementType::F16:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<uint16_t>()[i] = floatToHalf(static_cast<float>(uniform(11)));
    break;
  case ElementType::BF16:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<uint16_t>()[i] =
          floatToBFloat16(static_cast<float>(uniform(8)));
    break;
  case ElementType::I1:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(gen() >> 63);
    break;
  case ElementType::U8:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(gen() >> 61);
    break;
  case ElementType::I8:
  case ElementType::I16:
  case ElementType::I32:
  case ElementType::I64:
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = static_cast<int64_t>(gen() >> 60) - 8;
      switch (t.elementType()) {
      case ElementType::I8:
        t.dataAs<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case ElementType::I16:
        t.dataAs<int16_t>()[i] = static_cast<int16_t>(v);
        break;
      case ElementType::I32:
        t.dataAs<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      default:
        t.dataAs<int64_t>()[i] = v;
        break;
      }
    }
    break;
  }
}

llvm::Expected<HostTensor> jitrun::parseInputSpec(llvm::StringRef spec,
                                                  uint64_t seed) {
  SpecErrors error{spec};
  llvm::StringRef text = spec.trim();
  if (text.empty())
    return error("empty spec (expected e.g. 2x3xf32=1,2,3,4,5,6 or @file.npy)");

  if (text.consume_front("@")) {
    if (text.empty())
      return error("missing file name after '@'");
    llvm::Expected<HostTensor> tensor = readNpy(text);
    if (!tensor)
      return error(llvm::toString(tensor.takeError()));
    return tensor;
  }

  // The type: DIMxDIMx...xTYPE.
  auto [typePart, valuePart] = text.split('=');
  bool hasValues = text.contains('=');
  typePart = typePart.trim();
  llvm::SmallVector<llvm::StringRef, 8> parts;
  typePart.split(parts, 'x');
  std::optional<ElementType> type = parseElementType(parts.back().trim());
  if (!type) {
    // The type is what follows the leading DIMx groups: in "4xindex" the
    // 'x' of "index" split the type itself.
    size_t start = typePart.find_first_not_of("0123456789x? ");
    llvm::StringRef named = start == llvm::StringRef::npos ? parts.back() : typePart.drop_front(start);
    if (named == "index")
      return error("'index' has no fixed size in memory; give the model's tensor an integer "
                   "type such as i64, and the input as in 4xi64=1");
    return error("unknown element type '" + named +
                 "' (expected f32, f64, f16, bf16, i1, i8, i16, i32, i64 or "
                 "ui8 after the dimensions, as in 2x3xf32)");
  }
  std::vector<int64_t> shape;
  for (llvm::StringRef dim : llvm::ArrayRef(parts).drop_back()) {
    dim = dim.trim();
    if (dim.empty())
      return error("empty dimension in '" + typePart + "'");
    if (dim == "?")
      return error("dynamic dimension '?' is not allowed; give a static size");
    if (dim.starts_with("-"))
      return error("negative dimension '" + dim + "'");
    int64_t d;
    if (!llvm::all_of(dim, llvm::isDigit))
      return error("dimension '" + dim + "' is not a non-negative integer");
    if (dim.getAsInteger(10, d))
      return error("dimension '" + dim + "' is too large");
    shape.push_back(d);
  }

  // Refuse absurd sizes before allocating.
  uint64_t bytes = elementSize(*type);
  for (int64_t d : shape) {
    if (d != 0 && bytes > kMaxInputSpecBytes / static_cast<uint64_t>(d))
      return error("the tensor is larger than the " +
                   llvm::Twine(kMaxInputSpecBytes >> 30) +
                   " GiB limit for inputs given on the command line (use a "
                   ".npy file)");
    bytes *= static_cast<uint64_t>(d);
  }
  if (bytes > kMaxInputSpecBytes)
    return error("the tensor is larger than the " +
                 llvm::Twine(kMaxInputSpecBytes >> 30) + " GiB limit");

  llvm::Expected<HostTensor> created = HostTensor::create(*type, shape);
  if (!created)
    return error(llvm::toString(created.takeError()));
  HostTensor tensor = std::move(*created);

  if (!hasValues) {
    fillRandom(tensor, seed);
    return tensor;
  }

  // The values: separated by commas and/or whitespace, brackets ignored.
  if (valuePart.trim().empty())
    return error("missing value after '='");
  std::string cleaned = valuePart.str();
  for (char &c : cleaned)
    if (c == '[' || c == ']')
      c = ' ';
  llvm::SmallVector<llvm::StringRef, 16> pieces;
  llvm::StringRef(cleaned).split(pieces, ',');
  llvm::SmallVector<llvm::StringRef, 16> tokens;
  for (size_t p = 0; p < pieces.size(); ++p) {
    size_t before = tokens.size();
    llvm::SplitString(pieces[p], tokens, " \t\r\n");
    if (tokens.size() == before && pieces.size() > 1)
      return error("empty value between commas (entry " + llvm::Twine(p + 1) +
                   " of " + llvm::Twine(pieces.size()) + ")");
  }

  int64_t n = tensor.numElements();
  int64_t got = static_cast<int64_t>(tokens.size());
  if (got != n && got != 1)
    return error("expected " + llvm::Twine(n) + " values for " +
                 tensor.typeString() + " (or 1 to fill it), got " +
                 llvm::Twine(got));
  if (n == 0) {
    // Still validate a lone value, even though there is nothing to fill.
    llvm::Expected<HostTensor> probe = HostTensor::create(*type, {});
    if (!probe)
      return error(llvm::toString(probe.takeError()));
    std::string why;
    for (llvm::StringRef token : tokens)
      if (!storeToken(*probe, 0, token, why))
        return error(why);
    return tensor;
  }
  std::string why;
  for (int64_t i = 0; i < got; ++i)
    if (!storeToken(tensor, i, tokens[i], why))
      return error(why);
  if (got == 1)
    fillFromFirst(tensor);
  return tensor;
}
