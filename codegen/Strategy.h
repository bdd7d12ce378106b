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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/TilingInterface.h"

#include <string>

namespace jitrun {

/// Inputs of the tile-size policy.
struct TileSizeOptions {
  unsigned vectorBits = 512;
  unsigned targetWorkgroups = 32;
  /// Cache and vector tiles are divided by this (retiling under the stack limit).
  unsigned tileScale = 1;
  /// VNNI dot products take i8 reductions four at a time.
  bool vnni = false;
  /// AVX512_BF16 dot products take bf16 reductions two at a time.
  bool bf16 = false;
  /// When nonzero, the most output pixels of an f32 register tile of a KxK
  /// convolution over packed filter panels (loops over the taps around the
  /// channel loop), two registers of channels per pixel, below the 14 (28
  /// accumulators) other convolutions take: 12 where LLVM's scheduling
  /// model spills more (CodegenOptions).
  int64_t maxTapTilePixels = 0;
};

/// Tile sizes over the loops of a dispatch's tile root; 0 leaves a loop whole.
struct TileSizes {
  llvm::SmallVector<int64_t> workgroup, cache, vector;
  /// The anchor (a row reduction, or a cheap root such as a squeeze-excite
  /// convolution) feeds a consumer that reads it through a broadcast: it and
  /// whatever the consumer reads through a broadcast are fused at the
  /// workgroup level only, so finer tiles do not recompute them.
  bool anchorAtWorkgroupLevel = false;
  /// The root's reduction tiles (0 for parallel loops); empty: chosen when
  /// reductions are tiled (selectReductionTileSizes).
  llvm::SmallVector<int64_t> reduction;
  /// The anchor's kind: contraction, convolution, reduction or elementwise.
  /// Printed with the config; tiling does not read it.
  std::string scheme;
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

/// On a dispatch function: jitrun-codegen-prepare-contractions propagated a
/// reshape of its result into its contraction (read by tile and vectorize).
constexpr llvm::StringLiteral kExpandedReshapesAttrName = "jitrun.expanded_reshapes";
/// On a dispatch function: its i8 contractions read their right operand
/// shifted to unsigned for VNNI (shiftInt8RhsForVnni).
constexpr llvm::StringLiteral kVnniShiftedAttrName = "jitrun.vnni_shifted";

/// The op a dispatch is tiled from: the one whose result is stored into the
/// first output buffer; with several outputs, the last of them in block
/// order (it consumes the others, which are fused into its tiles). Null if
/// there is none.
mlir::TilingInterface findTileRoot(mlir::func::FuncOp fn);

/// For a reduction that is not a tile root (its rows not tiled by a
/// lowering config): its parallel loops tiled too, rows a few at a time.
void tileRowsOfReduction(mlir::linalg::LinalgOp op, llvm::SmallVectorImpl<int64_t> &sizes);

/// `sizes` as a lowering config: {workgroup, cache, vector, reduction:
/// array<i64>, scheme: string, anchor_at_workgroup_level: unit when set}.
mlir::DictionaryAttr loweringConfig(mlir::MLIRContext *ctx, const TileSizes &sizes);
/// The tile sizes of lowering config `config`; failure (with an error on
/// `op`) when it is malformed or does not fit `op`'s loops.
mlir::FailureOr<TileSizes> parseLoweringConfig(mlir::Operation *op, mlir::DictionaryAttr config);

/// Both inputs i8, the result i32: a candidate for VNNI dot products.
bool isInt8Contraction(mlir::linalg::LinalgOp op);
/// Both inputs bf16, the result f32: a candidate for AVX512_BF16 dot products.
bool isBf16Contraction(mlir::linalg::LinalgOp op);

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
