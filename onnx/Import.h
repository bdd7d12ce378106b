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
/// The argument and result attribute naming a dynamic tensor's dims (an
/// array of strings, "" for a static or unnamed dim): ONNX's dim_param.
constexpr llvm::StringLiteral kDimNamesAttrName = "jitrun.dims";

struct OnnxImportOptions {
  /// Static shapes for inputs with symbolic or unknown dims, by input name.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
  /// Static shapes by position among the inputs that are not initializers
  /// (a dynamic model's specialization); these win over inputShapes.
  std::vector<std::vector<int64_t>> argumentShapes;
  /// The model's bytes outlive the import (a program copies what it keeps
  /// of them): weights whose raw data lie 64-byte aligned in them are used
  /// there, not copied (a dynamic model's bytes as modelCopyForCompiles laid
  /// them out).
  bool weightsInPlace = false;
  /// A QDQ model's convolutions and matmuls (DequantizeLinear'd 8-bit
  /// operands) contract in int8: where the target multiplies int8 faster
  /// than f32 (VNNI dot products, AMX tiles); else they stay float.
  bool int8Contractions = false;
};

/// True when `bytes` look like a serialized ONNX model rather than MLIR
/// (text or bytecode): its first field is ir_version.
bool looksLikeOnnx(llvm::StringRef bytes);

/// Imports `bytes` (a serialized ModelProto) into `context`. A model with
/// symbolic input dims and no shapes given for them comes back as its
/// signature: an external @main with `?` dims, kDimNamesAttrName on each
/// argument and result. Errors (not a model, an unsupported op) are reported
/// as diagnostics on `context` at the node's location, `NAME:NODE:1` with
/// NODE the 1-based index of the node, and return null.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(mlir::MLIRContext &context, llvm::StringRef bytes,
                                             llvm::StringRef name,
                                             const OnnxImportOptions &options);

} // namespace jitrun

#endif // JITRUN_ONNX_IMPORT_H
