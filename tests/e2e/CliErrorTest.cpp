//===- CliErrorTest.cpp - jitrun fails cleanly on a wrong input shape -----===//
//
// A well-formed model given an input of the wrong shape must make jitrun
// exit with status 1 and say why on stderr: no crash, no abort, no output.
// (The other bad-input classes are lit tests in tests/cli/.)
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "support/Npy.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <utility>

using namespace jitrun;
using namespace jitrun::e2e;

TEST_CASE("jitrun rejects an input of the wrong shape", "[cli]") {
  TempDir dir("cli-wrong-shape");
  std::string model = dir.file("model.mlir");
  writeTextFile(model,
                "func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                "  %e = tensor.empty() : tensor<4x8xf32>\n"
                "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,"
                " affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],"
                " iterator_types = [\"parallel\", \"parallel\"]}"
                " ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {\n"
                "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
                "    %s = arith.addf %x, %y : f32\n"
                "    linalg.yield %s : f32\n"
                "  } -> tensor<4x8xf32>\n"
                "  return %r : tensor<4x8xf32>\n"
                "}\n");
  HostTensor good = randomTensor({4, 8}, 1);
  HostTensor bad = randomTensor({4, 7}, 2);
  for (auto [name, t] : {std::pair<const char *, HostTensor *>{"good.npy", &good},
                         {"bad.npy", &bad}}) {
    if (llvm::Error err = writeNpy(dir.file(name), *t))
      FAIL(llvm::toString(std::move(err)));
  }
  std::string out = dir.file("out.npy");
  ProcessResult pr = runProcess({jitrunBinary(), model, "--input=@" + dir.file("good.npy"),
                                 "--input=@" + dir.file("bad.npy"), "--output=@" + out,
                                 "--threads=1"},
                                dir.path(), /*timeoutSeconds=*/120);
  INFO("jitrun " << pr.describe() << ", stderr:\n" << pr.stdErr);
  if (pr.exitCode != 1)
    dir.keep();
  CHECK(pr.exitCode == 1);
  CHECK(!pr.stdErr.empty());
  CHECK(pr.stdErr.find("error:") != std::string::npos);
  // The message should say what was wrong: the shape, or the offending 4x7.
  CHECK((pr.stdErr.find("shape") != std::string::npos ||
         pr.stdErr.find("4x7") != std::string::npos));
  CHECK(!std::ifstream(out).good());
}
