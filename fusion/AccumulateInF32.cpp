//===- AccumulateInF32.cpp - f16/bf16 contractions accumulate in f32 ------===//
//
// A matmul or convolution on f16 or bf16 tensors accumulates, as written,
// in its result's type: every step of the sum rounds to 11 (f16) or 8
// (bf16) bits. PyTorch, oneDNN and ONNX Runtime accumulate such products
// in f32 and round the result once, and so does jitrun: the contraction
// gets an f32 accumulator (its init widened: a fill becomes an f32 fill),
// and its result is rounded back by an elementwise generic that fusion
// takes into the consumers. Its f16 operands are widened to f32 (constants
// here, once; activations by an elementwise generic that fusion takes into
// their producer), so that it runs as an f32 contraction: on hosts without
// AVX512-FP16 a register tile cannot multiply halves. bf16 operands stay
// bf16: bf16 x bf16 -> f32 is a vdpbf16ps dot product on AVX512_BF16.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace jitrun {
#define GEN_PASS_DEF_ACCUMULATEINF32PASS
#include "fusion/Passes.h.inc"
} // namespace jitrun

using namespace mlir;

namespace jitrun {

Value castElementwise(OpBuilder &b, Location loc, Value v, Type element) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{v}, ValueRange{empty},
      ArrayRef<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        unsigned from = args[0].getType().getIntOrFloatBitWidth();
        unsigned to = element.getIntOrFloatBitWidth();
        Value c = from < to ? Value(arith::ExtFOp::create(nb, nl, element, args[0]))
                            : Value(arith::TruncFOp::create(nb, nl, element, args[0]));
        linalg::YieldOp::create(nb, nl, c);
      });
  return g.getResult(0);
}

namespace {

/// The f16 constant `cst` widened to f32 (exactly); null if its bytes
/// cannot be read.
static Value widenedConstant(OpBuilder &b, Location loc, arith::ConstantOp cst) {
  if (!getElementTypeOrSelf(cst.getType()).isF16())
    return nullptr;
  return convertConstant(b, loc, cst, b.getF32Type(), "f16_widened",
                         [](const char *from, char *to) {
                           _Float16 h;
                           std::memcpy(&h, from, 2);
                           float f = static_cast<float>(h);
                           std::memcpy(to, &f, 4);
                         });
}

static bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The block argument `v` is, directly or through an arith.extf.
static BlockArgument argThroughExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    v = ext.getIn();
  return dyn_cast<BlockArgument>(v);
}

/// True when `op`'s body is acc + a * b (either order), a and b its two
/// inputs' block arguments, maybe widened.
static bool isMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : nullptr;
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  BlockArgument x = argThroughExt(mul.getLhs()), y = argThroughExt(mul.getRhs());
  if (!x || !y || x.getOwner() != body || y.getOwner() != body)
    return false;
  unsigned i = x.getArgNumber(), j = y.getArgNumber();
  return (i == 0 && j == 1) || (i == 1 && j == 0);
}

struct AccumulateInF32Pass final : public impl::AccumulateInF32PassBase<AccumulateInF32Pass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
          !op.hasPureTensorSemantics())
        return;
      if (!linalg::isaContractionOpInterface(op) && !linalg::isaConvolutionOpInterface(op))
        return;
      Type lhs = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
      Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
      Type acc = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
      auto ok = [](Type t) { return isNarrowFloat(t) || t.isF32(); };
      if (!ok(lhs) || !ok(rhs) || !ok(acc))
        return;
      if (isNarrowFloat(acc) || lhs.isF16() || rhs.isF16())
        candidates.push_back(op);
    });
    if (candidates.empty())
      return markAllAnalysesPreserved();
    OpBuilder b(&getContext());
    Type f32 = b.getF32Type();
    for (linalg::LinalgOp op : candidates) {
      if (!isMulAddBody(op))
        continue;
      Location loc = op.getLoc();
      b.setInsertionPoint(op);
      SmallVector<Value> inputs;
      for (OpOperand *in : op.getDpsInputOperands()) {
        Value v = in->get();
        if (getElementTypeOrSelf(v.getType()).isF16()) {
          auto cst = v.getDefiningOp<arith::ConstantOp>();
          Value wide = cst ? widenedConstant(b, loc, cst) : nullptr;
          v = wide ? wide : castElementwise(b, loc, v, f32);
        }
        inputs.push_back(v);
      }
      Value init = op.getDpsInitOperand(0)->get();
      Type accType = getElementTypeOrSelf(init.getType());
      if (isNarrowFloat(accType)) {
        auto fill = init.getDefiningOp<linalg::FillOp>();
        FloatAttr fillValue;
        if (fill && matchPattern(fill.value(), m_Constant(&fillValue)) && isFreshFill(init)) {
          bool lost;
          APFloat v = fillValue.getValue();
          v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
          Value value = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v.convertToFloat()));
          Value empty = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, init), f32);
          init = linalg::FillOp::create(b, loc, value, empty).getResult(0);
        } else {
          init = castElementwise(b, loc, init, f32);
        }
      }
      Operation *widened = nullptr;
      if (auto regionBuilder = op.getRegionBuilder()) {
        // A named op keeps its name (codegen's contraction and convolution
        // vectorizers take named ops), and its body is built anew for the
        // new operand types by its own region builder, which widens them.
        widened = b.clone(*op);
        SmallVector<Value> operands(inputs);
        operands.push_back(init);
        widened->setOperands(operands);
        widened->getResult(0).setType(init.getType());
        Region &region = widened->getRegion(0);
        region.front().dropAllReferences();
        region.getBlocks().clear();
        Block *block = new Block();
        region.push_back(block);
        for (Value v : operands)
          block->addArgument(getElementTypeOrSelf(v.getType()), loc);
        ImplicitLocOpBuilder ib(loc, b);
        ib.setInsertionPointToStart(block);
        regionBuilder(ib, *block, widened->getAttrs(),
                      [&]() { return widened->emitError(); });
      } else {
        widened = linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
            op.getIndexingMapsArray(), op.getIteratorTypesArray(),
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              auto wide = [&](Value v) {
                return v.getType().isF32() ? v : Value(arith::ExtFOp::create(nb, nl, f32, v));
              };
              linalg::YieldOp::create(
                  nb, nl, multiplyAccumulate(nb, nl, wide(args[0]), wide(args[1]), args[2]));
            });
      }
      Value result = widened->getResult(0);
      if (isNarrowFloat(accType))
        result = castElementwise(b, loc, result, accType);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
} // namespace jitrun
