//===- Main.cpp - Catch2 main for jitrun_api_tests ------------------------===//
//
// The one translation unit that instantiates Catch2's main(); the API test
// cases live in ApiTest.cpp.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
