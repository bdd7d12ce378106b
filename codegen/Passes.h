//===- Passes.h - jitrun codegen passes -------------------------*- C++ -*-===//
//
// Declarations of the per-dispatch codegen passes, the options that steer
// them, and the pipeline that lowers one dispatch function to LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CODEGEN_PASSES_H
#define JITRUN_CODEGEN_PASSES_H

#include "contract/KernelAbi.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace jitrun {

/// Options of the codegen phase.
struct CodegenOptions {
  /// Vector register width: 512 (AVX-512) or 256 (AVX2).
  unsigned vectorBits = 512;
  /// Largest allowed sum of static allocas per kernel, in bytes.
  uint64_t stackLimitBytes = 32768;
  /// Over the limit: fail (true) or warn (false).
  bool failOnStackLimit = true;
  /// The slow, simple path: no tiling, no vectorization, one workgroup.
  bool reference = false;
  /// Divides cache/vector tile sizes; raised when retiling under the limit.
  unsigned tileScale = 1;
  /// Workgroups to aim for on large ops.
  unsigned targetWorkgroups = 32;
  /// AVX-512 VNNI: i8 x i8 -> i32 contractions become vpdpbusd.
  bool vnni = false;
  /// AVX512_BF16: bf16 x bf16 -> f32 contractions become vdpbf16ps.
  bool bf16 = false;
  /// TileSizeOptions::maxTapTilePixels (0: no cap of its own).
  int64_t maxTapTilePixels = 0;
};

/// Attribute names the codegen passes leave on kernel functions.
constexpr llvm::StringLiteral kWorkgroupsAttrName = "jitrun.workgroups";
/// A generic kernel whose grid depends on its dim: it returns its count
/// (kWorkgroupsAttrName is then the count of its static dims alone).
constexpr llvm::StringLiteral kDynamicWorkgroupsAttrName = "jitrun.dynamic_workgroups";
constexpr llvm::StringLiteral kStackBytesAttrName = "jitrun.stack_bytes";
/// Set on a kernel that failed the stack-allocation check.
constexpr llvm::StringLiteral kStackLimitExceededAttrName = "jitrun.stack_limit_exceeded";
/// On a kernel: the error messages of its bounds checks, site 1 first.
constexpr llvm::StringLiteral kIndexChecksAttrName = "jitrun.index_checks";
/// On the `arith.minsi` that clamps a gather's index: its site number.
constexpr llvm::StringLiteral kIndexCheckAttrName = "jitrun.index_check";

/// Adds to `module` the constant string `SYMBOL_checks`: the messages of
/// `kernel`'s bounds checks (its jitrun.index_checks), one per line, site 1
/// first; empty when it has none. The runtime reads it from the loaded
/// object, so a cached kernel brings its messages along.
void addIndexCheckTable(mlir::ModuleOp module, mlir::func::FuncOp kernel, llvm::StringRef symbol);

// Names the generated pass declarations use unqualified.
using mlir::ModuleOp;
namespace func = mlir::func;
namespace linalg = mlir::linalg;
namespace tensor = mlir::tensor;
namespace bufferization = mlir::bufferization;
namespace memref = mlir::memref;
namespace scf = mlir::scf;
namespace vector = mlir::vector;
namespace affine = mlir::affine;
namespace arith = mlir::arith;
namespace math = mlir::math;

#define GEN_PASS_DECL
#include "codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/Passes.h.inc"

/// Steps 1-7: a module of dispatch functions (tensor form) to vectorized,
/// bufferized kernels with the workgroup and stack attributes set.
/// Patterns turning i8 x i8 -> i32 vector contractions into AVX-512 VNNI
/// dot products on 512-bit registers (VnniContraction.cpp).
void populateVnniContractionPatterns(mlir::RewritePatternSet &patterns);
/// The shape of a vector.contract register tile that the dot-product
/// lowerings (VNNI, AVX512_BF16) take: one reduction k (other reductions of
/// one step may lead the right operand), rhs (k, n), acc (rows..., n), lhs
/// (rows..., k); mSize is the product of the rows.
struct RegisterTile {
  int64_t kSize = 0, nSize = 0, mSize = 0;
};
/// Also checks that `op` is a plain (unmasked) add contraction into a vector
/// of `accElement`.
mlir::FailureOr<RegisterTile> matchRegisterTile(mlir::vector::ContractionOp op,
                                                mlir::Type accElement,
                                                mlir::PatternRewriter &rewriter,
                                                bool unitParallelLoops = false);

/// bf16 x bf16 -> f32 register tiles (k even, n in lanes of 16) as AVX512_BF16
/// dot products (vdpbf16ps): Bf16Contraction.cpp.
void populateBf16DotPatterns(mlir::RewritePatternSet &patterns);

/// exp of f32 vectors of whole AVX-512 registers through vscalefps, ahead of
/// the general polynomial approximation (ScalefExp.cpp).
void populateScalefExpPatterns(mlir::RewritePatternSet &patterns);

/// With VNNI, on linalg before tiling: each i8 x i8 -> i32 contraction or
/// convolution whose output channels fill registers reads its right operand
/// unsigned (flipped sign bits) and starts from its init minus 128 times the
/// row sums of its left operand (VnniContraction.cpp). True if any did.
bool shiftInt8RhsForVnni(mlir::RewriterBase &rewriter, func::FuncOp fn);

/// Step 2, on a func.func pass manager: prepare-contractions,
/// select-strategy, tile, read-padding-in-place, peel-partial-tiles,
/// tile-reductions, vectorize (registered as the pipeline
/// `jitrun-codegen-tile-and-vectorize`).
void addTileAndVectorizePasses(mlir::OpPassManager &fnPm, const CodegenOptions &options);

void buildKernelPipeline(mlir::OpPassManager &pm, const CodegenOptions &options);

/// Step 8: kernels to LLVM dialect (bare-pointer calling convention).
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm);

/// The whole codegen phase: buildKernelPipeline then buildLowerToLLVMPipeline.
void buildCodegenPipeline(mlir::OpPassManager &pm, const CodegenOptions &options);

/// Registers the codegen passes, `jitrun-codegen-pipeline` and
/// `jitrun-codegen-tile-and-vectorize`.
void registerCodegenPasses();

/// Registers every dialect and interface jitrun uses, front end to LLVM.
void registerJitrunDialects(mlir::DialectRegistry &registry);

} // namespace jitrun

#endif // JITRUN_CODEGEN_PASSES_H
