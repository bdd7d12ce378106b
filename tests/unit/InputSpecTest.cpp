//===- InputSpecTest.cpp - --input / --expected_output parsing ------------===//
//
// Every accepted form of an input spec with its values checked, the seeded
// random data (deterministic, in range), .npy inputs, and every malformed
// form, each of which must be an error quoting the spec.
//
//===----------------------------------------------------------------------===//

#include "support/InputSpec.h"

#include "support/Npy.h"

#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <set>

using namespace jitrun;
using jitrun::test::errorMessage;
using jitrun::test::TempDir;

/// Parses `spec`, which must succeed.
static HostTensor parseOk(llvm::StringRef spec, uint64_t seed = 0) {
  llvm::Expected<HostTensor> t = parseInputSpec(spec, seed);
  INFO("spec: " << spec.str());
  REQUIRE(errorMessage(t).empty());
  return std::move(*t);
}

static std::vector<double> valuesOf(const HostTensor &t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.numElements(); ++i)
    values.push_back(t.getAsDouble(i));
  return values;
}

TEST_CASE("input specs with all values", "[inputspec]") {
  std::string spec = GENERATE(
      "2x3xf32=1,2,3,4,5,6", "2x3xf32=1 2 3 4 5 6", "2x3xf32=1, 2, 3, 4, 5, 6",
      "2x3xf32=[1 2 3][4 5 6]", "2x3xf32=[[1,2,3],[4,5,6]]",
      "2x3xf32=[1,2,3],[4,5,6]", " 2x3xf32 = 1 2 3\t4 5 6 ");
  HostTensor t = parseOk(spec);
  CHECK(t.typeString() == "2x3xf32");
  CHECK(valuesOf(t) == std::vector<double>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("input specs of every element type", "[inputspec]") {
  SECTION("floats") {
    HostTensor f64 = parseOk("4xf64=1e300,-inf,0.125,nan");
    CHECK(f64.dataAs<double>()[0] == 1e300);
    CHECK(f64.dataAs<double>()[1] == -INFINITY);
    CHECK(f64.dataAs<double>()[2] == 0.125);
    CHECK(std::isnan(f64.dataAs<double>()[3]));
    HostTensor f32 = parseOk("3xf32=-1.5e-3,3.25,+7");
    CHECK(f32.dataAs<float>()[0] == -1.5e-3f);
    CHECK(f32.dataAs<float>()[2] == 7.0f);
    HostTensor f16 = parseOk("3xf16=1.5,-2,65504");
    CHECK(f16.dataAs<uint16_t>()[0] == floatToHalf(1.5f));
    CHECK(halfToFloat(f16.dataAs<uint16_t>()[1]) == -2.0f);
    CHECK(halfToFloat(f16.dataAs<uint16_t>()[2]) == 65504.0f);
    HostTensor bf16 = parseOk("2xbf16=0.5,-3");
    CHECK(bfloat16ToFloat(bf16.dataAs<uint16_t>()[0]) == 0.5f);
    CHECK(bfloat16ToFloat(bf16.dataAs<uint16_t>()[1]) == -3.0f);
  }
  SECTION("integers at the limits of their types") {
    HostTensor i8 = parseOk("2xi8=-128,127");
    CHECK(i8.dataAs<int8_t>()[0] == -128);
    CHECK(i8.dataAs<int8_t>()[1] == 127);
    HostTensor u8 = parseOk("2xui8=0,255");
    CHECK(u8.dataAs<uint8_t>()[1] == 255);
    HostTensor i16 = parseOk("2xi16=-32768,32767");
    CHECK(i16.dataAs<int16_t>()[0] == -32768);
    HostTensor i32 = parseOk("2xi32=-2147483648,2147483647");
    CHECK(i32.dataAs<int32_t>()[0] == INT32_MIN);
    CHECK(i32.dataAs<int32_t>()[1] == INT32_MAX);
    HostTensor i64 = parseOk("2xi64=-9223372036854775808,9223372036854775807");
    CHECK(i64.dataAs<int64_t>()[0] == INT64_MIN);
    CHECK(i64.dataAs<int64_t>()[1] == INT64_MAX);
  }
  SECTION("booleans accept true/false/0/1") {
    HostTensor b = parseOk("5xi1=true,false,1,0,True");
    std::vector<uint8_t> bytes(b.dataAs<uint8_t>(), b.dataAs<uint8_t>() + 5);
    CHECK(bytes == std::vector<uint8_t>{1, 0, 1, 0, 1});
  }
}

TEST_CASE("a single value fills the tensor", "[inputspec]") {
  HostTensor f = parseOk("2x3xf32=1");
  CHECK(valuesOf(f) == std::vector<double>(6, 1.0));
  HostTensor i = parseOk("4xi8=-5");
  CHECK(valuesOf(i) == std::vector<double>(4, -5.0));
  HostTensor b = parseOk("3xi1=true");
  CHECK(valuesOf(b) == std::vector<double>(3, 1.0));
  HostTensor h = parseOk("2x2xf16=[0.5]");
  for (int k = 0; k < 4; ++k)
    CHECK(halfToFloat(h.dataAs<uint16_t>()[k]) == 0.5f);
  HostTensor empty = parseOk("0x3xf32=7");
  CHECK(empty.numElements() == 0);
  HostTensor emptyList = parseOk("0xf32=[]");
  CHECK(emptyList.typeString() == "0xf32");
}

TEST_CASE("rank-0 specs", "[inputspec]") {
  HostTensor f = parseOk("f32=3.5");
  CHECK(f.typeString() == "f32");
  CHECK(f.dataAs<float>()[0] == 3.5f);
  HostTensor i = parseOk("i64=-7");
  CHECK(i.dataAs<int64_t>()[0] == -7);
  HostTensor r = parseOk("f32", 3);
  CHECK(r.typeString() == "f32");
  CHECK(r.dataAs<float>()[0] >= -1.0f);
  CHECK(r.dataAs<float>()[0] < 1.0f);
}

TEST_CASE("random specs are seeded and in range", "[inputspec]") {
  std::string type = GENERATE("f32", "f64", "f16", "bf16", "i1", "i8", "i16",
                              "i32", "i64", "ui8");
  std::string spec = "100x100x" + type;
  HostTensor a = parseOk(spec, 42);
  HostTensor b = parseOk(spec, 42);
  HostTensor c = parseOk(spec, 43);
  CHECK(a.typeString() == spec);
  CHECK(std::memcmp(a.data(), b.data(), a.byteSize()) == 0);
  CHECK(std::memcmp(a.data(), c.data(), a.byteSize()) != 0);

  double lo = 0, hi = 0;
  if (isFloatType(a.elementType()))
    lo = -1, hi = 1;
  else if (a.elementType() == ElementType::I1)
    lo = 0, hi = 2;
  else if (a.elementType() == ElementType::U8)
    lo = 0, hi = 8;
  else
    lo = -8, hi = 8;
  std::set<double> distinct;
  double sum = 0;
  for (double v : valuesOf(a)) {
    REQUIRE(v >= lo);
    REQUIRE(v < hi);
    distinct.insert(v);
    sum += v;
  }
  // Uniform: all small-integer values appear, and the mean is near the middle.
  if (!isFloatType(a.elementType()))
    CHECK(distinct.size() == static_cast<size_t>(hi - lo));
  else
    CHECK(distinct.size() > 100);
  double mean = sum / static_cast<double>(a.numElements());
  CHECK(std::fabs(mean - (lo + hi - (isFloatType(a.elementType()) ? 0 : 1)) /
                             2) < 0.1 * (hi - lo));
}

TEST_CASE("@file.npy specs", "[inputspec]") {
  TempDir dir;
  REQUIRE(dir.valid());
  std::string path = dir.file("in.npy");
  HostTensor t = parseOk("2x2xi32=1,2,3,4");
  REQUIRE(errorMessage(writeNpy(path, t)).empty());
  HostTensor back = parseOk("@" + path);
  CHECK(back.typeString() == "2x2xi32");
  CHECK(valuesOf(back) == std::vector<double>{1, 2, 3, 4});

  std::string missing = "@" + dir.file("missing.npy");
  std::string message = errorMessage(parseInputSpec(missing, 0));
  CHECK_THAT(message, Catch::Contains("'" + missing + "'"));
  CHECK_THAT(message, Catch::Contains("missing.npy"));

  std::string garbage = dir.file("garbage.npy");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(garbage, ec);
    REQUIRE_FALSE(ec);
    os << "not numpy";
  }
  CHECK_THAT(errorMessage(parseInputSpec("@" + garbage, 0)),
             Catch::Contains("magic"));
}

TEST_CASE("malformed input specs are errors quoting the spec", "[inputspec]") {
  auto spec = GENERATE(
      // Bad element types.
      std::make_pair("2x3xf33=1", "unknown element type"),
      std::make_pair("2x3=1", "unknown element type"),
      std::make_pair("2x3xF32", "unknown element type"),
      std::make_pair("=1", "unknown element type"),
      // Bad dimensions.
      std::make_pair("-1xf32=1", "negative"),
      std::make_pair("2x-3xf32", "negative"),
      std::make_pair("ax3xf32=1", "not a non-negative integer"),
      std::make_pair("2.5xf32=1", "not a non-negative integer"),
      std::make_pair("?x3xf32", "dynamic"),
      std::make_pair("2xx3xf32", "empty dimension"),
      std::make_pair("99999999999999999999xf32", "too large"),
      std::make_pair("100000x100000xf32", "limit"),
      // Wrong value counts.
      std::make_pair("2x3xf32=1,2", "expected 6 values"),
      std::make_pair("2xf32=1,2,3", "expected 2 values"),
      std::make_pair("f32=1,2", "expected 1 values"),
      std::make_pair("0xf32=1,2", "expected 0 values"),
      std::make_pair("3xf32=1,,2", "empty value"),
      std::make_pair("3xf32=1,2,3,", "empty value"),
      // Unparsable values.
      std::make_pair("2xf32=1,abc", "'abc' is not a floating-point number"),
      std::make_pair("2xf32=1,1.5.5", "not a floating-point number"),
      std::make_pair("2xi32=1,1.5", "'1.5' is not a decimal integer"),
      std::make_pair("2xi32=1,0x10", "not a decimal integer"),
      std::make_pair("2xi1=1,2", "'2' is not a boolean"),
      std::make_pair("i1=yes", "not a boolean"),
      // Out of range.
      std::make_pair("2xi8=1,128", "out of range for i8"),
      std::make_pair("i8=-129", "out of range for i8"),
      std::make_pair("ui8=-1", "out of range for ui8"),
      std::make_pair("ui8=256", "out of range for ui8"),
      std::make_pair("i16=32768", "out of range for i16"),
      std::make_pair("i32=2147483648", "out of range for i32"),
      std::make_pair("i64=9223372036854775808", "out of range for i64"),
      std::make_pair("f16=70000", "out of range for f16"),
      std::make_pair("f32=1e39", "out of range for f32"),
      std::make_pair("f64=1e400", "out of range for f64"),
      // Missing values.
      std::make_pair("2xf32=", "missing value"),
      std::make_pair("2xf32=  ", "missing value"),
      std::make_pair("f32=", "missing value"),
      // Empty spec, empty file name.
      std::make_pair("", "empty spec"), std::make_pair("@", "missing file"));
  llvm::Expected<HostTensor> t = parseInputSpec(spec.first, 0);
  std::string message = errorMessage(t);
  INFO("spec: " << spec.first << "\nmessage: " << message);
  CHECK_THAT(message, Catch::Contains(std::string("'") + spec.first + "'"));
  CHECK_THAT(message, Catch::Contains(spec.second));
}
