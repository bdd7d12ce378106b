//===- Bf16Weights.cpp - f32 matmul weights stored as bf16 ----------------===//
//
// --weights=bf16: a matmul of f32 into f32 against a constant right operand
// becomes a matmul of bf16 operands into the same f32 accumulator. The
// constant is rounded to bf16 here, once (half the bytes to stream per
// run); the left operand is rounded by an elementwise generic that fusion
// takes into whatever produces it. Weight-bound and compute-bound matmuls
// both gain: half the weight bytes, and on AVX512_BF16 twice the rate.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace jitrun {
#define GEN_PASS_DEF_BF16WEIGHTSPASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {
namespace {

/// f32 to bf16 bits, rounded to nearest even (NaN stays a quiet NaN).
static uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

} // namespace

Value bf16Constant(OpBuilder &b, Location loc, arith::ConstantOp cst) {
  if (!getElementTypeOrSelf(cst.getType()).isF32())
    return nullptr;
  return convertConstant(b, loc, cst, b.getBF16Type(), "bf16_weights",
                         [](const char *from, char *to) {
                           float f;
                           std::memcpy(&f, from, 4);
                           uint16_t bits = toBf16(f);
                           std::memcpy(to, &bits, 2);
                         });
}

namespace {

struct Bf16WeightsPass final : public impl::Bf16WeightsPassBase<Bf16WeightsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        candidates.push_back(op);
    });
    OpBuilder b(&getContext());
    for (linalg::LinalgOp op : candidates) {
      Value lhs = op.getDpsInputOperand(0)->get(), rhs = op.getDpsInputOperand(1)->get();
      Value init = op.getDpsInitOperand(0)->get();
      auto isF32 = [](Value v) { return getElementTypeOrSelf(v.getType()).isF32(); };
      auto cst = rhs.getDefiningOp<arith::ConstantOp>();
      if (!cst || !isF32(lhs) || !isF32(rhs) || !isF32(init))
        continue;
      // Matmuls with default indexing only (no transposed or broadcast maps).
      bool userMaps = false;
      if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation()))
        userMaps = mm.hasUserDefinedMaps();
      if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
        userMaps = bmm.hasUserDefinedMaps();
      if (userMaps || !op.hasPureTensorSemantics() || op->getNumResults() != 1)
        continue;
      b.setInsertionPoint(op);
      Value weights = bf16Constant(b, op.getLoc(), cst);
      if (!weights)
        continue;
      Value acts = castElementwise(b, op.getLoc(), lhs, b.getBF16Type());
      // A named op's body is built for its operand types: built anew, it
      // widens the bf16 operands to f32 before multiplying.
      Operation *replacement =
          isa<linalg::MatmulOp>(op.getOperation())
              ? linalg::MatmulOp::create(b, op.getLoc(), TypeRange{init.getType()},
                                         ValueRange{acts, weights}, ValueRange{init})
                    .getOperation()
              : linalg::BatchMatmulOp::create(b, op.getLoc(), TypeRange{init.getType()},
                                              ValueRange{acts, weights}, ValueRange{init})
                    .getOperation();
      op->replaceAllUsesWith(replacement->getResults());
      op->erase();
      if (cst->use_empty())
        cst->erase();
    }
  }
};

} // namespace

} // namespace jitrun
