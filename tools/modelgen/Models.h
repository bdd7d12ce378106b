//===- Models.h - the model zoo's registry and shared builders ---*- C++ -*-===//
//
// Each zoo model is a function that fills an empty module with one public
// function (the entry point) built with MLIR's builders, at `--size=test`
// (same graph structure, reduced resolution/depth/width) or `--size=full`
// (the published architecture). Weights are seeded random with He/Xavier
// scales, stored as dense_resource blobs.
//
//===----------------------------------------------------------------------===//
#ifndef JITRUN_TOOLS_MODELGEN_MODELS_H
#define JITRUN_TOOLS_MODELGEN_MODELS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace jitrun::modelgen {

enum class Size { Test, Full };

/// What a builder gets: the module to fill, its size, and a seeded generator
/// for weights (the same name and size always give the same model).
struct ModelContext {
  mlir::ModuleOp module;
  mlir::OpBuilder &builder;
  Size size;
  std::mt19937_64 &rng;
  /// `modelgen --dynamic`: the model's dynamic variant, one dim left open
  /// (`?`) in the entry's argument and results (ModelSpec::dynamicDim).
  bool dynamic = false;
};

struct ModelSpec {
  std::string name;
  /// "tosa" or "linalg": the form the model reached a compiler in.
  std::string form;
  std::function<mlir::LogicalResult(ModelContext &)> build;
  /// The dim the dynamic variant leaves open ("batch", "sequence"); empty:
  /// the model has no dynamic variant.
  std::string dynamicDim = {};
};

/// Every model, in `modelgen --list` order. Each family file adds its own.
void addLinalgModels(std::vector<ModelSpec> &models);
void addTosaModels(std::vector<ModelSpec> &models);

/// A constant weight tensor of `type` (f32 or i8/i32 element types) with
/// values drawn uniformly from [-scale, scale], stored as a dense_resource
/// blob named `name` (made unique in the module).
mlir::Value weightConstant(ModelContext &ctx, mlir::Location loc,
                           mlir::RankedTensorType type, double scale,
                           llvm::StringRef name);

/// `size`, or `?` in a dynamic variant (ModelContext::dynamic).
int64_t openIfDynamic(const ModelContext &ctx, int64_t size);

/// He-uniform scale for a layer with `fanIn` inputs: sqrt(6 / fanIn).
double heScale(int64_t fanIn);
/// Xavier-uniform scale: sqrt(6 / (fanIn + fanOut)).
double xavierScale(int64_t fanIn, int64_t fanOut);

} // namespace jitrun::modelgen

#endif // JITRUN_TOOLS_MODELGEN_MODELS_H
