//===- Pipeline.cpp - per-dispatch lowering to LLVM dialect --------------===//
//
// The whole codegen sequence, one pass a line, registered as a named pipeline
// so jit-opt and jitrun run the same passes; and the registry of every
// dialect and interface jitrun needs, from TOSA import to LLVM translation.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace jitrun {

void addTileAndVectorizePasses(OpPassManager &fn, const CodegenOptions &options) {
  fn.addPass(createPrepareContractionsPass(PrepareContractionsPassOptions{options.vnni}));
  fn.addPass(createSelectStrategyPass(SelectStrategyPassOptions{
      options.vectorBits, options.targetWorkgroups, options.vnni, options.bf16,
      options.tileScale, options.maxTapTilePixels}));
  fn.addPass(createTileRootPass());
  fn.addPass(createPeelPartialTilesPass());
  fn.addPass(createReadPaddingInPlacePass());
  fn.addPass(createTileReductionsPass(
      TileReductionsPassOptions{options.vectorBits, options.vnni, options.bf16}));
  fn.addPass(createVectorizePass());
}

void buildKernelPipeline(OpPassManager &pm, const CodegenOptions &options) {
  // 0. No trapping division, no read outside a tensor.
  pm.addNestedPass<func::FuncOp>(createSafeKernelArithPass());
  // 1. Kernel ABI: buffers in and out, a workgroup id.
  pm.addNestedPass<func::FuncOp>(createLowerDispatchABIPass());
  // 2. The tile strategy as IR on each root; workgroup, cache and vector
  // tiles; padding read in place; edge tiles peeled; reduction tiles;
  // vectorization.
  if (!options.reference)
    addTileAndVectorizePasses(pm.nest<func::FuncOp>(), options);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 3. Bufferize in place into the caller's buffers; temporaries on the stack.
  // The reference path keeps its copies as loops: untiled, they are whole
  // tensors.
  BufferizeDispatchPassOptions bufferize;
  if (options.reference)
    bufferize.maxVectorCopyElements = 0;
  pm.addPass(createBufferizeDispatchPass(bufferize));
  pm.addPass(createCanonicalizerPass());
  // bf16 contractions over VNNI panels (an AMX host) in tile registers.
  pm.addNestedPass<func::FuncOp>(createAmxContractionsPass());
  // 4. The workgroup forall becomes the grid.
  pm.addNestedPass<func::FuncOp>(createDistributeWorkgroupsPass());
  // 5. What was not vectorized becomes scalar loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // A gather's out-of-range index sets the kernel's status word.
  pm.addNestedPass<func::FuncOp>(createReportIndexErrorsPass());
  // 6. Masks folded into their ops; accumulators in registers; FMAs.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addNestedPass<func::FuncOp>(
      createLowerVectorsPass(
          LowerVectorsPassOptions{options.vnni, options.bf16, options.vectorBits == 512}));
  pm.addNestedPass<func::FuncOp>(createPrefetchWeightsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createLegalizeMemoryTypesPass());
  // 16-bit floats compute in f32, rounded back after every op as the
  // program says: math on f16/bf16 and bf16 arithmetic explicitly, and the
  // bf16 conversions as integer code. LLVM's own bf16 lowering aborted
  // instruction selection on odd vector shapes even with AVX512_BF16 (a
  // 17-element tail: "Do not know how to soft promote this operator's
  // operand") and, without it, called compiler-rt's __truncsfbf2, which the
  // JIT cannot resolve.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  pm.addNestedPass<func::FuncOp>(arith::createArithEmulateUnsupportedFloats(
      arith::ArithEmulateUnsupportedFloatsOptions{{"bf16"}, "f32"}));
  pm.addNestedPass<func::FuncOp>(createSoftBf16ConversionsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // 7. The static stack-allocation limit.
  pm.addNestedPass<func::FuncOp>(createCheckStackAllocationPass(
      CheckStackAllocationPassOptions{options.stackLimitBytes,
                                      options.failOnStackLimit}));
}

void buildLowerToLLVMPipeline(OpPassManager &pm) {
  // 8. Down to LLVM dialect.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.reassociateFPReductions = true;
  vectorOptions.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  vectorOptions.vectorTransposeLowering = vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createAmxToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void buildCodegenPipeline(OpPassManager &pm, const CodegenOptions &options) {
  buildKernelPipeline(pm, options);
  buildLowerToLLVMPipeline(pm);
}

namespace {
/// Command-line options of the registered jitrun-codegen-pipeline.
struct CodegenPipelineOptions : public PassPipelineOptions<CodegenPipelineOptions> {
  Option<bool> vnni{*this, "vnni",
                    llvm::cl::desc("Lower i8 x i8 -> i32 contractions to AVX-512 VNNI"),
                    llvm::cl::init(false)};
};
/// Command-line options of the registered jitrun-codegen-tile-and-vectorize.
struct TileAndVectorizeOptions : public PassPipelineOptions<TileAndVectorizeOptions> {
  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("Vector register width in bits (512 or 256)"),
                              llvm::cl::init(512)};
  Option<bool> vnni{*this, "vnni", llvm::cl::desc("VNNI for i8 x i8 -> i32 contractions"),
                    llvm::cl::init(false)};
};
} // namespace

void registerCodegenPasses() {
  registerJitrunCodegenPasses();
  PassPipelineRegistration<CodegenPipelineOptions>(
      "jitrun-codegen-pipeline",
      "Lower dispatch functions to LLVM dialect (AVX-512 tile sizes)",
      [](OpPassManager &pm, const CodegenPipelineOptions &opts) {
        CodegenOptions options;
        options.vnni = opts.vnni;
        buildCodegenPipeline(pm, options);
      });
  PassPipelineRegistration<TileAndVectorizeOptions>(
      "jitrun-codegen-tile-and-vectorize",
      "On a dispatch function: the tile strategy, tiling and vectorization passes",
      [](OpPassManager &pm, const TileAndVectorizeOptions &opts) {
        CodegenOptions options;
        options.vectorBits = opts.vectorBits;
        options.vnni = opts.vnni;
        addTileAndVectorizePasses(pm, options);
      });
}

void registerJitrunDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, tensor::TensorDialect, tosa::TosaDialect,
                  ub::UBDialect, vector::VectorDialect>();
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  func::registerInlinerExtension(registry); // calls inline into the entry
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  memref::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerInferTypeOpInterfaceExternalModels(registry); // dims of reshapes
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  vector::registerValueBoundsOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

} // namespace jitrun
