//===- Diagnostics.h - MLIR diagnostics as jitrun's error text --*- C++ -*-===//

#ifndef JITRUN_COMPILER_DIAGNOSTICS_H
#define JITRUN_COMPILER_DIAGNOSTICS_H

#include "contract/Location.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace jitrun {

/// `file:line:col: error: message` (without a location: `message` for an
/// error, `warning: message` and so on otherwise), then its notes, one per
/// line (a remark is one line). The tools add their own prefix to what has
/// no location (jitrun: `jitrun: error: `).
std::string formatDiagnosticText(mlir::Diagnostic &diag);

} // namespace jitrun

#endif // JITRUN_COMPILER_DIAGNOSTICS_H
