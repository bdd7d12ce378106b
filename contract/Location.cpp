//===- Location.cpp - source positions of ops, for messages ---------------===//

#include "contract/Location.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;

namespace jitrun {

std::optional<FileLineColLoc> firstFileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::string sourcePosition(Location loc) {
  std::optional<FileLineColLoc> f = firstFileLocation(loc);
  if (!f)
    return "";
  return (f->getFilename().getValue() + ":" + llvm::Twine(f->getLine()) + ":" +
          llvm::Twine(f->getColumn()))
      .str();
}

} // namespace jitrun
