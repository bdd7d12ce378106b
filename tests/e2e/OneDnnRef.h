//===- OneDnnRef.h - oneDNN reference computations for the e2e tests ------===//
//
// Each function computes one op with a real oneDNN primitive (engine cpu,
// stream in order) on HostTensors in the layouts the MLIR modules use, letting
// oneDNN pick its own layouts ("any") and reordering in and out. These are
// the expected values the jitrun results are checked against.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_TESTS_E2E_ONEDNNREF_H
#define JITRUN_TESTS_E2E_ONEDNNREF_H

#include "support/Tensor.h"

#include <cstdint>

namespace jitrun {
namespace e2e {
namespace onednn {

/// C[MxN] = A[MxK] * B[KxN]; batched ([BxMxK] * [BxKxN]) when rank 3.
HostTensor matmul(const HostTensor &a, const HostTensor &b);

/// The int8 matmul: s8 A[MxK] x s8 B[KxN] -> s32 C[MxN], exact.
HostTensor matmulS8(const HostTensor &a, const HostTensor &b);

/// Data layouts of a 2-D convolution, as the linalg named ops spell them.
enum class ConvLayout { NHWC_HWCF, NCHW_FCHW };

/// Geometry of a 2-D convolution or pooling window.
struct Window2D {
  int64_t strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1; ///< 1 = no dilation (MLIR convention)
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
};

/// A direct convolution without bias; `input` and `filter` are in `layout`
/// (NHWC+HWCF or NCHW+FCHW); the result has the input's layout.
HostTensor conv2d(const HostTensor &input, const HostTensor &filter,
                  ConvLayout layout, const Window2D &w);

/// The int8 convolution: s8 NHWC input x s8 HWCF filter -> s32 NHWC, exact
/// (oneDNN picks its own weight layout and compensation for the s8 input).
HostTensor conv2dS8(const HostTensor &input, const HostTensor &filter,
                    const Window2D &w);

/// Depthwise convolution, channel multiplier 1: input NHWC, filter HWC.
HostTensor depthwiseConv2d(const HostTensor &input, const HostTensor &filter,
                           const Window2D &w, bool nchw = false);

/// Pooling kinds.
enum class PoolKind { Max, AvgIncludePadding };

/// Pooling over NHWC `input` with a kernelH x kernelW window.
HostTensor pool2d(const HostTensor &input, PoolKind kind, int64_t kernelH,
                  int64_t kernelW, const Window2D &w);

/// Unary element-wise functions.
enum class Eltwise { Relu, Clip, Logistic, Tanh, Exp };

/// dst = f(src); alpha/beta are the lower/upper bounds for Clip.
HostTensor eltwise(const HostTensor &src, Eltwise kind, float alpha = 0.0f,
                   float beta = 0.0f);

/// Binary element-wise ops.
enum class Binary { Add, Mul };

/// dst = a op b; `b` may broadcast (size-1 dims, same rank as `a`). With
/// `reluPostOp` oneDNN applies max(x, 0) afterwards as a post-op.
HostTensor binary(const HostTensor &a, const HostTensor &b, Binary kind,
                  bool reluPostOp = false);

/// Softmax over the last dimension.
HostTensor softmaxLastDim(const HostTensor &src);

} // namespace onednn
} // namespace e2e
} // namespace jitrun

#endif // JITRUN_TESTS_E2E_ONEDNNREF_H
