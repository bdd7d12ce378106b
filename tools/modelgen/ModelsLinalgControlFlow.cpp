//===- ModelsLinalgControlFlow.cpp - scf loops over tensors --------------===//
//
// Models whose host program has loops: an scf.while whose condition is read
// from a tensor (tensor.extract of a reduction), and an scf.for over time
// steps with tensor iter_args, slices at the induction variable.
//
//===----------------------------------------------------------------------===//

#include "LinalgLayers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace jitrun::modelgen {

namespace {

/// collatz: the number of Collatz steps (n -> n/2 if even, else 3n+1) until
/// 1 for each start value, as an scf.while on tensor<Nxi32> state. The
/// start is max(1, trunc(|x|)) of the f32 input; an element stops at 1 or
/// after 1000 steps, and the loop runs while any element is active (the
/// count of active elements, a reduction to tensor<i32>, read with
/// tensor.extract). Returns the step counts (tensor<Nxi32>).
/// full: 1024 start values; test: 4.
LogicalResult buildCollatz(ModelContext &ctx) {
  int64_t n = ctx.size == Size::Full ? 1024 : 4;
  OpBuilder &b = ctx.builder;
  Type i32 = b.getI32Type();
  Type input = RankedTensorType::get({n}, b.getF32Type());
  auto state = RankedTensorType::get({n}, i32);
  const int64_t maxSteps = 1000;
  // active(v, s) = v != 1 && s < maxSteps
  auto active = [maxSteps](OpBuilder &nb, Location nl, Value v, Value s) -> Value {
    Value one = arith::ConstantOp::create(nb, nl, nb.getI32IntegerAttr(1));
    Value cap = arith::ConstantOp::create(nb, nl, nb.getI32IntegerAttr(int32_t(maxSteps)));
    Value notOne = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, v, one);
    Value below = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, s, cap);
    return arith::AndIOp::create(nb, nl, notOne, below);
  };
  return buildMain(ctx, "collatz", {input}, [&](Layers &L, ValueRange args) {
    L.at("start");
    Value start = L.map(
        {args[0]},
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value abs = math::AbsFOp::create(nb, nl, a[0]);
          Value one = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(1.0f));
          Value clamped = arith::MaximumFOp::create(nb, nl, abs, one);
          return arith::FPToSIOp::create(nb, nl, nb.getI32Type(), clamped);
        },
        i32);
    Value steps0 = L.filled({n}, 0, i32);
    L.at("loop");
    Location loc = L.loc;
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{state, state}, ValueRange{start, steps0},
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          // count = sum(active(v, s)), a reduction into tensor<i32>.
          Value init = L.filled({}, 0, i32);
          AffineMap id = L.identity(1);
          AffineMap scalarMap = AffineMap::get(1, 0, {}, b.getContext());
          Value count =
              linalg::GenericOp::create(
                  b, nl, TypeRange{init.getType()}, ValueRange{a[0], a[1]}, ValueRange{init},
                  ArrayRef<AffineMap>{id, id, scalarMap},
                  ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
                  [&](OpBuilder &gb, Location gl, ValueRange g) {
                    Value act = active(gb, gl, g[0], g[1]);
                    Value inc = arith::ExtUIOp::create(gb, gl, gb.getI32Type(), act);
                    Value sum = arith::AddIOp::create(gb, gl, g[2], inc);
                    linalg::YieldOp::create(gb, gl, sum);
                  })
                  .getResult(0);
          Value c = tensor::ExtractOp::create(b, nl, count, ValueRange{});
          Value zero = arith::ConstantOp::create(b, nl, b.getI32IntegerAttr(0));
          Value any = arith::CmpIOp::create(b, nl, arith::CmpIPredicate::sgt, c, zero);
          scf::ConditionOp::create(b, nl, any, a);
        },
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value next = L.map(
              {a[0], a[1]},
              [&](OpBuilder &gb, Location gl, ValueRange g) -> Value {
                Value one = arith::ConstantOp::create(gb, gl, gb.getI32IntegerAttr(1));
                Value two = arith::ConstantOp::create(gb, gl, gb.getI32IntegerAttr(2));
                Value three = arith::ConstantOp::create(gb, gl, gb.getI32IntegerAttr(3));
                Value zero = arith::ConstantOp::create(gb, gl, gb.getI32IntegerAttr(0));
                Value rem = arith::RemSIOp::create(gb, gl, g[0], two);
                Value even = arith::CmpIOp::create(gb, gl, arith::CmpIPredicate::eq, rem, zero);
                Value half = arith::DivSIOp::create(gb, gl, g[0], two);
                Value triple = arith::MulIOp::create(gb, gl, g[0], three);
                Value odd = arith::AddIOp::create(gb, gl, triple, one);
                Value stepped = arith::SelectOp::create(gb, gl, even, half, odd);
                return arith::SelectOp::create(gb, gl, active(gb, gl, g[0], g[1]), stepped, g[0]);
              },
              i32);
          Value steps = L.map(
              {a[0], a[1]},
              [&](OpBuilder &gb, Location gl, ValueRange g) -> Value {
                Value inc =
                    arith::ExtUIOp::create(gb, gl, gb.getI32Type(), active(gb, gl, g[0], g[1]));
                return arith::AddIOp::create(gb, gl, g[1], inc);
              },
              i32);
          scf::YieldOp::create(b, nl, ValueRange{next, steps});
        });
    return SmallVector<Value>{loop.getResult(1)};
  });
}

/// unidirectional_lstm: a single-layer LSTM (PyTorch gate order i, f, g, o)
/// over T time steps as an scf.for with iter_args h, c and the output
/// sequence; each step slices x_t at the induction variable, two matmuls
/// (x_t W_ih, h W_hh) + bias, slices the four gates, computes c and h with
/// sigmoid/tanh generics and inserts h into the sequence. x: T x 1 x I;
/// returns the sequence (T x 1 x H), h_T and c_T (1 x H).
/// full: 32 steps, input 256, hidden 256; test: 4 steps, input 8, hidden 16.
LogicalResult buildLstm(ModelContext &ctx) {
  bool full = ctx.size == Size::Full;
  int64_t steps = full ? 32 : 4, in = full ? 256 : 8, hidden = full ? 256 : 16;
  OpBuilder &b = ctx.builder;
  Type input = RankedTensorType::get({steps, 1, in}, b.getF32Type());
  return buildMain(ctx, "unidirectional_lstm", {input}, [&](Layers &L, ValueRange args) {
    Value x = args[0];
    L.at("lstm");
    Value wih = L.weight({in, 4 * hidden}, heScale(in), "lstm.weight_ih");
    Value whh = L.weight({hidden, 4 * hidden}, heScale(hidden), "lstm.weight_hh");
    Value bias = L.weight({4 * hidden}, 0.1, "lstm.bias");
    Value h0 = L.filled({1, hidden}, 0.0);
    Value c0 = L.filled({1, hidden}, 0.0);
    Value y0 = L.filled({steps, 1, hidden}, 0.0);
    Location loc = L.loc;
    auto loop = scf::ForOp::create(b, loc, L.index(0), L.index(steps), L.index(1),
                                   ValueRange{h0, c0, y0});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    Value h = loop.getRegionIterArgs()[0], c = loop.getRegionIterArgs()[1],
          y = loop.getRegionIterArgs()[2];
    L.at("lstm.step");
    auto row = RankedTensorType::get({1, in}, b.getF32Type());
    Value xt = tensor::ExtractSliceOp::create(
        b, loc, row, x, ArrayRef<OpFoldResult>{t, b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(in)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1)});
    auto matmul = [&](Value lhs, Value rhs) {
      Value init = L.filled({1, 4 * hidden}, 0.0);
      return linalg::MatmulOp::create(b, L.loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
                                      ValueRange{init})
          .getResult(0);
    };
    Value gx = matmul(xt, wih), gh = matmul(h, whh);
    Value gates = L.elementwise({1, 4 * hidden}, {gx, gh, bias},
                                {L.identity(2), L.identity(2), L.project(2, {1})},
                                [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                                  Value s = arith::AddFOp::create(nb, nl, a[0], a[1]);
                                  return arith::AddFOp::create(nb, nl, s, a[2]);
                                });
    auto gate = [&](int64_t i) -> Value {
      return tensor::ExtractSliceOp::create(
          b, L.loc, gates,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(i * hidden)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(hidden)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    };
    Value ig = gate(0), fg = gate(1), gg = gate(2), og = gate(3);
    auto sigmoid = [](OpBuilder &nb, Location nl, Value v) -> Value {
      Value one = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(1.0f));
      Value e = math::ExpOp::create(nb, nl, arith::NegFOp::create(nb, nl, v));
      return arith::DivFOp::create(nb, nl, one, arith::AddFOp::create(nb, nl, e, one));
    };
    Value cNext = L.map({ig, fg, gg, c}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
      Value keep = arith::MulFOp::create(nb, nl, sigmoid(nb, nl, a[1]), a[3]);
      Value write =
          arith::MulFOp::create(nb, nl, sigmoid(nb, nl, a[0]), math::TanhOp::create(nb, nl, a[2]));
      return arith::AddFOp::create(nb, nl, keep, write);
    });
    Value hNext = L.map({og, cNext}, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
      return arith::MulFOp::create(nb, nl, sigmoid(nb, nl, a[0]), math::TanhOp::create(nb, nl, a[1]));
    });
    Value yNext = tensor::InsertSliceOp::create(
        b, L.loc, hNext, y, ArrayRef<OpFoldResult>{t, b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(hidden)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1)});
    scf::YieldOp::create(b, L.loc, ValueRange{hNext, cNext, yNext});
    return SmallVector<Value>{loop.getResult(2), loop.getResult(0), loop.getResult(1)};
  });
}

} // namespace

void addLinalgControlFlowModels(std::vector<ModelSpec> &models) {
  models.push_back({"collatz", "linalg", buildCollatz});
  models.push_back({"unidirectional_lstm", "linalg", buildLstm});
}

} // namespace jitrun::modelgen
