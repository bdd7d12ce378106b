//===- Weights.cpp - seeded random weights as dense_resource blobs -------===//

#include "Models.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

using namespace mlir;

namespace jitrun::modelgen {

double heScale(int64_t fanIn) { return std::sqrt(6.0 / double(std::max<int64_t>(1, fanIn))); }

double xavierScale(int64_t fanIn, int64_t fanOut) {
  return std::sqrt(6.0 / double(std::max<int64_t>(1, fanIn + fanOut)));
}

Value weightConstant(ModelContext &ctx, Location loc, RankedTensorType type,
                     double scale, llvm::StringRef name) {
  Type elem = type.getElementType();
  int64_t n = type.getNumElements();
  std::uniform_real_distribution<double> dist(-scale, scale);
  AsmResourceBlob blob;
  if (elem.isF32()) {
    std::vector<float> data(n);
    for (float &v : data)
      v = static_cast<float>(dist(ctx.rng));
    blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(data));
  } else if (elem.isInteger(8)) {
    std::vector<int8_t> data(n);
    for (int8_t &v : data)
      v = static_cast<int8_t>(std::lround(std::clamp(dist(ctx.rng), -127.0, 127.0)));
    blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<int8_t>(data));
  } else if (elem.isInteger(32)) {
    std::vector<int32_t> data(n);
    for (int32_t &v : data)
      v = static_cast<int32_t>(std::lround(dist(ctx.rng)));
    blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<int32_t>(data));
  } else {
    llvm::report_fatal_error("modelgen: weightConstant supports f32, i8 and i32");
  }
  auto attr = DenseResourceElementsAttr::get(type, name, std::move(blob));
  return arith::ConstantOp::create(ctx.builder, loc, attr);
}

int64_t openIfDynamic(const ModelContext &ctx, int64_t size) {
  return ctx.dynamic ? mlir::ShapedType::kDynamic : size;
}

} // namespace jitrun::modelgen
