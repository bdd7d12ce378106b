//===- LowerVectors.cpp - vector ops toward LLVM, accumulators in registers ===//
//
// After bufferization: hoists loop-invariant transfers (so a contraction's
// accumulator stays in registers across its reduction loop), lowers
// contractions to outer products and FMAs, and the remaining n-D vector ops
// to forms the LLVM conversion handles well. Math functions become
// polynomial approximations that vectorize.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "jitrun-codegen-lower-vectors"

namespace jitrun {
#define GEN_PASS_DEF_LOWERVECTORSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

struct LowerVectorsPass final
    : public impl::LowerVectorsPassBase<LowerVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    // 1. Keep accumulators in registers across reduction loops.
    linalg::hoistRedundantVectorTransfers(fn, /*verifyNonZeroTrip=*/true);
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(fn, std::move(patterns));
    };
    // 2a. With VNNI, i8 x i8 -> i32 register tiles become vpdpbusd.
    if (vnni && failed(apply([&](RewritePatternSet &p) {
          populateVnniContractionPatterns(p, /*vectorBits=*/512);
        })))
      return signalPassFailure();
    // 2. Contractions to outer products and FMAs; reductions and masks.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })))
      return signalPassFailure();
    // 3. Unit dimensions (a tile of one pixel, one channel or one tap) go
    // away, so elementwise vector ops work on whole registers instead of
    // being unrolled into one-element vectors.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateDropUnitDimWithShapeCastPatterns(p);
          vector::ShapeCastOp::getCanonicalizationPatterns(p, ctx);
          vector::BroadcastOp::getCanonicalizationPatterns(p, ctx);
        })))
      return signalPassFailure();
    // 4. Transfers with permutations, transposes, broadcasts, shape casts.
    if (failed(apply([&](RewritePatternSet &p) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorTransposeLoweringPatterns(
              p, vector::VectorTransposeLowering::Shuffle1D);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorShapeCastLoweringPatterns(p);
          vector::populateVectorGatherLoweringPatterns(p);
          vector::populateVectorStepLoweringPatterns(p);
        })))
      return signalPassFailure();
    // 5. Vectorizable polynomial approximations of exp, tanh, log, erf, ...
    if (failed(apply([&](RewritePatternSet &p) {
          populateMathPolynomialApproximationPatterns(p);
        })))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
