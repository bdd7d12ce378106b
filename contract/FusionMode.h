//===- FusionMode.h - how hard dispatch formation fuses ---------*- C++ -*-===//
//
// One enum for the fusion mode, parsed in one place: the CLI's --fusion, the
// C API's jitrun_options_set_fusion and the dispatch-formation pass's
// option all call parseFusionMode. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_CONTRACT_FUSIONMODE_H
#define JITRUN_CONTRACT_FUSIONMODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"

#include <optional>

namespace jitrun {

/// How hard dispatch formation fuses: producers and consumers into each
/// root (Default), also multi-result dispatches (Aggressive), or one op per
/// dispatch (None; the reference path).
enum class FusionMode { Default, Aggressive, None };

/// The modes' names, as the CLI and the C API spell them.
constexpr const char *kFusionModeNames = "default, aggressive or none";

/// Parses "default", "aggressive" or "none".
inline std::optional<FusionMode> parseFusionMode(llvm::StringRef s) {
  return llvm::StringSwitch<std::optional<FusionMode>>(s)
      .Case("default", FusionMode::Default)
      .Case("aggressive", FusionMode::Aggressive)
      .Case("none", FusionMode::None)
      .Default(std::nullopt);
}

inline llvm::StringRef fusionModeName(FusionMode mode) {
  switch (mode) {
  case FusionMode::Default:
    return "default";
  case FusionMode::Aggressive:
    return "aggressive";
  case FusionMode::None:
    return "none";
  }
  return "default";
}

} // namespace jitrun

#endif // JITRUN_CONTRACT_FUSIONMODE_H
