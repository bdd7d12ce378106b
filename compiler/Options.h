//===- Options.h - what steers a compile, what it reports -------*- C++ -*-===//

#ifndef JITRUN_COMPILER_OPTIONS_H
#define JITRUN_COMPILER_OPTIONS_H

#include "contract/FusionMode.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace jitrun {

class KernelMemo;
class WeightMemo;

/// The cache folder a compile uses unless told otherwise: $JITRUN_CACHE_DIR
/// if set (empty: no cache), else $XDG_CACHE_HOME/jitrun, else
/// $HOME/.cache/jitrun; "" when none of them is usable.
std::string defaultCacheDir();

/// A named dynamic dim of a model's inputs: per input, the dim of that
/// name, or -1.
struct DimGroup {
  std::string name;
  std::vector<int64_t> inputDims;
};

/// What a specialization found of a DimGroup (compiler/IndependentDims.cpp):
/// whether the model computes each of its indices on its own (results'
/// slices along `outputDims` depend only on the inputs' slices at the same
/// index), so that a run can be split along it.
struct DimAnalysis {
  std::string name;
  bool independent = false;
  std::vector<int64_t> outputDims; // per output, when independent
};

/// How a dynamic model meets shapes it has not compiled (CompiledModel).
enum class ShapePolicy {
  /// Compile the model for the new shapes, then run (the caller waits).
  Specialize,
  /// Along a dim the model computes index by index (the batch of a CNN,
  /// DimAnalysis): run at once as pieces at sizes already compiled while
  /// the new shapes compile in the background, then use those. Otherwise
  /// as Specialize.
  Tiered,
  /// As Tiered, but never compile for a new size along such a dim.
  Split,
  /// As Tiered, but the background compiles only powers of two of such a
  /// dim (size 37 runs as 32 + 4 + 1, each compiled in turn): a bounded
  /// set of sizes serves every size.
  Buckets,
  /// Never compile the exact program for new shapes: along such a dim as
  /// Split; a new size of a dim that cannot be split (a sequence through
  /// attention) runs on kernels generic in it, compiled once (into the
  /// cache folder) after the first size. A bounded set of kernels for every
  /// size; the first size, and a model or cache folder that allows no
  /// generic program, compile as Specialize.
  Generic,
};

/// The policies by name, as the CLI, the C API and Python spell them.
inline constexpr const char *kShapePolicyNames = "specialize, tiered, split, buckets or generic";
inline std::optional<ShapePolicy> parseShapePolicy(std::string_view name) {
  if (name == "specialize")
    return ShapePolicy::Specialize;
  if (name == "tiered")
    return ShapePolicy::Tiered;
  if (name == "split")
    return ShapePolicy::Split;
  if (name == "buckets")
    return ShapePolicy::Buckets;
  if (name == "generic")
    return ShapePolicy::Generic;
  return std::nullopt;
}

/// Everything that steers compilation.
struct CompileOptions {
  /// Entry point; empty picks the only public function, else @main.
  std::string function;
  /// Stop after reading the entry point's signature: the compiled model has
  /// inputs() and outputs() and no kernels; running it is an error.
  bool signatureOnly = false;
  /// Static shapes for model inputs with symbolic dims (ONNX), by name.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
  /// Static shapes for the entry's arguments, by position: the shapes a
  /// model with dynamic dims is specialized to (each of the argument's rank,
  /// agreeing with its static dims). Empty: a model with dynamic arguments
  /// compiles to its signature alone, and CompiledModel specializes it to
  /// the shapes of each run.
  std::vector<std::vector<int64_t>> argumentShapes;
  /// A dynamic model's specializations kept in memory (least recently used
  /// goes first); at least 1.
  size_t maxSpecializations = 8;
  ShapePolicy shapePolicy = ShapePolicy::Tiered;
  /// With argumentShapes: the dynamic dims to analyze (DimAnalysis), each
  /// at the size its inputs are specialized to (2 or more, else skipped).
  std::vector<DimGroup> analyzeDims;
  /// Stop after the import and that analysis (no fusion, no kernels).
  bool analyzeOnly = false;
  FusionMode fusion = FusionMode::Default;
  /// The slow, simple reference path: no fusion, no tiling, no vectors.
  bool reference = false;
  /// Drop AVX-512 and generate AVX2 code.
  bool forceAvx2 = false;
  /// Store f32 matmul weights as bf16 and round their left operands to
  /// bf16, accumulating in f32 (--weights=bf16): half the weight bytes,
  /// vdpbf16ps where the host has AVX512_BF16; results round as bf16 inputs do.
  bool bf16Weights = false;
  /// bf16 x bf16 -> f32 matmuls of many rows in AMX tiles (tdpbf16ps) where
  /// the host has AMX and Linux grants this process its tile state (asked
  /// at the first such compile); false: AVX-512 dot products, and the tile
  /// state is never asked for.
  bool amx = true;
  uint64_t stackLimitBytes = 32768;
  bool failOnStackLimit = true;
  /// The on-disk cache (--cache-dir; empty: none): compiled kernels, keyed
  /// by the dispatch's IR, the target CPU and features, the codegen version
  /// and the stack-limit options, and fused programs, keyed by the model's
  /// bytes and the options that shape fusion; both also by the jitrun build.
  /// Defaults to defaultCacheDir().
  std::string cacheDir = defaultCacheDir();
  /// The program cache's hash of the model's bytes, computed by the first
  /// compile that needs it and shared by the copies of these options: a
  /// model compiled at several shapes (and the generic tier's twin) hashes
  /// its bytes once, not once per compile. Null: each compile hashes them.
  struct ModelHash {
    std::once_flag once;
    std::string hex;
  };
  std::shared_ptr<ModelHash> modelHash;
  /// The weights fusion built (packed panels, folds), shared by the compiles
  /// of one model with dynamic dims: a compile at a new shape reuses those
  /// an earlier one built while a program still holds them
  /// (contract/WeightMemo.h). Null: each compile builds its own.
  std::shared_ptr<WeightMemo> weightMemo;
  /// The kernels the compiles of one model with dynamic dims compiled or
  /// read, in memory (compiler/KernelCompiler.h): a compile at a new shape
  /// takes those of equal key (its generic kernels, shapes seen before)
  /// without a cache folder, too. Null: none shared.
  std::shared_ptr<KernelMemo> kernelMemo;
  /// The cache folder's size cap: after a compile that wrote to it, the
  /// least recently used entries go until it is under 90 % of this. 0: no cap.
  uint64_t cacheMaxBytes = uint64_t(1) << 30;
  /// The most host memory the model may allocate: its constants, one run's
  /// intermediates (after buffer planning) and its results. A model over it
  /// fails to compile with ErrorCode::ResourceExhausted before anything big
  /// is allocated. 0: no limit.
  uint64_t memoryLimitBytes = 0;
  /// Dispatches that differ only in the size of one dim share a generic
  /// kernel (the dim passed at run time) where three or more would each
  /// compile their own (compiler/GenericKernels.cpp); false: every shape
  /// its own kernel.
  bool genericKernels = true;
  /// With argumentShapes: the same model at these other shapes (its dynamic
  /// dims at other sizes; a warm load from the program cache when compiled
  /// before) is imported and fused too, and each dispatch whose
  /// dims differ between the two in one dim only compiles as a generic
  /// kernel of that dim (the kernel cache then serves every size of it):
  /// the tiered shape policy's program for a size it cannot split.
  std::vector<std::vector<int64_t>> genericShapes;
  /// Threads compiling kernels; 0: one per core.
  unsigned compileThreads = 0;
  /// Record why producer/consumer pairs were not fused (--explain-fusion).
  bool explainFusion = false;
  /// When non-empty, the host program after fusion is written here as a
  /// Graphviz dot graph of dispatches, fills and copies.
  std::string dispatchGraphPath;
  /// Lets a tool apply MLIR's command-line pass manager options
  /// (--mlir-print-ir-after-all, --mlir-timing, ...) to every pass manager.
  std::function<void(mlir::PassManager &)> configurePassManager;
  /// Told how compiling goes: ("read", 0, 1) before the model is parsed or
  /// imported (or its fused program read from the cache), ("fuse", 0, 1)
  /// before fusion (not on a program cache hit), then ("compile", done, total)
  /// before the first kernel and after each one. Calls come one at a time
  /// (from the kernel-compiling threads during "compile").
  std::function<void(const char *phase, size_t done, size_t total)> progress;
  /// Asked before each phase (import, fusion, kernels) and before each
  /// kernel: true stops the compile with an error. A dynamic model going
  /// away stops its background compiles this way.
  std::function<bool()> cancelled;
};

/// Whether a compile under `options` runs bf16 matmuls in AMX tiles: asked
/// for (amx), not the reference path or AVX2 code, and the host has AMX
/// with the tile state granted.
bool usesAmx(const CompileOptions &options);

/// The statistics of one compiled function (README.md, "Reading the
/// statistics").
struct Statistics {
  std::string function, fusion;
  int64_t genericBefore = 0, genericAfter = 0, rootOps = 0, dispatchRegions = 0,
          dispatches = 0, executables = 0, fills = 0, copies = 0, workgroups = 0,
          transientBytes = 0, stackBytesMax = 0;
  /// The sum of the intermediates' sizes, as if none shared memory
  /// (transientBytes is what buffer planning made of it).
  int64_t intermediateBytes = 0;
  /// Constant data the host program holds (weights, expanded splats).
  int64_t constantBytes = 0;
  /// Kernels (distinct) whose innermost code is vector code, and those left
  /// with scalar loops somewhere.
  int64_t vectorizedOps = 0, scalarOps = 0; // distinct kernels: all vector code, or with scalar loops
  /// Kernels (distinct) whose i8 contractions run on AVX-512 VNNI (vpdpbusd).
  int64_t vnniKernels = 0;
  /// Kernels (distinct) whose bf16 matmuls run in AMX tiles (tdpbf16ps).
  int64_t amxKernels = 0;
  /// Distinct kernels generic in a dim, its size passed at run time
  /// (compiler/GenericKernels.cpp).
  int64_t genericKernels = 0;
  double compileSeconds = 0;
  /// Kernels loaded from the --cache-dir cache instead of compiled.
  int64_t cachedKernels = 0;
  /// 1 when the fused program came from the cache (import and fusion skipped).
  int64_t cachedProgram = 0;
  /// Constant bytes the program reads where the mapped cache entry holds
  /// them (a warm start), instead of copies.
  int64_t mappedConstantBytes = 0;
  /// Weight bytes fusion took from an earlier compile of the same dynamic
  /// model (packed panels, folds: contract/WeightMemo.h) instead of building
  /// them again.
  int64_t reusedWeightBytes = 0;
};

} // namespace jitrun

#endif // JITRUN_COMPILER_OPTIONS_H
