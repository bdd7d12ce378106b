//===- jitrun.cpp - the jitrun command line ------------------------------===//
//
// Compiles a model for this host and runs it: inputs from flags or .npy
// files, results printed or written as .npy, statistics and latency on
// request. Flags follow iree-run-module. Exit status 1 on any bad input.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"
#include "fusion/Passes.h"
#include "runtime/InputSpec.h"
#include "runtime/Model.h"
#include "runtime/Npy.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace llvm;

namespace {
cl::OptionCategory category("jitrun options");
cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.mlirbc|model.mlir>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> function("function", cl::desc("Entry point (default: the only public function, else @main)"),
                              cl::cat(category));
cl::list<std::string> inputs("input",
                             cl::desc("An input: 2x3xf32=1,2,3,4,5,6, 2x3xf32=1 (fill), 2x3xf32 (seeded random) or @file.npy; one per argument"),
                             cl::cat(category));
cl::list<std::string> outputs("output", cl::desc("Write the matching result: @file.npy (one per result)"),
                              cl::cat(category));
cl::list<std::string> expectedOutputs("expected_output",
                                      cl::desc("Compare the matching result with this value or @file.npy; exit 1 on mismatch"),
                                      cl::cat(category));
cl::opt<double> absTol("expected_atol", cl::desc("Absolute tolerance of --expected_output"), cl::init(1e-4),
                     cl::cat(category));
cl::opt<double> relTol("expected_rtol", cl::desc("Relative tolerance of --expected_output"), cl::init(1e-4),
                     cl::cat(category));
cl::opt<std::string> fusion("fusion", cl::desc("default|aggressive|none"), cl::init("default"),
                            cl::cat(category));
cl::opt<std::string> dumpStatistics("dump-statistics", cl::desc("json|csv|pretty"), cl::init(""),
                                    cl::cat(category));
cl::opt<std::string> dumpStatisticsFile("dump-statistics-file",
                                        cl::desc("Where statistics go (default: stdout)"), cl::init("-"),
                                        cl::cat(category));
cl::opt<std::string> dumpDispatchGraph("dump-dispatch-graph",
                                       cl::desc("Write the host program as a Graphviz graph of dispatches"),
                                       cl::value_desc("FILE.dot"), cl::cat(category));
cl::opt<uint64_t> stackLimit("stack-allocation-limit", cl::desc("Largest static stack allocation per kernel, bytes"),
                             cl::init(32768), cl::cat(category));
cl::opt<bool> failOnStack("fail-on-out-of-bounds-stack-allocation",
                          cl::desc("Fail (true) or warn (false) over the stack limit"), cl::init(true),
                          cl::cat(category));
cl::opt<unsigned> benchmark("benchmark", cl::desc("Run N times after one warm-up and print latency"),
                            cl::init(0), cl::cat(category));
cl::opt<bool> reference("reference",
                        cl::desc("Run the slow, simple reference path: no fusion, tiling or vectors, one thread"),
                        cl::init(false), cl::cat(category));
cl::opt<bool> forceAvx2("force-avx2", cl::desc("Generate AVX2 code even on AVX-512 hosts"), cl::init(false),
                        cl::cat(category));
cl::opt<bool> explainFusion("explain-fusion",
                            cl::desc("Print one line per producer/consumer pair that was not "
                                     "fused, with both locations and the rule that refused it"),
                            cl::init(false), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"), cl::init(0), cl::cat(category));
} // namespace

static int fail(const Twine &msg) {
  std::string text = msg.str();
  StringRef t(text);
  if (!t.starts_with("jitrun: ") && !t.contains(": error: "))
    errs() << "jitrun: error: ";
  errs() << t.rtrim() << "\n";
  return 1;
}

static void printStatistics(raw_ostream &os, const jitrun::Statistics &s, StringRef kind,
                            StringRef model) {
  if (kind == "json") {
    os << "{\"function\": \"" << s.function << "\", \"fusion\": \"" << s.fusion << "\", "
       << "\"generic_before\": " << s.genericBefore << ", \"generic_after\": " << s.genericAfter
       << ", \"root_ops\": " << s.rootOps << ", \"dispatch_regions\": " << s.dispatchRegions
       << ", \"dispatches\": " << s.dispatches << ", \"executables\": " << s.executables
       << ", \"fills\": " << s.fills << ", \"copies\": " << s.copies
       << ", \"workgroups\": " << s.workgroups << ", \"transient_bytes\": " << s.transientBytes
       << ", \"stack_bytes_max\": " << s.stackBytesMax
       << ", \"vector_kernels\": " << s.vectorizedOps
       << ", \"scalar_kernels\": " << s.scalarOps
       << ", \"compile_seconds\": " << format("%.3f", s.compileSeconds) << "}\n";
  } else if (kind == "csv") {
    os << "Model,Fills,Copies,Dispatches,Executables,Generic Before,Generic After,DispatchWorkgroups\n";
    os << model << "," << s.fills << "," << s.copies << "," << s.dispatches << ","
       << s.executables << "," << s.genericBefore << "," << s.genericAfter << ","
       << s.dispatchRegions << "\n";
  } else {
    auto row = [&](StringRef k, int64_t v) {
      os << "  " << k;
      for (size_t i = k.size(); i < 20; ++i)
        os << ' ';
      os << v << "\n";
    };
    os << "statistics for @" << s.function << " (fusion " << s.fusion << "):\n";
    row("generic_before", s.genericBefore);
    row("generic_after", s.genericAfter);
    row("root_ops", s.rootOps);
    row("dispatch_regions", s.dispatchRegions);
    row("dispatches", s.dispatches);
    row("executables", s.executables);
    row("fills", s.fills);
    row("copies", s.copies);
    row("workgroups", s.workgroups);
    row("transient_bytes", s.transientBytes);
    row("stack_bytes_max", s.stackBytesMax);
    row("vector_kernels", s.vectorizedOps);
    row("scalar_kernels", s.scalarOps);
    os << "  compile_seconds     " << format("%.3f", s.compileSeconds) << "\n";
  }
}

/// `--threads` is parsed here: libLLVM registers an option of that name.
/// Returns false (with a message) on a bad value.
static bool extractThreads(std::vector<char *> &args, unsigned &threads) {
  for (size_t i = 1; i < args.size(); ++i) {
    StringRef a(args[i]);
    if (a == "--")
      break;
    StringRef rest = a.ltrim('-');
    if (a == rest || !rest.starts_with("threads"))
      continue;
    StringRef tail = rest.drop_front(strlen("threads"));
    StringRef value;
    size_t consumed = 1;
    if (tail.starts_with("=")) {
      value = tail.drop_front();
    } else if (tail.empty()) {
      if (i + 1 >= args.size()) {
        errs() << "jitrun: error: --threads needs a value\n";
        return false;
      }
      value = args[i + 1];
      consumed = 2;
    } else {
      continue;
    }
    if (value.empty() || value.getAsInteger(10, threads) || threads > 1024) {
      errs() << "jitrun: error: --threads takes a whole number from 1 to 1024 (0: all cores), not '"
             << value << "'\n";
      return false;
    }
    args.erase(args.begin() + i, args.begin() + i + consumed);
    --i;
  }
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  std::vector<char *> argvList(argv, argv + argc);
  unsigned threads = 0;
  if (!extractThreads(argvList, threads))
    return 1;
  argc = static_cast<int>(argvList.size());
  argvList.push_back(nullptr);
  argv = argvList.data();
  // Named so that --mlir-print-ir-after=PASS and friends can refer to them.
  jitrun::registerFusionPasses();
  jitrun::registerCodegenPasses();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "jitrun: compile an MLIR model for this CPU and run it\n");

  if (!dumpStatistics.empty() && dumpStatistics != "json" && dumpStatistics != "csv" &&
      dumpStatistics != "pretty")
    return fail("--dump-statistics must be json, csv or pretty, not '" + dumpStatistics + "'");
  if (fusion != "default" && fusion != "aggressive" && fusion != "none")
    return fail("--fusion must be default, aggressive or none, not '" + fusion + "'");
  if (dumpDispatchGraph.getNumOccurrences() && dumpDispatchGraph.empty())
    return fail("--dump-dispatch-graph needs a file name: --dump-dispatch-graph=FILE.dot");
  for (const std::string &o : outputs)
    if (!StringRef(o).starts_with("@") || o.size() < 2)
      return fail("--output must be @FILE.npy, not '" + o + "'");

  jitrun::CompileOptions options;
  options.function = function;
  options.fusion = fusion;
  options.reference = reference;
  options.forceAvx2 = forceAvx2;
  options.stackLimitBytes = stackLimit;
  options.failOnStackLimit = failOnStack;
  options.explainFusion = explainFusion;
  options.dispatchGraphPath = dumpDispatchGraph;
  options.configurePassManager = [](mlir::PassManager &pm) {
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return;
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
  };

  // Inputs are parsed before compiling so that a bad value fails fast.
  std::vector<jitrun::HostTensor> inputTensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto t = jitrun::parseInputSpec(inputs[i], seed + i);
    if (!t)
      return fail("--input " + Twine(i) + ": " + toString(t.takeError()));
    inputTensors.push_back(std::move(*t));
  }
  std::vector<jitrun::HostTensor> expected;
  for (size_t i = 0; i < expectedOutputs.size(); ++i) {
    auto t = jitrun::parseInputSpec(expectedOutputs[i], seed + 1000 + i);
    if (!t)
      return fail("--expected_output " + Twine(i) + ": " + toString(t.takeError()));
    expected.push_back(std::move(*t));
  }

  auto model = jitrun::CompiledModel::compileFile(modelPath, options);
  if (!model)
    return fail(toString(model.takeError()));
  for (const std::string &w : (*model)->warnings())
    errs() << StringRef(w).rtrim() << "\n";
  for (const std::string &e : (*model)->fusionExplanations())
    outs() << e << "\n";
  const auto &specs = (*model)->inputs();
  if (inputTensors.size() != specs.size()) {
    std::string want;
    for (const auto &s : specs)
      want += " " + s.str();
    return fail("expected " + Twine(specs.size()) + " inputs (" + StringRef(want).trim() +
                "), got " + Twine(inputTensors.size()) + " --input flags");
  }
  if (outputs.size() > (*model)->outputs().size())
    return fail("got " + Twine(outputs.size()) + " --output flags for " +
                Twine((*model)->outputs().size()) + " results");
  if (expected.size() > (*model)->outputs().size())
    return fail("got " + Twine(expected.size()) + " --expected_output flags for " +
                Twine((*model)->outputs().size()) + " results");

  jitrun::ThreadPool pool(reference ? 1 : threads);
  std::vector<const jitrun::HostTensor *> args;
  for (const auto &t : inputTensors)
    args.push_back(&t);
  auto results = (*model)->run(args, pool);
  if (!results)
    return fail(toString(results.takeError()));

  int status = 0;
  for (size_t i = 0; i < results->size(); ++i) {
    const jitrun::HostTensor &r = (*results)[i];
    if (i < outputs.size()) {
      if (Error e = jitrun::writeNpy(StringRef(outputs[i]).drop_front(), r))
        return fail("--output " + Twine(i) + ": " + toString(std::move(e)));
    } else if (expected.empty()) {
      outs() << "result[" << i << "]: ";
      jitrun::printTensor(outs(), r);
      outs() << "\n";
    }
    if (i < expected.size()) {
      if (Error e = jitrun::compareTensors(r, expected[i], absTol, relTol)) {
        errs() << "jitrun: error: result " << i << " does not match --expected_output: "
               << toString(std::move(e)) << "\n";
        status = 1;
      } else {
        outs() << "result[" << i << "]: matches the expected output\n";
      }
    }
  }
  outs().flush();

  if (!dumpStatistics.empty()) {
    std::error_code ec;
    raw_fd_ostream file(dumpStatisticsFile, ec, sys::fs::OF_Text);
    if (ec)
      return fail("cannot write statistics to '" + dumpStatisticsFile + "': " + ec.message());
    printStatistics(file, (*model)->statistics(), dumpStatistics, sys::path::stem(modelPath));
  }

  if (benchmark > 0) {
    std::vector<double> ms;
    for (unsigned i = 0; i < benchmark; ++i) {
      auto start = std::chrono::steady_clock::now();
      auto r = (*model)->run(args, pool);
      if (!r)
        return fail(toString(r.takeError()));
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
    }
    std::sort(ms.begin(), ms.end());
    outs() << "latency_ms min=" << format("%.3f", ms.front())
           << " median=" << format("%.3f", ms[ms.size() / 2])
           << " max=" << format("%.3f", ms.back()) << "\n";
  }
  return status;
}
