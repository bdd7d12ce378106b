//===- ModelsTosa.cpp - zoo models in TOSA form ---------------------------===//

#include "Models.h"

namespace jitrun::modelgen {
void addTosaModels(std::vector<ModelSpec> &models) { (void)models; }
} // namespace jitrun::modelgen
