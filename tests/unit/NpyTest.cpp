//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
//
// Round trips of every NumPy-representable element type through real files,
// hand-built headers of versions 1.0/2.0/3.0 as numpy.save writes them, and
// one test per malformed file, each of which must be an error naming the
// file rather than a crash.
//
//===----------------------------------------------------------------------===//

#include "support/Npy.h"

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace jitrun;
using jitrun::test::errorMessage;
using jitrun::test::TempDir;

/// Fills `t` with a pattern of distinct, exactly representable values.
static void fillPattern(HostTensor &t) {
  for (int64_t i = 0; i < t.numElements(); ++i) {
    switch (t.elementType()) {
    case ElementType::F32:
      t.dataAs<float>()[i] = 0.5f * static_cast<float>(i) - 3.25f;
      break;
    case ElementType::F64:
      t.dataAs<double>()[i] = 1e-3 * static_cast<double>(i) - 1e10;
      break;
    case ElementType::F16:
      t.dataAs<uint16_t>()[i] =
          floatToHalf(0.25f * static_cast<float>(i % 100) - 7);
      break;
    case ElementType::BF16:
      t.dataAs<uint16_t>()[i] = floatToBFloat16(static_cast<float>(i));
      break;
    case ElementType::I1:
      t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(i % 3 == 0);
      break;
    case ElementType::I8:
      t.dataAs<int8_t>()[i] = static_cast<int8_t>(i % 256 - 128);
      break;
    case ElementType::U8:
      t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(255 - i % 256);
      break;
    case ElementType::I16:
      t.dataAs<int16_t>()[i] = static_cast<int16_t>(-1000 * i);
      break;
    case ElementType::I32:
      t.dataAs<int32_t>()[i] = static_cast<int32_t>(-100000 * i + 7);
      break;
    case ElementType::I64:
      t.dataAs<int64_t>()[i] = (int64_t(1) << 40) * i - 5;
      break;
    }
  }
}

/// A .npy image with the given version, header dict and data bytes; the
/// header is padded as numpy does (to 64 bytes, ending in '\n').
static std::string npyImage(unsigned major, llvm::StringRef dict,
                            llvm::StringRef data) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  std::string header = dict.str();
  size_t total = 8 + lengthBytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < lengthBytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out += data.str();
  return out;
}

static void writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  REQUIRE_FALSE(ec);
  os << bytes;
}

static std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  REQUIRE(buffer);
  return (*buffer)->getBuffer().str();
}

TEST_CASE("npy round trip of every dtype through a file", "[npy]") {
  TempDir dir;
  REQUIRE(dir.valid());
  ElementType type = GENERATE(ElementType::F32, ElementType::F64,
                              ElementType::F16, ElementType::I1,
                              ElementType::I8, ElementType::U8,
                              ElementType::I16, ElementType::I32,
                              ElementType::I64);
  std::vector<int64_t> shape =
      GENERATE(std::vector<int64_t>{}, std::vector<int64_t>{0},
               std::vector<int64_t>{5}, std::vector<int64_t>{2, 3},
               std::vector<int64_t>{2, 0, 3}, std::vector<int64_t>{3, 4, 5});
  HostTensor t(type, shape);
  fillPattern(t);
  std::string path = dir.file("t.npy");
  REQUIRE(errorMessage(writeNpy(path, t)).empty());

  // The data starts at a multiple of 64 bytes, as numpy writes it.
  std::string bytes = readFile(path);
  REQUIRE(bytes.size() >= 10);
  size_t headerLength = static_cast<uint8_t>(bytes[8]) |
                        (static_cast<size_t>(static_cast<uint8_t>(bytes[9]))
                         << 8);
  CHECK((10 + headerLength) % 64 == 0);
  CHECK(bytes.size() == 10 + headerLength + t.byteSize());
  CHECK(bytes[10 + headerLength - 1] == '\n');

  llvm::Expected<HostTensor> back = readNpy(path);
  REQUIRE(errorMessage(back).empty());
  CHECK(back->elementType() == type);
  CHECK(back->shape() == shape);
  REQUIRE(back->byteSize() == t.byteSize());
  CHECK(std::memcmp(back->data(), t.data(), t.byteSize()) == 0);
  CHECK(errorMessage(compareTensors(*back, t, 0, 0)).empty());
}

TEST_CASE("npy header text matches numpy.save", "[npy]") {
  HostTensor t(ElementType::F32, {2, 3});
  llvm::Expected<std::string> image = serializeNpy(t);
  REQUIRE(errorMessage(image).empty());
  CHECK(llvm::StringRef(*image).substr(10).starts_with(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  HostTensor v(ElementType::I1, {4});
  image = serializeNpy(v);
  REQUIRE(errorMessage(image).empty());
  CHECK_THAT(*image, Catch::Contains("'descr': '|b1'"));
  CHECK_THAT(*image, Catch::Contains("'shape': (4,)"));
  HostTensor s(ElementType::U8, {});
  image = serializeNpy(s);
  REQUIRE(errorMessage(image).empty());
  CHECK_THAT(*image, Catch::Contains("'descr': '|u1'"));
  CHECK_THAT(*image, Catch::Contains("'shape': ()"));
}

TEST_CASE("npy reads hand-built headers", "[npy]") {
  int32_t values[] = {1, -2, 3, 400000};
  llvm::StringRef data(reinterpret_cast<const char *>(values), sizeof(values));

  SECTION("version 1.0") {
    std::string image = npyImage(
        1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
        data);
    llvm::Expected<HostTensor> t = parseNpy(image, "v1.npy");
    REQUIRE(errorMessage(t).empty());
    CHECK(t->typeString() == "2x2xi32");
    CHECK(t->dataAs<int32_t>()[3] == 400000);
    CHECK(t->dataAs<int32_t>()[1] == -2);
  }
  SECTION("version 1.0 through a real file") {
    TempDir dir;
    REQUIRE(dir.valid());
    std::string path = dir.file("hand.npy");
    writeFile(path,
              npyImage(1, "{'descr': '<i4', 'fortran_order': False, "
                          "'shape': (4,), }",
                       data));
    llvm::Expected<HostTensor> t = readNpy(path);
    REQUIRE(errorMessage(t).empty());
    CHECK(t->typeString() == "4xi32");
    CHECK(t->dataAs<int32_t>()[0] == 1);
  }
  SECTION("version 2.0 and 3.0 with a 4-byte header length") {
    unsigned major = GENERATE(2u, 3u);
    std::string image =
        npyImage(major, "{'descr': '<i4', 'fortran_order': False, "
                        "'shape': (1, 4)}",
                 data);
    llvm::Expected<HostTensor> t = parseNpy(image, "v2.npy");
    REQUIRE(errorMessage(t).empty());
    CHECK(t->typeString() == "1x4xi32");
    CHECK(t->dataAs<int32_t>()[2] == 3);
  }
  SECTION("keys in any order, double quotes, no trailing comma") {
    std::string image = npyImage(
        1, "{\"shape\": (4,), \"fortran_order\": False, \"descr\": \"<i4\"}",
        data);
    llvm::Expected<HostTensor> t = parseNpy(image, "order.npy");
    REQUIRE(errorMessage(t).empty());
    CHECK(t->typeString() == "4xi32");
  }
  SECTION("one-byte dtypes with either byte-order mark, booleans normalized") {
    uint8_t bytes[] = {0, 2, 1};
    llvm::StringRef raw(reinterpret_cast<const char *>(bytes), 3);
    for (const char *descr : {"|i1", "<i1", "|u1", "|b1"}) {
      std::string image =
          npyImage(1,
                   std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (3,), }",
                   raw);
      llvm::Expected<HostTensor> t = parseNpy(image, "byte.npy");
      REQUIRE(errorMessage(t).empty());
      CHECK(t->numElements() == 3);
      if (llvm::StringRef(descr) == "|b1")
        CHECK(t->dataAs<uint8_t>()[1] == 1);
    }
  }
  SECTION("rank 0") {
    double v = 2.5;
    std::string image = npyImage(
        1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
        llvm::StringRef(reinterpret_cast<const char *>(&v), sizeof(v)));
    llvm::Expected<HostTensor> t = parseNpy(image, "scalar.npy");
    REQUIRE(errorMessage(t).empty());
    CHECK(t->typeString() == "f64");
    CHECK(t->dataAs<double>()[0] == 2.5);
  }
}

TEST_CASE("npy errors name the file", "[npy]") {
  TempDir dir;
  REQUIRE(dir.valid());
  float values[] = {1, 2, 3, 4};
  llvm::StringRef data(reinterpret_cast<const char *>(values), sizeof(values));
  std::string good =
      npyImage(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
               data);
  auto expectError = [&](llvm::StringRef bytes, llvm::StringRef fragment) {
    std::string path = dir.file("bad.npy");
    writeFile(path, bytes);
    llvm::Expected<HostTensor> t = readNpy(path);
    std::string message = errorMessage(t);
    INFO("message: " << message);
    CHECK_THAT(message, Catch::Contains(path));
    CHECK_THAT(message, Catch::Contains(fragment.str()));
  };

  SECTION("empty file") { expectError("", "empty"); }
  SECTION("wrong magic") {
    expectError("PK\x03\x04 this is a zip file", "magic");
    expectError("\x93NUMPZ\x01\x00", "magic");
  }
  SECTION("garbage") { expectError("\x93NU", "magic"); }
  SECTION("truncated header") {
    expectError(llvm::StringRef(good).take_front(7), "truncated header");
    expectError(llvm::StringRef(good).take_front(9), "truncated header");
    expectError(llvm::StringRef(good).take_front(40), "truncated header");
  }
  SECTION("truncated data") {
    expectError(llvm::StringRef(good).drop_back(1), "truncated data");
    expectError(llvm::StringRef(good).drop_back(16), "truncated data");
  }
  SECTION("extra data") { expectError(good + "xxxx", "data size mismatch"); }
  SECTION("unsupported version") {
    std::string v9 = good;
    v9[6] = 9;
    expectError(v9, "version");
  }
  SECTION("fortran order") {
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': True, 'shape': "
                         "(2, 2), }",
                         data),
                "fortran_order");
  }
  SECTION("unsupported dtype '<c8'") {
    expectError(npyImage(1,
                         "{'descr': '<c8', 'fortran_order': False, 'shape': "
                         "(2,), }",
                         data),
                "unsupported dtype '<c8'");
  }
  SECTION("big endian '>f4'") {
    expectError(npyImage(1,
                         "{'descr': '>f4', 'fortran_order': False, 'shape': "
                         "(4,), }",
                         data),
                "big-endian");
  }
  SECTION("bad headers") {
    expectError(npyImage(1, "not a dict", data), "bad header");
    expectError(npyImage(1, "{'descr': '<f4', 'shape': (4,), }", data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(-4,), }",
                         data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(4, 'a'), }",
                         data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': [('a', '<f4')], 'fortran_order': False, "
                         "'shape': (4,), }",
                         data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': Maybe, 'shape': "
                         "(4,), }",
                         data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(4,), 'extra': 1}",
                         data),
                "bad header");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(4,)} trailing",
                         data),
                "bad header");
  }
  SECTION("huge shape with little data") {
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(4000000000, 4000000000), }",
                         data),
                "too large");
    expectError(npyImage(1,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(100000, 100000), }",
                         data),
                "truncated data");
  }
  SECTION("missing file and directory") {
    std::string missing = dir.file("missing.npy");
    CHECK_THAT(errorMessage(readNpy(missing)),
               Catch::Contains(missing));
    llvm::Expected<HostTensor> d = readNpy(dir.dir());
    CHECK_THAT(errorMessage(d), Catch::Contains(dir.dir()));
  }
}

TEST_CASE("writeNpy failures leave no file behind", "[npy]") {
  TempDir dir;
  REQUIRE(dir.valid());

  SECTION("bf16 has no NumPy dtype") {
    std::string path = dir.file("bf16.npy");
    HostTensor t(ElementType::BF16, {2});
    std::string message = errorMessage(writeNpy(path, t));
    CHECK_THAT(message, Catch::Contains("bf16"));
    CHECK_THAT(message, Catch::Contains(path));
    CHECK_FALSE(llvm::sys::fs::exists(path));
  }
  SECTION("missing directory") {
    std::string path = dir.file("no/such/dir/out.npy");
    HostTensor t(ElementType::F32, {2});
    CHECK_THAT(errorMessage(writeNpy(path, t)), Catch::Contains(path));
    CHECK_FALSE(llvm::sys::fs::exists(path));
  }
  SECTION("the path is a directory") {
    HostTensor t(ElementType::F32, {2});
    CHECK_THAT(errorMessage(writeNpy(dir.dir(), t)),
               Catch::Contains("directory"));
  }
  SECTION("overwriting replaces the file and leaves no temporaries") {
    std::string path = dir.file("out.npy");
    HostTensor a(ElementType::F32, {100});
    REQUIRE(errorMessage(writeNpy(path, a)).empty());
    HostTensor b(ElementType::I8, {3});
    b.dataAs<int8_t>()[2] = -7;
    REQUIRE(errorMessage(writeNpy(path, b)).empty());
    llvm::Expected<HostTensor> back = readNpy(path);
    REQUIRE(errorMessage(back).empty());
    CHECK(back->typeString() == "3xi8");
    CHECK(back->dataAs<int8_t>()[2] == -7);
    int entries = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir.dir(), ec), end;
         !ec && it != end; it.increment(ec))
      ++entries;
    CHECK(entries == 1);
  }
}
