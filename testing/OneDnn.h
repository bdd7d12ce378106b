//===- OneDnn.h - oneDNN primitives as references and benchmark peers -*- C++ -*-===//
//
// Each op is a real oneDNN primitive (engine cpu, stream in order) on
// HostTensors in the layouts the MLIR modules use. `prepareX` builds it once:
// the primitive created, the inputs copied into memory it owns, constant
// weights reordered into the primitive's preferred layout. `run()` executes
// it (what jitrun-bench times); `result()` returns the output in the caller's
// layout. `X(...)` prepares, runs once and returns the result: the expected
// values of the e2e tests. One library, so that the tests and the benchmark
// compare jitrun with the same primitives.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_TESTING_ONEDNN_H
#define JITRUN_TESTING_ONEDNN_H

#include "support/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitrun {
namespace testing {
namespace onednn {

using Shape = std::vector<int64_t>;

/// The oneDNN library's version, "MAJOR.MINOR.PATCH".
std::string version();

/// A oneDNN primitive with all its memory bound.
class Prepared {
public:
  struct State;
  explicit Prepared(std::unique_ptr<State> state);
  ~Prepared();
  Prepared(const Prepared &) = delete;
  Prepared &operator=(const Prepared &) = delete;

  /// Executes the primitive and waits for it.
  void run();
  /// The output of the last run in the caller's layout.
  HostTensor result() const;
  /// oneDNN's name for the implementation it picked (e.g. "brg:avx512_core").
  const std::string &implementation() const;

private:
  std::unique_ptr<State> state_;
};

/// Where a convolution's source and destination live. `Caller`: in the
/// caller's layout (NHWC or NCHW), as the jitrun side sees them. `Preferred`:
/// in the layout oneDNN picks, the source reordered in at prepare and the
/// result reordered out by result(). Weights always take oneDNN's layout.
enum class Activations { Caller, Preferred };

/// Extras of a matmul: a bias row [N], a residual [MxN] added after it, and
/// a ReLU last (oneDNN post-ops).
struct MatmulEpilogue {
  const HostTensor *bias = nullptr;
  const HostTensor *residual = nullptr;
  bool relu = false;
};

/// C[MxN] = A[MxK] * B[KxN]; batched ([BxMxK] * [BxKxN]) when rank 3.
std::unique_ptr<Prepared> prepareMatmul(const HostTensor &a, const HostTensor &b,
                                        const MatmulEpilogue &epilogue = {});
HostTensor matmul(const HostTensor &a, const HostTensor &b);

/// The int8 matmul: s8 A[MxK] x s8 B[KxN] -> s32 C[MxN], exact.
std::unique_ptr<Prepared> prepareMatmulS8(const HostTensor &a, const HostTensor &b);
/// bf16 x bf16 -> f32 (a and b hold bf16).
std::unique_ptr<Prepared> prepareMatmulBf16(const HostTensor &a, const HostTensor &b);
HostTensor matmulBf16(const HostTensor &a, const HostTensor &b);
HostTensor matmulS8(const HostTensor &a, const HostTensor &b);
/// A plain 2-D matmul of a and b (both bf16, f16 or f32) into `out` (bf16,
/// f16 or f32), accumulated in f32 by oneDNN.
HostTensor matmulTyped(const HostTensor &a, const HostTensor &b, ElementType out);

/// Data layouts of a 2-D convolution, as the linalg named ops spell them.
enum class ConvLayout { NHWC_HWCF, NCHW_FCHW };

/// Geometry of a 2-D convolution or pooling window.
struct Window2D {
  int64_t strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1; ///< 1 = no dilation (MLIR convention)
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;

  /// Stride 1, the same padding on every side.
  static Window2D padded(int64_t pad) { return {1, 1, 1, 1, pad, pad, pad, pad}; }
};

/// A direct convolution without bias; `input` and `filter` are in `layout`
/// (NHWC+HWCF or NCHW+FCHW); the result has the input's layout.
std::unique_ptr<Prepared> prepareConv2d(const HostTensor &input, const HostTensor &filter,
                                        ConvLayout layout, const Window2D &w,
                                        Activations activations = Activations::Preferred);
HostTensor conv2d(const HostTensor &input, const HostTensor &filter, ConvLayout layout,
                  const Window2D &w);
/// An NHWC x HWCF convolution of `input` and `filter` (both bf16, f16 or
/// f32) into `out` (bf16, f16 or f32), accumulated in f32 by oneDNN.
HostTensor conv2dTyped(const HostTensor &input, const HostTensor &filter, const Window2D &w,
                       ElementType out);

/// The int8 convolution: s8 NHWC input x s8 HWCF filter -> s32 NHWC, exact
/// (oneDNN picks its own weight layout and compensation for the s8 input).
std::unique_ptr<Prepared> prepareConv2dS8(const HostTensor &input, const HostTensor &filter,
                                          const Window2D &w,
                                          Activations activations = Activations::Preferred);
HostTensor conv2dS8(const HostTensor &input, const HostTensor &filter, const Window2D &w);

/// Depthwise convolution, channel multiplier 1: input NHWC and filter HWC,
/// or input NCHW and filter CHW.
std::unique_ptr<Prepared> prepareDepthwiseConv2d(const HostTensor &input,
                                                 const HostTensor &filter, const Window2D &w,
                                                 bool nchw = false,
                                                 Activations activations = Activations::Preferred);
HostTensor depthwiseConv2d(const HostTensor &input, const HostTensor &filter,
                           const Window2D &w, bool nchw = false);

/// Pooling kinds.
enum class PoolKind { Max, AvgIncludePadding };

/// Pooling over NHWC `input` with a kernelH x kernelW window.
std::unique_ptr<Prepared> preparePool2d(const HostTensor &input, PoolKind kind, int64_t kernelH,
                                        int64_t kernelW, const Window2D &w);
HostTensor pool2d(const HostTensor &input, PoolKind kind, int64_t kernelH, int64_t kernelW,
                  const Window2D &w);

/// Unary element-wise functions.
enum class Eltwise { Relu, Clip, Logistic, Tanh, Exp };

/// dst = f(src); alpha/beta are the lower/upper bounds for Clip.
std::unique_ptr<Prepared> prepareEltwise(const HostTensor &src, Eltwise kind, float alpha = 0.0f,
                                         float beta = 0.0f);
HostTensor eltwise(const HostTensor &src, Eltwise kind, float alpha = 0.0f, float beta = 0.0f);

/// Binary element-wise ops.
enum class Binary { Add, Mul };

/// Post-ops of a binary op: a multiplication by `mul` (same shape as the
/// result), then a ReLU.
struct BinaryEpilogue {
  const HostTensor *mul = nullptr;
  bool relu = false;
};

/// dst = a op b; `b` may broadcast (size-1 dims, same rank as `a`).
std::unique_ptr<Prepared> prepareBinary(const HostTensor &a, const HostTensor &b, Binary kind,
                                        const BinaryEpilogue &epilogue = {});
HostTensor binary(const HostTensor &a, const HostTensor &b, Binary kind,
                  bool reluPostOp = false);

/// Softmax over the last dimension.
std::unique_ptr<Prepared> prepareSoftmaxLastDim(const HostTensor &src);
HostTensor softmaxLastDim(const HostTensor &src);

} // namespace onednn
} // namespace testing
} // namespace jitrun

#endif // JITRUN_TESTING_ONEDNN_H
