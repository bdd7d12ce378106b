//===- LoweringConfig.cpp - tile sizes as an attribute and back ----------===//
//
// A dispatch's tile strategy travels in the IR as `jitrun.lowering_config`
// on its root (written by jitrun-codegen-select-strategy, or by hand as an
// override): a dictionary of the tile sizes per level, the reduction tiles,
// the scheme's name and whether the anchor stays at the workgroup level.
//
//===----------------------------------------------------------------------===//

#include "codegen/Strategy.h"

using namespace mlir;

namespace jitrun {

DictionaryAttr loweringConfig(MLIRContext *ctx, const TileSizes &sizes) {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("workgroup", b.getDenseI64ArrayAttr(sizes.workgroup)),
      b.getNamedAttr("cache", b.getDenseI64ArrayAttr(sizes.cache)),
      b.getNamedAttr("vector", b.getDenseI64ArrayAttr(sizes.vector))};
  if (!sizes.reduction.empty())
    fields.push_back(b.getNamedAttr("reduction", b.getDenseI64ArrayAttr(sizes.reduction)));
  if (!sizes.scheme.empty())
    fields.push_back(b.getNamedAttr("scheme", b.getStringAttr(sizes.scheme)));
  if (sizes.anchorAtWorkgroupLevel)
    fields.push_back(b.getNamedAttr("anchor_at_workgroup_level", b.getUnitAttr()));
  return b.getDictionaryAttr(fields);
}

FailureOr<TileSizes> parseLoweringConfig(Operation *op, DictionaryAttr config) {
  auto loops = cast<TilingInterface>(op).getLoopIteratorTypes().size();
  TileSizes sizes;
  for (auto [name, out] : {std::pair<StringRef, SmallVector<int64_t> *>{"workgroup", &sizes.workgroup},
                           {"cache", &sizes.cache},
                           {"vector", &sizes.vector}}) {
    auto array = config.getAs<DenseI64ArrayAttr>(name);
    if (!array || (!array.empty() && array.size() != loops) ||
        llvm::any_of(array.asArrayRef(), [](int64_t s) { return s < 0; })) {
      op->emitError() << kLoweringConfigAttrName << ": '" << name
                      << "' must be an array<i64> of " << loops
                      << " tile sizes of at least 0 (0: untiled), or empty";
      return failure();
    }
    out->assign(array.asArrayRef().begin(), array.asArrayRef().end());
  }
  // Optional: the reduction loops' tile sizes (tile-reductions reads them).
  if (Attribute reduction = config.get("reduction")) {
    auto array = dyn_cast<DenseI64ArrayAttr>(reduction);
    if (!array || array.size() != loops ||
        llvm::any_of(array.asArrayRef(), [](int64_t s) { return s < 0; })) {
      op->emitError() << kLoweringConfigAttrName
                      << ": 'reduction' must be an array<i64> of " << loops
                      << " tile sizes of at least 0 (0: untiled)";
      return failure();
    }
    sizes.reduction.assign(array.asArrayRef().begin(), array.asArrayRef().end());
  }
  if (Attribute scheme = config.get("scheme")) {
    if (!isa<StringAttr>(scheme)) {
      op->emitError() << kLoweringConfigAttrName << ": 'scheme' must be a string";
      return failure();
    }
    sizes.scheme = cast<StringAttr>(scheme).str();
  }
  sizes.anchorAtWorkgroupLevel = config.contains("anchor_at_workgroup_level");
  return sizes;
}

} // namespace jitrun
