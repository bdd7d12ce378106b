//===- Diagnostics.cpp - MLIR diagnostics as jitrun's error text ---------===//

#include "compiler/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace jitrun {

static llvm::StringRef severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

std::string formatDiagnosticText(Diagnostic &diag) {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto line = [&](Location loc, DiagnosticSeverity sev, const std::string &msg, bool first) {
    if (std::optional<FileLineColLoc> f = firstFileLocation(loc))
      os << f->getFilename().getValue() << ":" << f->getLine() << ":" << f->getColumn()
         << ": " << severityName(sev) << ": ";
    else if (!first || sev != DiagnosticSeverity::Error)
      os << severityName(sev) << ": ";
    os << msg << "\n";
  };
  line(diag.getLocation(), diag.getSeverity(), diag.str(), /*first=*/true);
  // A remark is one line (the fusion explanations are grepped).
  if (diag.getSeverity() != DiagnosticSeverity::Remark)
    for (Diagnostic &note : diag.getNotes())
      line(note.getLocation(), note.getSeverity(), note.str(), /*first=*/false);
  return out;
}

} // namespace jitrun
