//===- PackedConstants.h - constant weights laid out in panels -*- C++ -*-===//
//
// See PackedConstants.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_FUSION_PACKEDCONSTANTS_H
#define JITRUN_FUSION_PACKEDCONSTANTS_H

#include "mlir/IR/PatternMatch.h"

namespace jitrun {

/// The elements of one VNNI group of `elem`: 2 bf16, 4 int8 (4 bytes).
int64_t vnniGroup(mlir::Type elem);

/// The constant `bytes` (a K x N row-major matrix of `elem`: a matmul's B,
/// or an HWCF filter's (H * W * C) x F) in panels of `width` columns, zero
/// past N: packed[p][kk][t] = B[kk][p * width + t], as a constant of type
/// [P, kShape..., width] (kShape: K's dims, their product K).
mlir::Value packedConstant(mlir::PatternRewriter &rewriter, mlir::Location loc,
                           llvm::ArrayRef<char> bytes, llvm::ArrayRef<int64_t> kShape, int64_t n,
                           int64_t width, mlir::Type elem);

/// The constant `bytes` (a K x N row-major matrix of bf16 or int8, K a
/// multiple of vnniGroup) in VNNI panels of `width` columns:
/// packed[lead...][p][kg][t][v] = B[g kg + v][p * width + t], zero past N,
/// for each of the `lead` dims' K x N matrices (a KxK filter's taps).
mlir::Value vnniPackedConstant(mlir::PatternRewriter &rewriter, mlir::Location loc,
                               llvm::ArrayRef<char> bytes, int64_t k, int64_t n, int64_t width,
                               mlir::Type elem, llvm::ArrayRef<int64_t> lead = {});

} // namespace jitrun

#endif // JITRUN_FUSION_PACKEDCONSTANTS_H
