//===- Pipeline.cpp - the import and fusion pipelines --------------------===//
//
// Both phases as a list, one pass a line, registered as named pipelines so
// that jit-opt and jitrun run exactly the same sequence.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace jitrun {
#define GEN_PASS_DEF_RESOLVEDIMSPASS
#define GEN_PASS_DEF_TOSATOLINALGPASS
#include "fusion/Passes.h.inc"

namespace {
/// TOSA graphs to linalg on tensors.
void buildTosaConversions(OpPassManager &fn) {
  fn.addPass(createTosaToSCFPass());
  fn.addPass(tosa::createTosaToLinalgNamed());
  fn.addPass(tosa::createTosaToLinalg());
  fn.addPass(createTosaToArithPass(TosaToArithPassOptions{
      /*includeApplyRescale=*/true, /*use32Bit=*/false}));
  fn.addPass(createTosaToTensorPass());
}

struct TosaToLinalgPass final : public impl::TosaToLinalgPassBase<TosaToLinalgPass> {
  TosaToLinalgPass() { buildTosaConversions(conversions); }
  void getDependentDialects(DialectRegistry &registry) const override {
    conversions.getDependentDialects(registry);
  }
  void runOnOperation() override {
    bool any = false;
    getOperation().walk([&](Operation *op) {
      any |= isa_and_nonnull<tosa::TosaDialect>(op->getDialect());
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return markAllAnalysesPreserved();
    if (failed(runPipeline(conversions, getOperation())))
      signalPassFailure();
  }
  OpPassManager conversions{func::FuncOp::getOperationName()};
};

struct ResolveDimsPass final : public impl::ResolveDimsPassBase<ResolveDimsPass> {
  void runOnOperation() override {
    bool any = false;
    getOperation().walk([&](tensor::DimOp dim) {
      any |= isa<OpResult>(dim.getSource());
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return markAllAnalysesPreserved();
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    memref::populateResolveShapedTypeResultDimsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void buildImportPipeline(OpPassManager &pm) {
  // 1. TOSA graphs to linalg on tensors (nothing to do on linalg input).
  pm.addNestedPass<func::FuncOp>(createTosaToLinalgPass());
  // 2. Canonicalize (also removes leftover tosa.const_shape).
  pm.addPass(createCanonicalizerPass());
  // 3. TOSA's FHWC and HWCM convolutions in the layouts codegen vectorizes.
  pm.addNestedPass<func::FuncOp>(createConvolutionLayoutsPass());
  // 4. Padding and concatenation as fills and slice copies, except the pads
  //    of depthwise convolutions and pooling, which join their dispatch.
  pm.addNestedPass<func::FuncOp>(
      createDecomposeHostOpsPass(DecomposeHostOpsPassOptions{/*keepWindowPads=*/true}));
  pm.addPass(createCanonicalizerPass());
  // 5. In a dynamic program, a dim of a result is the dim of an operand it
  //    comes from (ending at the arguments'): a shape query is no use of a
  //    result that keeps it from fusing.
  pm.addNestedPass<func::FuncOp>(createResolveDimsPass());
}

void buildFusionPipeline(OpPassManager &pm, const FusionOptions &options) {
  // 1. Elementwise fusion to a fixed point under jitrun's control function,
  //    reshape propagation, and fusion again on what the reshapes hid.
  //    A reduction of a reduction with the same combiner is one reduction
  //    first (TOSA's mean over an image).
  //    f16 and bf16 contractions accumulate in f32 first (all modes: the
  //    reference path computes what the fused program computes).
  // Ops over a zero-size dim compute nothing: their inits are the results.
  pm.addNestedPass<func::FuncOp>(createFoldEmptyLoopsPass());
  pm.addNestedPass<func::FuncOp>(createAccumulateInF32Pass());
  if (options.bf16Weights)
    pm.addNestedPass<func::FuncOp>(createBf16WeightsPass());
  if (options.mode != FusionMode::None) {
    // A recurrence's input projections, all steps at once before its loop.
    pm.addNestedPass<func::FuncOp>(createBatchLoopMatmulsPass());
    pm.addNestedPass<func::FuncOp>(createMergeReductionsPass());
    // A whole tensor's reduction (to a scalar) in two, vectorized, steps.
    pm.addNestedPass<func::FuncOp>(createSplitReductionsPass());
    pm.addNestedPass<func::FuncOp>(
        createElementwiseFusionPass(ElementwiseFusionPassOptions{options.maxOperands}));
    // Weights are folded constants by now (their transposes evaluated): the
    // few-row matmuls' are packed in the order their workgroups read them.
    PackWeightsPassOptions pack;
    pack.amxPanels = options.amxPanels;
    pack.bf16Convolutions = options.bf16Weights && (options.amxPanels || options.bf16Dot);
    pm.addNestedPass<func::FuncOp>(createPackWeightsPass(pack));
    pm.addNestedPass<func::FuncOp>(createPropagateReshapesPass());
    pm.addNestedPass<func::FuncOp>(createResolveDimsPass());
    pm.addNestedPass<func::FuncOp>(
        createElementwiseFusionPass(ElementwiseFusionPassOptions{options.maxOperands}));
  }
  // 2. Clean up what fusion left.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 3. Dispatch regions, outlined as kernel functions.
  pm.addPass(createFormDispatchesPass(
      FormDispatchesPassOptions{fusionModeName(options.mode).str(), options.explain}));
  // 4. A pad that stayed on the host (--fusion=none) is a fill and a copy.
  pm.addNestedPass<func::FuncOp>(createDecomposeHostOpsPass());
}

void registerFusionPasses() {
  registerJitrunFusionPasses();
  PassPipelineRegistration<>("jitrun-import-pipeline",
                             "Import cleanup: TOSA to linalg, pad/concat decomposition",
                             [](OpPassManager &pm) { buildImportPipeline(pm); });
  PassPipelineRegistration<>("jitrun-fusion-pipeline",
                             "Elementwise fusion and dispatch formation (default mode)",
                             [](OpPassManager &pm) {
                               buildFusionPipeline(pm, FusionOptions{});
                             });
}

} // namespace jitrun
