//===- Strategy.h - tile-size selection per op kind ------------*- C++ -*-===//
//
// The policy half of tiling: which tile sizes a dispatch gets at the
// workgroup, cache and vector-register levels, and how its reduction loops are
// tiled. Chosen from the anchoring op's kind (contraction, convolution,
// reduction, elementwise), its static shapes and the vector width.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CODEGEN_STRATEGY_H
#define JITRUN_CODEGEN_STRATEGY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace jitrun {

/// Inputs of the tile-size policy.
struct TileSizeOptions {
  unsigned vectorBits = 512;
  unsigned targetWorkgroups = 32;
  /// Cache and vector tiles are divided by this (retiling under the stack limit).
  unsigned tileScale = 1;
  /// VNNI dot products take i8 reductions four at a time.
  bool vnni = false;
};

/// Tile sizes over the loops of a dispatch's tile root; 0 leaves a loop whole.
struct TileSizes {
  llvm::SmallVector<int64_t> workgroup, cache, vector;
  /// The anchor (a row reduction, or a cheap root such as a squeeze-excite
  /// convolution) feeds a consumer that reads it through a broadcast: it and
  /// whatever the consumer reads through a broadcast are fused at the
  /// workgroup level only, so finer tiles do not recompute them.
  bool anchorAtWorkgroupLevel = false;
};

/// Marks an op that tile-and-fuse fuses into workgroups only, not into cache
/// or vector tiles (the row sums of shiftInt8RhsForVnni: each finer tile of
/// the contraction would sum the rows again).
constexpr llvm::StringLiteral kWorkgroupLevelAttrName = "jitrun.workgroup_level";

/// Marks an elementwise producer that is fused into the reduction loop of its
/// consumer, one reduction tile at a time (the sign flip of a VNNI right
/// operand), instead of being computed whole for each vector tile.
constexpr llvm::StringLiteral kFuseIntoReductionAttrName = "jitrun.fuse_into_reduction";

/// The attribute on a dispatch's root that holds its tile sizes.
constexpr llvm::StringLiteral kLoweringConfigAttrName = "jitrun.lowering_config";

/// `sizes` as a lowering config: {workgroup, cache, vector: array<i64>,
/// anchor_at_workgroup_level: unit when set}.
mlir::DictionaryAttr loweringConfig(mlir::MLIRContext *ctx, const TileSizes &sizes);
/// The tile sizes of lowering config `config`; failure (with an error on
/// `op`) when it is malformed or does not fit `op`'s loops.
mlir::FailureOr<TileSizes> parseLoweringConfig(mlir::Operation *op, mlir::DictionaryAttr config);

/// Both inputs i8, the result i32: a candidate for VNNI dot products.
bool isInt8Contraction(mlir::linalg::LinalgOp op);

/// Sizes for the three parallel tiling levels of `root`, the op producing the
/// dispatch result, guided by the dispatch's anchor (its reduction op).
TileSizes selectTileSizes(mlir::TilingInterface root, const TileSizeOptions &opts);

/// Tile sizes for the reduction loops of `op` (parallel loops get 0): K of a
/// contraction by 1, a convolution's filter taps and input channels by 1
/// (four or more under VNNI; a depthwise one keeps its last filter loop whole
/// and decomposes to 1-D), a reduction's inner loop by the vector width.
llvm::SmallVector<int64_t> selectReductionTileSizes(mlir::linalg::LinalgOp op,
                                                    const TileSizeOptions &opts);

} // namespace jitrun

#endif // JITRUN_CODEGEN_STRATEGY_H
