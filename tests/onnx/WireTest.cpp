//===- WireTest.cpp - an ONNX model's weights found without parsing them --===//
//
// onnx/Wire.h against protobuf's own serializer and parser: a model built
// with libonnx's classes, its weights located in the bytes, a stripped
// parse without them, the re-layout that aligns them (and parses back to
// the same model), and the import that uses aligned weights where they lie.
//
//===----------------------------------------------------------------------===//

#include "onnx/Import.h"
#include "onnx/Wire.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace jitrun;
using namespace jitrun::onnximport;

namespace {

/// A float initializer `name` of `n` values (i + offset), as raw data.
void addInitializer(onnx::GraphProto &g, const std::string &name, int64_t n, float offset) {
  onnx::TensorProto *t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(n);
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i) + offset;
  t->set_raw_data(std::string(reinterpret_cast<const char *>(v.data()), v.size() * 4));
}

/// y = x + W (Add with a broadcast initializer of `n` values) and three
/// more initializers: two large ones (an odd count of bytes before each),
/// a small one and one of typed floats.
onnx::ModelProto model(int64_t n) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto &g = *m.mutable_graph();
  g.set_name("wire");
  addInitializer(g, "small", 10, 0.5f);
  addInitializer(g, "W", n, 1.0f);
  onnx::TensorProto *typed = g.add_initializer();
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(3);
  for (float f : {1.f, 2.f, 3.f})
    typed->add_float_data(f);
  addInitializer(g, "W2", n + 7, 3.0f);
  onnx::NodeProto *add = g.add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("W");
  add->add_output("y");
  for (auto [list, name] :
       {std::pair{g.mutable_input(), "x"}, std::pair{g.mutable_output(), "y"}}) {
    onnx::ValueInfoProto *v = list->Add();
    v->set_name(name);
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
  }
  return m;
}

/// Field `field` of wire type 2 (bytes, a nested message) holding `payload`.
std::string lengthDelimited(uint32_t field, const std::string &payload) {
  std::string out;
  for (uint64_t v : {uint64_t(field) << 3 | 2, uint64_t(payload.size())}) {
    do {
      out.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v);
  }
  return out + payload;
}

/// The dense constant of `n` elements of `module`, or null.
mlir::DenseElementsAttr denseConstant(mlir::ModuleOp module, int64_t n) {
  mlir::DenseElementsAttr found;
  module->walk([&](mlir::Operation *op) {
    for (mlir::NamedAttribute a : op->getAttrs())
      if (auto d = llvm::dyn_cast<mlir::DenseElementsAttr>(a.getValue()))
        if (d.getNumElements() == n)
          found = d;
  });
  return found;
}

/// The resource blob of the one dense_resource constant of `module`.
llvm::ArrayRef<char> resourceData(mlir::ModuleOp module) {
  llvm::ArrayRef<char> data;
  module->walk([&](mlir::Operation *op) {
    for (mlir::NamedAttribute a : op->getAttrs())
      if (auto r = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(a.getValue()))
        if (mlir::AsmResourceBlob *blob = r.getRawHandle().getBlob())
          data = blob->getData();
  });
  return data;
}

} // namespace

TEST_CASE("strippedModel leaves out the large raw data and locates them", "[onnx]") {
  const int64_t n = 40000; // 160 KB
  std::string bytes = model(n).SerializeAsString();
  std::vector<RawData> raw;
  std::optional<std::string> stripped = strippedModel(bytes, raw);
  REQUIRE(stripped);
  CHECK(stripped->size() < 1000);
  REQUIRE(raw.size() == 2);
  onnx::ModelProto original = model(n);
  CHECK(raw[0].initializer == 1);
  CHECK(raw[1].initializer == 3);
  CHECK(raw[0].bytes == original.graph().initializer(1).raw_data());
  CHECK(raw[1].bytes == original.graph().initializer(3).raw_data());
  CHECK(raw[0].bytes.data() >= bytes.data());
  CHECK(raw[1].bytes.end() <= bytes.data() + bytes.size());

  onnx::ModelProto parsed;
  REQUIRE(parsed.ParseFromString(*stripped));
  REQUIRE(parsed.graph().initializer_size() == 4);
  CHECK(parsed.graph().initializer(0).raw_data() == original.graph().initializer(0).raw_data());
  CHECK_FALSE(parsed.graph().initializer(1).has_raw_data());
  CHECK(parsed.graph().initializer(1).name() == "W");
  CHECK(parsed.graph().initializer(2).float_data_size() == 3);
  CHECK_FALSE(parsed.graph().initializer(3).has_raw_data());
  CHECK(parsed.graph().node_size() == 1);
  CHECK(parsed.opset_import(0).version() == 17);

  SECTION("bytes that are no wire format are refused") {
    CHECK_FALSE(strippedModel(llvm::StringRef(bytes).drop_back(100), raw));
    CHECK(raw.empty());
    CHECK_FALSE(strippedModel("\x08\x01\x3a\xff\xff", raw)); // graph longer than the bytes
    CHECK_FALSE(strippedModel("\x0b", raw));                 // a group
    CHECK_FALSE(alignedModelSize(llvm::StringRef(bytes).drop_back(1)));
  }
}

TEST_CASE("alignedModelBytes aligns the large raw data and parses back the same", "[onnx]") {
  const int64_t n = 40000;
  onnx::ModelProto original = model(n);
  std::string bytes = original.SerializeAsString();
  std::optional<size_t> size = alignedModelSize(bytes);
  REQUIRE(size);
  CHECK(*size > bytes.size());
  CHECK(*size < bytes.size() + 200);
  std::unique_ptr<llvm::WritableMemoryBuffer> out =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(*size, "aligned", llvm::Align(4096));
  alignedModelBytes(bytes, out->getBufferStart());
  llvm::StringRef aligned(out->getBufferStart(), *size);

  onnx::ModelProto parsed;
  REQUIRE(parsed.ParseFromArray(aligned.data(), static_cast<int>(aligned.size())));
  REQUIRE(parsed.graph().initializer_size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(parsed.graph().initializer(i).name() == original.graph().initializer(i).name());
    CHECK(parsed.graph().initializer(i).raw_data() == original.graph().initializer(i).raw_data());
  }
  CHECK(parsed.graph().node(0).op_type() == "Add");

  // Located again, each large raw data starts 64-byte aligned; the padding
  // goes when stripped.
  std::vector<RawData> raw, rawBefore;
  std::optional<std::string> stripped = strippedModel(aligned, raw);
  REQUIRE(stripped);
  REQUIRE(raw.size() == 2);
  for (const RawData &r : raw)
    CHECK(reinterpret_cast<uintptr_t>(r.bytes.data()) % kRawDataAlignment == 0);
  CHECK(*stripped == *strippedModel(bytes, rawBefore));
  // Aligning aligned bytes changes nothing.
  CHECK(alignedModelSize(aligned) == size);
}

TEST_CASE("an import uses aligned weights where they lie only when told to", "[onnx]") {
  const int64_t n = 70000; // more elements than the importer folds
  std::string bytes = model(n).SerializeAsString();
  size_t size = *alignedModelSize(bytes);
  std::unique_ptr<llvm::WritableMemoryBuffer> out =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size, "aligned", llvm::Align(4096));
  alignedModelBytes(bytes, out->getBufferStart());
  llvm::StringRef aligned(out->getBufferStart(), size);
  auto inside = [&](llvm::ArrayRef<char> data) {
    return data.data() >= aligned.begin() && data.end() <= aligned.end();
  };
  // Aligned bytes in place or copied, and the original bytes (not
  // aligned): copied; the same values each time.
  struct Import {
    llvm::StringRef bytes;
    bool inPlace, inside;
  };
  for (Import c : {Import{aligned, true, true}, Import{aligned, false, false},
                   Import{bytes, true, false}}) {
    mlir::MLIRContext context;
    OnnxImportOptions options;
    options.weightsInPlace = c.inPlace;
    mlir::OwningOpRef<mlir::ModuleOp> module = importOnnx(context, c.bytes, "wire.onnx", options);
    REQUIRE(module);
    llvm::ArrayRef<char> data = resourceData(*module);
    REQUIRE(data.size() == size_t(n) * 4);
    CHECK(reinterpret_cast<uintptr_t>(data.data()) % 64 == 0);
    float first = 0, middle = 0, last = 0;
    std::memcpy(&first, data.data(), 4);
    std::memcpy(&middle, data.data() + 4 * 123, 4);
    std::memcpy(&last, data.data() + data.size() - 4, 4);
    CHECK(first == 1.0f);
    CHECK(middle == 124.0f);
    CHECK(last == static_cast<float>(n));
    CHECK(inside(data) == c.inside);
  }
}

TEST_CASE("a stripped initializer the importer folds keeps its values", "[onnx]") {
  // 40000 floats: raw data large enough to be left out of the parse, few
  // enough elements to become a dense attribute that folding reads.
  const int64_t n = 40000;
  std::string bytes = model(n).SerializeAsString();
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importOnnx(context, bytes, "wire.onnx", OnnxImportOptions());
  REQUIRE(module);
  CHECK(resourceData(*module).empty());
  mlir::DenseElementsAttr w = denseConstant(*module, n);
  REQUIRE(w);
  std::vector<float> values(w.getValues<float>().begin(), w.getValues<float>().end());
  CHECK(values[0] == 1.0f);
  CHECK(values[777] == 778.0f);
  CHECK(values[n - 1] == static_cast<float>(n));
}

TEST_CASE("stripped raw data of the wrong length is a clean error", "[onnx]") {
  onnx::ModelProto m = model(70000);
  m.mutable_graph()->mutable_initializer(1)->set_dims(0, 70001);
  std::string bytes = m.SerializeAsString();
  mlir::MLIRContext context;
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  CHECK_FALSE(importOnnx(context, bytes, "wire.onnx", OnnxImportOptions()));
  CHECK(errors.find("tensor 'W' holds 280000 bytes of data, not 280004") != std::string::npos);
}

TEST_CASE("of several raw_data fields the last counts, as protobuf's parse has it", "[onnx]") {
  onnx::ModelProto m = model(70000);
  std::string bytes = m.SerializeAsString();
  // Two models appended to its bytes, which protobuf merges into it (their
  // graphs' initializers follow its four): a fifth initializer W3 of large
  // raw data, and a sixth holding two raw_data fields, a large one and then
  // a small one, which is the one protobuf keeps.
  onnx::ModelProto extra;
  onnx::TensorProto *t = extra.mutable_graph()->add_initializer();
  t->set_name("W3");
  t->set_raw_data(std::string(100000, '\1'));
  std::string fifth = extra.SerializeAsString();
  onnx::TensorProto small;
  small.set_raw_data("abcd");
  std::string sixth = lengthDelimited(
      7, lengthDelimited(5, t->SerializeAsString() + small.SerializeAsString()));
  std::string all = bytes + fifth + sixth;

  std::vector<RawData> raw;
  std::optional<std::string> stripped = strippedModel(all, raw);
  REQUIRE(stripped);
  onnx::ModelProto parsed, whole;
  REQUIRE(parsed.ParseFromString(*stripped));
  REQUIRE(whole.ParseFromString(all));
  REQUIRE(parsed.graph().initializer_size() == 6);
  REQUIRE(whole.graph().initializer_size() == 6);
  // W, W2, W3 stripped; the sixth (W3 then "abcd") keeps its small last one.
  REQUIRE(raw.size() == 3);
  CHECK(raw[0].initializer == 1);
  CHECK(raw[1].initializer == 3);
  CHECK(raw[2].initializer == 4);
  CHECK(raw[2].bytes == whole.graph().initializer(4).raw_data());
  CHECK(parsed.graph().initializer(5).raw_data() == "abcd");
  CHECK(whole.graph().initializer(5).raw_data() == "abcd");
}

TEST_CASE("damaged models are refused or parsed as protobuf parses them, never read out of bounds",
          "[onnx]") {
  // A valid model with bytes flipped, dropped or cut at random: the walk
  // refuses it, or what it locates lies inside the bytes and its stripped
  // parse fails exactly when protobuf's parse of the whole does; the
  // import never crashes (CI's sanitizer pass runs this suite too).
  std::string good = model(70000).SerializeAsString();
  std::mt19937 gen(20261207);
  int refused = 0, walked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes = good;
    int edits = 1 + static_cast<int>(gen() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      size_t at = gen() % bytes.size();
      switch (gen() % 3) {
      case 0: // a byte flipped (most of a model is raw data: aim at the head half the time)
        if (gen() % 2)
          at %= std::min<size_t>(bytes.size(), 200);
        bytes[at] = static_cast<char>(gen());
        break;
      case 1:
        bytes.erase(at, 1 + gen() % 8);
        break;
      default:
        bytes.resize(at);
      }
    }
    std::vector<RawData> raw;
    std::optional<std::string> stripped = strippedModel(bytes, raw);
    std::optional<size_t> size = alignedModelSize(bytes);
    CHECK(stripped.has_value() == size.has_value());
    if (!stripped) {
      ++refused;
      continue;
    }
    ++walked;
    for (const RawData &r : raw)
      CHECK((r.bytes.begin() >= bytes.data() && r.bytes.end() <= bytes.data() + bytes.size()));
    onnx::ModelProto whole, part;
    bool wholeParses = whole.ParseFromString(bytes);
    CHECK(part.ParseFromString(*stripped) == wholeParses);
    mlir::MLIRContext context;
    mlir::ScopedDiagnosticHandler quiet(&context,
                                        [](mlir::Diagnostic &) { return mlir::success(); });
    (void)importOnnx(context, bytes, "damaged.onnx", OnnxImportOptions());
  }
  CHECK(refused > 0);
  CHECK(walked > 0);
}
