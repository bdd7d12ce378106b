//===- LinalgLayers.h - layer builders in linalg-on-tensors form -*- C++ -*-===//
//
// The layers of the linalg zoo models, built the way torch-mlir (and TF via
// its MLIR bridges) emit them: named ops for the heavy lifting
// (linalg.conv_2d_nchw_fchw / _nhwc_hwcf, linalg.matmul, linalg.batch_matmul,
// linalg.pooling_*) initialized by linalg.fill of a tensor.empty, padding as
// tensor.pad, and everything else as linalg.generic with arith/math bodies:
// bias and batch-norm parameters read through broadcasting maps, relu as
// cmpf ugt + select, reductions with an explicit fill.
//
// A Layers object builds at the builder's insertion point with one location;
// each weight is a dense_resource blob (weightConstant) named after the layer.
//
//===----------------------------------------------------------------------===//
#ifndef JITRUN_TOOLS_MODELGEN_LINALGLAYERS_H
#define JITRUN_TOOLS_MODELGEN_LINALGLAYERS_H

#include "Models.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace jitrun::modelgen {

class Layers {
public:
  Layers(ModelContext &ctx, mlir::Location loc) : ctx(ctx), b(ctx.builder), loc(loc) {}

  ModelContext &ctx;
  mlir::OpBuilder &b;
  mlir::Location loc;

  // --- Types, constants, weights -------------------------------------------
  mlir::RankedTensorType f32(llvm::ArrayRef<int64_t> shape);
  static llvm::SmallVector<int64_t> shapeOf(mlir::Value v);
  /// A scalar f32 arith.constant, and an index one.
  mlir::Value scalar(double v);
  mlir::Value index(int64_t v);
  /// A tensor.empty of `shape`; its dynamic dims (a dynamic variant's `?`)
  /// take `dynamicSize`.
  mlir::Value empty(llvm::ArrayRef<int64_t> shape, mlir::Type elem = {});
  /// A dynamic variant's open dim (tensor.dim of the entry argument that
  /// has it); null in a static model. A model has at most one open size, and
  /// every `?` dim in it is that size (the batch, or the sequence length).
  mlir::Value dynamicSize;
  /// `dynamicSize` as an f32 scalar (for means over the open dim); `v`
  /// as one in a static model.
  mlir::Value sizeAsF32(int64_t v);
  /// linalg.fill of a tensor.empty with `v` (the init of every named op);
  /// f32 unless `elem` is an integer type.
  mlir::Value filled(llvm::ArrayRef<int64_t> shape, double v, mlir::Type elem = {});
  /// A seeded uniform [-scale, scale] weight (dense_resource).
  mlir::Value weight(llvm::ArrayRef<int64_t> shape, double scale, llvm::StringRef name);
  /// A seeded weight of values center * (1 + uniform [-spread, spread])
  /// (batch-norm gamma and variance, layer-norm gamma): activations keep
  /// their scale.
  mlir::Value nearOne(llvm::ArrayRef<int64_t> shape, double spread, llvm::StringRef name,
                      double center = 1.0);

  // --- Shapes ---------------------------------------------------------------
  mlir::Value pad(mlir::Value x, llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                  double value);
  mlir::Value collapse(mlir::Value x, llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups);
  mlir::Value expand(mlir::Value x, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups);
  /// A transpose as torch-mlir emits it: a copy generic, out[d...] =
  /// in[d[perm[0]], ...] (the result's dim i is the source's dim perm[i]).
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);

  // --- linalg.generic --------------------------------------------------------
  using Body = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;
  /// A parallel generic over `shape` whose inputs are read through `maps`
  /// (each a map from the result's loops). The body gets the input scalars.
  mlir::Value elementwise(llvm::ArrayRef<int64_t> shape, mlir::ValueRange inputs,
                          llvm::ArrayRef<mlir::AffineMap> maps, Body body,
                          mlir::Type resultElem = {});
  /// Same-shape inputs, identity maps.
  mlir::Value map(mlir::ValueRange inputs, Body body, mlir::Type resultElem = {});
  /// An identity map of `rank` loops, and a map keeping only `dims`.
  mlir::AffineMap identity(unsigned rank);
  mlir::AffineMap project(unsigned rank, llvm::ArrayRef<unsigned> dims);

  enum class Reduce { Sum, Max };
  /// Reduces dimension `dim` of x away (rank r -> r-1), the init filled
  /// with 0 or -3.4e38; `square` sums x*x instead of x.
  mlir::Value reduceDim(mlir::Value x, unsigned dim, Reduce kind, bool square = false);
  mlir::Value reduceLast(mlir::Value x, Reduce kind, bool square = false);

  // --- Activations and elementwise math -------------------------------------
  mlir::Value relu(mlir::Value x);
  /// GELU with erf: 0.5 x (1 + erf(x / sqrt 2)), as torch-mlir emits it.
  mlir::Value gelu(mlir::Value x);
  mlir::Value sigmoid(mlir::Value x);
  mlir::Value tanh(mlir::Value x);
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value mulScalar(mlir::Value x, double s);
  /// x + bias, bias (rank 1) read along x's dimension `dim`.
  mlir::Value addBias(mlir::Value x, mlir::Value bias, unsigned dim);

  // --- Layers -----------------------------------------------------------------
  /// linalg.conv_2d_nchw_fchw of x (NCHW) with a fresh FCHW weight
  /// (He scale), tensor.pad of zeros first; bias (0.1 scale) as a broadcast
  /// add generic when `bias`.
  mlir::Value conv2dNchw(mlir::Value x, int64_t outC, int64_t k, int64_t stride, int64_t pad,
                         bool bias, llvm::StringRef name);
  /// linalg.conv_2d_nhwc_hwcf of x (NHWC), HWCF weight.
  mlir::Value conv2dNhwc(mlir::Value x, int64_t outC, int64_t k, int64_t stride, int64_t pad,
                         bool bias, llvm::StringRef name);
  /// Inference batch norm over dim 1 of NCHW as torch-mlir emits it: one
  /// generic reading gamma, beta, mean, var through (d1) maps:
  /// (x - mean) * rsqrt(var + eps) * gamma + beta, gamma near `gain`
  /// (below 1 on the last norm of a residual branch keeps deep stacks of
  /// random blocks from growing).
  mlir::Value batchNormNchw(mlir::Value x, llvm::StringRef name, double gain = 1.0);
  /// linalg.pooling_nchw_max, padded with -3.4e38 when `pad` > 0.
  mlir::Value maxPoolNchw(mlir::Value x, int64_t k, int64_t stride, int64_t pad);
  /// adaptive_avg_pool2d(1): linalg.pooling_nchw_sum over the whole image,
  /// then a divide generic; N x C x 1 x 1.
  mlir::Value globalAvgPoolNchw(mlir::Value x);
  /// x (M x K) times a fresh weight, + bias (0.1 scale) when `bias`. The
  /// weight is K x N (TF) or, with `torchLayout`, N x K transposed by a
  /// generic first (torch-mlir's aten.linear). The weight scale is
  /// gain * heScale(K) (gain < 1 for residual-branch outputs of deep stacks).
  mlir::Value linear(mlir::Value x, int64_t n, bool bias, llvm::StringRef name,
                     bool torchLayout = false, double gain = 1.0);
  /// Softmax over the innermost dimension: max, exp(x - max), sum, divide.
  mlir::Value softmaxLast(mlir::Value x);
  /// Layer norm over the innermost dimension with fresh gamma (near 1) and
  /// beta (0.1 scale): mean, centered, mean of squares, rsqrt, affine.
  mlir::Value layerNormLast(mlir::Value x, double eps, llvm::StringRef name);
  /// Multi-head scaled dot-product attention on S x H projections q, k, v:
  /// heads split by expand_shape + transpose generics, linalg.batch_matmul
  /// for Q K^T and P V, a scale generic, softmaxLast; returns S x H.
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v, int64_t heads);

  /// Locates the ops built from now on in layer `name`: NameLoc(name) of
  /// FileLineColLoc("MODEL/name", N, 1) with N counting the layers, so
  /// jitrun's diagnostics and --explain-fusion (which print file:line:col)
  /// name the layer.
  void at(llvm::StringRef name);
  /// The model name (the file part of the locations).
  std::string model;

private:
  unsigned layerCount = 0;
  mlir::Value conv2d(mlir::Value x, int64_t outC, int64_t k, int64_t stride, int64_t pad,
                     bool bias, llvm::StringRef name, bool nchw);
};

/// Adds the public entry @main(inputs...) to the module; `body` builds the
/// function body at its start and returns the results. An input with a
/// dynamic dim gives the Layers their dynamicSize.
mlir::LogicalResult
buildMain(ModelContext &ctx, llvm::StringRef modelName, llvm::ArrayRef<mlir::Type> inputs,
          llvm::function_ref<llvm::SmallVector<mlir::Value>(Layers &, mlir::ValueRange)> body);

/// The linalg zoo, by family file (ModelsLinalg*.cpp).
void addLinalgVisionModels(std::vector<ModelSpec> &models);
void addLinalgTransformerModels(std::vector<ModelSpec> &models);
void addLinalgControlFlowModels(std::vector<ModelSpec> &models);

} // namespace jitrun::modelgen

#endif // JITRUN_TOOLS_MODELGEN_LINALGLAYERS_H
