//===- Passes.td - jitrun codegen passes ------------------*- tablegen -*-===//
//
// Per-dispatch lowering: the kernel ABI, tiling to workgroups, cache and
// vector tiles, vectorization, bufferization into the caller's buffers,
// workgroup distribution, the stack-allocation check and vector lowering.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CODEGEN_PASSES
#define JITRUN_CODEGEN_PASSES

include "mlir/Pass/PassBase.td"

def LowerDispatchABIPass : Pass<"jitrun-codegen-lower-dispatch-abi", "func::FuncOp"> {
  let summary = "Give a dispatch function the kernel ABI: buffers in, buffers out, a workgroup id";
  let description = [{
    A dispatch `(tensor...) -> (tensor...)` becomes
    `(memref ins..., memref outs..., index workgroup_id)`. Inputs are read
    through `bufferization.to_tensor restrict`; each result's destination
    chain is rooted in its output buffer (replacing its `tensor.empty`) and
    anchored with `bufferization.materialize_in_destination`, so that
    bufferization writes straight into the caller's buffer with no copy.
  }];
  let dependentDialects = ["bufferization::BufferizationDialect", "memref::MemRefDialect",
                           "linalg::LinalgDialect"];
}

def PrepareContractionsPass : Pass<"jitrun-codegen-prepare-contractions", "func::FuncOp"> {
  let summary = "Reshape a dispatch's contraction into one iteration space; shift i8 operands for VNNI";
  let description = [{
    The rewrites a dispatch needs before its tile strategy is chosen. A
    contraction whose result is reshaped (a transformer's projection split
    into heads) is generalized and the reshape is propagated into it by
    expansion, until every op shares one iteration space; the function then
    carries `jitrun.expanded_reshapes`. With `vnni`, each i8 x i8 -> i32
    contraction or convolution reads its right operand unsigned and starts
    from its init minus 128 times the row sums of its left operand; the
    function then carries `jitrun.vnni_shifted`. Later passes read these two
    attributes; jitrun-codegen-vectorize removes them.
  }];
  let options = [
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Shift i8 x i8 -> i32 contractions for VNNI dot products">,
  ];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect", "arith::ArithDialect"];
}

def SelectStrategyPass : Pass<"jitrun-codegen-select-strategy", "func::FuncOp"> {
  let summary = "Write the tile strategy of a dispatch on its root as a lowering config";
  let description = [{
    The root is the op whose result is stored into the first output buffer
    (with several outputs, the last of them in block order). Its tile sizes
    come from the anchor's kind, the shapes and the vector width
    (selectTileSizes, Strategy.cpp) and are written as
    `jitrun.lowering_config = {workgroup = array<i64: ...>, cache = ...,
    vector = ..., reduction = ..., scheme = "contraction"}` (plus the unit
    `anchor_at_workgroup_level`). A root that already carries a config keeps
    it: the strategy can be printed, lit-tested and overridden. The passes
    that follow (tile, tile-reductions) read it.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"512",
           "Vector register width in bits (512 for AVX-512, 256 for AVX2)">,
    Option<"targetWorkgroups", "target-workgroups", "unsigned", /*default=*/"32",
           "Number of workgroups to aim for on large ops">,
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Tile the reduction of i8 contractions by multiples of 4 (VNNI)">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Tile the reduction of bf16 x bf16 -> f32 contractions by pairs (AVX512_BF16)">,
    Option<"tileScale", "tile-scale", "unsigned", /*default=*/"1",
           "Divide the cache and vector tile sizes by this (retiling under the stack limit)">,
    Option<"maxTapTilePixels", "max-tap-tile-pixels", "int64_t", /*default=*/"0",
           "When nonzero, the most output pixels of an f32 register tile of a KxK convolution "
           "over packed panels">,
  ];
}

def TileRootPass : Pass<"jitrun-codegen-tile", "func::FuncOp"> {
  let summary = "Tile a dispatch's root with its producers fused, as its lowering config says";
  let description = [{
    Three levels, from the root's `jitrun.lowering_config`: an `scf.forall`
    of workgroup tiles (the grid), then `scf.for` cache tiles, then
    vector-register tiles, each fusing the root's producers (never a
    tensor.pad, which jitrun-codegen-read-padding-in-place handles). A root
    without a config is an error; a dispatch that cannot be tiled is a
    warning and runs as one workgroup of scalar loops.
  }];
  let dependentDialects = ["scf::SCFDialect", "affine::AffineDialect", "tensor::TensorDialect",
                           "arith::ArithDialect"];
}

def ReadPaddingInPlacePass : Pass<"jitrun-codegen-read-padding-in-place", "func::FuncOp"> {
  let summary = "Tiles of a padded input read it in place; only border tiles pad";
  let description = [{
    After tiling: every innermost slice of a fused window pad reads the
    unpadded input in place where its tile lies inside it, and pads only the
    tiles at the border (an scf.if on the tile's offsets).
  }];
  let dependentDialects = ["scf::SCFDialect", "affine::AffineDialect", "tensor::TensorDialect",
                           "arith::ArithDialect", "vector::VectorDialect"];
}

def PeelPartialTilesPass : Pass<"jitrun-codegen-peel-partial-tiles", "func::FuncOp"> {
  let summary = "Split tile loops into full tiles and one partial tile";
  let description = [{
    Every tile loop whose step does not divide its range becomes a loop of
    full tiles and one partial iteration, outer loops first. Full tiles get
    static shapes and vectorize without masks; only edge tiles are masked.
  }];
  let dependentDialects = ["scf::SCFDialect", "affine::AffineDialect"];
}

def TileReductionsPass : Pass<"jitrun-codegen-tile-reductions", "func::FuncOp"> {
  let summary = "Tile the reduction loops of every linalg op";
  let description = [{
    The root's reduction tiles come from its lowering config (`reduction`);
    every other op with reduction loops gets selectReductionTileSizes': K of
    a contraction by 1, a convolution's filter taps and input channels by 1
    (four or more under VNNI), a reduction's inner loop by the vector width.
    Producers marked `jitrun.fuse_into_reduction` are fused into the loop.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"512",
           "Vector register width in bits (512 for AVX-512, 256 for AVX2)">,
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Tile the reduction of i8 contractions by multiples of 4 (VNNI)">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Tile the reduction of bf16 x bf16 -> f32 contractions by pairs (AVX512_BF16)">,
  ];
  let dependentDialects = ["scf::SCFDialect", "affine::AffineDialect", "tensor::TensorDialect"];
}

def VectorizePass : Pass<"jitrun-codegen-vectorize", "func::FuncOp"> {
  let summary = "Vectorize every linalg op of a tiled dispatch";
  let description = [{
    Full tiles' slices are canonicalized to static shapes and 2-D
    convolutions and poolings decomposed to 1-D; the unit dims of expanded
    or packed contractions and of VNNI convolutions' taps are dropped; then
    every linalg op is vectorized with the linalg vectorizer (masked where
    its shape is dynamic), and slices fold into vector transfers.
  }];
  let statistics = [
    Statistic<"numVectorized", "vectorized-ops", "Linalg ops vectorized">,
    Statistic<"numScalar", "scalar-ops", "Linalg ops left to scalar loops">,
  ];
  let dependentDialects = ["scf::SCFDialect", "vector::VectorDialect", "affine::AffineDialect",
                           "tensor::TensorDialect", "arith::ArithDialect"];
}

def BufferizeDispatchPass : Pass<"jitrun-codegen-bufferize", "ModuleOp"> {
  let summary = "One-shot bufferize a kernel; temporaries on the stack";
  let description = [{
    Inputs and outputs are already memrefs (the kernel ABI), so this runs
    one-shot bufferization without function-boundary bufferization; every
    temporary becomes a `memref.alloca`, which the stack-allocation check then
    measures. Copies bufferization leaves are vectorized when they have at
    most `max-vector-copy-elements` elements; larger ones (whole tensors on
    the untiled reference path) stay loops: a copy vectorized whole is one
    vector unrolled element by element, and a 112x112x32 one made LLVM spend
    minutes on a single kernel.
  }];
  let options = [
    Option<"maxVectorCopyElements", "max-vector-copy-elements", "int64_t",
           /*default=*/"65536", "Largest copy vectorized (0: none)">,
  ];
  let dependentDialects = ["bufferization::BufferizationDialect", "memref::MemRefDialect"];
}

def DistributeWorkgroupsPass : Pass<"jitrun-codegen-distribute-workgroups", "func::FuncOp"> {
  let summary = "Replace the workgroup scf.forall by the kernel's workgroup id";
  let description = [{
    The outermost `scf.forall` (on buffers) is replaced by its body, with the
    induction variables computed from the workgroup id argument. The grid
    size is recorded as the `jitrun.workgroups` attribute. Other foralls
    become sequential loops.
  }];
  let dependentDialects = ["affine::AffineDialect", "arith::ArithDialect", "scf::SCFDialect"];
}

def ReportIndexErrorsPass : Pass<"jitrun-codegen-report-index-errors", "func::FuncOp"> {
  let summary = "A gather's out-of-range index becomes an error the run reports";
  let description = [{
    On a bufferized kernel whose `jitrun.index_checks` lists bounds-check
    sites (made by jitrun-codegen-safe-arith): the kernel takes one more
    buffer, `memref<1xi32>`, before its workgroup id, and wherever a clamp
    tagged `jitrun.index_check = N` (scalar or vector, after vectorization)
    changed an index, stores N there with an atomic max. The runtime passes
    a status word, reads it after the dispatch and fails the run with site
    N's message. The clamped read itself stays in bounds either way.
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect",
                           "scf::SCFDialect", "vector::VectorDialect"];
}

def CheckStackAllocationPass : Pass<"jitrun-codegen-check-stack-allocation", "func::FuncOp"> {
  let summary = "Fail a kernel whose static stack allocations exceed the limit";
  let description = [{
    Sums the bytes of every `memref.alloca` in the function. Above `limit` the
    function fails with the total and the allocating op (or warns, when
    `fail` is false); a dynamically sized alloca is always an error. The
    total is recorded as the `jitrun.stack_bytes` attribute.
  }];
  let options = [
    Option<"limit", "limit", "uint64_t", /*default=*/"32768",
           "Largest allowed sum of static stack allocations, in bytes">,
    Option<"fail", "fail", "bool", /*default=*/"true",
           "Fail (true) or only warn (false) when over the limit">,
  ];
}

def LowerVectorsPass : Pass<"jitrun-codegen-lower-vectors", "func::FuncOp"> {
  let summary = "Hoist vector transfers and lower vector ops toward LLVM";
  let description = [{
    Keeps accumulators in registers across reduction loops (hoisting
    redundant transfers), lowers contractions to outer products (FMAs),
    transposes, masks and multi-reductions, and replaces math functions with
    vectorizable polynomial approximations. With `vnni`, contractions of
    sign-extended i8 operands into i32 become AVX-512 VNNI dot products
    (vpdpbusd) instead of multiplies and adds; with `bf16`, contractions of
    bf16 operands into f32 become AVX512_BF16 dot products (vdpbf16ps).
  }];
  let options = [
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Lower i8 x i8 -> i32 contractions to AVX-512 VNNI vpdpbusd">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Lower bf16 x bf16 -> f32 contractions to AVX512_BF16 vdpbf16ps">,
    Option<"avx512", "avx512", "bool", /*default=*/"false",
           "Lower exp of f32 vectors through AVX-512's vscalefps">,
  ];
  let dependentDialects = ["vector::VectorDialect", "scf::SCFDialect", "memref::MemRefDialect",
                           "math::MathDialect", "arith::ArithDialect", "mlir::LLVM::LLVMDialect"];
}

def PrefetchWeightsPass : Pass<"jitrun-codegen-prefetch-weights", "func::FuncOp"> {
  let summary = "Prefetch the weight panels a kernel streams from memory";
  let description = [{
    For each read of a kernel argument that streams it (one whole innermost
    row per iteration of the innermost loop, the loop's induction variable
    on the next-to-last dim: a packed weight panel read one channel at a
    time), inserts memref.prefetch (read, to L2) clamped into the buffer:

    - where loops around the read do not index the buffer (passes: a tile
      of output rows each, each pass reading the workgroup's region of
      panels again), the buffer has at least region-min-bytes and the
      workgroup after each (which the same thread runs next) reads the same
      region or the next one, the next at least once (its indices evaluated
      for every workgroup id): the next workgroup's region (the indices
      with the id plus one), spread over all passes, each step prefetching the line
      ceil(row / passes) elements further (an address affine in the loops,
      one pointer bump per step). Only the first pass of a thread's first
      workgroup then waits on memory: a pass reading its region from
      memory waited once per 4 KB page, where the hardware prefetchers
      stop, at a third of the FMA rate (BERT's 128-row projections: 1 pass
      in 11; ResNet-50's 14x14 3x3 convolutions, two workgroups per
      panel). Not where workgroups only split one region's rows
      (deeplab_v3).
    - else, for buffers of at least min-bytes (read once per workgroup):
      each cache line of the row `distance` bytes further along.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4 << 20",
           "The smallest buffer read once per workgroup prefetched, in bytes">,
    Option<"regionMinBytes", "region-min-bytes", "int64_t", /*default=*/"256 << 10",
           "The smallest buffer read in passes whose next region is prefetched, in bytes">,
    Option<"distance", "distance", "int64_t", /*default=*/"8192",
           "How far ahead of the read to prefetch, in bytes">,
  ];
  let dependentDialects = ["affine::AffineDialect", "arith::ArithDialect",
                           "memref::MemRefDialect"];
}

def SafeKernelArithPass : Pass<"jitrun-codegen-safe-arith", "func::FuncOp"> {
  let summary = "Integer division that never traps and reads that stay in bounds";
  let description = [{
    A kernel must never kill its host process. Integer division and
    remainder (`arith.divsi/divui/remsi/remui/ceildivsi/ceildivui/floordivsi`)
    trap on x86 for a zero divisor and for the signed minimum over -1; each
    such op whose divisor is not a constant known to be safe divides by a
    divisor replaced with 1 in those cases, and its result is then defined
    as NumPy's: x / 0 = 0 and x % 0 = 0, MIN / -1 = MIN (wrapping) and
    MIN % -1 = 0. A `tensor.extract` whose indices are not all constants
    (a gather by data) has each data-dependent index clamped into its
    dimension, so that no read leaves the tensor; each clamp's `arith.minsi`
    carries its site number (`jitrun.index_check`) and the function lists
    the sites' error messages (`jitrun.index_checks`), for
    jitrun-codegen-report-index-errors to turn a clamp that changed an
    index into an error of the run.
  }];
  let dependentDialects = ["arith::ArithDialect", "tensor::TensorDialect"];
}

def LegalizeMemoryTypesPass : Pass<"jitrun-codegen-legalize-memory-types", "ModuleOp"> {
  let summary = "i1 and bf16 buffers held as i8 and i16";
  let description = [{
    Booleans: LLVM stores a `vector<N x i1>` as N packed bits, while every
    buffer the host sees (inputs, results, intermediates between dispatches)
    holds one byte per boolean. bf16: LLVM's lowering of bf16 vector loads
    and stores aborts on odd shapes (a 17-element tail). After vector
    lowering, every `memref<... x i1>` (kernel arguments, stack temporaries,
    globals, views) becomes `memref<... x i8>`, with loads followed by
    `arith.trunci` and stores preceded by `arith.extui`, and every
    `memref<... x bf16>` becomes `memref<... x i16>` behind `arith.bitcast`s,
    scalar and vector alike; masks stay i1 in registers.
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect",
                           "vector::VectorDialect", "scf::SCFDialect"];
}

def SoftBf16ConversionsPass : Pass<"jitrun-codegen-soft-bf16", "func::FuncOp"> {
  let summary = "bf16 conversions that round at every op, as integer code";
  let description = [{
    Runs after upstream's arith-emulate-unsupported-floats has moved bf16
    arithmetic to f32 between `arith.extf` and `arith.truncf`. The pair
    inherits the op's fast-math flags, and `extf(truncf(x))` with
    `contract` folds to `x`, which would skip the rounding the program asks
    for (x * x + x in bf16 came out 6.40625 instead of 6.375): the flags of
    every f32 <-> bf16 conversion are cleared. Then the conversions, scalar or vector, become shifts and integer rounding (round
    to nearest even, NaN kept quiet, denormals kept): LLVM's bf16 lowering
    aborted on odd vector shapes with AVX512_BF16 and called compiler-rt's
    `__truncsfbf2`, which the JIT cannot resolve, without it.
  }];
  let dependentDialects = ["arith::ArithDialect"];
}

def AmxContractionsPass : Pass<"jitrun-codegen-amx-contractions", "func::FuncOp"> {
  let summary = "bf16 contractions over VNNI panels (jitrun.amx_tiles) in AMX tiles";
  let description = [{
    On buffers: each linalg.generic marked jitrun.amx_tiles (A [rows, K/2,
    2] x B [panel, K/2, cols, 2] -> C [rows, panel, cols], unit loops
    besides up to 32 rows, 16 or 32 columns and K) becomes AMX tile code:
    accumulator tiles loaded from C, a loop over K in steps of 16 pairs
    carrying them (two tiles of A and of B loaded per step, tdpbf16ps into
    each accumulator; marked for LLVM not to unroll it), the tiles stored
    back to C. One that does not fit (dynamic shapes, strided rows, K not
    two or more whole steps, a body that is not a multiply-accumulate) is
    left to the scalar loops with a remark.
  }];
  let dependentDialects = ["amx::AMXDialect", "arith::ArithDialect", "scf::SCFDialect",
                           "LLVM::LLVMDialect"];
}

def AmxToLLVMPass : Pass<"jitrun-codegen-amx-to-llvm", "ModuleOp"> {
  let summary = "AMX tile ops, and the branches that carry tiles, to LLVM";
  let description = [{
    AMX ops become LLVM's AMX intrinsics, and cf branches (which carry the
    tiles of a K loop) become LLVM branches, with one type converter that
    knows the tile type (upstream's control-flow lowering does not).
    Nothing changes in a module without AMX ops.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

#endif // JITRUN_CODEGEN_PASSES
