//===- Wire.cpp - an ONNX model's weights found without parsing them ------===//
//
// Protobuf's wire format: each field is a varint tag (field number << 3 |
// wire type) and its payload: a varint (type 0), 8 bytes (1), a varint
// length and that many bytes (2: strings, bytes, nested messages), or 4
// bytes (5). A nested message is written here with its length as a 5-byte
// varint (protobuf reads overlong varints), so that it can be patched once
// the message is written.
//
//===----------------------------------------------------------------------===//

#include "onnx/Wire.h"

#include <cstdint>
#include <cstring>

using llvm::StringRef;

namespace jitrun {
namespace onnximport {

namespace {

constexpr uint64_t kModelGraph = 7;       // ModelProto.graph
constexpr uint64_t kGraphInitializer = 5; // GraphProto.initializer
constexpr uint64_t kTensorRawData = 9;    // TensorProto.raw_data
/// The padding field alignedModelBytes puts before raw data: a field number
/// TensorProto does not use, out of protobuf's reserved range.
constexpr uint64_t kPadField = 2047;
constexpr unsigned kBytesType = 2;
/// Nested lengths are patched as 5-byte varints: up to 2^35 - 1.
constexpr size_t kLengthBytes = 5;
constexpr uint64_t kMaxModelBytes = uint64_t(1) << 34;

bool readVarint(StringRef s, size_t end, size_t &pos, uint64_t &v) {
  v = 0;
  for (unsigned shift = 0; shift < 64 && pos < end; shift += 7) {
    auto byte = static_cast<uint8_t>(s[pos++]);
    v |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

/// One field of a message: its tag at `begin`, its payload at `payload`
/// (for bytes, after the length), its end at `end`.
struct Field {
  uint64_t number = 0;
  unsigned type = 0;
  size_t begin = 0, tagEnd = 0, payload = 0, end = 0;
};

/// The field at `pos` of the message that ends at `end`, `pos` moved past
/// it; false when the bytes are no field.
bool nextField(StringRef s, size_t end, size_t &pos, Field &f) {
  f.begin = pos;
  uint64_t tag = 0;
  if (!readVarint(s, end, pos, tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
    return false;
  f.number = tag >> 3;
  f.type = static_cast<unsigned>(tag & 7);
  f.tagEnd = pos;
  uint64_t n = 0;
  switch (f.type) {
  case 0:
    if (!readVarint(s, end, pos, n))
      return false;
    break;
  case 1:
  case 5:
    n = f.type == 1 ? 8 : 4;
    if (end - pos < n)
      return false;
    pos += n;
    break;
  case kBytesType:
    if (!readVarint(s, end, pos, n) || n > end - pos)
      return false;
    f.payload = pos;
    pos += n;
    break;
  default: // groups (long deprecated) and invalid types
    return false;
  }
  f.end = pos;
  return true;
}

/// Output that is appended to a string, written to a buffer, or only
/// counted (neither given).
struct Writer {
  std::string *text = nullptr;
  char *out = nullptr;
  size_t at = 0;

  void put(const char *p, size_t n) {
    if (text)
      text->append(p, n);
    else if (out && n)
      std::memcpy(out + at, p, n);
    at += n;
  }
  void put(StringRef bytes) { put(bytes.data(), bytes.size()); }
  void varint(uint64_t v) {
    char b[10];
    size_t n = 0;
    do {
      auto byte = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      b[n++] = static_cast<char>(byte | (v ? 0x80 : 0));
    } while (v);
    put(b, n);
  }
  size_t reserveLength() {
    static const char zeros[kLengthBytes] = {};
    size_t p = at;
    put(zeros, kLengthBytes);
    return p;
  }
  void patchLength(size_t p) {
    uint64_t n = at - p - kLengthBytes;
    char b[kLengthBytes];
    for (size_t i = 0; i < kLengthBytes; ++i, n >>= 7)
      b[i] = static_cast<char>((n & 0x7f) | (i + 1 < kLengthBytes ? 0x80 : 0));
    if (text)
      std::memcpy(&(*text)[p], b, kLengthBytes);
    else if (out)
      std::memcpy(out + p, b, kLengthBytes);
  }
};

enum class Mode { Strip, Align };

struct Walk {
  StringRef in;
  Mode mode;
  Writer w;
  std::vector<RawData> *raw = nullptr;
  size_t initializer = 0;

  using Message = bool (Walk::*)(size_t, size_t);

  /// The nested message `f` (bytes), its payload rewritten by `inner`.
  bool nested(const Field &f, Message inner) {
    w.put(in.slice(f.begin, f.tagEnd));
    size_t length = w.reserveLength();
    if (!(this->*inner)(f.payload, f.end))
      return false;
    w.patchLength(length);
    return true;
  }

  /// A message's fields copied, but for field `number` (bytes: a nested
  /// message), rewritten by `inner`.
  bool message(size_t pos, size_t end, uint64_t number, Message inner) {
    Field f;
    while (pos < end) {
      if (!nextField(in, end, pos, f))
        return false;
      if (f.number == number && f.type == kBytesType) {
        if (!nested(f, inner))
          return false;
      } else {
        w.put(in.slice(f.begin, f.end));
      }
    }
    return true;
  }

  bool model(size_t pos, size_t end) { return message(pos, end, kModelGraph, &Walk::graph); }
  bool graph(size_t pos, size_t end) {
    return message(pos, end, kGraphInitializer, &Walk::tensor);
  }

  /// An initializer (the graph's next).
  bool tensor(size_t pos, size_t end) {
    Field f;
    while (pos < end) {
      if (!nextField(in, end, pos, f))
        return false;
      if (f.number == kPadField && f.type == kBytesType)
        continue; // an earlier alignment's padding
      bool isRaw = f.number == kTensorRawData && f.type == kBytesType;
      bool large = isRaw && f.end - f.payload >= kLargeRawBytes;
      // Of several raw_data fields the last counts, as protobuf parses them.
      if (isRaw && mode == Mode::Strip && !raw->empty() &&
          raw->back().initializer == initializer)
        raw->pop_back();
      if (large && mode == Mode::Strip) {
        raw->push_back(RawData{initializer, in.slice(f.payload, f.end)});
        continue;
      }
      if (large) {
        // A padding field (2-byte tag, 1-byte length, the pad) so that the
        // raw data after their tag and length start aligned.
        size_t header = f.payload - f.begin;
        size_t pad = (kRawDataAlignment - (w.at + 3 + header) % kRawDataAlignment) %
                     kRawDataAlignment;
        static const char zeros[kRawDataAlignment] = {};
        w.varint(kPadField << 3 | kBytesType);
        w.varint(pad);
        w.put(zeros, pad);
      }
      w.put(in.slice(f.begin, f.end));
    }
    ++initializer;
    return true;
  }
};

} // namespace

std::optional<std::string> strippedModel(StringRef model, std::vector<RawData> &raw) {
  raw.clear();
  if (model.size() >= kMaxModelBytes)
    return std::nullopt;
  std::string text;
  Walk walk{model, Mode::Strip, Writer{&text, nullptr, 0}, &raw};
  if (!walk.model(0, model.size())) {
    raw.clear();
    return std::nullopt;
  }
  return text;
}

std::optional<size_t> alignedModelSize(StringRef model) {
  if (model.size() >= kMaxModelBytes)
    return std::nullopt;
  Walk walk{model, Mode::Align, Writer{}, nullptr};
  if (!walk.model(0, model.size()))
    return std::nullopt;
  return walk.w.at;
}

void alignedModelBytes(StringRef model, char *out) {
  Walk walk{model, Mode::Align, Writer{nullptr, out, 0}, nullptr};
  (void)walk.model(0, model.size());
}

} // namespace onnximport
} // namespace jitrun
