//===- Import.h - ONNX models to linalg on tensors --------------*- C++ -*-===//
//
// An ONNX ModelProto (libonnx-dev's protobuf) becomes a module with one
// public function, @main, in the dialects torch-mlir exports use (linalg,
// tensor, arith, math), so the rest of jitrun's pipeline takes it as it
// takes a torch-mlir export. Initializers become constants; shape subgraphs
// (Shape, Gather, Concat, Unsqueeze, ConstantOfShape, Range, ...) are folded
// at import, so that the program has static shapes and no shape arithmetic.
// Arguments and results keep their ONNX names (`jitrun.name`).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_ONNX_IMPORT_H
#define JITRUN_ONNX_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace jitrun {

/// The argument and result attribute holding a tensor's ONNX name.
constexpr llvm::StringLiteral kTensorNameAttrName = "jitrun.name";

struct OnnxImportOptions {
  /// Static shapes for inputs with symbolic or unknown dims, by input name.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
};

/// True when `bytes` look like a serialized ONNX model rather than MLIR
/// (text or bytecode): its first field is ir_version.
bool looksLikeOnnx(llvm::StringRef bytes);

/// Imports `bytes` (a serialized ModelProto) into `context`. Errors (not a
/// model, an unsupported op, a symbolic dim without a shape) are reported
/// as diagnostics on `context` at the node's location, `NAME:NODE:1` with
/// NODE the 1-based index of the node, and return null.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(mlir::MLIRContext &context, llvm::StringRef bytes,
                                             llvm::StringRef name,
                                             const OnnxImportOptions &options);

} // namespace jitrun

#endif // JITRUN_ONNX_IMPORT_H
