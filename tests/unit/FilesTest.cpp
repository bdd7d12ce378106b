// Reading a range of a file (support/Files.h), as ONNX external data does:
// exactly the bytes asked for, to the end with length -1, and a clear error
// for a range outside the file or a path that is no regular file.

#include "support/Files.h"

#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

using namespace jitrun;
using jitrun::test::errorMessage;

TEST_CASE("readRegularFileRange reads exactly the range asked for") {
  test::TempDir dir;
  REQUIRE(dir.valid());
  std::string bytes;
  for (int i = 0; i < 100000; ++i)
    bytes.push_back(static_cast<char>((i * 131) % 251));
  std::string path = dir.file("weights.bin");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  for (auto [offset, length] : {std::pair<uint64_t, int64_t>{0, 100000}, {0, 0}, {12345, 4096},
                                {99999, 1}, {100000, 0}, {70000, -1}, {0, -1}, {100000, -1}}) {
    INFO("offset " << offset << " length " << length);
    llvm::Expected<std::string> got = readRegularFileRange(path, "external data", offset, length);
    REQUIRE(errorMessage(got) == "");
    size_t n = length < 0 ? bytes.size() - offset : static_cast<size_t>(length);
    CHECK(*got == bytes.substr(offset, n));
  }
  CHECK(errorMessage(readRegularFileRange(path, "external data", 99000, 1001)) ==
        "external data [99000, +1001) is outside '" + path + "' (100000 bytes)");
  CHECK(errorMessage(readRegularFileRange(path, "external data", 100001, -1)) ==
        "external data [100001, +0) is outside '" + path + "' (100000 bytes)");
  CHECK(errorMessage(readRegularFileRange(dir.dir(), "external data", 0, 1)) ==
        "cannot read external data '" + dir.dir() + "': it is a directory, not a regular file");
  CHECK(errorMessage(readRegularFileRange(dir.file("missing"), "external data", 0, 1))
            .find("cannot open external data") == 0);
}
