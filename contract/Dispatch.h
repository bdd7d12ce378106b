//===- Dispatch.h - the dispatch contract of fusion and codegen -*- C++ -*-===//
//
// What fusion promises codegen about a dispatch function, and the questions
// both ask of one: the attributes fusion leaves, which op anchors a
// dispatch, how much work an op does, which pads stay inside a dispatch.
// Fusion and codegen include this, never each other.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_DISPATCH_H
#define JITRUN_CONTRACT_DISPATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>

namespace jitrun {

/// Name of the unit attribute that marks outlined dispatch functions.
constexpr llvm::StringLiteral kDispatchAttrName = "jitrun.dispatch";

/// Marks a contraction over packed weight panels (jitrun-fusion-pack-weights):
/// codegen splits its workgroups by panels, never within one, so that each
/// reads one contiguous run of weights.
constexpr llvm::StringLiteral kPackedPanelsAttrName = "jitrun.packed_panels";
/// A bf16 contraction over VNNI panels that codegen computes in AMX tiles.
constexpr llvm::StringLiteral kAmxTilesAttrName = "jitrun.amx_tiles";
/// On a dispatch function about to be compiled: per result, the element
/// strides of the buffer it writes (an array of DenseI64ArrayAttr; empty:
/// its own row-major buffer). The host program binds such a result to its
/// box in a larger buffer (a branch's channels of a concat, a padded
/// buffer's interior), so that no copy moves it there.
constexpr llvm::StringLiteral kResultStridesAttrName = "jitrun.result_strides";
/// The same for the arguments: an argument read from a box of a larger
/// buffer (a concat that is a prefix of a larger one, shared with it).
constexpr llvm::StringLiteral kArgStridesAttrName = "jitrun.arg_strides";

/// A generic kernel (compiler/GenericKernels.cpp): a dispatch function whose
/// tensors have dynamic dims, all equal to its one trailing `index`
/// argument, which the host program passes at each call (the channel count
/// of one of DenseNet's dense layers). An i64 attribute on the function: the
/// largest value the dim takes, which the tile strategy sizes work by.
constexpr llvm::StringLiteral kGenericDimAttrName = "jitrun.generic_dim";

/// `acc + x * y` in floating point, as the body of a multiply-accumulate
/// generic that fusion builds (packed weight panels, grouped convolutions,
/// contractions widened to f32): its multiply is marked fastmath<contract>,
/// and codegen (jitrun-codegen-lower-vectors) fuses such a multiply with
/// the add it feeds into one FMA, as a named contraction lowers. Unfused,
/// a tile whose reduction loops are all of one step (a convolution's tap
/// and channel) is a multiply and an add: on hosts where both take the FMA
/// ports (Intel's), half the FMA rate.
mlir::Value multiplyAccumulate(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                               mlir::Value y, mlir::Value acc);

/// True for ops that anchor a dispatch: linalg ops with a reduction loop
/// (contractions, convolutions, pooling, reductions).
bool isRootOp(mlir::Operation *op);

/// The op that names a dispatch function: its root, else its first linalg op
/// that is not a fill, else its first linalg op (null when it has none).
mlir::Operation *dispatchRootOp(mlir::func::FuncOp dispatch);

/// The product of `op`'s static loop ranges (its iteration count): the work
/// dispatch formation weighs, the strategy sizes tiles by and --profile
/// turns into FLOPs. None when `op` is not a linalg op or a range is dynamic.
std::optional<int64_t> staticWork(mlir::Operation *op);

/// True for a tensor.pad that dispatch formation fuses into its user: a
/// constant, static padding read only as the input of channel-parallel
/// window ops (depthwise convolutions, pooling). Codegen reads such a pad's
/// interior straight from the unpadded input and pads only the border tiles
/// on the stack (no host fill and copy of the whole activation). A pad in
/// front of a convolution with input channels stays a host fill and copy:
/// one tile's padded input would hold every input channel; so does the pad
/// of a window spanning more than 4096 input pixels (taps and dilation).
bool isFusedWindowPad(mlir::tensor::PadOp pad);

} // namespace jitrun

#endif // JITRUN_CONTRACT_DISPATCH_H
