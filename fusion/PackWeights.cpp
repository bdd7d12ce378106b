//===- PackWeights.cpp - constant weights in the order a kernel reads them ===//
//
// A matmul with a few rows (a classifier, a batch-1 projection) is bound by
// reading its weights: each element of B is used once per row of A. Split
// along N into workgroups, every workgroup reads a piece of each row of B,
// 128 bytes in every 4 KB: strided runs that the hardware prefetchers do not
// follow (7-8 GB/s on one core of this host, against 19-29 GB/s for the same
// bytes read in order). A constant B is packed here, at compile time, into
// panels of T columns, [ceil(N / T)][K][T], zero-padded, so that each
// workgroup's part of B is one contiguous run. The matmul becomes a generic
// contraction over the panels; its result is collapsed back, and sliced when
// N was padded.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

#define DEBUG_TYPE "jitrun-fusion-pack-weights"

namespace jitrun {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// Rows up to which a matmul is weight-bound enough to pack its weights: its
/// register tile has 8 rows, so up to 8 rows it reads B once per tile anyway.
constexpr int64_t kMaxRows = 8;
/// Columns of a panel: four AVX-512 registers of f32, a whole number of
/// cache lines, and a tile the contraction strategy divides.
constexpr int64_t kPanel = 64;

/// The bytes of a constant, row-major; none for a splat.
static std::optional<ArrayRef<char>> constantBytes(arith::ConstantOp cst) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && !dense.isSplat() && dense.getElementType().isIntOrFloat())
    return dense.getRawData();
  return std::nullopt;
}

struct PackConstantMatmulRhs : public OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return failure();
    Value a = op.getInputs()[0], init = op.getOutputs()[0];
    auto cst = op.getInputs()[1].getDefiningOp<arith::ConstantOp>();
    auto aType = dyn_cast<RankedTensorType>(a.getType());
    auto bType = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
    auto cType = dyn_cast<RankedTensorType>(init.getType());
    if (!cst || !aType || !bType || !cType || !aType.hasStaticShape() ||
        !bType.hasStaticShape() || !cType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a constant B and static shapes");
    Type elem = bType.getElementType();
    if (aType.getElementType() != elem || cType.getElementType() != elem ||
        !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
      return rewriter.notifyMatchFailure(op, "needs one byte-sized element type");
    int64_t m = aType.getDimSize(0), k = bType.getDimSize(0), n = bType.getDimSize(1);
    if (m > kMaxRows || n < 2 * kPanel)
      return rewriter.notifyMatchFailure(op, "not weight-bound, or too narrow to split");
    int64_t panels = llvm::divideCeil(n, kPanel), padded = panels * kPanel;
    // A padded result starts from zeros: only a fill of an empty tensor
    // says what the padding's accumulators start from.
    auto fill = init.getDefiningOp<linalg::FillOp>();
    bool freshFill = fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    if (padded != n && !freshFill)
      return rewriter.notifyMatchFailure(op, "padded N needs a fill as accumulator");
    std::optional<ArrayRef<char>> bytes = constantBytes(cst);
    size_t eb = elem.getIntOrFloatBitWidth() / 8;
    if (!bytes || bytes->size() != static_cast<size_t>(k * n) * eb)
      return rewriter.notifyMatchFailure(op, "B's bytes are not readable");

    // packed[p][kk][t] = B[kk][p * kPanel + t], zero past N.
    std::vector<char> packed(static_cast<size_t>(panels * k * kPanel) * eb, 0);
    for (int64_t p = 0; p < panels; ++p) {
      int64_t width = std::min<int64_t>(kPanel, n - p * kPanel);
      for (int64_t kk = 0; kk < k; ++kk)
        std::memcpy(packed.data() + ((p * k + kk) * kPanel) * eb,
                    bytes->data() + (kk * n + p * kPanel) * eb, width * eb);
    }
    Location loc = op.getLoc();
    auto packedType = RankedTensorType::get({panels, k, kPanel}, elem);
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<char>(packed));
    Value packedB = arith::ConstantOp::create(
        rewriter, loc, packedType,
        DenseResourceElementsAttr::get(packedType, "packed_weights", std::move(blob)));

    // The accumulator in panels.
    auto accType = RankedTensorType::get({m, panels, kPanel}, elem);
    Value acc;
    if (freshFill) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, accType.getShape(), elem);
      acc = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
    } else {
      acc = tensor::ExpandShapeOp::create(rewriter, loc, accType, init,
                                          SmallVector<ReassociationIndices>{{0}, {1, 2}});
    }
    // c[m, p, t] += a[m, kk] * packed[p, kk, t]: loops (m, p, t, kk).
    MLIRContext *ctx = getContext();
    AffineExpr dm, dp, dt, dk;
    bindDims(ctx, dm, dp, dt, dk);
    SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {dm, dk}, ctx),
                                   AffineMap::get(4, 0, {dp, dk, dt}, ctx),
                                   AffineMap::get(4, 0, {dm, dp, dt}, ctx)};
    SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{a, packedB}, ValueRange{acc}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value product, sum;
          if (isa<FloatType>(elem)) {
            product = arith::MulFOp::create(b, l, args[0], args[1]);
            sum = arith::AddFOp::create(b, l, args[2], product);
          } else {
            product = arith::MulIOp::create(b, l, args[0], args[1]);
            sum = arith::AddIOp::create(b, l, args[2], product);
          }
          linalg::YieldOp::create(b, l, sum);
        });
    generic->setAttr(kPackedPanelsAttrName, rewriter.getUnitAttr());
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, generic.getResult(0), SmallVector<ReassociationIndices>{{0}, {1, 2}});
    if (padded != n)
      result = tensor::ExtractSliceOp::create(
          rewriter, loc, cType, result, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(m), rewriter.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PackWeightsPass final : public impl::PackWeightsPassBase<PackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PackConstantMatmulRhs>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace jitrun
