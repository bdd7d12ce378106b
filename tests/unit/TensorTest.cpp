//===- TensorTest.cpp - HostTensor, printTensor, compareTensors -----------===//
//
// Element types and their names, storage (alignment, zero fill, views,
// clones, moves), the f16/bf16 conversions, the iree-run-module print format
// and the tolerance comparison with its first-bad-index message.
//
//===----------------------------------------------------------------------===//

#include "support/Tensor.h"

#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace jitrun;
using jitrun::test::errorMessage;

static const ElementType kAllTypes[] = {
    ElementType::F32, ElementType::F64, ElementType::F16, ElementType::BF16,
    ElementType::I1,  ElementType::I8,  ElementType::I16, ElementType::I32,
    ElementType::I64, ElementType::U8};

static std::string printed(const HostTensor &t, int64_t maxElements = 1024) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printTensor(os, t, maxElements);
  return os.str();
}

static HostTensor f32Tensor(std::vector<int64_t> shape,
                            std::vector<float> values) {
  HostTensor t(ElementType::F32, std::move(shape));
  REQUIRE(static_cast<size_t>(t.numElements()) == values.size());
  std::memcpy(t.data(), values.data(), t.byteSize());
  return t;
}

TEST_CASE("element types have sizes and names that round-trip", "[tensor]") {
  CHECK(elementSize(ElementType::F32) == 4);
  CHECK(elementSize(ElementType::F64) == 8);
  CHECK(elementSize(ElementType::F16) == 2);
  CHECK(elementSize(ElementType::BF16) == 2);
  CHECK(elementSize(ElementType::I1) == 1);
  CHECK(elementSize(ElementType::I8) == 1);
  CHECK(elementSize(ElementType::I16) == 2);
  CHECK(elementSize(ElementType::I32) == 4);
  CHECK(elementSize(ElementType::I64) == 8);
  CHECK(elementSize(ElementType::U8) == 1);
  CHECK(elementTypeName(ElementType::U8) == "ui8");
  CHECK(elementTypeName(ElementType::BF16) == "bf16");
  for (ElementType t : kAllTypes) {
    std::optional<ElementType> parsed = parseElementType(elementTypeName(t));
    REQUIRE(parsed);
    CHECK(*parsed == t);
  }
  CHECK_FALSE(parseElementType("f33"));
  CHECK_FALSE(parseElementType("u8"));
  CHECK_FALSE(parseElementType(""));
  CHECK_FALSE(parseElementType("F32"));
}

TEST_CASE("HostTensor owns zero-filled 64-byte aligned storage", "[tensor]") {
  ElementType type = GENERATE(from_range(std::begin(kAllTypes),
                                         std::end(kAllTypes)));
  std::vector<int64_t> shape =
      GENERATE(std::vector<int64_t>{}, std::vector<int64_t>{0},
               std::vector<int64_t>{7}, std::vector<int64_t>{2, 3},
               std::vector<int64_t>{3, 0, 2}, std::vector<int64_t>{2, 3, 5});
  HostTensor t(type, shape);
  int64_t expected = 1;
  for (int64_t d : shape)
    expected *= d;
  CHECK(t.elementType() == type);
  CHECK(t.shape() == shape);
  CHECK(t.numElements() == expected);
  CHECK(t.byteSize() == static_cast<size_t>(expected) * elementSize(type));
  REQUIRE(t.data() != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % 64 == 0);
  CHECK(t.isOwning());
  const auto *bytes = t.dataAs<uint8_t>();
  for (size_t i = 0; i < t.byteSize(); ++i)
    REQUIRE(bytes[i] == 0);
}

TEST_CASE("HostTensor type strings", "[tensor]") {
  CHECK(HostTensor(ElementType::F32, {2, 3}).typeString() == "2x3xf32");
  CHECK(HostTensor(ElementType::F32, {}).typeString() == "f32");
  CHECK(HostTensor(ElementType::U8, {0, 4}).typeString() == "0x4xui8");
  CHECK(HostTensor(ElementType::I1, {5}).typeString() == "5xi1");
  CHECK(HostTensor().typeString() == "f32");
  CHECK(HostTensor().numElements() == 0);
  CHECK(HostTensor().data() == nullptr);
}

TEST_CASE("HostTensor views, clones and moves", "[tensor]") {
  std::vector<int32_t> buffer = {1, 2, 3, 4, 5, 6};
  HostTensor view = HostTensor::view(ElementType::I32, {3, 2}, buffer.data());
  CHECK_FALSE(view.isOwning());
  CHECK(view.data() == buffer.data());
  CHECK(view.numElements() == 6);
  buffer[0] = 42;
  CHECK(view.dataAs<int32_t>()[0] == 42);

  SECTION("clone is a deep, owning copy") {
    HostTensor copy = view.clone();
    CHECK(copy.isOwning());
    CHECK(copy.data() != view.data());
    CHECK(copy.shape() == view.shape());
    CHECK(copy.elementType() == ElementType::I32);
    buffer[1] = 7;
    CHECK(copy.dataAs<int32_t>()[0] == 42);
    CHECK(copy.dataAs<int32_t>()[1] == 2);
    CHECK(reinterpret_cast<uintptr_t>(copy.data()) % 64 == 0);
  }
  SECTION("move transfers the storage") {
    HostTensor owner(ElementType::F64, {4});
    void *storage = owner.data();
    HostTensor moved(std::move(owner));
    CHECK(moved.data() == storage);
    CHECK(moved.numElements() == 4);
    HostTensor assigned;
    assigned = std::move(moved);
    CHECK(assigned.data() == storage);
    CHECK(assigned.typeString() == "4xf64");
  }
  SECTION("clone of an empty tensor is empty") {
    HostTensor empty;
    CHECK(empty.clone().data() == nullptr);
  }
}

TEST_CASE("HostTensor::create rejects bad shapes", "[tensor]") {
  llvm::Expected<HostTensor> negative =
      HostTensor::create(ElementType::F32, {2, -1});
  CHECK_THAT(errorMessage(negative), Catch::Contains("negative"));
  llvm::Expected<HostTensor> huge = HostTensor::create(
      ElementType::F32, {int64_t(1) << 40, int64_t(1) << 40});
  CHECK_THAT(errorMessage(huge), Catch::Contains("overflow"));
  llvm::Expected<HostTensor> ok = HostTensor::create(ElementType::I8, {3});
  REQUIRE(errorMessage(ok).empty());
  CHECK(ok->numElements() == 3);
}

TEST_CASE("f16 and bf16 conversions", "[tensor]") {
  CHECK(floatToHalf(1.0f) == 0x3c00);
  CHECK(floatToHalf(-2.0f) == 0xc000);
  CHECK(floatToHalf(65504.0f) == 0x7bff);
  CHECK(floatToHalf(65519.0f) == 0x7bff);
  CHECK(floatToHalf(65520.0f) == 0x7c00);
  CHECK(floatToHalf(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(floatToHalf(std::ldexp(1.0f, -26)) == 0x0000);
  CHECK(floatToHalf(0.1f) == 0x2e66);
  CHECK(floatToHalf(-0.0f) == 0x8000);
  CHECK((floatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7c00) ==
        0x7c00);
  CHECK(std::isnan(halfToFloat(0x7e00)));
  CHECK(std::isinf(halfToFloat(0xfc00)));
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even -> 1.
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  // Every non-NaN half converts to float and back unchanged.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
      continue;
    REQUIRE(floatToHalf(halfToFloat(h)) == h);
  }

  CHECK(floatToBFloat16(1.0f) == 0x3f80);
  CHECK(floatToBFloat16(-1.5f) == 0xbfc0);
  CHECK(bfloat16ToFloat(0x4049) == Approx(3.140625f));
  CHECK(std::isnan(bfloat16ToFloat(
      floatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t b = static_cast<uint16_t>(bits);
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
      continue;
    REQUIRE(floatToBFloat16(bfloat16ToFloat(b)) == b);
  }
}

TEST_CASE("printTensor uses the iree-run-module format", "[tensor]") {
  SECTION("rank 2") {
    CHECK(printed(f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})) ==
          "2x3xf32=[1 2 3][4 5 6]");
  }
  SECTION("rank 1 has no brackets") {
    CHECK(printed(f32Tensor({3}, {1.5f, -2, 0.25f})) == "3xf32=1.5 -2 0.25");
  }
  SECTION("rank 0") {
    CHECK(printed(f32Tensor({}, {1})) == "f32=1");
  }
  SECTION("rank 3") {
    HostTensor t(ElementType::I32, {2, 2, 2});
    for (int i = 0; i < 8; ++i)
      t.dataAs<int32_t>()[i] = i - 3;
    CHECK(printed(t) == "2x2x2xi32=[[-3 -2][-1 0]][[1 2][3 4]]");
  }
  SECTION("floats use %g") {
    CHECK(printed(f32Tensor({3}, {1.0f / 3, 1e-7f, 123456789.0f})) ==
          "3xf32=0.333333 1e-07 1.23457e+08");
    HostTensor d(ElementType::F64, {2});
    d.dataAs<double>()[0] = 2.0 / 3;
    d.dataAs<double>()[1] = -std::numeric_limits<double>::infinity();
    CHECK(printed(d) == "2xf64=0.666667 -inf");
  }
  SECTION("f16 and bf16") {
    HostTensor h(ElementType::F16, {2});
    h.dataAs<uint16_t>()[0] = floatToHalf(0.5f);
    h.dataAs<uint16_t>()[1] = floatToHalf(-3.0f);
    CHECK(printed(h) == "2xf16=0.5 -3");
    HostTensor b(ElementType::BF16, {1});
    b.dataAs<uint16_t>()[0] = floatToBFloat16(2.5f);
    CHECK(printed(b) == "1xbf16=2.5");
  }
  SECTION("integers, unsigned and booleans") {
    HostTensor i1(ElementType::I1, {4});
    uint8_t bits[] = {0, 1, 1, 0};
    std::memcpy(i1.data(), bits, 4);
    CHECK(printed(i1) == "4xi1=0 1 1 0");
    HostTensor u8(ElementType::U8, {2});
    u8.dataAs<uint8_t>()[0] = 255;
    u8.dataAs<uint8_t>()[1] = 7;
    CHECK(printed(u8) == "2xui8=255 7");
    HostTensor i64(ElementType::I64, {1});
    i64.dataAs<int64_t>()[0] = std::numeric_limits<int64_t>::min();
    CHECK(printed(i64) == "1xi64=-9223372036854775808");
    HostTensor i8(ElementType::I8, {1});
    i8.dataAs<int8_t>()[0] = -128;
    CHECK(printed(i8) == "1xi8=-128");
  }
  SECTION("empty tensors") {
    CHECK(printed(HostTensor(ElementType::F32, {0})) == "0xf32=");
    CHECK(printed(HostTensor(ElementType::F32, {2, 0})) == "2x0xf32=[][]");
  }
  SECTION("truncation after maxElements") {
    HostTensor t = f32Tensor({5}, {1, 2, 3, 4, 5});
    CHECK(printed(t, 3) == "5xf32=1 2 3...");
    CHECK(printed(t, 5) == "5xf32=1 2 3 4 5");
    HostTensor m = f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(printed(m, 4) == "2x3xf32=[1 2 3][4...]");
    HostTensor big(ElementType::I32, {3000});
    std::string s = printed(big);
    CHECK(llvm::StringRef(s).ends_with("..."));
    CHECK(std::count(s.begin(), s.end(), ' ') == 1023);
  }
}

TEST_CASE("compareTensors", "[tensor]") {
  HostTensor expected = f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6});

  SECTION("identical tensors match") {
    CHECK(errorMessage(compareTensors(expected, expected, 0, 0)).empty());
  }
  SECTION("differences within atol + rtol*|e| match") {
    HostTensor actual = f32Tensor({2, 3}, {1.001f, 2, 3, 4, 5, 6.05f});
    CHECK(errorMessage(compareTensors(actual, expected, 1e-2, 1e-2)).empty());
    CHECK_FALSE(
        errorMessage(compareTensors(actual, expected, 1e-4, 1e-4)).empty());
  }
  SECTION("a mismatch names the first bad index, the values and the count") {
    HostTensor actual = f32Tensor({2, 3}, {1, 2, 3, 4.5f, 5, 7});
    std::string message =
        errorMessage(compareTensors(actual, expected, 1e-3, 1e-3));
    CHECK_THAT(message, Catch::Contains("[1,0]"));
    CHECK_THAT(message, Catch::Contains("4.5"));
    CHECK_THAT(message, Catch::Contains("expected 4"));
    CHECK_THAT(message, Catch::Contains("2 of 6"));
  }
  SECTION("NaN matches only NaN, infinities only themselves") {
    float nan = std::numeric_limits<float>::quiet_NaN();
    float inf = std::numeric_limits<float>::infinity();
    HostTensor a = f32Tensor({3}, {nan, inf, -inf});
    HostTensor b = f32Tensor({3}, {nan, inf, -inf});
    CHECK(errorMessage(compareTensors(a, b, 0, 0)).empty());
    HostTensor c = f32Tensor({3}, {1, inf, -inf});
    CHECK_THAT(errorMessage(compareTensors(a, c, 1, 1)),
               Catch::Contains("[0]"));
    CHECK_THAT(errorMessage(compareTensors(c, a, 1, 1)),
               Catch::Contains("[0]"));
    HostTensor d = f32Tensor({3}, {nan, -inf, -inf});
    CHECK_THAT(errorMessage(compareTensors(a, d, 1e9, 1e9)),
               Catch::Contains("[1]"));
  }
  SECTION("integers compare exactly") {
    HostTensor a(ElementType::I64, {2});
    HostTensor b(ElementType::I64, {2});
    a.dataAs<int64_t>()[1] = (int64_t(1) << 60) + 1;
    b.dataAs<int64_t>()[1] = int64_t(1) << 60;
    std::string message = errorMessage(compareTensors(a, b, 1e6, 1e6));
    CHECK_THAT(message, Catch::Contains("[1]"));
    CHECK_THAT(message, Catch::Contains("1 of 2"));
  }
  SECTION("rank 0") {
    HostTensor a = f32Tensor({}, {1});
    HostTensor b = f32Tensor({}, {2});
    CHECK_THAT(errorMessage(compareTensors(a, b, 0, 0)), Catch::Contains("[]"));
  }
  SECTION("shape and type mismatches are errors") {
    HostTensor other = f32Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
    std::string message = errorMessage(compareTensors(other, expected, 1, 1));
    CHECK_THAT(message, Catch::Contains("3x2xf32"));
    CHECK_THAT(message, Catch::Contains("2x3xf32"));
    HostTensor ints(ElementType::I32, {2, 3});
    CHECK_THAT(errorMessage(compareTensors(ints, expected, 1, 1)),
               Catch::Contains("2x3xi32"));
  }
}

TEST_CASE("storage is zeroed and aligned; large storage on 2 MiB boundaries", "[tensor]") {
  for (size_t bytes : {size_t(1), size_t(4096), (size_t(2) << 20) - 1}) {
    AlignedStorage s = allocateAligned(bytes);
    REQUIRE(s);
    CHECK(reinterpret_cast<uintptr_t>(s.get()) % 64 == 0);
    auto *p = static_cast<const unsigned char *>(s.get());
    CHECK(std::all_of(p, p + bytes, [](unsigned char c) { return c == 0; }));
  }
  // 2 MiB and up: aligned to a huge page, zeroed, and writable to the end.
  for (size_t bytes : {size_t(2) << 20, (size_t(5) << 20) + 12}) {
    AlignedStorage s = allocateAligned(bytes);
    REQUIRE(s);
    CHECK(reinterpret_cast<uintptr_t>(s.get()) % (size_t(2) << 20) == 0);
    auto *p = static_cast<unsigned char *>(s.get());
    CHECK(std::all_of(p, p + bytes, [](unsigned char c) { return c == 0; }));
    p[bytes - 1] = 7;
    CHECK(p[bytes - 1] == 7);
  }
  // A large tensor takes the same storage.
  HostTensor t(ElementType::F32, {1024, 1024});
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % (size_t(2) << 20) == 0);
  CHECK(t.dataAs<float>()[1024 * 1024 - 1] == 0.0f);
}

TEST_CASE("permuteElements moves every element where the permutation says", "[tensor]") {
  // Against the definition: out[idx] = in[idx permuted back], element by
  // element, for blocked 2-D transposes with ragged edges, other ranks and
  // permutations, and elements of 1 to 16 bytes.
  struct Case {
    std::vector<int64_t> shape, perm;
  };
  std::vector<Case> cases = {{{33, 70}, {1, 0}}, {{1, 97}, {1, 0}},    {{64, 32}, {1, 0}},
                             {{5, 7, 3}, {2, 0, 1}}, {{4, 6, 5}, {0, 2, 1}},
                             {{2, 3, 4, 5}, {3, 1, 0, 2}}, {{9}, {0}}, {{}, {}},
                             {{3, 0, 2}, {2, 1, 0}}, {{6, 5}, {0, 1}}};
  for (size_t eltBytes : {size_t(1), size_t(2), size_t(4), size_t(8), size_t(12), size_t(16)}) {
    for (const Case &c : cases) {
      int64_t rank = static_cast<int64_t>(c.shape.size()), n = 1;
      for (int64_t d : c.shape)
        n *= d;
      std::vector<char> in(n * eltBytes), out(n * eltBytes, 0), expected(n * eltBytes);
      for (size_t i = 0; i < in.size(); ++i)
        in[i] = static_cast<char>((i * 131 + i / 7) % 251);
      std::vector<int64_t> outShape(rank), inStride(rank, 1);
      for (int64_t d = rank - 2; d >= 0; --d)
        inStride[d] = inStride[d + 1] * c.shape[d + 1];
      for (int64_t d = 0; d < rank; ++d)
        outShape[d] = c.shape[c.perm[d]];
      for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rem = flat, src = 0;
        for (int64_t d = rank - 1; d >= 0; --d) {
          src += (rem % outShape[d]) * inStride[c.perm[d]];
          rem /= outShape[d];
        }
        std::memcpy(&expected[flat * eltBytes], &in[src * eltBytes], eltBytes);
      }
      permuteElements(in.data(), out.data(), c.shape, c.perm, eltBytes);
      INFO("rank " << rank << ", " << n << " elements of " << eltBytes << " bytes");
      CHECK(out == expected);
    }
  }
}
