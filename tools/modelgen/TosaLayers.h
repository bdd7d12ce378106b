//===- TosaLayers.h - TFLite-style layers as TOSA ops -----------*- C++ -*-===//
//
// The layer builders the TOSA zoo models share, each emitting what the
// TFLite-to-TOSA legalization emits for the TFLite op: NHWC activations,
// tosa.const weights (OHWI for conv2d, HWCM for depthwise_conv2d; batchnorm
// already folded into the weights and bias), TFLite SAME padding, and the
// TOSA 1.0 operand lists of MLIR 22 (zero points as tensor operands, shapes
// as tosa.const_shape, tosa.mul's shift operand).
//
//===----------------------------------------------------------------------===//
#ifndef JITRUN_TOOLS_MODELGEN_TOSALAYERS_H
#define JITRUN_TOOLS_MODELGEN_TOSALAYERS_H

#include "Models.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace jitrun::modelgen {

/// An int8 activation: the tensor, its zero point (TFLite's affine
/// quantization; the real-valued scale only matters through the rescale
/// multipliers) and the expected rms of value - zp, which sets the next
/// layer's requantization scale.
struct QValue {
  mlir::Value value;
  int64_t zp;
  double rms;
};

/// Builds one TOSA function. Random weights stand in for trained ones with
/// batchnorm folded in: the graph tracks each activation's expected second
/// moment E[x^2] (data-free, from the layer kinds), and every conv/FC weight
/// is uniform at heScale(fanIn) * sqrt(1 / (2 E[x^2])) -- exactly He after a
/// relu of unit-variance values -- so every pre-activation has about unit
/// variance, as batchnorm makes it in the trained model. Without this, swish,
/// hard-swish and squeeze-excite gates shrink the signal layer by layer until
/// the outputs no longer depend on the input.
class TosaGraph {
public:
  explicit TosaGraph(ModelContext &ctx);

  ModelContext &ctx;
  mlir::OpBuilder &b;
  mlir::Location loc;

  bool full() const { return ctx.size == Size::Full; }

  /// Starts the public entry function @main with these argument types and
  /// returns its arguments; `finish` adds the return and fixes the result
  /// types.
  llvm::SmallVector<mlir::Value> begin(llvm::ArrayRef<mlir::Type> inputs);
  void finish(mlir::ValueRange results);

  // --- types and constants -----------------------------------------------
  static llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);
  static int64_t channels(mlir::Value v) { return shapeOf(v).back(); }
  mlir::RankedTensorType f32(llvm::ArrayRef<int64_t> shape);
  mlir::RankedTensorType tensor(llvm::ArrayRef<int64_t> shape, mlir::Type elem);

  /// A tosa.const of `type` holding seeded uniform values in [-scale, scale]
  /// (a dense_resource blob named after `kind` and a layer counter).
  mlir::Value weight(llvm::ArrayRef<int64_t> shape, mlir::Type elem, double scale,
                     llvm::StringRef kind);
  /// A tosa.const with the given f32 values.
  mlir::Value constF32(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> values);
  /// A rank-matched all-ones-shape f32 constant, for broadcasting against `like`.
  mlir::Value scalarLike(mlir::Value like, float v);
  /// A tensor<1xT> zero point.
  mlir::Value zeroPoint(mlir::Type elem, int64_t v);
  /// A tosa.const_shape.
  mlir::Value shape(llvm::ArrayRef<int64_t> dims);

  // --- f32 layers ----------------------------------------------------------
  /// conv2d + bias with TFLite SAME padding (or VALID when `same` is false).
  mlir::Value conv2d(mlir::Value x, int64_t cout, int64_t k, int64_t stride = 1,
                     int64_t dilation = 1, bool same = true);
  /// conv2d with a given OHWI weight and bias.
  mlir::Value conv2dWith(mlir::Value x, mlir::Value w, mlir::Value bias, int64_t stride,
                         int64_t dilation, bool same);
  /// depthwise_conv2d (multiplier 1) + bias, SAME padding.
  mlir::Value depthwise(mlir::Value x, int64_t k, int64_t stride = 1, int64_t dilation = 1);
  mlir::Value clamp(mlir::Value x, float lo, float hi);
  mlir::Value relu(mlir::Value x);
  mlir::Value relu6(mlir::Value x);
  mlir::Value sigmoid(mlir::Value x);
  /// x * sigmoid(x) (TFLite's swish/silu as two TOSA ops).
  mlir::Value swish(mlir::Value x);
  /// relu6(x + 3) / 6.
  mlir::Value hardSigmoid(mlir::Value x);
  /// x * relu6(x + 3) / 6 (TFLite HARD_SWISH's float legalization).
  mlir::Value hardSwish(mlir::Value x);
  mlir::Value add(mlir::Value a, mlir::Value c);
  mlir::Value sub(mlir::Value a, mlir::Value c);
  mlir::Value mul(mlir::Value a, mlir::Value c);
  mlir::Value addScalar(mlir::Value x, float v) { return add(x, scalarLike(x, v)); }
  mlir::Value mulScalar(mlir::Value x, float v) { return mul(x, scalarLike(x, v)); }
  mlir::Value rsqrt(mlir::Value x);
  mlir::Value reciprocal(mlir::Value x);
  mlir::Value exp(mlir::Value x);
  mlir::Value reduceSum(mlir::Value x, int32_t axis);
  mlir::Value reduceMax(mlir::Value x, int32_t axis);
  /// avg_pool2d with VALID padding.
  mlir::Value avgPool(mlir::Value x, int64_t k, int64_t stride);
  /// avg_pool2d over the whole image: [1,H,W,C] -> [1,1,1,C].
  mlir::Value globalAvgPool(mlir::Value x);
  /// TFLite MEAN over H and W with keep_dims: two reduce_sums and a multiply.
  mlir::Value meanHW(mlir::Value x);
  /// Squeeze-and-excite: mean, 1x1 conv to `squeeze` + `inner`, 1x1 conv back
  /// + `gate`, times x.
  mlir::Value squeezeExcite(mlir::Value x, int64_t squeeze,
                            mlir::Value (TosaGraph::*inner)(mlir::Value),
                            mlir::Value (TosaGraph::*gate)(mlir::Value));
  /// TFLite FULLY_CONNECTED: [N, C] -> reshape [1, N, C], tosa.matmul with a
  /// [1, C, cout] weight, bias add, reshape [N, cout].
  mlir::Value fullyConnected(mlir::Value x, int64_t cout);
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> dims);
  mlir::Value concat(mlir::ValueRange xs, int32_t axis);
  /// TFLite RESIZE_BILINEAR of [1,H,W,C] to [1,outH,outW,C].
  mlir::Value resizeBilinear(mlir::Value x, int64_t outH, int64_t outW, bool alignCorners);
  /// TFLite SOFTMAX over the last axis: max, sub, exp, sum, reciprocal, mul.
  mlir::Value softmax(mlir::Value x);

  // --- int8 layers ---------------------------------------------------------
  /// Quantized conv2d (or depthwise when `depthwise`): int8 input with its
  /// zero point, int8 OHWI/HWCM weights (zero point 0), i32 bias and i32
  /// accumulation, then per-channel tosa.rescale to int8 at `outZp` and the
  /// fused activation's clamp ([outZp, 127] for relu/relu6 when `relu`).
  QValue qconv(QValue x, int64_t cout, int64_t k, int64_t stride, bool depthwise, bool relu,
               int64_t outZp);
  /// Quantized avg_pool2d (VALID) with equal input/output zero points.
  QValue qavgPool(QValue x, int64_t k, int64_t stride);
  mlir::Value rescaleI32ToI8(mlir::Value acc, llvm::ArrayRef<double> scales, int64_t outZp);

  /// The expected E[x^2] of an activation (1 when unknown), and setting it.
  double power(mlir::Value v) const;
  mlir::Value track(mlir::Value v, double power);

private:
  std::string nextName(llvm::StringRef kind);
  mlir::Value tosaConst(mlir::ElementsAttr attr);
  llvm::SmallVector<int64_t, 4> broadcastShape(mlir::Value a, mlir::Value c);

  mlir::func::FuncOp fn;
  unsigned counter = 0;
  llvm::DenseMap<mlir::Value, double> powers;
};

/// TFLite SAME padding of one spatial dimension: {before, after}.
std::pair<int64_t, int64_t> samePadding(int64_t in, int64_t k, int64_t stride, int64_t dilation);
/// The output size of a convolution/pool with explicit padding.
int64_t convOutSize(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t before,
                    int64_t after);

} // namespace jitrun::modelgen

#endif // JITRUN_TOOLS_MODELGEN_TOSALAYERS_H
