//===- PackWeights.h - the packing patterns' shared shapes and builders ---===//
//
// What PackWeights.cpp (matmuls) and PackConvolutions.cpp (convolutions)
// share: the panel and AMX shape rules, and the builders of contractions
// over packed panels. Used by the jitrun-fusion-pack-weights pass only.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_FUSION_PACKWEIGHTS_H
#define JITRUN_FUSION_PACKWEIGHTS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace jitrun {

/// Rows up to which a matmul is weight-bound: its register tile has 8 rows,
/// so up to 8 rows it reads B once per tile anyway.
constexpr int64_t kMaxRows = 8;
/// Columns of a panel: four AVX-512 registers of f32, a whole number of
/// cache lines, and a tile the contraction strategy divides.
constexpr int64_t kPanel = 64;
/// Columns of one AMX f32 or i32 accumulator tile (16 rows of 64 bytes),
/// and the bytes of K one tdpbf16ps or tdpbssd step takes (a tile row: 32
/// bf16 or 64 int8), in VNNI groups (vnniGroup).
constexpr int64_t kAmxTileColumns = 16;
constexpr int64_t kAmxStepBytes = 64;
/// Columns of a panel when there are more rows than one register tile: two
/// AVX-512 registers, the width of the contraction's 8-row register tile.
constexpr int64_t kManyRowsPanel = 32;
/// A right operand that is no constant is packed at run time from this many
/// rows and bytes on (the pass over B then costs under 2 % of the matmul).
constexpr int64_t kRunTimePackRows = 64;
constexpr int64_t kRunTimePackBytes = 1 << 20;
/// A 1x1 convolution's filter that is an input is packed at run time only
/// when its rows (one input channel's output channels) are this far apart.
constexpr int64_t kRunTimePackRowBytes = 2048;

/// The K of one AMX step for `elem` (bf16 or i8).
inline int64_t amxStepK(mlir::Type elem) {
  return kAmxStepBytes / (elem.getIntOrFloatBitWidth() / 8);
}

/// True for the operand and accumulator types AMX tiles multiply: bf16 x
/// bf16 -> f32 (tdpbf16ps) and i8 x i8 -> i32 (tdpbssd).
inline bool amxTypes(mlir::Type a, mlir::Type b, mlir::Type acc) {
  return a == b && ((a.isBF16() && acc.isF32()) || (a.isInteger(8) && acc.isInteger(32)));
}

/// True when AMX tiles take a matmul of `m` rows, `k` of `elem` and panels
/// of `width` columns: many rows, K in two or more whole steps (LLVM's tile
/// register allocation ran out of registers on a last step of fewer pairs,
/// with the tiles of an edge tile of rows, 33x48x70, and on a single step,
/// with no K loop: 197x2304x32), panels of whole 16-column tiles.
inline bool amxShape(int64_t m, int64_t k, int64_t width, mlir::Type elem) {
  int64_t step = amxStepK(elem);
  return m > kMaxRows && k % step == 0 && k >= 2 * step && width % kAmxTileColumns == 0;
}

/// The panel width for N columns and `rows` rows: kPanel (kManyRowsPanel
/// past kMaxRows rows), or half or a quarter of it when that divides N and
/// the full width does not, never under 16.
int64_t panelWidth(int64_t n, int64_t rows);

/// The reassociation that splits the last of `rank` dims in two.
llvm::SmallVector<mlir::ReassociationIndices> lastDimSplit(int64_t rank);

/// The accumulator `init` ([rows..., N]) in panels, [rows..., P, T].
mlir::Value accumulatorInPanels(mlir::PatternRewriter &rewriter, mlir::Location loc,
                                mlir::Value init, int64_t panels, int64_t width);

/// The body of a contraction of `elem` operands into an `accElem`
/// accumulator: acc + a * b, bf16 or f16 operands widened to f32 first.
void multiplyAccumulateBody(mlir::OpBuilder &b, mlir::Location l, mlir::ValueRange args,
                            mlir::Type elem, mlir::Type accElem);

/// A contraction's [rows..., P, T] result as `cType` ([rows..., N]):
/// collapsed, and sliced when the panels padded N.
mlir::Value collapsePanels(mlir::PatternRewriter &rewriter, mlir::Location loc,
                           mlir::Value result, mlir::RankedTensorType cType);

/// The contraction of `a` ([rows..., K]) with the constant `bytes` (K x N,
/// row-major, of `elem`) over packed panels, accumulated onto `init`.
mlir::Value packedContraction(mlir::PatternRewriter &rewriter, mlir::Location loc, mlir::Value a,
                              llvm::ArrayRef<char> bytes, int64_t k, int64_t n, int64_t numRows,
                              mlir::Type elem, mlir::Value init);
/// The same with `packedB` ([P, K, T]) given.
mlir::Value packedContraction(mlir::PatternRewriter &rewriter, mlir::Location loc, mlir::Value a,
                              mlir::Value packedB, int64_t n, int64_t width, mlir::Type elem,
                              mlir::Value init);

/// acc += a * b over `maps`, its last `reductions` loops reductions, marked
/// for AMX tiles over packed panels; its [rows..., P, T] result collapsed.
mlir::Value amxContraction(mlir::PatternRewriter &rewriter, mlir::Location loc, mlir::Value a,
                           mlir::Value b, mlir::Value acc, llvm::ArrayRef<mlir::AffineMap> maps,
                           unsigned reductions, mlir::Type elem, mlir::RankedTensorType cType);

/// The contraction of `a` with `packedB` in VNNI panels ([P, K/g, T, g]),
/// in the form AMX tiles compute (marked jitrun.amx_tiles).
mlir::Value vnniPackedContraction(mlir::PatternRewriter &rewriter, mlir::Location loc,
                                  mlir::Value a, mlir::Value packedB, int64_t k, int64_t n,
                                  int64_t width, mlir::Type elem, mlir::Value init,
                                  unsigned batchDims = 0);

/// Whether a contraction of `a` with the constant `b` into `init`, `rows`
/// rows, packs (one element type, or bf16/f16 into f32; i8 into i32 when
/// `int8IntoI32`); `bytes` then holds b's bytes.
llvm::LogicalResult packable(mlir::PatternRewriter &rewriter, mlir::Operation *op, mlir::Value a,
                             mlir::Value b, mlir::Value init, int64_t rows,
                             std::optional<llvm::ArrayRef<char>> &bytes,
                             bool int8IntoI32 = false);

/// `value` ([d..., N]) in panels of `width` of its last dim, packed at run
/// time: [N / width, d..., width].
mlir::Value panelsAtRunTime(mlir::PatternRewriter &rewriter, mlir::Location loc,
                            mlir::Value value, int64_t width);

/// The convolution patterns (PackConvolutions.cpp).
void populatePackConvolutionPatterns(mlir::RewritePatternSet &patterns,
                                     int64_t minConvFilterBytes, bool amxPanels,
                                     bool bf16Convolutions);

} // namespace jitrun

#endif // JITRUN_FUSION_PACKWEIGHTS_H
