//===- Npy.cpp - NumPy .npy files for HostTensor --------------------------===//
//
// A small, strict reader for the .npy header (a Python dict literal with the
// keys 'descr', 'fortran_order' and 'shape') and a writer that produces what
// numpy.save produces for version 1.0. Every malformed input is reported as
// an llvm::Error that names the file.
//
//===----------------------------------------------------------------------===//

#include "support/Npy.h"
#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <limits>

using namespace jitrun;

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

static llvm::Error npyError(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid .npy file '" + name.str() +
                                     "': " + message.str());
}

std::optional<llvm::StringRef> jitrun::npyDescrForType(ElementType t) {
  switch (t) {
  case ElementType::F32:
    return llvm::StringRef("<f4");
  case ElementType::F64:
    return llvm::StringRef("<f8");
  case ElementType::F16:
    return llvm::StringRef("<f2");
  case ElementType::I1:
    return llvm::StringRef("|b1");
  case ElementType::I8:
    return llvm::StringRef("|i1");
  case ElementType::U8:
    return llvm::StringRef("|u1");
  case ElementType::I16:
    return llvm::StringRef("<i2");
  case ElementType::I32:
    return llvm::StringRef("<i4");
  case ElementType::I64:
    return llvm::StringRef("<i8");
  case ElementType::BF16:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Maps a descr to an element type; sets `why` when it is not supported.
static std::optional<ElementType> typeForDescr(llvm::StringRef descr,
                                               std::string &why) {
  if (descr.size() < 3) {
    why = "unsupported dtype '" + descr.str() + "'";
    return std::nullopt;
  }
  char order = descr[0];
  llvm::StringRef kind = descr.drop_front();
  if (order == '>') {
    why = "big-endian dtype '" + descr.str() +
          "' is not supported (convert with arr.astype(arr.dtype."
          "newbyteorder('<')))";
    return std::nullopt;
  }
  static const struct {
    const char *kind;
    ElementType type;
  } table[] = {{"f4", ElementType::F32}, {"f8", ElementType::F64},
               {"f2", ElementType::F16}, {"i1", ElementType::I8},
               {"u1", ElementType::U8},  {"i2", ElementType::I16},
               {"i4", ElementType::I32}, {"i8", ElementType::I64},
               {"b1", ElementType::I1}};
  for (const auto &entry : table) {
    if (kind != entry.kind)
      continue;
    bool oneByte = elementSize(entry.type) == 1;
    // One-byte types have no byte order: numpy writes '|', '<' is harmless.
    if (order == '<' || (oneByte && (order == '|' || order == '=')))
      return entry.type;
    break;
  }
  why = "unsupported dtype '" + descr.str() +
        "' (supported: <f4 <f8 <f2 |i1 |u1 <i2 <i4 <i8 |b1)";
  return std::nullopt;
}

namespace {
/// A cursor over the header dict literal.
class HeaderParser {
public:
  explicit HeaderParser(llvm::StringRef text) : rest(text) {}

  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }
  bool consume(char c) {
    skipSpace();
    if (rest.empty() || rest.front() != c)
      return false;
    rest = rest.drop_front();
    return true;
  }
  bool peek(char c) {
    skipSpace();
    return !rest.empty() && rest.front() == c;
  }
  bool atEnd() {
    skipSpace();
    return rest.empty();
  }

  /// A Python string literal in single or double quotes (no escapes).
  std::optional<std::string> parseString() {
    skipSpace();
    if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
      return std::nullopt;
    char quote = rest.front();
    size_t end = rest.find(quote, 1);
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    std::string s = rest.slice(1, end).str();
    rest = rest.drop_front(end + 1);
    return s;
  }

  /// True or False.
  std::optional<bool> parseBool() {
    skipSpace();
    if (rest.consume_front("True"))
      return true;
    if (rest.consume_front("False"))
      return false;
    return std::nullopt;
  }

  /// A tuple of non-negative integers: (), (3,), (2, 3).
  std::optional<std::vector<int64_t>> parseShape() {
    if (!consume('('))
      return std::nullopt;
    std::vector<int64_t> dims;
    while (!consume(')')) {
      skipSpace();
      size_t digits = 0;
      while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
        ++digits;
      if (digits == 0)
        return std::nullopt;
      int64_t d;
      if (rest.take_front(digits).getAsInteger(10, d))
        return std::nullopt;
      rest = rest.drop_front(digits);
      rest.consume_front("L"); // Python 2 long suffix.
      dims.push_back(d);
      if (!consume(',') && !peek(')'))
        return std::nullopt;
    }
    return dims;
  }

private:
  llvm::StringRef rest;
};
} // namespace

llvm::Expected<HostTensor> jitrun::parseNpy(llvm::StringRef bytes,
                                            llvm::StringRef name) {
  if (bytes.empty())
    return npyError(name, "the file is empty");
  if (bytes.size() < kMagicSize ||
      bytes.take_front(kMagicSize) != llvm::StringRef(kMagic, kMagicSize))
    return npyError(name, "wrong magic (expected \"\\x93NUMPY\"); not a "
                          ".npy file");
  if (bytes.size() < kMagicSize + 2)
    return npyError(name, "truncated header (no version)");
  unsigned major = static_cast<uint8_t>(bytes[6]);
  unsigned minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3)
    return npyError(name, "unsupported format version " +
                              llvm::Twine(major) + "." + llvm::Twine(minor) +
                              " (supported: 1.0, 2.0, 3.0)");
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lengthBytes;
  if (bytes.size() < headerStart)
    return npyError(name, "truncated header (no header length)");
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[8 + i]))
                    << (8 * i);
  if (bytes.size() - headerStart < headerLength)
    return npyError(name, "truncated header (header length " +
                              llvm::Twine(headerLength) + ", only " +
                              llvm::Twine(bytes.size() - headerStart) +
                              " bytes follow)");
  llvm::StringRef header = bytes.substr(headerStart, headerLength);

  // The dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2,)}
  HeaderParser parser(header);
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
  if (!parser.consume('{'))
    return npyError(name, "bad header: expected a dict literal, got '" +
                              header.trim() + "'");
  while (!parser.consume('}')) {
    std::optional<std::string> key = parser.parseString();
    if (!key || !parser.consume(':'))
      return npyError(name, "bad header: expected 'key': value in '" +
                                header.trim() + "'");
    if (*key == "descr") {
      descr = parser.parseString();
      if (!descr)
        return npyError(name, "bad header: 'descr' is not a string (structured "
                              "dtypes are not supported)");
    } else if (*key == "fortran_order") {
      fortranOrder = parser.parseBool();
      if (!fortranOrder)
        return npyError(name, "bad header: 'fortran_order' is not True/False");
    } else if (*key == "shape") {
      shape = parser.parseShape();
      if (!shape)
        return npyError(name, "bad header: 'shape' is not a tuple of "
                              "non-negative integers in '" +
                                  header.trim() + "'");
    } else {
      return npyError(name, "bad header: unexpected key '" + *key + "'");
    }
    if (!parser.consume(',') && !parser.peek('}'))
      return npyError(name, "bad header: expected ',' or '}' in '" +
                                header.trim() + "'");
  }
  if (!parser.atEnd())
    return npyError(name, "bad header: trailing characters after the dict");
  if (!descr || !fortranOrder || !shape)
    return npyError(name, "bad header: it must have the keys 'descr', "
                          "'fortran_order' and 'shape'");
  if (*fortranOrder)
    return npyError(name, "fortran_order is True; only C-order arrays are "
                          "supported (save np.ascontiguousarray(a))");
  std::string why;
  std::optional<ElementType> type = typeForDescr(*descr, why);
  if (!type)
    return npyError(name, why);

  // Check the data size before allocating anything.
  size_t elemBytes = elementSize(*type);
  uint64_t count = 1;
  for (int64_t d : *shape) {
    if (d != 0 && count > static_cast<uint64_t>(
                              std::numeric_limits<int64_t>::max()) /
                              elemBytes / static_cast<uint64_t>(d))
      return npyError(name, "shape is too large");
    count *= static_cast<uint64_t>(d);
  }
  uint64_t expectedBytes = count * elemBytes;
  uint64_t dataBytes = bytes.size() - headerStart - headerLength;
  if (dataBytes != expectedBytes)
    return npyError(name, llvm::Twine(dataBytes < expectedBytes
                                          ? "truncated data: "
                                          : "data size mismatch: ") +
                              "found " + llvm::Twine(dataBytes) +
                              " bytes of data, expected " +
                              llvm::Twine(expectedBytes) + " for '" + *descr +
                              "' with " + llvm::Twine(count) + " elements");

  llvm::Expected<HostTensor> tensor = HostTensor::create(*type, *shape);
  if (!tensor)
    return npyError(name, llvm::toString(tensor.takeError()));
  if (expectedBytes)
    std::memcpy(tensor->data(), bytes.data() + headerStart + headerLength,
                expectedBytes);
  if (*type == ElementType::I1) {
    uint8_t *p = tensor->dataAs<uint8_t>();
    for (uint64_t i = 0; i < count; ++i)
      p[i] = p[i] != 0;
  }
  return tensor;
}

llvm::Expected<HostTensor> jitrun::readNpy(llvm::StringRef path) {
  llvm::Expected<std::string> bytes = readRegularFile(path, ".npy file");
  if (!bytes)
    return bytes.takeError();
  return parseNpy(*bytes, path);
}

llvm::Expected<std::string> jitrun::serializeNpy(const HostTensor &t) {
  std::optional<llvm::StringRef> descr = npyDescrForType(t.elementType());
  if (!descr)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot write a %s tensor as .npy: NumPy has no %s dtype",
        t.typeString().c_str(), elementTypeName(t.elementType()).str().c_str());
  if (t.numElements() > 0 && !t.data())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write a tensor without storage");

  std::string header = "{'descr': '" + descr->str() +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    if (i)
      header += ", ";
    header += std::to_string(t.shape()[i]);
  }
  if (t.shape().size() == 1)
    header += ',';
  header += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write a rank-%zu tensor as .npy: "
                                   "the header is too long for version 1.0",
                                   t.shape().size());

  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  if (t.byteSize()) {
    const char *data = static_cast<const char *>(t.data());
    if (t.elementType() == ElementType::I1) {
      for (int64_t i = 0; i < t.numElements(); ++i)
        out += data[i] ? '\x01' : '\x00';
    } else {
      out.append(data, t.byteSize());
    }
  }
  return out;
}

llvm::Error jitrun::writeNpy(llvm::StringRef path, const HostTensor &t) {
  llvm::Expected<std::string> image = serializeNpy(t);
  if (!image)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write '" + path.str() +
                                       "': " + llvm::toString(image.takeError()));
  return writeFileSafely(path, *image);
}
