//===- Passes.h - jitrun fusion passes --------------------------*- C++ -*-===//
//
// Declarations of the fusion-phase passes, their options and the pipeline that
// strings them together. The mechanism (upstream patterns) lives apart from
// jitrun's policy (control functions, root selection), which is declared here.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_FUSION_PASSES_H
#define JITRUN_FUSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "contract/Dispatch.h"
#include "contract/FusionMode.h"

namespace jitrun {


/// The one op of a reduction body that combines its two arguments (the
/// element and the accumulator, either order) and is yielded as it is;
/// null for any other body (MergeReductions.cpp).
mlir::Operation *singleCombiner(mlir::Block &body);

/// Options of the fusion phase.
struct FusionOptions {
  FusionMode mode = FusionMode::Default;
  /// Largest operand count of a fused elementwise op.
  unsigned maxOperands = 16;
  /// Dispatch formation emits a `not fused: ...` remark per producer and
  /// consumer left in different dispatches (--explain-fusion).
  bool explain = false;
  /// f32 matmul weights stored as bf16, f32 accumulation (--weights=bf16).
  bool bf16Weights = false;
  /// bf16 weights of many-row matmuls packed for AMX tiles (an AMX host).
  bool amxPanels = false;
  /// The host's AVX512_BF16 dot products (vdpbf16ps): under bf16Weights,
  /// 1x1 convolutions the AMX tiles do not take (all, without AMX) read
  /// bf16 too.
  bool bf16Dot = false;
};

/// True for linalg ops whose loops are all parallel (elementwise, broadcast,
/// transpose), fills excluded.
bool isElementwiseOp(mlir::Operation *op);

/// jitrun's elementwise fusion policy, for the upstream fusion patterns: fuse a
/// producer only when it is not duplicated (single use) or is cheap, never
/// into a reduction through a broadcasting map, and never past `maxOperands`.
bool shouldFuseElementwise(mlir::OpOperand *fusedOperand, unsigned maxOperands);
/// The rule by which `shouldFuseElementwise` refuses, or "" when it fuses:
/// not-generic, producer-is-reduction, reduction-through-broadcast,
/// producer-has-other-uses, broadcast-would-recompute, operand-cap.
llvm::StringRef elementwiseFusionRefusal(mlir::OpOperand *fusedOperand,
                                         unsigned maxOperands);

/// For a tensor.expand_shape or tensor.collapse_shape that only inserts or
/// drops unit dims (each group of its reassociation has at most one dim that
/// is not a static 1): the groups, indexed by the narrow side's dims, and
/// the wide side's type in `wide`. None for any other op or reshape.
std::optional<llvm::SmallVector<mlir::ReassociationIndices>>
unitReshapeGroups(mlir::Operation *reshape, mlir::ShapedType &wide);

/// Rewrites named all-parallel linalg ops (linalg.add, linalg.transpose, ...)
/// as linalg.generic so that elementwise fusion sees them.
void populateGeneralizeElementwisePatterns(mlir::RewritePatternSet &patterns);

/// The f32 constant `cst` rounded to bf16 (nearest even), of the same shape;
/// null if its bytes cannot be read (Bf16Weights.cpp).
mlir::Value bf16Constant(mlir::OpBuilder &b, mlir::Location loc, mlir::arith::ConstantOp cst);

/// The row-major bytes of a constant's value (dense or dense_resource, of
/// int or float elements); none for a splat or an unloaded resource.
std::optional<llvm::ArrayRef<char>> constantBytes(mlir::Attribute value);

/// `v` (a float tensor) converted to `element` by an elementwise generic
/// (arith.extf or arith.truncf), of `v`'s shape.
mlir::Value castElementwise(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                            mlir::Type element);

/// The static constant tensor `cst` with each element converted by
/// `convert` (which reads one element's bytes at `from` and writes one of
/// type `to` at `to`): a splat stays a splat, anything else becomes a
/// dense_resource named `resourceName`. Null if its bytes cannot be read.
mlir::Value convertConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::arith::ConstantOp cst,
                            mlir::Type to, llvm::StringRef resourceName,
                            llvm::function_ref<void(const char *from, char *to)> convert);

/// True when `init` is a linalg.fill of a tensor.empty (the usual accumulator).
bool isFreshFill(mlir::Value init);

/// When `init` is a linalg.fill of a tensor.empty (the usual accumulator), the
/// same fill of a fresh empty tensor of `sizes`, so that an accumulator
/// rewritten into another shape stays a fill its dispatch takes; else null.
mlir::Value refillInShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value init,
                          llvm::ArrayRef<mlir::OpFoldResult> sizes);

// Names the generated pass declarations use unqualified.
using mlir::ModuleOp;
namespace func = mlir::func;
namespace linalg = mlir::linalg;
namespace tensor = mlir::tensor;

#define GEN_PASS_DECL
#include "fusion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fusion/Passes.h.inc"

/// Import cleanup that every model gets before fusion: TOSA to linalg (when
/// TOSA ops are present), pad and concat decomposition, canonicalization.
void buildImportPipeline(mlir::OpPassManager &pm);

/// The fusion phase, one pass a line.
void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options);

/// Writes `host` (a function after the fusion pipeline) as a Graphviz dot
/// graph of its commands: one node per dispatch call (callee name, root op,
/// linalg op count, result shapes, bytes in and out), fill and copy, one per
/// argument and one for the results; edges follow def-use through reshapes
/// and casts and are labelled with the tensor type. Weights get no nodes.
void writeDispatchGraph(mlir::func::FuncOp host, llvm::raw_ostream &os);

/// Registers `jitrun-import-pipeline` and `jitrun-fusion-pipeline` with the
/// fusion passes, so jit-opt and jitrun run the same sequence.
void registerFusionPasses();

} // namespace jitrun

#endif // JITRUN_FUSION_PASSES_H
