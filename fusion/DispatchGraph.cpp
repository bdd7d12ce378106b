//===- DispatchGraph.cpp - the host program as a Graphviz graph ----------===//
//
// Writes the host function left by dispatch formation as a dot graph: one
// node per dispatch call, fill and copy command, one per function argument
// and one for the results; edges follow SSA def-use, looking through
// reshapes and casts (which the host program aliases, not copies), so that
// each edge starts at the command that really produces the data. Constants
// (weights) and tensor.empty get no nodes: they are not commands.
//
//===----------------------------------------------------------------------===//

#include "fusion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <string>
#include <tuple>

using namespace mlir;

namespace jitrun {
namespace {

/// Escapes `s` for a double-quoted dot string. Newlines become dot's `\n`
/// line breaks; every other backslash is doubled so that dot's escapes
/// (`\N`, `\G`, `\l`, ...) never fire by accident.
std::string dotEscape(llvm::StringRef s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// The size of a statically shaped tensor, in bytes as the host program
/// stores it (i1 takes a byte); nullopt when not computable.
std::optional<uint64_t> tensorBytes(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return std::nullopt;
  Type et = rt.getElementType();
  uint64_t eb;
  if (et.isIntOrFloat())
    eb = (et.getIntOrFloatBitWidth() + 7) / 8;
  else if (et.isIndex())
    eb = 8;
  else
    return std::nullopt;
  return eb * static_cast<uint64_t>(rt.getNumElements());
}

/// Sum of tensorBytes over `types`, "?" when any is unknown.
std::string bytesStr(TypeRange types) {
  uint64_t total = 0;
  for (Type t : types) {
    if (!isa<ShapedType>(t))
      continue; // scalars
    std::optional<uint64_t> b = tensorBytes(t);
    if (!b)
      return "?";
    total += *b;
  }
  return std::to_string(total);
}

/// "1x32x32x16xf32" for a ranked tensor, the full type otherwise.
std::string shapeStr(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return typeStr(t);
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : rt.getShape()) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
    os << "x";
  }
  rt.getElementType().print(os);
  return s;
}

/// Ops the host program treats as aliases of their source.
std::optional<Value> aliasSource(Operation *op) {
  if (auto r = dyn_cast<tensor::ExpandShapeOp>(op))
    return r.getSrc();
  if (auto r = dyn_cast<tensor::CollapseShapeOp>(op))
    return r.getSrc();
  if (auto r = dyn_cast<tensor::CastOp>(op))
    return r.getSource();
  if (auto r = dyn_cast<tensor::ReshapeOp>(op))
    return r.getSource();
  if (auto r = dyn_cast<tensor::BitcastOp>(op))
    return r.getSource();
  return std::nullopt;
}

struct Node {
  std::string id, label, shape, color, style = "filled";
};

class GraphWriter {
public:
  explicit GraphWriter(func::FuncOp host) : host(host) {}

  void write(llvm::raw_ostream &os) {
    build();
    os << "// jitrun dispatch graph of @" << dotEscape(host.getSymName()) << ": " << numDispatches
       << " dispatches, " << numFills << " fills, " << numCopies << " copies\n";
    os << "digraph dispatches {\n";
    os << "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"@" << dotEscape(host.getSymName())
       << "\", labelloc=t];\n";
    os << "  node [fontname=\"Helvetica\", fontsize=10];\n";
    os << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    for (const Node &n : nodes)
      os << "  " << n.id << " [label=\"" << dotEscape(n.label) << "\", shape=" << n.shape
         << ", style=\"" << n.style << "\", fillcolor=\"" << n.color << "\"];\n";
    // Inputs on top, results at the bottom.
    if (!inputIds.empty()) {
      os << "  { rank=source;";
      for (const std::string &id : inputIds)
        os << " " << id << ";";
      os << " }\n";
    }
    if (hasResults)
      os << "  { rank=sink; out; }\n";
    for (const auto &[from, to, label] : edges)
      os << "  " << from << " -> " << to << " [label=\"" << dotEscape(label) << "\"];\n";
    os << "}\n";
  }

private:
  func::FuncOp host;
  std::vector<Node> nodes;
  std::vector<std::string> inputIds;
  /// (from, to, label) in first-seen order; `seenEdges` drops repeats.
  std::vector<std::tuple<std::string, std::string, std::string>> edges;
  std::set<std::tuple<std::string, std::string, std::string>> seenEdges;
  /// The node producing each value that carries data (after aliasing).
  llvm::DenseMap<Value, std::string> producer;
  unsigned numDispatches = 0, numFills = 0, numCopies = 0, numOther = 0;
  bool hasResults = false;

  /// The node `v` comes from, looking through reshapes and casts; empty for
  /// constants, tensor.empty and scalars.
  std::string producerOf(Value v) {
    for (;;) {
      auto it = producer.find(v);
      if (it != producer.end())
        return it->second;
      Operation *def = v.getDefiningOp();
      if (!def)
        return {};
      std::optional<Value> src = aliasSource(def);
      if (!src)
        return {};
      v = *src;
    }
  }

  void addEdge(Value v, const std::string &to, llvm::StringRef prefix = "") {
    std::string from = producerOf(v);
    if (from.empty())
      return;
    std::tuple<std::string, std::string, std::string> e{from, to,
                                                        (prefix + typeStr(v.getType())).str()};
    if (seenEdges.insert(e).second)
      edges.push_back(std::move(e));
  }

  std::string addNode(std::string id, std::string label, llvm::StringRef shape,
                      llvm::StringRef color, llvm::StringRef style = "filled") {
    nodes.push_back(Node{id, std::move(label), shape.str(), color.str(), style.str()});
    return id;
  }

  void build() {
    for (BlockArgument arg : host.getArguments()) {
      std::string label = "input " + std::to_string(arg.getArgNumber()) + "\n" +
                          shapeStr(arg.getType()) + "\n" + bytesStr(TypeRange{arg.getType()}) +
                          " bytes";
      std::string id =
          addNode("in" + std::to_string(arg.getArgNumber()), label, "ellipse", "lightgrey");
      inputIds.push_back(id);
      producer[arg] = id;
    }
    if (host.getBody().empty())
      return;
    for (Operation &op : host.getBody().front())
      visit(&op);
  }

  void visit(Operation *op) {
    if (isa<arith::ConstantOp, tensor::EmptyOp>(op) || aliasSource(op))
      return;
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      if (callee && callee->hasAttr(kDispatchAttrName)) {
        visitDispatch(call, callee);
        return;
      }
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      std::string label = "results";
      for (Type t : ret.getOperandTypes())
        label += "\n" + shapeStr(t);
      label += "\n" + bytesStr(ret.getOperandTypes()) + " bytes";
      std::string id = addNode("out", label, "doubleoctagon", "lightgrey");
      hasResults = true;
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        addEdge(v, id, ret.getNumOperands() > 1 ? "#" + std::to_string(i) + " " : "");
      return;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      std::string value;
      Value scalar = fill.getDpsInputOperand(0)->get();
      if (auto cst = scalar.getDefiningOp<arith::ConstantOp>()) {
        llvm::raw_string_ostream os(value);
        if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
          os << " " << llvm::format("%g", f.getValueAsDouble());
        else if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
          os << " " << i.getValue();
      }
      std::string label = "fill" + (value.empty() ? "" : " =" + value) + "\n" +
                          shapeStr(fill.getResult(0).getType()) + "\nbytes out " +
                          bytesStr(fill->getResultTypes());
      std::string id =
          addNode("fill" + std::to_string(numFills++), label, "parallelogram", "lightgoldenrod1");
      for (Value v : fill.getDpsInits())
        addEdge(v, id);
      setProducer(op, id);
      return;
    }
    if (isa<tensor::InsertSliceOp, tensor::ExtractSliceOp, linalg::CopyOp>(op)) {
      std::string what = op->getName().getStringRef().str();
      // The bytes moved: the slice (insert source, extract result, copy input).
      Type moved = op->getResult(0).getType();
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        moved = insert.getSourceType();
      std::string label = "copy (" + what + ")\n" + shapeStr(moved) + " -> " +
                          shapeStr(op->getResult(0).getType()) + "\n" + "bytes " +
                          bytesStr(TypeRange{moved});
      std::string id = addNode("copy" + std::to_string(numCopies++), label, "hexagon", "palegreen");
      for (Value v : op->getOperands())
        if (isa<ShapedType>(v.getType()))
          addEdge(v, id);
      setProducer(op, id);
      return;
    }
    // Anything else the host program would have to run itself.
    if (op->getNumResults() == 0 && op->getNumOperands() == 0)
      return;
    std::string label = op->getName().getStringRef().str();
    for (Type t : op->getResultTypes())
      label += "\n" + shapeStr(t);
    std::string id = addNode("op" + std::to_string(numOther++), label, "box", "white");
    for (Value v : op->getOperands())
      addEdge(v, id);
    setProducer(op, id);
  }

  void visitDispatch(func::CallOp call, func::FuncOp callee) {
    unsigned numLinalg = 0;
    callee.walk([&](linalg::LinalgOp) { ++numLinalg; });
    Operation *root = dispatchRootOp(callee);
    std::string label = callee.getSymName().str() + "\n" +
                        (root ? root->getName().getStringRef().str() : "(no linalg op)") + "\n" +
                        std::to_string(numLinalg) + " linalg op" + (numLinalg == 1 ? "" : "s");
    for (Type t : call.getResultTypes())
      label += "\n-> " + shapeStr(t);
    label += "\nbytes in " + bytesStr(call.getOperandTypes()) + ", out " +
             bytesStr(call.getResultTypes());
    std::string id =
        addNode("d" + std::to_string(numDispatches++), label, "box", "lightblue", "rounded,filled");
    for (Value v : call.getOperands())
      addEdge(v, id);
    setProducer(call, id);
  }

  void setProducer(Operation *op, const std::string &id) {
    for (Value r : op->getResults())
      producer[r] = id;
  }
};

} // namespace

void writeDispatchGraph(func::FuncOp host, llvm::raw_ostream &os) { GraphWriter(host).write(os); }

} // namespace jitrun
