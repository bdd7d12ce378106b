//===- PackedConstants.cpp - constant weights laid out in panels ---------===//
//
// The layouts jitrun-fusion-pack-weights builds at compile time: a K x N
// matrix (a matmul's B, an HWCF filter's (H * W * C) x F) in panels of T
// columns, and the VNNI panels AMX tiles read (groups of 2 bf16 or 4 int8
// of K interleaved). Each is built once per process and recipe
// (contract/WeightMemo.h).
//
//===----------------------------------------------------------------------===//

#include "fusion/PackedConstants.h"

#include "contract/WeightMemo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>
#include <numeric>
#include <optional>
#include <system_error>
#include <thread>

using namespace mlir;

namespace jitrun {

int64_t vnniGroup(Type elem) { return 4 / (elem.getIntOrFloatBitWidth() / 8); }

/// The constant `bytes` (a K x N row-major matrix of `elem`: a matmul's B,
/// or an HWCF filter's (H * W * C) x F) in panels of `width` columns, zero
/// past N: packed[p][kk][t] = B[kk][p * width + t], as a constant of type
/// [P, kShape..., width] (kShape: K's dims, their product K).
Value packedConstant(PatternRewriter &rewriter, Location loc, ArrayRef<char> bytes,
                     ArrayRef<int64_t> kShape, int64_t n, int64_t width, Type elem) {
  int64_t k = 1;
  for (int64_t d : kShape)
    k *= d;
  int64_t panels = llvm::divideCeil(n, width);
  size_t eb = elem.getIntOrFloatBitWidth() / 8;
  size_t total = static_cast<size_t>(panels * k * width) * eb;
  auto packPanels = [&](char *packed, int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      int64_t valid = std::min<int64_t>(width, n - p * width);
      if (valid < width) // the last panel's columns past N are zeros
        std::memset(packed + (p * k * width) * eb, 0, static_cast<size_t>(k * width) * eb);
      for (int64_t kk = 0; kk < k; ++kk)
        std::memcpy(packed + ((p * k + kk) * width) * eb,
                    bytes.data() + (kk * n + p * width) * eb, valid * eb);
    }
  };
  // From 1 MiB up, half the panels on a second thread: most of packing is
  // the kernel faulting in and zeroing fresh pages, which another core
  // halves. Without a thread (the process at its limit), all on this one.
  auto pack = [&](char *packed) {
    std::optional<std::thread> other;
    if (total >= (size_t(1) << 20) && panels >= 2) {
      try {
        other.emplace(packPanels, packed, panels / 2, panels);
      } catch (const std::system_error &) {
      }
    }
    packPanels(packed, 0, other ? panels / 2 : panels);
    if (other)
      other->join();
  };
  std::string recipe;
  llvm::raw_string_ostream(recipe)
      << "panels " << elem << " k=" << k << " n=" << n << " width=" << width;
  AsmResourceBlob blob = WeightMemo::weight(rewriter.getContext(), bytes, recipe, total, pack);
  SmallVector<int64_t> shape = {panels};
  shape.append(kShape.begin(), kShape.end());
  shape.push_back(width);
  auto packedType = RankedTensorType::get(shape, elem);
  return arith::ConstantOp::create(
      rewriter, loc, packedType,
      DenseResourceElementsAttr::get(packedType, "packed_weights", std::move(blob)));
}

/// The constant `bytes` (a K x N row-major matrix of bf16 or int8, K a
/// multiple of the VNNI group g: 2 or 4) in panels of `width` columns whose
/// rows are groups of K interleaved, the layout AMX's tdpbf16ps and tdpbssd
/// read their right operand in: packed[p][kg][t][v] = B[g kg + v][p * width
/// + t], zero past N. With `lead` dims (a KxK filter's taps, HWCF), each
/// of their K x N matrices so: packed[lead...][p][kg][t][v].
Value vnniPackedConstant(PatternRewriter &rewriter, Location loc, ArrayRef<char> bytes,
                         int64_t k, int64_t n, int64_t width, Type elem,
                         ArrayRef<int64_t> lead) {
  int64_t g = vnniGroup(elem);
  int64_t panels = llvm::divideCeil(n, width), pairs = k / g;
  int64_t blocks = std::accumulate(lead.begin(), lead.end(), int64_t(1), std::multiplies<>());
  const size_t eb = elem.getIntOrFloatBitWidth() / 8;
  auto pack = [&](char *packed) {
    for (int64_t l = 0; l < blocks; ++l, packed += panels * k * width * eb) {
      const char *src = bytes.data() + l * k * n * eb;
      for (int64_t p = 0; p < panels; ++p) {
        int64_t valid = std::min<int64_t>(width, n - p * width);
        if (valid < width) // the last panel's columns past N are zeros
          std::memset(packed + (p * pairs * width * g) * eb, 0,
                      static_cast<size_t>(pairs * width * g) * eb);
        for (int64_t kp = 0; kp < pairs; ++kp)
          for (int64_t t = 0; t < valid; ++t)
            for (int64_t v = 0; v < g; ++v)
              std::memcpy(packed + (((p * pairs + kp) * width + t) * g + v) * eb,
                          src + ((g * kp + v) * n + p * width + t) * eb, eb);
      }
    }
  };
  std::string recipe;
  llvm::raw_string_ostream os(recipe);
  os << "vnni panels " << elem;
  if (blocks > 1)
    os << " blocks=" << blocks;
  os << " k=" << k << " n=" << n << " width=" << width;
  AsmResourceBlob blob =
      WeightMemo::weight(rewriter.getContext(), bytes, recipe,
                         static_cast<size_t>(blocks * panels * k * width) * eb, pack);
  SmallVector<int64_t> packedShape(lead);
  packedShape.append({panels, pairs, width, g});
  auto packedType = RankedTensorType::get(packedShape, elem);
  return arith::ConstantOp::create(
      rewriter, loc, packedType,
      DenseResourceElementsAttr::get(packedType, "packed_weights", std::move(blob)));
}

} // namespace jitrun
