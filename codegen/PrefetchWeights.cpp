//===- PrefetchWeights.cpp - software prefetch of streamed weight panels ---===//
//
// A packed convolution or contraction on a small map (ResNet-50's 7x7
// stage, Inception v3's 8x8 one) reads each weight panel a few times per
// workgroup, the first time from main memory: a model's weights (ResNet-50:
// 102 MB) do not stay in cache between runs. The hardware prefetchers stop
// at every 4 KB page, so that first pass waits on memory about once per
// page. This inserts, next to each such read in a reduction loop, a
// prefetch (to L2) of every cache line of the chunk `distance` bytes
// further along the buffer; near the end of a panel that is the start of
// the next one, which the next workgroup reads.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#define DEBUG_TYPE "jitrun-codegen-prefetch-weights"

namespace jitrun {
#define GEN_PASS_DEF_PREFETCHWEIGHTSPASS
#include "codegen/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

constexpr int64_t kCacheLineBytes = 64;

/// The kernel argument `read` streams: a buffer of at least `minBytes`,
/// read one whole innermost row per iteration of the innermost loop around
/// the read (the loop's induction variable indexes the next-to-last dim,
/// step 1), so that consecutive iterations read consecutive memory. Null
/// otherwise.
static BlockArgument streamedArgument(vector::TransferReadOp read, func::FuncOp fn,
                                      int64_t minBytes) {
  auto loop = dyn_cast<scf::ForOp>(read->getParentOp());
  if (!loop || !loop.getBody()->getOps<scf::ForOp>().empty() ||
      !matchPattern(loop.getStep(), m_One()))
    return nullptr;
  auto arg = dyn_cast<BlockArgument>(read.getBase());
  if (!arg || arg.getOwner() != &fn.getBody().front())
    return nullptr;
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getElementType().isIntOrFloat() || type.getElementTypeBitWidth() % 8 != 0)
    return nullptr;
  int64_t rank = type.getRank();
  VectorType vector = read.getVectorType();
  if (read.getMask() || !read.getPermutationMap().isMinorIdentity() ||
      vector.getNumElements() != type.getShape().back() ||
      read.getIndices()[rank - 2] != loop.getInductionVar() ||
      !matchPattern(read.getIndices()[rank - 1], m_Zero()))
    return nullptr;
  if (type.getNumElements() * (type.getElementTypeBitWidth() / 8) < minBytes)
    return nullptr;
  return arg;
}

struct PrefetchWeightsPass final : public impl::PrefetchWeightsPassBase<PrefetchWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    SmallVector<std::pair<vector::TransferReadOp, BlockArgument>> streams;
    fn.walk([&](vector::TransferReadOp read) {
      if (BlockArgument arg = streamedArgument(read, fn, minBytes))
        streams.emplace_back(read, arg);
    });
    if (streams.empty())
      return;
    MLIRContext *ctx = &getContext();
    // Each streamed buffer once as a flat view, to prefetch across rows.
    llvm::DenseMap<Value, Value> flat;
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    for (auto [read, arg] : streams) {
      auto type = cast<MemRefType>(arg.getType());
      Value &view = flat[arg];
      if (!view)
        view = memref::CollapseShapeOp::create(
            entry, arg.getLoc(), arg,
            SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
      OpBuilder b(read);
      Location loc = read.getLoc();
      int64_t elementBytes = type.getElementTypeBitWidth() / 8;
      int64_t rowBytes = type.getShape().back() * elementBytes;
      int64_t last = type.getNumElements() - 1;
      Value at = affine::AffineLinearizeIndexOp::create(b, loc, read.getIndices(),
                                                        type.getShape(), /*disjoint=*/true);
      AffineExpr d0 = getAffineDimExpr(0, ctx);
      for (int64_t line = 0; line < rowBytes; line += kCacheLineBytes) {
        int64_t ahead = (distance + line) / elementBytes;
        // Clamped to the buffer's last element: the last rows prefetch it again.
        Value index = affine::AffineMinOp::create(
            b, loc, AffineMap::get(1, 0, {d0 + ahead, getAffineConstantExpr(last, ctx)}, ctx),
            ValueRange{at});
        memref::PrefetchOp::create(b, loc, view, ValueRange{index}, /*isWrite=*/false,
                                   /*localityHint=*/2, /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
} // namespace jitrun
