//===- Strategy.cpp - tile-size selection per op kind --------------------===//
//
// Vector tiles keep accumulators in registers (8 rows x two vectors for
// contractions, 8 output pixels x one or two vectors for convolutions);
// workgroup tiles split the outer parallel loops until the grid has enough
// workgroups. Convolutions get tiles that divide their extents, since the
// 1-D convolution vectorizer takes no masks.
//
//===----------------------------------------------------------------------===//

#include "codegen/Strategy.h"
#include "codegen/Passes.h"
#include "contract/Dispatch.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <algorithm>
#include <functional>

using namespace mlir;

namespace jitrun {
namespace {

// The register budgets and thresholds of the strategy, named. "Registers"
// are vector registers of `lanes` 32-bit lanes (16 on AVX-512, 8 on AVX2);
// the measurements behind each are in the comments where they are used.

/// Fewest 32-bit lanes a vector tile assumes (SSE).
constexpr int64_t kMinLanes = 4;
/// f32 lanes of one AVX2 register (half an AVX-512 one).
constexpr int64_t kAvx2Lanes = 8;
/// A contraction's register tile: rows of M by registers of N.
constexpr int64_t kMatmulRows = 8;
constexpr int64_t kMatmulColumnRegisters = 2;
/// VNNI int8 register tile rows (each interleaved right operand register
/// serves this many dot products), and its reduction tiles: a multiple of
/// kVnniReductionGroup (the bytes one vpdpbusd lane sums) up to
/// kVnniMaxReductionTile.
constexpr int64_t kVnniRows = 16;
constexpr int64_t kVnniReductionGroup = 4;
constexpr int64_t kVnniMaxReductionTile = 16;
/// The most accumulator registers a register tile holds (half of AVX-512's
/// 32, all of AVX2's 16).
constexpr int64_t kMaxAccumulatorRegisters = 16;
/// Rows of an AVX-512 register tile over packed panels of two registers:
/// 24 accumulators, leaving 8 registers for the panel row and broadcasts.
/// Each panel row loaded (from L2: a panel of 768 rows is 96 KB) serves 24
/// FMAs instead of 16: BERT's 128x768x3072 matmul 1.10x, 128x768x768 1.13x.
constexpr int64_t kWidePanelRows = 12;
/// Output pixels per register tile of an NHWC-like convolution (f32, and
/// int8 with VNNI), and output channels of an NCHW-like one.
constexpr int64_t kConvPixels = 8;
/// The fewest pixels (rows) of an f32 register tile with two registers of
/// channels (columns) that keep the FMA units busy: 10 independent
/// accumulators for a 4-cycle FMA latency on two pipes.
constexpr int64_t kMinConvPixels = 5;
/// The most pixels of an f32 stride-1 register tile with two registers of
/// channels (AVX-512): 28 accumulators, the filter row's two registers and
/// the broadcast pixel's one fill 31 of 32.
constexpr int64_t kWideConvPixels = 14;
/// The shortest reduction and the fewest output channels of a 1x1
/// convolution over packed panels that takes kWideConvPixels pixels.
constexpr int64_t kMinReductionForWidePixels = 128;
constexpr int64_t kMinColumnsForWidePixels = 128;
constexpr int64_t kVnniConvPixels = 16;
constexpr int64_t kNchwOutputChannels = 8;
/// Lanes from which the register file holds two registers of channels'
/// accumulators (AVX-512).
constexpr int64_t kWideChannelMinLanes = 16;
/// Shortest reduction (input channels x taps) worth the wider tiles.
constexpr int64_t kMinReductionForWideTiles = 64;
/// Input channels per step of a convolution with input channels.
constexpr int64_t kConvInputChannelStep = 8;
/// Registers of lanes on the innermost loop of reductions and elementwise ops.
constexpr int64_t kElementwiseRegisters = 2;
/// How far back through the chain a root operand is traced to the anchor.
constexpr int kMaxChainDepth = 8;
/// Below this much work (iterations) a dispatch keeps one workgroup.
constexpr int64_t kMinWorkForWorkgroups = int64_t(1) << 15;
/// A broadcast epilogue splits its broadcast dims only when recomputing the
/// root per workgroup costs at most 1/kBroadcastSplitRatio of the work.
constexpr int64_t kBroadcastSplitRatio = 8;
/// The reduction tile of a bf16 contraction under AVX512_BF16: pairs of k,
/// four dot products per step.
constexpr int64_t kBf16ReductionTile = 8;

/// Rows of a bf16 contraction's tile in AMX tiles: two tiles of 16, with
/// two of 16 columns, 4 of the 8 tile registers accumulating.
constexpr int64_t kAmxRows = 32;

/// Rows of a row reduction vectorized together (selectReductionTileSizes).
constexpr int64_t kReductionRows = 8;

/// A contraction splits N first when N is at least this many times M.
constexpr int64_t kWideNRatio = 4;
/// A convolution filter of at least this many bytes does not stay in L2
/// (1 MB per core here) while the workgroups of a split image stream it.
constexpr int64_t kStreamedFilterBytes = int64_t(512) << 10;
/// Cache tiles: vector tiles of 8 rows are grouped 8 at a time, others 4.
constexpr int64_t kCacheTileRowsGroup = 8;
constexpr int64_t kCacheTileGroup = 4;
/// VNNI row sums reduce their middle dim this many steps at a time.
constexpr int64_t kLaneSumSteps = 2;

enum class AnchorKind { Contraction, Convolution, Reduction, Elementwise };

struct Anchor {
  linalg::LinalgOp op;
  AnchorKind kind = AnchorKind::Elementwise;
};

/// The dispatch's anchor: the op with reduction loops among `root` and the
/// producers in its function, else `root` itself.
static Anchor findAnchor(linalg::LinalgOp root) {
  Anchor anchor{root, AnchorKind::Elementwise};
  linalg::LinalgOp found;
  if (root.getNumReductionLoops() > 0) {
    found = root;
  } else if (auto fn = root->getParentOfType<FunctionOpInterface>()) {
    // Not a row sum kept at the workgroup level (shiftInt8RhsForVnni):
    // it serves the contraction, the dispatch's real anchor.
    fn->walk([&](linalg::LinalgOp op) {
      if (!found && op.getNumReductionLoops() > 0 && !op->hasAttr(kWorkgroupLevelAttrName))
        found = op;
    });
  }
  if (!found)
    return anchor;
  anchor.op = found;
  if (linalg::isaContractionOpInterface(found))
    anchor.kind = AnchorKind::Contraction;
  else if (isa<linalg::ConvolutionOpInterface>(found.getOperation()) ||
           succeeded(linalg::inferConvolutionDims(found)))
    anchor.kind = AnchorKind::Convolution;
  else
    anchor.kind = AnchorKind::Reduction;
  return anchor;
}

} // namespace

/// True when `op` has two inputs of element type `in` and one init of `acc`.
static bool isTypedContraction(linalg::LinalgOp op, Type in, Type acc) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  auto elem = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  return elem(op.getDpsInputOperand(0)->get()) == in &&
         elem(op.getDpsInputOperand(1)->get()) == in && elem(op.getDpsInitOperand(0)->get()) == acc;
}

bool isBf16Contraction(linalg::LinalgOp op) {
  Builder b(op.getContext());
  return isTypedContraction(op, b.getBF16Type(), b.getF32Type());
}

bool isInt8Contraction(linalg::LinalgOp op) {
  Builder b(op.getContext());
  return isTypedContraction(op, b.getI8Type(), b.getI32Type());
}

namespace {

/// The bytes of a static tensor or memref of ints or floats; -1 otherwise.
int64_t staticBytes(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return -1;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

/// True when a convolution's filter (its right operand) is at least twice
/// its input and too large to stay in L2: workgroups that split the
/// image's rows would each stream it.
bool streamsRightOperand(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() < 2)
    return false;
  int64_t lhs = staticBytes(op.getDpsInputOperand(0)->get());
  int64_t rhs = staticBytes(op.getDpsInputOperand(1)->get());
  return lhs > 0 && rhs >= 2 * lhs && rhs >= kStreamedFilterBytes;
}

/// True when every input of reduction `op` is contiguous along a parallel
/// loop (its map's last result is that loop), and some loop reduces.
bool lanesOnParallelLoop(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInputs() == 0)
    return false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (map.getNumResults() == 0)
      return false;
    auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!d || iters[d.getPosition()] != utils::IteratorType::parallel)
      return false;
  }
  return true;
}

/// The reduction tile of a VNNI contraction: a multiple of four dividing
/// `extent`, large enough that the per-tile correction of a flipped left
/// operand (one subtract per accumulator) is small next to the dot products;
/// 1 when `extent` is not a multiple of four. 16 measured best on matmuls and
/// 1x1 convolutions (jitrun-bench int8 rows; 32 adds register pressure).
static int64_t vnniReductionTile(int64_t extent) {
  for (int64_t t = kVnniMaxReductionTile; t >= kVnniReductionGroup; t /= 2)
    if (extent % t == 0)
      return t;
  return 1;
}

/// True when the innermost output dimension, the one that carries the
/// vector lanes, is an image dimension read with a stride or dilation.
static bool stridedLanes(linalg::LinalgOp op, const linalg::ConvolutionDimensions &dims) {
  AffineMap out = op.getIndexingMapMatchingResult(op->getResult(0));
  auto inner = dyn_cast<AffineDimExpr>(out.getResults().back());
  if (!inner)
    return true;
  for (auto [i, d] : llvm::enumerate(dims.outputImage))
    if (d == inner.getPosition())
      return (i < dims.strides.size() && dims.strides[i] != 1) ||
             (i < dims.dilations.size() && dims.dilations[i] != 1);
  return false;
}

/// Pixels (or rows) per register tile along an output row of `width`
/// pixels: `most`, unless the row leaves an edge tile of fewer than
/// kMinConvPixels, which runs a fraction of the FMAs per weight row it
/// loads. Then the widest tile of at least kMinConvPixels that divides the
/// row or leaves an edge of at least that many (Inception v3's 17-pixel
/// rows: 6 + 6 + 5 rather than 8 + 8 + 1).
static int64_t edgeAwareTile(int64_t width, int64_t most) {
  if (ShapedType::isDynamic(width) || width <= most || width % most == 0 ||
      width % most >= kMinConvPixels)
    return most;
  for (int64_t t = most - 1; t >= kMinConvPixels; --t)
    if (width % t == 0 || width % t >= kMinConvPixels)
      return t;
  return most;
}

/// The smallest tile >= `want` that divides `extent` and is a multiple of `vec`.
static int64_t smallestDivisorAtLeast(int64_t extent, int64_t want, int64_t vec) {
  want = std::max<int64_t>(1, std::min(want, extent));
  for (int64_t t = want; t <= extent; ++t)
    if (extent % t == 0 && t % vec == 0)
      return t;
  return extent;
}

static int64_t largestDivisorAtMost(int64_t extent, int64_t want) {
  want = std::max<int64_t>(1, std::min(want, extent));
  for (int64_t t = want; t >= 1; --t)
    if (extent % t == 0)
      return t;
  return 1;
}

/// The reduction tile of a bf16 contraction under AVX512_BF16: pairs of k
/// (vdpbf16ps sums two products per lane), up to kBf16ReductionTile, that
/// divide `extent`; `fallback` for an odd extent (which keeps its multiplies
/// and adds).
static int64_t bf16ReductionTile(int64_t extent, int64_t fallback) {
  return extent % 2 == 0 ? largestDivisorAtMost(extent, kBf16ReductionTile) : fallback;
}

/// The product of `loops`' extents in `ranges`, dynamic if any is.
static int64_t extentProduct(ArrayRef<int64_t> ranges, ArrayRef<unsigned> loops) {
  int64_t p = 1;
  for (unsigned d : loops)
    p = ShapedType::isDynamic(ranges[d]) || ShapedType::isDynamic(p) ? ShapedType::kDynamic
                                                                    : p * ranges[d];
  return p;
}

/// Vector tile sizes over the anchor's loops (reduction loops 0).
static SmallVector<int64_t> anchorVectorSizes(const Anchor &anchor, int64_t lanes,
                                              const TileSizeOptions &opts) {
  bool vnni = opts.vnni;
  linalg::LinalgOp op = anchor.op;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < sizes.size(); ++i)
    if (iters[i] == utils::IteratorType::parallel)
      sizes[i] = 1;
  // An int8 KxK convolution over VNNI panels on an AMX host (out[n, h, w,
  // p, t]): up to 32 pixels of a row (two tiles) by the panel, all taps and C.
  if (op->hasAttr(kAmxTilesAttrName) && !linalg::isaContractionOpInterface(op)) {
    AffineMap out = op.getIndexingMapMatchingResult(op->getResult(0));
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (out.getNumResults() == 5 && out.isProjectedPermutation()) {
      unsigned row = out.getDimPosition(2), col = out.getDimPosition(4);
      sizes[row] = ShapedType::isDynamic(ranges[row]) ? 1 : std::min(kAmxRows, ranges[row]);
      sizes[col] = ranges[col];
    }
    return sizes;
  }
  switch (anchor.kind) {
  case AnchorKind::Contraction: {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (succeeded(dims) && !dims->m.empty() && !dims->n.empty()) {
      sizes[dims->m.back()] = kMatmulRows;
      sizes[dims->n.back()] = kMatmulColumnRegisters * lanes;
      // bf16 over VNNI panels on an AMX host: up to 32 rows (two tiles) by
      // the panel's columns, all of K (jitrun-codegen-amx-contractions).
      if (op->hasAttr(kAmxTilesAttrName)) {
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        int64_t rows = ranges[dims->m.back()], width = ranges[dims->n.back()];
        if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(width)) {
          sizes[dims->m.back()] = std::min(kAmxRows, rows);
          sizes[dims->n.back()] = width;
          return sizes;
        }
      }
      // Packed weight panels: a whole panel's row per step, one contiguous
      // run (4 registers on AVX-512, 8 on AVX2), not two passes over halves.
      if (op->hasAttr(kPackedPanelsAttrName)) {
        int64_t width = op.getStaticLoopRanges()[dims->n.back()];
        sizes[dims->n.back()] = width;
        // Past one register tile of rows (panels of 32 for 1x1 convolutions
        // of many pixels), at most 16 accumulators: 4 rows of 4 registers
        // on AVX2.
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        int64_t rows = extentProduct(ranges, dims->m);
        if (!ShapedType::isDynamic(rows) && rows > kMatmulRows) {
          sizes[dims->m.back()] =
              std::clamp<int64_t>(kMaxAccumulatorRegisters * lanes / width, 1, kMatmulRows);
          // With two registers of columns, no edge tile of one or two rows
          // either (Inception v3's 1x1 convolutions of 17-pixel rows: 81 ->
          // 88-91 % of the FMA peak, the model 2.7 % faster).
          int64_t extent = ranges[dims->m.back()];
          if (sizes[dims->m.back()] == kMatmulRows && width >= 2 * lanes)
            sizes[dims->m.back()] = edgeAwareTile(extent, kMatmulRows);
          Builder b(op.getContext());
          bool wideF32 = lanes == 2 * kAvx2Lanes && width == 2 * lanes &&
                         isTypedContraction(op, b.getF32Type(), b.getF32Type());
          // Rows of an f32 matmul (one loop of rows, not an image's) on
          // AVX-512 with panels of two registers: 12 at a time where the edge
          // tile keeps at least kMinConvPixels rows (128 = 10 x 12 + 8). Not
          // bf16 panels: vdpbf16ps tiles of 12 rows ran BERT's 128x768x3072
          // matmul 12 % slower than 8 on an Intel host.
          if (wideF32 && dims->m.size() == 1 && extent >= kWidePanelRows &&
              (extent % kWidePanelRows == 0 || extent % kWidePanelRows >= kMinConvPixels))
            sizes[dims->m.back()] = kWidePanelRows;
          // Pixels of a 1x1 convolution (rows of an image) likewise, up to
          // kWideConvPixels at a time: 28 accumulators (ResNet-50's 14x14 and
          // 28x28 ones 0.91-0.96x the time). Not for short reductions or few
          // output channels, whose tiles load and store more than they
          // multiply (56x56 64 -> 256: 1.02x, 256 -> 64: 1.06x). (A dynamic
          // extent is negative: it fails both bounds.)
          if (wideF32 && dims->m.size() >= 2 &&
              extentProduct(ranges, dims->k) >= kMinReductionForWidePixels &&
              extentProduct(ranges, dims->n) >= kMinColumnsForWidePixels)
            sizes[dims->m.back()] = edgeAwareTile(extent, std::min(extent, kWideConvPixels));
        }
      }
      // VNNI int8 tiles: 16 rows x one register of 16 i32 lanes, so that
      // each interleaved register of the right operand serves 16 dot
      // products (bench: 16x16 steadier and faster than 8x32, which spills).
      if (vnni && isInt8Contraction(op)) {
        sizes[dims->m.back()] = kVnniRows;
        sizes[dims->n.back()] = lanes;
      }
      return sizes;
    }
    break;
  }
  case AnchorKind::Convolution: {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (failed(dims) || dims->outputImage.empty())
      break;
    // The innermost output dimension carries the vector lanes.
    AffineMap out = op.getIndexingMapMatchingResult(op->getResult(0));
    unsigned inner = cast<AffineDimExpr>(out.getResults().back()).getPosition();
    sizes[inner] = lanes;
    bool innerIsImage = llvm::is_contained(dims->outputImage, inner);
    if (!innerIsImage) {
      // NHWC-like: 8 output pixels along the innermost image dimension; 16
      // for VNNI int8, as a matmul's rows, so that each interleaved register
      // of the filter serves 16 dot products.
      int64_t pixels = vnni && isInt8Contraction(op) ? kVnniConvPixels : kConvPixels;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t width = ranges[dims->outputImage.back()];
      sizes[dims->outputImage.back()] = pixels;
      int64_t channels = ranges[inner], reduction = 1;
      for (unsigned d : llvm::concat<const unsigned>(dims->inputChannel, dims->filterLoop))
        reduction = ShapedType::isDynamic(ranges[d]) ? reduction : reduction * ranges[d];
      // Neither wider tile below is for short reductions (a 1x1
      // convolution of 8 channels), where its loads and stores outweigh its
      // few FMAs (MobileNetV2 test size: 8->48 on a 4x4 image 1 -> 3 us).
      //
      // Two registers of channels where the register file holds twice the
      // accumulators (AVX-512: 16 of 32 registers): each broadcast input
      // pixel then serves two FMAs, and each filter row read is a whole
      // 128-byte run (3x3 1x56x56x64->64: 0.86 -> 1.00 of oneDNN; 1x1
      // 14x14x256->1024: 0.36 -> 0.65; 3x3 14x14x256->256: 0.46 -> 0.69).
      // Not on AVX2, where 16 accumulators would be its whole register file.
      // Nor for int8, whose widened products take registers of their own.
      if (lanes >= kWideChannelMinLanes && !ShapedType::isDynamic(channels) &&
          channels % (2 * lanes) == 0 && reduction >= kMinReductionForWideTiles &&
          !isInt8Contraction(op)) {
        sizes[inner] = 2 * lanes;
        // Two registers of channels keep the FMA units busy down to
        // kMinConvPixels pixels: rows that 8 leaves a ragged edge take
        // narrower tiles (Inception v3's 17x17 convolutions 76-82 % ->
        // 83-87 % of the FMA peak, the model 3.6 % faster). At stride 1,
        // up to kWideConvPixels pixels: 28 accumulators, each filter row
        // loaded serving 28 FMAs instead of 16 (3x3 1x56x56x64->64 at
        // 73 -> 83 % of peak, ResNet-50's 14x14 ones 10 % faster); not at
        // stride 2, whose input pixels lie twice as far apart (ResNet-50's
        // 30x30 -> 14x14 3x3 1.3x slower).
        // Over packed filter panels (output channels split in panels and
        // lanes), at most opts.maxTapTilePixels: on AMD Zen hosts LLVM's
        // scheduling model spilled the accumulators of tiles of 13 or 14
        // pixels inside the channel loop (3x3 14x14x256->256: 118 -> 236
        // GFLOP/s at 7 + 7 pixels, the same tile under an Intel model 236).
        bool unitStride = dims->strides.empty() || dims->strides.back() == 1;
        int64_t most = kWideConvPixels;
        if (dims->outputChannel.size() > 1 && opts.maxTapTilePixels > 0)
          most = std::min(most, opts.maxTapTilePixels);
        sizes[dims->outputImage.back()] =
            edgeAwareTile(width, unitStride && !ShapedType::isDynamic(width)
                                     ? std::min(width, most)
                                     : pixels);
      }
      // A row narrower than the tile (late ResNet stages: 4, 2 or 1 pixels)
      // takes more channels instead, up to 16 registers in all, so the
      // register tile keeps 16 accumulators and reads longer runs of each
      // filter row (resnet18's 128-channel 3x3 convolutions of a 4x4 image:
      // 12.9 -> 15 GFLOP/s). Only a power-of-two number of registers that
      // divides the channels: convolution tiles must divide their loops, and
      // LLVM widens other vectors to the next power of two (84 of 168 lanes:
      // efficientnet_b0's 2x2 stages 3x slower; 80 lanes: deeplab_v3's
      // 240->80 on a 3x3 image 8x slower). VNNI int8 too: 7 pixels by one
      // register left vpdpbusd's latency exposed (3x3 512 -> 512 on 7x7:
      // 5.1 ms, 1.3 by four registers).
      if (!ShapedType::isDynamic(width) && width < pixels && !ShapedType::isDynamic(channels) &&
          reduction >= kMinReductionForWideTiles)
        for (int64_t t = lanes * static_cast<int64_t>(llvm::bit_floor<uint64_t>(
                             std::min<int64_t>(kMaxAccumulatorRegisters, 2 * pixels / width)));
             t > lanes; t /= 2)
          if (channels % t == 0) {
            sizes[inner] = t;
            break;
          }
    } else if (!dims->outputChannel.empty()) {
      // NCHW-like: 8 output channels.
      sizes[dims->outputChannel.back()] = kNchwOutputChannels;
    }
    return sizes;
  }
  default:
    break;
  }
  // Reductions and elementwise ops: lanes on the innermost parallel loop
  // that has more than one iteration (1xCx1x1 shapes put them on C).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int lanesLoop = -1;
  for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
    if (iters[i] != utils::IteratorType::parallel)
      continue;
    if (lanesLoop < 0)
      lanesLoop = i;
    if (ranges[i] != 1) {
      lanesLoop = i;
      break;
    }
  }
  if (lanesLoop < 0)
    return sizes;
  sizes[lanesLoop] = kElementwiseRegisters * lanes;
  // A transpose (an input read through a permutation whose innermost dim is
  // another loop): a square tile of one register's lanes on both innermost
  // loops, so that both the reads and the writes are whole vectors and the
  // tile is transposed in registers. Lanes on the output's loop alone read
  // the input one element per lane (NCHW to NHWC of 1x64x56x56: 7-11 GB/s).
  if (op.getNumReductionLoops() == 0) {
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      if (!map.isPermutation() || map.getNumResults() == 0)
        continue;
      unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
      if (static_cast<int>(inner) == lanesLoop || iters[inner] != utils::IteratorType::parallel ||
          ranges[inner] == 1)
        continue;
      sizes[lanesLoop] = lanes;
      sizes[inner] = lanes;
      break;
    }
  }
  return sizes;
}

/// Maps each loop of `root` to the anchor loop it iterates, or -1.
static SmallVector<int64_t> rootToAnchorLoops(linalg::LinalgOp root,
                                              linalg::LinalgOp anchor) {
  SmallVector<int64_t> map(root.getNumLoops(), -1);
  if (root == anchor) {
    for (unsigned i = 0; i < map.size(); ++i)
      map[i] = i;
    return map;
  }
  AffineMap anchorOut = anchor.getIndexingMapMatchingResult(anchor->getResult(0));
  // Find the root operand fed by the anchor (possibly through other ops of
  // the chain, which share the output index space).
  // Only operands computed from the anchor's result count: a bias of the
  // same rank as a reduction's result must not be mistaken for it.
  std::function<bool(Value, int)> fromAnchor = [&](Value v, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > kMaxChainDepth)
      return false;
    if (def == anchor.getOperation())
      return true;
    if (!isa<linalg::LinalgOp>(def))
      return false;
    return llvm::any_of(def->getOperands(),
                        [&](Value o) { return fromAnchor(o, depth + 1); });
  };
  for (OpOperand &operand : root->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()) || !fromAnchor(operand.get(), 0))
      continue;
    auto type = cast<ShapedType>(operand.get().getType());
    if (type.getRank() != anchorOut.getNumResults())
      continue;
    AffineMap m = root.getMatchingIndexingMap(&operand);
    for (auto [pos, expr] : llvm::enumerate(m.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(expr);
      auto a = dyn_cast<AffineDimExpr>(anchorOut.getResult(pos));
      if (d && a && map[d.getPosition()] < 0)
        map[d.getPosition()] = a.getPosition();
    }
    if (llvm::none_of(map, [](int64_t v) { return v < 0; }))
      break;
  }
  return map;
}

} // namespace

TilingInterface findTileRoot(func::FuncOp fn) {
  TilingInterface root;
  fn.walk([&](bufferization::MaterializeInDestinationOp store) {
    auto op = store.getSource().getDefiningOp<TilingInterface>();
    if (op && (!root || root->isBeforeInBlock(op)))
      root = op;
  });
  return root;
}

static StringRef schemeName(AnchorKind kind) {
  switch (kind) {
  case AnchorKind::Contraction:
    return "contraction";
  case AnchorKind::Convolution:
    return "convolution";
  case AnchorKind::Reduction:
    return "reduction";
  case AnchorKind::Elementwise:
    return "elementwise";
  }
  return "elementwise";
}

/// A generic kernel's dim at its largest value (kGenericDimAttrName), or 1.
static int64_t genericDimHint(Operation *op) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  auto a = fn ? fn->getAttrOfType<IntegerAttr>(kGenericDimAttrName) : nullptr;
  return a ? std::max<int64_t>(1, a.getInt()) : 1;
}

/// The iterations of `op`, a generic kernel's dynamic loops at genericDimHint.
static int64_t workOf(linalg::LinalgOp op) {
  if (std::optional<int64_t> w = staticWork(op))
    return *w;
  int64_t dim = genericDimHint(op), work = 1;
  for (int64_t r : op.getStaticLoopRanges())
    work = static_cast<int64_t>(llvm::SaturatingMultiply<uint64_t>(
        work, ShapedType::isDynamic(r) ? dim : r));
  return work;
}

TileSizes selectTileSizes(TilingInterface rootOp, const TileSizeOptions &opts) {
  TileSizes result;
  auto root = dyn_cast<linalg::LinalgOp>(rootOp.getOperation());
  if (!root)
    return result;
  unsigned numLoops = root.getNumLoops();
  result.workgroup.assign(numLoops, 0);
  result.cache.assign(numLoops, 0);
  result.vector.assign(numLoops, 0);
  int64_t lanes = std::max<int64_t>(kMinLanes, opts.vectorBits / 32);
  Anchor anchor = findAnchor(root);
  result.scheme = schemeName(anchor.kind).str();
  SmallVector<int64_t> anchorSizes = anchorVectorSizes(anchor, lanes, opts);
  SmallVector<int64_t> toAnchor = rootToAnchorLoops(root, anchor.op);
  SmallVector<int64_t> extents = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = root.getIteratorTypesArray();
  // Convolutions, and contractions that are generics (a matmul expanded
  // per head, jitrun-codegen-prepare-contractions): tiles that
  // divide the loops, so no tile is masked; the vectorizer's masked writes
  // through a permuted output map do not verify.
  bool divisorsOnly = anchor.kind == AnchorKind::Convolution ||
                      (anchor.kind == AnchorKind::Contraction &&
                       isa<linalg::GenericOp>(anchor.op.getOperation()));
  int64_t scale = std::max<unsigned>(1, opts.tileScale);
  // Convolutions with input channels (not depthwise, whose edge tiles'
  // one-dimensional convolutions do not vectorize) keep their pixel width
  // on widths with no good divisor (below).
  // So do 1x1 convolutions over packed panels (a generic contraction whose
  // rows are pixels, its output map the identity): Inception v3's 17-pixel
  // rows got one-pixel tiles, 2 FMAs per weight row loaded.
  bool keepWidth = anchor.op->hasAttr(kPackedPanelsAttrName);
  if (anchor.kind == AnchorKind::Convolution) {
    FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(anchor.op);
    keepWidth |= succeeded(dims) && !dims->inputChannel.empty() && dims->depth.empty();
  }

  // An anchor fused into a consumer that broadcasts its result: a row
  // reduction (softmax, layer norm) or a cheap root (the squeeze-excite
  // gate, x * sigmoid(conv(se))). The anchor runs once per workgroup, whole,
  // into a stack buffer; the consumer's loops that do not map to the
  // anchor's are not split into workgroups (the anchor would run once per
  // piece) unless the anchor is so cheap that running it once per piece
  // costs less than an eighth of the consumer. Lanes go on the consumer's
  // innermost parallel loop, where its operands are contiguous.
  bool broadcastEpilogue = anchor.op != root;
  bool broadcastDims = false, mappedDims = false;
  int lanesLoop = -1;
  for (int i = static_cast<int>(numLoops) - 1; i >= 0; --i) {
    if (iters[i] != utils::IteratorType::parallel)
      continue;
    if (lanesLoop < 0)
      lanesLoop = i;
    if (toAnchor[i] < 0)
      broadcastDims = true;
    else
      mappedDims = true;
  }
  // A consumer that reads the anchor elementwise (no broadcast) tiles
  // and fuses it like any producer. A reduction to a scalar maps no loop of
  // its consumer and is still computed once; any other anchor must map one
  // (the operand it feeds was found).
  if (!broadcastDims || lanesLoop < 0 || (!mappedDims && anchor.kind != AnchorKind::Reduction))
    broadcastEpilogue = false;
  result.anchorAtWorkgroupLevel = broadcastEpilogue;
  // The anchor's loop of vector lanes: its result's innermost dim.
  int64_t anchorLanesLoop = -1;
  if (anchor.op->getNumResults() == 1) {
    AffineMap out = anchor.op.getIndexingMapMatchingResult(anchor.op->getResult(0));
    if (out.getNumResults() > 0)
      if (auto d = dyn_cast<AffineDimExpr>(out.getResults().back()))
        anchorLanesLoop = d.getPosition();
  }
  for (unsigned i = 0; i < numLoops; ++i) {
    if (iters[i] != utils::IteratorType::parallel)
      continue;
    int64_t v = toAnchor[i] >= 0 ? anchorSizes[toAnchor[i]] : 1;
    if (broadcastEpilogue)
      v = static_cast<int>(i) == lanesLoop ? 2 * lanes : 1;
    // A generic kernel's dynamic loop: the tile the anchor asks for, its
    // edge peeled, and masked at run time (or run a row at a time where
    // tiles must divide: unitTileDynamicEdges).
    if (ShapedType::isDynamic(extents[i])) {
      result.vector[i] = std::max<int64_t>(1, v);
      continue;
    }
    v = std::max<int64_t>(1, std::min(v, extents[i]));
    if (v > 1)
      v = std::max<int64_t>(1, v / scale);
    // A prime width (71, 17: Inception v3's maps) has no divisor but 1,
    // and one-pixel tiles ran its convolutions at a quarter of peak: the
    // vector tile keeps its width when the best divisor is under half of
    // it, and peeling leaves a static edge tile (71 = 8 x 8 + 7).
    if (divisorsOnly) {
      int64_t d = largestDivisorAtMost(extents[i], v);
      // The lanes too, where the best divisor is not a whole number of
      // registers: 13 lanes of RegNet's 104 channels (26 of 208)
      // ran odd-width vectors at a quarter of peak; 16 lanes leave a static
      // edge of 8 (104 = 6 x 16 + 8). Not a broadcast epilogue's lanes,
      // which split into workgroups of whole lanes (the squeeze-excite gate's
      // 240 channels: 8 workgroups of 30).
      //
      // Whole registers of the host, not of AVX2: 8 of 16 lanes ran
      // ShuffleNetV2's 232-channel 1x1 convolutions in half registers at
      // 35 % of the FMA peak (65 % with 16 lanes and an edge of 8). And
      // the anchor's lanes where a transposing consumer puts them on another
      // loop (its channel shuffle writes NCHW: 26 -> 45 %).
      bool lanesHere = static_cast<int>(i) == lanesLoop ||
                       (anchorLanesLoop >= 0 && toAnchor[i] == anchorLanesLoop);
      int64_t reg = v % lanes == 0 ? lanes : kAvx2Lanes;
      bool oddLanes = !broadcastEpilogue && lanesHere && v % reg == 0 && d % reg != 0;
      // Wide panel rows chose their edge already (anchorVectorSizes).
      bool wideRows = v == kWidePanelRows && anchor.op->hasAttr(kPackedPanelsAttrName);
      v = (keepWidth && (2 * d < v || oddLanes || wideRows)) ? v : d;
    }
    result.vector[i] = v;
  }

  // Workgroups: split outer parallel loops until the grid is large enough.
  // A broadcast epilogue's work is its consumer's, the larger.
  int64_t work = workOf(anchor.op), rootWork = workOf(root);
  int64_t target =
      (broadcastEpilogue ? rootWork : work) < kMinWorkForWorkgroups ? 1 : opts.targetWorkgroups;
  int64_t count = 1;
  bool splitBroadcastDims =
      broadcastEpilogue && work * target * kBroadcastSplitRatio <= rootWork;
  // Loops in split order: outermost first, except that a contraction whose
  // N is much wider than M (a transformer's FFN, 128 x 3072 x 768) splits N
  // first. Split by M, every workgroup would stream half of B from memory
  // for only 8 rows of A; split by N, each reads B once, a slab that stays
  // in L2 for all of M. Over packed panels, whose B is at least as large as
  // A (a 1x1 convolution of 14x14 pixels, 256 -> 1024 channels: 1 MB of
  // weights, 200 KB of image), it splits the panels first: each workgroup
  // reads its own panels, one contiguous run, and the image from L2.
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, numLoops));
  if (anchor.kind == AnchorKind::Contraction) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(anchor.op);
    SmallVector<int64_t> anchorRanges = anchor.op.getStaticLoopRanges();
    if (succeeded(dims) && !dims->m.empty() && !dims->n.empty()) {
      // M counts every row dim (a 1x1 convolution's rows are its pixels);
      // over packed panels, N counts the panels' columns too and the panel
      // loop is the one to split.
      bool packed = anchor.op->hasAttr(kPackedPanelsAttrName);
      int64_t m = extentProduct(anchorRanges, dims->m);
      int64_t n = packed ? extentProduct(anchorRanges, dims->n) : anchorRanges[dims->n.back()];
      auto nLoop = static_cast<int64_t>(packed ? dims->n.front() : dims->n.back());
      if (!ShapedType::isDynamic(m) && !ShapedType::isDynamic(n) &&
          (packed ? n >= m : n >= kWideNRatio * m))
        llvm::stable_sort(order, [&](unsigned a, unsigned b) {
          return toAnchor[a] == nLoop && toAnchor[b] != nLoop;
        });
    }
  }
  // A convolution splits its output image before its output channels: each
  // workgroup of channels would read the whole input again, each workgroup
  // of rows reads only its rows (plus the window's halo). NHWC already has
  // its image dims outermost; NCHW 3x3 1x64x56x56 at 2 threads went from
  // 0.58-0.66 to 0.67-0.70 of oneDNN NHWC (channel groups of 8 read the
  // 800 KB input 8 times).
  // Unless its filter is twice its input or more, and too large to stay in
  // L2 between workgroups (Inception v3's 8x8 maps:
  // a 3x3 448 -> 384 filter of 6.2 MB, an input of 179 KB): split by rows,
  // every workgroup streamed a whole slab of the filter for 8 pixels (50 MB
  // per run from memory); split by output channels, each reads its part of
  // the filter once and the small input from cache.
  if (anchor.kind == AnchorKind::Convolution) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(anchor.op);
    bool channelsFirst =
        succeeded(dims) && !dims->outputChannel.empty() && streamsRightOperand(anchor.op);
    auto in = [&](unsigned l, ArrayRef<unsigned> convDims) {
      return toAnchor[l] >= 0 &&
             llvm::is_contained(convDims, static_cast<unsigned>(toAnchor[l]));
    };
    if (succeeded(dims))
      llvm::stable_sort(order, [&](unsigned a, unsigned b) {
        ArrayRef<unsigned> first = channelsFirst ? ArrayRef<unsigned>(dims->outputChannel)
                                                 : ArrayRef<unsigned>(dims->outputImage);
        return in(a, first) && !in(b, first);
      });
  }
  // A generic kernel's dynamic loop splits last, where nothing else did, in
  // tiles sized for its dim's hint: a grid counted at run time.
  int64_t hint = genericDimHint(root);
  std::stable_partition(order.begin(), order.end(),
                        [&](unsigned l) { return !ShapedType::isDynamic(extents[l]); });
  for (unsigned i : order) {
    bool dynamic = ShapedType::isDynamic(extents[i]);
    // A broadcast epilogue's anchor keeps its workgroup's rows in a stack buffer:
    // a dynamic loop of them always splits, so that the buffer has a static bound.
    bool bound = dynamic && broadcastEpilogue && toAnchor[i] >= 0;
    if ((count >= target && !bound) || iters[i] != utils::IteratorType::parallel ||
        (dynamic && !bound && (hint < 2 || count > 1)))
      continue;
    if (broadcastEpilogue && toAnchor[i] < 0 && !splitBroadcastDims)
      continue;
    // Packed weights: whole panels per workgroup (one contiguous run each).
    if (anchor.op->hasAttr(kPackedPanelsAttrName) &&
        toAnchor[i] == static_cast<int64_t>(anchor.op.getNumLoops()) - 2)
      continue;
    int64_t extent = dynamic ? hint : extents[i];
    int64_t vec = std::max<int64_t>(1, result.vector[i]);
    int64_t maxParts = llvm::divideCeil(extent, vec);
    int64_t parts = std::min<int64_t>(maxParts, llvm::divideCeil(target, count));
    if (parts <= 1 && !bound)
      continue;
    int64_t tile = llvm::divideCeil(extent, parts);
    tile = llvm::divideCeil(tile, vec) * vec;
    // Tiles that divide, except where the grid so far has an odd count
    // and the loop has one-row vector tiles (a convolution's output rows):
    // there the last workgroup runs fewer rows, each still a static tile,
    // and a prime height (Inception v3's 17, 71 and 73) splits at all. A
    // 1x7 convolution of 17x17x160 ran as 5 workgroups of output channels
    // (3 + 2 on two threads), a 3x3 max pool of 147x147x64 as 4 of 16
    // channels (each striding over the whole image). With an even count
    // (6 panels of 32 channels, read once each) more rows per panel only
    // read the weights again: 5-15 % slower. Also a row reduction's broadcast
    // epilogue (softmax, layer norm): 128 rows as 3 workgroups of 43 were
    // masked tiles throughout (MiniLM's softmax 0.155 -> 0.123 ms).
    if ((divisorsOnly || (broadcastEpilogue && anchor.kind == AnchorKind::Reduction)) &&
        !dynamic) {
      int64_t d = smallestDivisorAtLeast(extent, tile, vec);
      if (vec > 1 || d < 2 * tile || count % 2 == 0)
        tile = d;
    }
    if (tile >= extent && !bound)
      continue;
    result.workgroup[i] = tile;
    count *= llvm::divideCeil(extent, tile);
  }

  // Cache tiles: for contractions, blocks of 8x4 vector tiles within a
  // workgroup tile.
  if (anchor.kind == AnchorKind::Contraction) {
    for (unsigned i = 0; i < numLoops; ++i) {
      if (result.vector[i] <= 1 || ShapedType::isDynamic(extents[i]))
        continue;
      int64_t outer = result.workgroup[i] ? result.workgroup[i] : extents[i];
      int64_t c = result.vector[i] *
                  (result.vector[i] == kMatmulRows ? kCacheTileRowsGroup : kCacheTileGroup);
      // A generic contraction's cache tiles divide too (a packed 1x1
      // convolution of 129-pixel rows: 3-pixel vector tiles, 43 per row).
      if (divisorsOnly && c < outer)
        c = smallestDivisorAtLeast(outer, c, result.vector[i]);
      if (c < outer)
        result.cache[i] = c;
    }
    // A cache level that tiles nothing would only add a loop of one trip.
    if (llvm::all_of(result.cache, [](int64_t c) { return c == 0; }))
      result.cache.clear();
  }
  return result;
}

SmallVector<int64_t> selectReductionTileSizes(linalg::LinalgOp op,
                                              const TileSizeOptions &opts) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> sizes(numLoops, 0);
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  int64_t lanes = std::max<int64_t>(kMinLanes, opts.vectorBits / 32);
  // AMX tiles take all of K in one loop of their own.
  if (op->hasAttr(kAmxTilesAttrName))
    return sizes;
  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (succeeded(dims)) {
      for (unsigned k : dims->k)
        sizes[k] = 1;
      // i8 x i8 -> i32 with VNNI: the innermost k by a multiple of four
      // (vnniReductionTile), the groups of four bytes vpdpbusd sums per lane.
      if (opts.vnni && isInt8Contraction(op) && !dims->k.empty()) {
        int64_t kRange = op.getStaticLoopRanges()[dims->k.back()];
        if (!ShapedType::isDynamic(kRange))
          sizes[dims->k.back()] = vnniReductionTile(kRange);
      }
      // bf16 x bf16 -> f32 with AVX512_BF16: k in pairs, the two products
      // vdpbf16ps sums per f32 lane; several pairs per step, so that each
      // accumulator tile is loaded once per step (an odd K keeps 1, and the
      // contraction its multiplies and adds).
      if (opts.bf16 && isBf16Contraction(op) && !dims->k.empty()) {
        int64_t kRange = op.getStaticLoopRanges()[dims->k.back()];
        if (!ShapedType::isDynamic(kRange))
          sizes[dims->k.back()] = bf16ReductionTile(kRange, sizes[dims->k.back()]);
      }
      return sizes;
    }
  }
  // A named convolution, or a generic one (shiftInt8RhsForVnni: the
  // convolution with its unsigned filter, the box sums of its row sums).
  if (isa<linalg::ConvolutionOpInterface, linalg::GenericOp>(op.getOperation()) &&
      op.getNumDpsInputs() == 2) {
    FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(op);
    if (succeeded(dims) && !dims->filterLoop.empty()) {
      // Depthwise: all filter loops but the last by 1, the op becomes a 1-D
      // depthwise convolution. NCHW depthwise has no 1-D vectorizer: every
      // filter loop by 1, and it becomes a strided elementwise multiply-add.
      // With input channels: every filter tap and every input channel by 1,
      // so each reduction step is one outer product of the vector tile's
      // pixels (NHWC) or channels (NCHW) by one vector, the register kernel
      // of a matmul. Taps of 3 columns x 8 channels unrolled in one step
      // made LLVM keep the 80 broadcast inputs live and spill most of them
      // (3x3 NHWC 64->64: 0.62 -> 0.97 of oneDNN; NCHW 0.30 -> 0.82).
      // Not when the lanes run along a strided image dimension (NCHW with
      // stride 2): one tap's inputs would be a strided gather, where the
      // 1-D convolution vectorizer reads a contiguous slab and shuffles.
      bool allTaps = isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation()) ||
                     op->hasAttr(kWorkgroupLevelAttrName) ||
                     (!dims->inputChannel.empty() && !stridedLanes(op, *dims));
      for (unsigned i = 0; i < dims->filterLoop.size(); ++i)
        if (allTaps || i + 1 < dims->filterLoop.size())
          sizes[dims->filterLoop[i]] = 1;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      // i8 x i8 -> i32 with VNNI wants input channels in groups of four.
      // One group a step where rows narrower than the VNNI tile's pixels
      // take several registers of channels (anchorVectorSizes): their 28
      // accumulators leave no room for the interleaved filter registers of
      // four groups (3x3 512 -> 512 on 7x7: 1.35-1.44 -> 1.21 ms; 256 ->
      // 256 on 14x14: 0.79-0.82 -> 0.77; 56- and 28-pixel rows keep 16).
      bool vnni = opts.vnni && isInt8Contraction(op);
      bool bf16 = opts.bf16 && isBf16Contraction(op);
      int64_t width = dims->outputImage.empty() ? ShapedType::kDynamic
                                                : ranges[dims->outputImage.back()];
      bool narrowRows = !ShapedType::isDynamic(width) && width < kVnniConvPixels;
      for (unsigned c : dims->inputChannel) {
        if (ShapedType::isDynamic(ranges[c]))
          continue;
        sizes[c] = allTaps ? 1 : largestDivisorAtMost(ranges[c], kConvInputChannelStep);
        if (vnni && ranges[c] % kVnniReductionGroup == 0)
          sizes[c] = narrowRows ? kVnniReductionGroup : vnniReductionTile(ranges[c]);
        // bf16 x bf16 -> f32 with AVX512_BF16: input channels in pairs, the
        // two products vdpbf16ps sums per lane (a channel at a time, the
        // register tile widened to f32: 0.5 of f32's rate, against 1.9).
        if (bf16)
          sizes[c] = bf16ReductionTile(ranges[c], sizes[c]);
      }
      return sizes;
    }
  }
  // Inputs contiguous along a parallel loop (a global average pool of an
  // NHWC image: channels innermost, reduced over H and W): every reduction
  // loop goes by one and the lanes stay on the channels, each step an
  // elementwise add of a row of channels. Lanes along W were a 7-element
  // gather at a 2048-float stride per channel: ResNet-50's final pool read
  // 800 KB in 0.4 ms. (VNNI lane sums, at the workgroup level, keep theirs.)
  if (lanesOnParallelLoop(op) && !op->hasAttr(kWorkgroupLevelAttrName)) {
    for (unsigned i = 0; i < numLoops; ++i)
      if (iters[i] == utils::IteratorType::reduction)
        sizes[i] = 1;
    return sizes;
  }
  bool innermost = true;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // The lane sums of a VNNI row sum (shiftInt8RhsForVnni) reduce a middle
  // dim into registers of 16 lanes: 2 steps at a time, a divisor, so that
  // no step is masked (8 steps of 16 rows unrolled 128 loads: int8 matmul
  // compile 0.38 -> 0.20 s, same speed).
  bool laneSums = op->hasAttr(kWorkgroupLevelAttrName) &&
                  iters.back() == utils::IteratorType::parallel;
  for (int i = static_cast<int>(numLoops) - 1; i >= 0; --i) {
    if (iters[i] != utils::IteratorType::reduction)
      continue;
    sizes[i] = innermost ? kElementwiseRegisters * lanes : 1;
    if (laneSums && !ShapedType::isDynamic(ranges[i]))
      sizes[i] = innermost ? largestDivisorAtMost(ranges[i], kLaneSumSteps) : 1;
    innermost = false;
    // A tile that covers the whole loop leaves it untiled (and static).
    if (!ShapedType::isDynamic(ranges[i]) && sizes[i] >= ranges[i])
      sizes[i] = 0;
  }
  return sizes;
}

void tileRowsOfReduction(linalg::LinalgOp op, SmallVectorImpl<int64_t> &sizes) {
  // Rows a few at a time: a row reduction that is not a tile root (the max
  // of a softmax computed whole per workgroup, at the workgroup level)
  // still has all its rows, and vectorized as one block of rows x lanes it
  // was 64 x 32 lanes (43 rows, masked to a power of two): 2048 floats,
  // LLVM 1.4 s on its shuffles for one kernel (BERT's encoder took 3.8 s to
  // compile, now 1.5-2.0). Eight rows at a time keep eight independent
  // chains in flight (one row at a time: MiniLM 10 % slower); outer
  // parallel loops go by one. The lanes' loop, the innermost, is a
  // reduction here; VNNI lane sums keep theirs.
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2 || op->hasAttr(kWorkgroupLevelAttrName) ||
      iters.back() != utils::IteratorType::reduction || lanesOnParallelLoop(op) ||
      linalg::isaContractionOpInterface(op) ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()) ||
      succeeded(linalg::inferConvolutionDims(op)))
    return;
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    if (iters[i] == utils::IteratorType::parallel &&
        (ShapedType::isDynamic(ranges[i]) || ranges[i] > 1))
      sizes[i] = i + 2 == numLoops ? std::min<int64_t>(kReductionRows, ShapedType::isDynamic(ranges[i]) ? kReductionRows : ranges[i]) : 1;
}

} // namespace jitrun
