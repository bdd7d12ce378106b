//===- Main.cpp - Catch2 entry point of jitrun_onednn_tests ---------------===//
//
// The oneDNN end-to-end tests run the jitrun CLI (path in $JITRUN_BIN) on
// generated MLIR modules and compare its results with oneDNN primitives.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
