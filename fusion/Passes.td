//===- Passes.td - jitrun fusion passes -------------------*- tablegen -*-===//
//
// Linalg-on-tensors passes that decide how many kernels a model becomes:
// elementwise fusion under jitrun's control function, then dispatch region
// formation and outlining into one function per kernel.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_FUSION_PASSES
#define JITRUN_FUSION_PASSES

include "mlir/Pass/PassBase.td"

def ElementwiseFusionPass : Pass<"jitrun-fusion-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise linalg ops without introducing redundant work";
  let description = [{
    Runs the upstream elementwise fusion patterns to a fixed point, steered by
    jitrun's control function: a producer is only fused into its consumer when
    the consumer is its single use (so nothing is computed twice), or when the
    producer is cheap to recompute (a splat or scalar broadcast). Fusion into a
    reduction through a broadcasting map is refused, since it would recompute
    the producer once per reduced element. Named elementwise ops are
    generalized first so that the patterns see them.
  }];
  let options = [
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"16",
           "Refuse a fusion whose result would have more operands than this">,
  ];
  let statistics = [
    Statistic<"numGenericBefore", "generic-before", "linalg.generic ops before fusion">,
    Statistic<"numGenericAfter", "generic-after", "linalg.generic ops after fusion">,
  ];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def TosaToLinalgPass : Pass<"jitrun-import-tosa", "func::FuncOp"> {
  let summary = "TOSA to linalg, tensor, arith and scf, in a function that has TOSA ops";
  let description = [{
    Runs upstream's TOSA conversions (to scf, linalg named ops, linalg,
    arith, tensor) on a function with TOSA ops; a function without any (an
    ONNX import, linalg input) is left as it is, unverified: five passes
    that found nothing each verified the whole function again.
  }];
}

def ResolveDimsPass : Pass<"jitrun-fusion-resolve-dims", "func::FuncOp"> {
  let summary = "A dim of an op's result as the dim of the operand it comes from";
  let description = [{
    In a dynamic program, a tensor.dim of an op's result is rewritten to the
    dim of the operand it comes from (upstream's result-dim resolution
    patterns), ending at the arguments': a shape query is then no use of
    the result that keeps it from fusing. A function with no tensor.dim of
    an op's result (every static program) is left as it is, unverified.
  }];
  let dependentDialects = ["affine::AffineDialect", "tensor::TensorDialect"];
}

def BatchLoopMatmulsPass : Pass<"jitrun-fusion-batch-loop-matmuls", "func::FuncOp"> {
  let summary = "A recurrence's input projections for every step at once, before its loop";
  let description = [{
    A linalg.matmul in an scf.for from 0 to T by 1 whose left operand is
    row iv of a loop-invariant T x 1 x ... x K input (an LSTM's x_t),
    whose right operand is loop-invariant (its W) and whose accumulator is
    a fill of a loop-invariant value is computed for all T rows before the
    loop (a T x K by K x N matmul: W read once, not once per step); each
    step takes row iv of the result with a tensor.extract_slice.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def PackWeightsPass : Pass<"jitrun-fusion-pack-weights", "func::FuncOp"> {
  let summary = "Pack constant weights of few-row matmuls and 1x1 convolutions into panels";
  let description = [{
    A linalg.matmul with at most 8 rows and a constant right operand B
    (K x N), or a 1x1 NHWC convolution of at most 8 pixels with a constant
    filter, is weight-bound: split along N into workgroups, each would read
    a short piece of every row of B. B is packed at compile time into
    panels of T columns, [ceil(N/T)][K][T] (T = 64, or 32 or 16 when that
    divides N and 64 does not; zero-padded otherwise), when N has at least
    two panels; with a bias broadcast into the accumulator (ONNX's Gemm
    and Conv), only when the padding is at most 1/16 of N, the bias
    constant zero-padded with it (a classifier's 1000 classes). A 1x1 NHWC
    convolution of more pixels is packed the same
    way with T = 32 (or 16): its unpacked filter rows lie F x 4 bytes
    apart and miss in L1 at every reduction step. A strided one reads its
    input through a strided tensor.extract_slice. The op becomes a generic
    contraction over the panels (marked jitrun.packed_panels), whose result is collapsed back (and
    sliced when N was padded); a bias broadcast into its accumulator is
    rebuilt in panels. A KxK NHWC convolution whose constant filter has at
    least min-conv-filter-bytes (too large to stay in L2 from one row of
    output pixels to the next) is packed into [F/T][KH][KW][C][T] panels
    when they divide F, and becomes a generic convolution over them.
    With amx-panels, a bf16 matmul of many rows into f32 takes VNNI panels
    for AMX tiles: constant weights packed at compile time, a right operand
    that is no constant packed on each run by a reshape and a transpose;
    so do int8 (and, with bf16-convolutions, f32 rounded to bf16)
    convolutions with constant filters. Without amx-panels,
    bf16-convolutions rounds 1x1 convolutions alone (AVX512_BF16 dot
    products over the bf16 panels above).
  }];
  let options = [
    Option<"minConvFilterBytes", "min-conv-filter-bytes", "int64_t",
           /*default=*/"768 * 1024",
           "The smallest KxK convolution filter packed, in bytes">,
    Option<"amxPanels", "amx-panels", "bool", /*default=*/"false",
           "Pack bf16 weights of many-row matmuls for AMX tiles (K pairs interleaved)">,
    Option<"bf16Convolutions", "bf16-convolutions", "bool", /*default=*/"false",
           "--weights=bf16: f32 convolutions with constant filters read bf16 filters and "
           "inputs, accumulating in f32 (with amx-panels those AMX tiles take, else 1x1 ones)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "linalg::LinalgDialect",
                           "tensor::TensorDialect"];
}

def PropagateReshapesPass : Pass<"jitrun-fusion-propagate-reshapes", "func::FuncOp"> {
  let summary = "Move reshapes out of the way of fusion: expansion, then sinking";
  let description = [{
    Runs between two rounds of elementwise fusion. First, by expansion:
    a `tensor.collapse_shape` feeding an elementwise generic and a
    `tensor.expand_shape` of an elementwise generic's result are folded into
    the generic, which then works on the expanded shape, so that fusion sees
    through reshapes. Then what remains is sunk: an elementwise generic that
    reads an `expand_shape` is collapsed to the reshape's source shape, so a
    root and its elementwise consumer meet without a reshape between them and
    the reshape moves to the dispatch's result.
  }];
  let options = [
    Option<"topDown", "top-down", "bool", /*default=*/"true",
           "Visit ops from the top of the function (else bottom-up)">,
  ];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def MergeReductionsPass : Pass<"jitrun-fusion-merge-reductions", "func::FuncOp"> {
  let summary = "Merge a reduction of a reduction into one reduction over both dims";
  let description = [{
    A `linalg.reduce` whose input is another `linalg.reduce`'s only use
    (possibly through a reshape that only inserts or drops unit dims), with
    the same single-op combiner and the same fill value v, v (+) v == v (0
    for a sum, 1 for a product, anything for max and min), becomes one
    reduction over the union of their dims, followed by a unit reshape to
    the old result shape. TOSA's mean over an image (two single-axis
    reduce_sum ops) becomes one root and one dispatch.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def FoldEmptyLoopsPass : Pass<"jitrun-fusion-fold-empty-loops", "func::FuncOp"> {
  let summary = "Replace a linalg op with a loop of extent 0 by its inits";
  let description = [{
    A linalg op on tensors with a static loop of extent 0 (a zero-size
    dimension) runs no iteration: its results are its init operands (an
    empty tensor, or a reduction's initial value).
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def SplitReductionsPass : Pass<"jitrun-fusion-split-reductions", "func::FuncOp"> {
  let summary = "Reduce a whole tensor in two steps: into 16-64 lanes, then the lanes";
  let description = [{
    A reduction of a whole static tensor (4096 elements or more) to a
    scalar, by one combiner that has a neutral element, has no parallel
    loop to vectorize or split: its innermost dim is split into
    [d / L, L] (L = 64, 32 or 16, the first that divides it), every loop
    but the L lanes is reduced into L partial results starting from the
    neutral element, and those are reduced onto the original initial
    value. A linalg.reduce of every dim is generalized first.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def Bf16WeightsPass : Pass<"jitrun-fusion-bf16-weights", "func::FuncOp"> {
  let summary = "Store f32 matmul weights as bf16, accumulating in f32 (--weights=bf16)";
  let description = [{
    A `linalg.matmul` or `linalg.batch_matmul` of f32 into f32 whose right
    operand is a constant reads that constant rounded to bf16 (nearest even:
    half the bytes) and its left operand rounded to bf16 by an elementwise
    generic that fusion takes into its producer; the contraction keeps its
    f32 accumulator. On AVX512_BF16 hosts such contractions are vdpbf16ps
    dot products, twice the f32 rate.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def AccumulateInF32Pass : Pass<"jitrun-fusion-accumulate-in-f32", "func::FuncOp"> {
  let summary = "f16 and bf16 matmuls and convolutions accumulate in f32";
  let description = [{
    A contraction or convolution (mul-add body) with an f16 or bf16
    accumulator gets an f32 one (a fill becomes an f32 fill, other inits are
    widened) and its result is rounded back once by an elementwise generic,
    as PyTorch and oneDNN compute them. Its f16 operands are widened to f32
    (constants at compile time, others by an elementwise generic for fusion
    to place), so that it runs as an f32 contraction; bf16 operands stay
    bf16 (vdpbf16ps on AVX512_BF16).
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def DecomposeHostOpsPass : Pass<"jitrun-fusion-decompose-host-ops", "func::FuncOp"> {
  let summary = "Rewrite tensor.pad and tensor.concat as fills and slice copies";
  let description = [{
    The host program runs fills and slice copies as memset/memcpy-like
    commands; padding and concatenation become exactly those, so that no
    kernel is needed for them and the following convolution sees a plain
    tensor.
    With keep-window-pads, pads that dispatch formation fuses into a
    depthwise convolution or pooling (isFusedWindowPad) stay; dispatch
    functions are never touched.
  }];
  let options = [
    Option<"keepWindowPads", "keep-window-pads", "bool", /*default=*/"false",
           "Keep pads that dispatch formation fuses into their window op">,
  ];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def ConvolutionLayoutsPass : Pass<"jitrun-fusion-convolution-layouts", "func::FuncOp"> {
  let summary = "Rewrite TOSA's convolution layouts to the ones codegen vectorizes";
  let description = [{
    TOSA lowers to linalg.conv_2d_nhwc_fhwc(_q) and
    linalg.depthwise_conv_2d_nhwc_hwcm(_q), which the 1-D decomposition and
    the vectorizer do not handle, so they compiled to scalar loops. The
    filter of an FHWC convolution is transposed to HWCF (folded at compile
    time when it is a constant), and a depthwise convolution with channel
    multiplier 1 becomes depthwise_conv_2d_nhwc_hwc(_q) between reshapes.
    NCHW convolutions, depthwise convolutions and the pooling of their
    results run in NHWC between transposes that sink through the elementwise
    ops and cancel; only in a function with no other convolution going NHWC
    does a 1x1 stride-1 convolution of a large image become a batch_matmul
    over the flattened image instead. Filter taps that read only zero
    padding are dropped.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def FormDispatchesPass : Pass<"jitrun-fusion-form-dispatches", "ModuleOp"> {
  let summary = "Group ops into dispatch regions and outline each as a kernel function";
  let description = [{
    Each root (a linalg op with a reduction loop: matmul, convolution,
    pooling, reductions) takes the fill that initializes it and the chain of
    elementwise consumers that read its result through a permutation; every
    other linalg op becomes a dispatch of its own. Each region is outlined
    into a private function marked `jitrun.dispatch` and replaced by a
    `func.call`. What stays in the host function (constants, tensor.empty,
    reshapes, lone fills and slice copies) is run by the host program.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"default\"",
           "Fusion mode: default, aggressive or none (one op per dispatch)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark `not fused: ...` on every consumer for each producer "
           "left in another dispatch, naming the rule that kept them apart">,
  ];
  let statistics = [
    Statistic<"numRoots", "root-ops", "Root ops that anchor dispatches">,
    Statistic<"numRegions", "dispatch-regions", "Dispatch regions formed">,
  ];
  let dependentDialects = ["func::FuncDialect", "linalg::LinalgDialect", "tensor::TensorDialect"];
}

#endif // JITRUN_FUSION_PASSES
