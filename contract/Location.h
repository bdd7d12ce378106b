//===- Location.h - source positions of ops, for messages -------*- C++ -*-===//
//
// Fusion's explanations, codegen's index-error messages and the compiler's
// diagnostics all name the source position of an op: the first file
// location inside its (possibly fused, named or call-site) location.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_LOCATION_H
#define JITRUN_CONTRACT_LOCATION_H

#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace jitrun {

/// The first file location inside `loc`, if any.
std::optional<mlir::FileLineColLoc> firstFileLocation(mlir::Location loc);

/// `file:line:col` of firstFileLocation(loc), or "" if there is none.
std::string sourcePosition(mlir::Location loc);

} // namespace jitrun

#endif // JITRUN_CONTRACT_LOCATION_H
