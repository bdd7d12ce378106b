//===- ModelsLinalg.cpp - zoo models in linalg-on-tensors form -----------===//

#include "Models.h"

namespace jitrun::modelgen {
void addLinalgModels(std::vector<ModelSpec> &models) { (void)models; }
} // namespace jitrun::modelgen
