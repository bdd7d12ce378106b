//===- Main.cpp - Catch2 main for jitrun_unit_tests -----------------------===//
//
// The one translation unit that instantiates Catch2's main(); the test cases
// live in the *Test.cpp files next to it.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
