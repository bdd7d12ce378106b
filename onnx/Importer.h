//===- Importer.h - the ONNX importer's state and builders ------*- C++ -*-===//
//
// Internal to onnx/: the graph walk (Importer.cpp) keeps each ONNX value as
// an MLIR value with a static shape; the op importers (Elementwise.cpp,
// NeuralNet.cpp, ShapeOps.cpp) read their node's inputs and attributes
// through it and build linalg, tensor, arith and math ops with its helpers.
// Small constant values (shape vectors, indices) are also kept on the host
// (`Lit`) so that shape subgraphs fold at import.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_ONNX_IMPORTER_H
#define JITRUN_ONNX_IMPORTER_H

#include "onnx/Import.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jitrun {
namespace onnximport {

using Shape = llvm::SmallVector<int64_t>;

/// A small constant on the host: shape vectors, indices, scalars. Values are
/// doubles (exact for the integers shapes hold).
struct Lit {
  Shape shape;
  mlir::Type elementType;
  std::vector<double> values;
  int64_t numElements() const { return static_cast<int64_t>(values.size()); }
};

/// Constants up to this many elements are folded at import.
constexpr int64_t kFoldLimit = 1 << 16;

/// Short names for the scalar-body lambdas of the op importers.
using B = mlir::OpBuilder;
using L = mlir::Location;
using V = mlir::ValueRange;

/// An f16/bf16/f32/f64 scalar constant `v` of type `t`.
inline mlir::Value fconst(mlir::OpBuilder &b, mlir::Location l, mlir::Type t, double v) {
  return mlir::arith::ConstantOp::create(b, l, mlir::FloatAttr::get(t, v));
}

/// Computes one element of an elementwise op from its operands' elements.
using ScalarFn = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;
/// The same on host values, for folding.
using FoldFn = std::function<double(llvm::ArrayRef<double>)>;

class Importer {
public:
  Importer(mlir::MLIRContext &context, llvm::StringRef fileName, const OnnxImportOptions &options);
  /// Imports `model`, taking its initializers' data (large ones become
  /// blobs of the module's context without a copy). `rawData`: the raw data
  /// of initializers the parse left out (Wire.h), where they lie.
  mlir::OwningOpRef<mlir::ModuleOp>
  run(onnx::ModelProto &model,
      const llvm::DenseMap<const onnx::TensorProto *, llvm::StringRef> &rawData);

  mlir::MLIRContext *context;
  mlir::OpBuilder b;
  mlir::Location loc;
  /// The node being imported and its domain's opset.
  const onnx::NodeProto *node = nullptr;
  int64_t opset = 0;

  // --- the node's inputs ---
  bool hasInput(int i) const;
  mlir::Value in(int i) const;
  static mlir::RankedTensorType typeOf(mlir::Value v);
  static Shape shapeOf(mlir::Value v);
  /// The host value of `v` if it is a constant of at most kFoldLimit elements.
  std::optional<Lit> lit(mlir::Value v) const;
  /// The integers of constant input `i` (a shape, axes, pads); failure with an
  /// error when it is not a constant.
  mlir::FailureOr<std::vector<int64_t>> constInts(int i, llvm::StringRef what);

  // --- the node's attributes ---
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t otherwise) const;
  float attrFloat(llvm::StringRef name, float otherwise) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef otherwise) const;
  std::vector<int64_t> attrInts(llvm::StringRef name) const;

  /// uint8 tensors are carried as signless i8; the ops that care (Cast, the
  /// quantized ops) widen these unsigned.
  bool isUnsigned(mlir::Value v) const { return unsignedValues.contains(v); }
  void markUnsigned(mlir::Value v) { unsignedValues.insert(v); }

  /// The float values DequantizeLinear made, with what they were made from
  /// (its quantized input, scale, zero point and axis): a QDQ model's
  /// convolutions and matmuls contract the quantized values instead.
  struct Dequantized {
    mlir::Value q, scale, zp;
    int64_t axis;
  };
  llvm::DenseMap<mlir::Value, Dequantized> dequantized;

  /// OnnxImportOptions::int8Contractions.
  bool int8Contractions() const { return options.int8Contractions; }

  /// Reports an error at the node and returns failure.
  mlir::LogicalResult fail(const llvm::Twine &message);

  // --- builders ---
  mlir::Value constant(const Lit &lit);
  mlir::Value constant(mlir::TypedAttr attr);
  /// A constant of `type` holding `blob`'s bytes: a dense_resource when it
  /// is too large to fold, else a dense attribute.
  mlir::Value constantOfBytes(mlir::RankedTensorType type, mlir::AsmResourceBlob blob,
                              llvm::StringRef name);
  /// The bytes of a constant that is not a splat (dense or dense_resource).
  static std::optional<llvm::ArrayRef<char>> constantData(mlir::Value v);
  mlir::Value scalarConstant(mlir::Type elementType, double value);
  mlir::Value empty(llvm::ArrayRef<int64_t> shape, mlir::Type elementType);
  mlir::Value filled(llvm::ArrayRef<int64_t> shape, mlir::Type elementType, double value);
  /// NumPy-broadcast elementwise op: the result has the broadcast shape and
  /// `resultType` elements; folded when every input is a small constant and
  /// `fold` is given. Failure (with an error) if the shapes do not broadcast.
  mlir::FailureOr<mlir::Value> elementwise(llvm::ArrayRef<mlir::Value> inputs,
                                           mlir::Type resultType, const ScalarFn &body,
                                           const FoldFn &fold = nullptr);
  /// `v` (static) in `shape` with the same number of elements.
  /// (reshape and transpose keep `v`'s uint8 mark: they move its bits.)
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape) {
    return sameBits(v, reshapeBits(v, shape));
  }
  /// `v` with its dims permuted: result dim i is source dim perm[i].
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perm) {
    return sameBits(v, transposeBits(v, perm));
  }
  /// Reduces the `axes` of `v` with `combine`, starting from `init`; keeps
  /// them as 1s when `keepDims`.
  mlir::Value reduce(mlir::Value v, llvm::ArrayRef<int64_t> axes, bool keepDims, double init,
                     const ScalarFn &combine);
  /// A value converted to `elementType` (float <-> int, widths).
  static mlir::Value convert(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                             mlir::Type elementType);

private:
  llvm::StringRef fileName;
  const OnnxImportOptions &options;
  llvm::StringMap<mlir::Value> values;
  llvm::SmallVector<mlir::Value> nodeInputs;
  llvm::StringMap<int64_t> opsets;
  llvm::DenseSet<mlir::Value> unsignedValues;
  const llvm::DenseMap<const onnx::TensorProto *, llvm::StringRef> *rawData = nullptr;

  mlir::LogicalResult importInitializer(onnx::TensorProto &t);
  mlir::Value reshapeBits(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  /// `to`, marked uint8 when `from` is.
  mlir::Value sameBits(mlir::Value from, mlir::Value to) {
    if (isUnsigned(from))
      markUnsigned(to);
    return to;
  }
  mlir::Value transposeBits(mlir::Value v, llvm::ArrayRef<int64_t> perm);
  mlir::LogicalResult importNode(const onnx::NodeProto &n, int index);
};

/// An uninitialized blob of `bytes` bytes, 64-byte aligned, for the caller
/// to fill; std::bad_alloc (a clean compile error) when memory runs out.
mlir::AsmResourceBlob newBlob(size_t bytes);

/// A blob of an initializer's raw data, which lie in the model's bytes:
/// those bytes themselves when `inPlace` (they outlive the import) and they
/// are 64-byte aligned, else a copy (newBlob).
mlir::AsmResourceBlob rawDataBlob(llvm::StringRef raw, bool inPlace);

/// The bytes of an initializer kept in an external file (ONNX's external
/// data: `location` relative to the model's directory, `offset`, `length`),
/// exactly `tensorBytes` of them: a location that leaves the model's
/// directory, a length that is not the tensor's, or a range outside the file
/// fails with `error` before anything is read.
mlir::FailureOr<std::string> externalData(const onnx::TensorProto &t, llvm::StringRef baseDir,
                                          size_t tensorBytes, std::string &error);

/// Converts a TensorProto to an attribute (raw_data, typed fields, or
/// external data in a file relative to `baseDir`, the model's directory).
mlir::FailureOr<mlir::DenseElementsAttr> tensorAttr(mlir::MLIRContext *context,
                                                    const onnx::TensorProto &t,
                                                    std::string &error,
                                                    llvm::StringRef baseDir = "");
/// The MLIR element type of an ONNX TensorProto data type; null if none.
mlir::Type elementTypeOf(mlir::MLIRContext *context, int onnxType);

/// The window of a Conv or pooling node (Window.cpp): output sizes and the
/// padding at each end, from pads, auto_pad, strides, dilations, ceil_mode.
struct Window {
  Shape kernel, strides, dilations, padBegin, padEnd, out;
  /// Padding added at the end by ceil_mode (not counted by average pooling).
  Shape ceilExtra;
};
/// The window over spatial dims `in` with kernel `k`.
mlir::FailureOr<Window> window(Importer &im, llvm::ArrayRef<int64_t> in,
                               llvm::ArrayRef<int64_t> k);
/// The window over the spatial dims of an N x C x ... input `xs`; a 1-D
/// window is the 2-D one of height 1 (the input seen as N x C x 1 x W).
mlir::FailureOr<Window> window2D(Importer &im, llvm::ArrayRef<int64_t> xs,
                                 llvm::ArrayRef<int64_t> k);
/// `v` padded with `value`: `low` and `high` per dim (`v` itself if none).
mlir::Value padTo(Importer &im, mlir::Value v, llvm::ArrayRef<int64_t> low,
                  llvm::ArrayRef<int64_t> high, double value);
/// A named tensor<Nxi64> attribute (strides, dilations of linalg's ops).
mlir::NamedAttribute i64Tensor(Importer &im, llvm::StringRef name, llvm::ArrayRef<int64_t> v);

/// A @ B with NumPy's matmul semantics (batch dims broadcast, 1-D promoted),
/// accumulating into `init` when given (NeuralNet.cpp).
mlir::FailureOr<mlir::Value> matmul(Importer &im, mlir::Value a, mlir::Value b,
                                    mlir::Value init = {});

/// The node's Conv (its attributes: group, pads, strides, dilations) of
/// float `x` [N, C, (H,) W] and `w`, plus `bias` ([M], or null)
/// (NeuralNet.cpp).
mlir::FailureOr<mlir::Value> convolution(Importer &im, mlir::Value x, mlir::Value w,
                                         mlir::Value bias);

/// QDQ: a convolution of a DequantizeLinear'd input and filter (`os`: its
/// NCHW output shape, `win` its window) in int8, the i32 sums scaled back to
/// float and the float `bias` ([M], or null) added; failure (nothing built)
/// when they are not both dequantized 8-bit values the int8 path takes
/// (Quantized.cpp).
mlir::FailureOr<mlir::Value> qdqConv(Importer &im, mlir::Value x, mlir::Value w,
                                     mlir::Value bias, const Window &win,
                                     llvm::ArrayRef<int64_t> os);
/// QDQ: `a` [..., M, K] times `b` [K, N] (`b` transposed first when
/// `transposeB`: [N, K]), both DequantizeLinear'd, in int8, scaled back to
/// float; failure (nothing built) otherwise.
mlir::FailureOr<mlir::Value> qdqMatmul(Importer &im, mlir::Value a, mlir::Value b,
                                       bool transposeB);

/// Imports the node's op into `results` (one per node output).
using OpImporter = std::function<mlir::LogicalResult(Importer &, llvm::SmallVectorImpl<mlir::Value> &)>;
using OpTable = llvm::StringMap<OpImporter>;
void addElementwiseOps(OpTable &table);
void addNeuralNetOps(OpTable &table);
void addShapeOps(OpTable &table);
void addResizeOps(OpTable &table);
void addQuantizedOps(OpTable &table);
void addRecurrentOps(OpTable &table);

/// Normalizes a possibly negative axis of a rank-`rank` tensor; -1 if out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank);

/// The axis a quantization scale of `scaleElements` elements runs along in
/// a rank-`rank` tensor: 0 for a per-tensor scale (the attribute is ignored
/// then), else the normalized `axis` attribute; -1 if out of range.
inline int64_t quantizationAxis(int64_t axisAttr, int64_t rank, int64_t scaleElements) {
  return scaleElements > 1 ? normalizeAxis(axisAttr, rank) : 0;
}

} // namespace onnximport
} // namespace jitrun

#endif // JITRUN_ONNX_IMPORTER_H
