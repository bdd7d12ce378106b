//===- Wire.h - an ONNX model's weights found without parsing them -*- C++ -*-===//
//
// Protobuf's parse copies every initializer's raw_data into a string of its
// own: for a 340 MB model, a third of a second at each compile, which a
// model with dynamic dims pays at every new shape. These functions walk the
// model's wire format instead (ModelProto.graph, GraphProto.initializer,
// TensorProto.raw_data) and leave the large raw data where they lie.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_ONNX_WIRE_H
#define JITRUN_ONNX_WIRE_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace jitrun {
namespace onnximport {

/// Raw data at least this long are left out of a stripped model.
inline constexpr size_t kLargeRawBytes = 64 * 1024;

/// Where alignedModelBytes puts large raw data: a multiple of this from
/// the start of its output.
inline constexpr size_t kRawDataAlignment = 64;

/// The raw data of the graph's initializer number `initializer` (in the
/// order of the graph's initializer list), as they lie in the model's bytes.
struct RawData {
  size_t initializer = 0;
  llvm::StringRef bytes;
};

/// `model` (a serialized ModelProto) without the raw_data of its graph's
/// initializers of at least kLargeRawBytes, which `raw` then locates in
/// `model`; the parse of the result copies the graph, not the weights.
/// Nullopt when `model` is not wire format as a ModelProto's should be (the
/// caller parses it whole and reports what is wrong).
std::optional<std::string> strippedModel(llvm::StringRef model, std::vector<RawData> &raw);

/// The size of `model` re-laid out by alignedModelBytes, or nullopt as above.
std::optional<size_t> alignedModelSize(llvm::StringRef model);

/// Writes to `out` (alignedModelSize(model) bytes) the same model with each
/// large initializer's raw data starting at a multiple of kRawDataAlignment
/// from `out` (an unknown field before it pads; protobuf skips it). A model
/// kept for later compiles is kept so: those compiles then use the weights
/// where they lie, neither copied nor hashed.
void alignedModelBytes(llvm::StringRef model, char *out);

} // namespace onnximport
} // namespace jitrun

#endif // JITRUN_ONNX_WIRE_H
