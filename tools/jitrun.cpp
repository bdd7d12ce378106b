//===- jitrun.cpp - the jitrun command line ------------------------------===//
//
// Compiles a model for this host and runs it: inputs from flags or .npy
// files, results printed or written as .npy, statistics and latency on
// request. Flags follow iree-run-module. Exit status 1 on any bad input.
//
//===----------------------------------------------------------------------===//

#include "support/Files.h"
#include "support/InputSpec.h"
#include "api/Model.h"
#include "tools/cli/HostPeak.h"
#include "support/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <thread>

using namespace llvm;

namespace {
cl::OptionCategory category("jitrun options");
cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.mlirbc|model.mlir|model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> function("function", cl::desc("Entry point (default: the only public function, else @main)"),
                              cl::cat(category));
cl::list<std::string> inputs("input",
                             cl::desc("An input: 2x3xf32=1,2,3,4,5,6, 2x3xf32=1 (fill), 2x3xf32 (seeded random) or @file.npy; one per argument"),
                             cl::cat(category));
cl::list<std::string> inputShapes("input-shape",
                                  cl::desc("A static shape for a model input with symbolic dims: NAME:1x3x224x224 (ONNX)"),
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
cl::opt<std::string> printSignature(
    "print-signature", cl::ValueOptional,
    cl::desc("Print the model's inputs and outputs (names, shapes, types) without compiling "
             "it, as text or (=json) JSON, and exit"),
    cl::cat(category));
cl::opt<unsigned> benchmark("benchmark", cl::desc("Run N times after one warm-up and print latency"),
                            cl::init(0), cl::cat(category));
cl::opt<bool> reference("reference",
                        cl::desc("Run the slow, simple reference path: no fusion, tiling or vectors, one thread"),
                        cl::init(false), cl::cat(category));
cl::opt<bool> forceAvx2("force-avx2", cl::desc("Generate AVX2 code even on AVX-512 hosts"), cl::init(false),
                        cl::cat(category));
cl::opt<std::string> cacheDir("cache-dir",
                              cl::desc("Persistent kernel cache: a second start of a model skips "
                                       "codegen and LLVM for kernels compiled before"),
                              cl::value_desc("PATH"), cl::cat(category));
cl::opt<bool> explainFusion("explain-fusion",
                            cl::desc("Print one line per producer/consumer pair that was not "
                                     "fused, with both locations and the rule that refused it"),
                            cl::init(false), cl::cat(category));
cl::opt<bool> profileFlag("profile",
                          cl::desc("Print a per-dispatch table: time, share, GFLOP/s or GB/s, % of "
                                   "the host's measured peak"),
                          cl::init(false), cl::cat(category));
cl::opt<uint64_t> memoryLimit("memory-limit",
                               cl::desc("Most host memory the model may allocate (constants, one "
                                        "run's intermediates, results), bytes; 0: no limit"),
                               cl::init(0), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"), cl::init(0), cl::cat(category));
} // namespace

/// A warning of the library as jitrun prints it: located ones as they are,
/// the rest behind `jitrun: warning: `.
static std::string warningText(StringRef w) {
  w = w.rtrim();
  if (w.contains(": warning: "))
    return w.str();
  if (w.consume_front("warning: "))
    return ("jitrun: warning: " + w).str();
  return ("jitrun: warning: " + w).str();
}

/// Prints an error of the library or of the flags: located ones as they are,
/// the rest behind `jitrun: error: `; exit status 1.
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
       << ", \"intermediate_bytes\": " << s.intermediateBytes
       << ", \"stack_bytes_max\": " << s.stackBytesMax
       << ", \"vector_kernels\": " << s.vectorizedOps
       << ", \"scalar_kernels\": " << s.scalarOps
       << ", \"vnni_kernels\": " << s.vnniKernels
       << ", \"cached_kernels\": " << s.cachedKernels
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
    row("intermediate_bytes", s.intermediateBytes);
    row("stack_bytes_max", s.stackBytesMax);
    row("vector_kernels", s.vectorizedOps);
    row("scalar_kernels", s.scalarOps);
    row("vnni_kernels", s.vnniKernels);
    row("cached_kernels", s.cachedKernels);
    os << "  compile_seconds     " << format("%.3f", s.compileSeconds) << "\n";
  }
}

/// The --profile table: one line per host-program command in run order,
/// then the total (see README.md, "The CLI").
static void printProfile(raw_ostream &os, const jitrun::Profile &p, const jitrun::cli::HostPeak &peak,
                         double wallSeconds) {
  double runs = static_cast<double>(std::max<int64_t>(1, p.runs));
  double totalSeconds = 0, totalFlops = 0, totalBytes = 0;
  size_t nameWidth = 5, opWidth = 2;
  for (const jitrun::CommandProfile &c : p.commands) {
    totalSeconds += c.seconds / runs;
    totalFlops += c.flops;
    totalBytes += static_cast<double>(c.bytes);
    nameWidth = std::max(nameWidth, c.name.size());
    opWidth = std::max(opWidth, c.op.size());
  }
  double balance = peak.gflops / std::max(peak.triadGBs, 1e-9); // FLOPs per byte
  auto pad = [&](StringRef s, size_t w) {
    os << s;
    for (size_t i = s.size(); i < w; ++i)
      os << ' ';
  };
  auto line = [&](StringRef name, StringRef op, double seconds, double flops, double bytes) {
    os << "profile: ";
    pad(name, nameWidth);
    os << ' ';
    pad(op, opWidth);
    double share = totalSeconds > 0 ? 100.0 * seconds / totalSeconds : 0.0;
    os << format(" %10.4f %6.1f%%", seconds * 1e3, share);
    double gflops = seconds > 0 ? flops / seconds / 1e9 : 0;
    double gbs = seconds > 0 ? bytes / seconds / 1e9 : 0;
    if (flops > 0 && seconds > 0)
      os << format(" %10.2f", gflops);
    else
      os << format(" %10s", "-");
    if (seconds > 0)
      os << format(" %9.2f", gbs);
    else
      os << format(" %9s", "-");
    bool computeBound = flops > 0 && (bytes <= 0 || flops / bytes >= balance);
    if (seconds <= 0)
      os << format(" %6s  %s", "-", "-");
    else if (computeBound)
      os << format(" %6.1f%%  %s", 100.0 * gflops / peak.gflops, "flops");
    else
      os << format(" %6.1f%%  %s", 100.0 * gbs / peak.triadGBs, "bw");
    os << "\n";
  };
  os << "profile: host peak " << format("%.2f", peak.gflops) << " GFLOP/s fp32 on "
     << peak.threads << " thread" << (peak.threads == 1 ? "" : "s") << " (" << peak.isa
     << ", " << jitrun::cli::kFmaChains << " FMA chains; 1 thread " << format("%.2f", peak.gflops1)
     << "), triad " << format("%.2f", peak.triadGBs) << " GB/s; " << p.runs << " timed run"
     << (p.runs == 1 ? "" : "s") << ", wall " << format("%.4f", wallSeconds * 1e3)
     << " ms/run\n";
  os << "profile: ";
  pad("name", nameWidth);
  os << ' ';
  pad("op", opWidth);
  os << format(" %10s %7s %10s %9s %7s  %s\n", "ms", "share", "GFLOP/s", "GB/s", "%peak",
               "bound");
  for (const jitrun::CommandProfile &c : p.commands)
    line(c.name, c.op, c.seconds / runs, c.flops, static_cast<double>(c.bytes));
  line("total", "-", totalSeconds, totalFlops, totalBytes);
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


/// `NAME:DIMS` of --input-shape, split at the last ':' (ONNX names may hold
/// ':'); nullopt if malformed.
static std::optional<std::pair<std::string, std::vector<int64_t>>> parseInputShape(StringRef spec) {
  size_t colon = spec.rfind(':');
  if (colon == StringRef::npos || colon == 0 || colon + 1 == spec.size())
    return std::nullopt;
  SmallVector<StringRef> parts;
  spec.substr(colon + 1).split(parts, 'x');
  std::vector<int64_t> dims;
  for (StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0)
      return std::nullopt;
    dims.push_back(d);
  }
  return std::make_pair(spec.substr(0, colon).str(), std::move(dims));
}


/// `s` as a JSON string, escaped.
static std::string jsonString(StringRef s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20)
      out += llvm::formatv("\\u{0:x-4}", static_cast<unsigned>(c)).str();
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

/// --print-signature: the entry point's inputs and outputs, text or JSON.
static void printSignatureOf(raw_ostream &os, const jitrun::CompiledModel &model, bool json) {
  auto list = [&](const std::vector<jitrun::TensorSpec> &specs) {
    std::string out;
    for (const jitrun::TensorSpec &s : specs) {
      if (json) {
        out += out.empty() ? "" : ", ";
        out += "{\"name\": " + jsonString(s.name) + ", \"shape\": [";
        for (size_t i = 0; i < s.shape.size(); ++i)
          out += (i ? ", " : "") + std::to_string(s.shape[i]);
        out += "], \"dtype\": " + jsonString(jitrun::elementTypeName(s.type)) + "}";
      } else {
        out += "  " + (s.name.empty() ? std::string("-") : s.name) + "  " + s.str() + "\n";
      }
    }
    return out;
  };
  const std::string &function = model.statistics().function;
  if (json)
    os << "{\"function\": " << jsonString(function) << ", \"inputs\": [" << list(model.inputs())
       << "], \"outputs\": [" << list(model.outputs()) << "]}\n";
  else
    os << "function @" << function << "\ninputs:\n" << list(model.inputs()) << "outputs:\n"
       << list(model.outputs());
}

static int run(int argc, char **argv);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // InitLLVM makes a failed `new` abort ("LLVM ERROR: out of memory"); the
  // library turns std::bad_alloc into a clean error instead, as it does for
  // the C API, so let `new` throw.
  std::set_new_handler(nullptr);
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  }
}

static int run(int argc, char **argv) {
  std::vector<char *> argvList(argv, argv + argc);
  unsigned threads = 0;
  if (!extractThreads(argvList, threads))
    return 1;
  argc = static_cast<int>(argvList.size());
  argvList.push_back(nullptr);
  argv = argvList.data();
  // --mlir-print-ir-after=PASS and friends.
  jitrun::registerCompilerCommandLineOptions();
  // --help shows jitrun's flags; LLVM's and MLIR's (--mlir-print-ir-after-all,
  // --mlir-timing, ...) still parse, and --help-hidden lists them.
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "jitrun: compile an MLIR or ONNX model for this CPU and run it\n");

  if (!dumpStatistics.empty() && dumpStatistics != "json" && dumpStatistics != "csv" &&
      dumpStatistics != "pretty")
    return fail("--dump-statistics must be json, csv or pretty, not '" + dumpStatistics + "'");
  for (auto *tol : {&absTol, &relTol})
    if (!std::isfinite(*tol) || *tol < 0)
      return fail("--" + tol->ArgStr + " must be a finite number of at least 0, not " +
                  std::to_string(*tol));
  std::optional<jitrun::FusionMode> fusionMode = jitrun::parseFusionMode(fusion);
  if (!fusionMode)
    return fail(std::string("--fusion must be ") + jitrun::kFusionModeNames + ", not '" +
                fusion + "'");
  if (dumpDispatchGraph.getNumOccurrences() && dumpDispatchGraph.empty())
    return fail("--dump-dispatch-graph needs a file name: --dump-dispatch-graph=FILE.dot");
  for (const std::string &o : outputs)
    if (!StringRef(o).starts_with("@") || o.size() < 2)
      return fail("--output must be @FILE.npy, not '" + o + "'");

  jitrun::CompileOptions options;
  options.function = function;
  for (const std::string &spec : inputShapes) {
    std::optional<std::pair<std::string, std::vector<int64_t>>> shape = parseInputShape(spec);
    if (!shape)
      return fail("--input-shape must be NAME:DIMS (e.g. input:1x3x224x224), not '" + spec + "'");
    options.inputShapes.push_back(std::move(*shape));
  }
  options.fusion = *fusionMode;
  options.reference = reference;
  options.forceAvx2 = forceAvx2;
  options.stackLimitBytes = stackLimit;
  options.failOnStackLimit = failOnStack;
  options.explainFusion = explainFusion;
  options.memoryLimitBytes = memoryLimit;
  if (cacheDir.getNumOccurrences() && cacheDir.empty())
    return fail("--cache-dir needs a directory");
  options.cacheDir = cacheDir;
  options.dispatchGraphPath = dumpDispatchGraph;
  options.configurePassManager = jitrun::commandLinePassManagerOptions();

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

  if (printSignature.getNumOccurrences()) {
    if (printSignature != "" && printSignature != "json" && printSignature != "text")
      return fail("--print-signature takes =json or =text, not '" + printSignature + "'");
    options.signatureOnly = true;
    auto model = jitrun::CompiledModel::compileFile(modelPath, options);
    if (!model)
      return fail(toString(model.takeError()));
    printSignatureOf(outs(), **model, printSignature == "json");
    outs().flush();
    return outs().has_error() ? fail("cannot write to standard output") : 0;
  }
  auto model = jitrun::CompiledModel::compileFile(modelPath, options);
  if (!model)
    return fail(toString(model.takeError()));
  for (const std::string &w : (*model)->warnings())
    errs() << warningText(w) << "\n";
  for (const std::string &e : (*model)->fusionExplanations())
    outs() << e << "\n";
  const auto &specs = (*model)->inputs();
  if (inputTensors.size() != specs.size()) {
    std::string want;
    for (const auto &s : specs)
      want += (want.empty() ? "" : ", ") + s.described();
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
    std::string text;
    raw_string_ostream os(text);
    printStatistics(os, (*model)->statistics(), dumpStatistics, sys::path::stem(modelPath));
    if (dumpStatisticsFile == "-") {
      outs() << text;
      outs().flush();
    } else if (Error e = jitrun::writeFileSafely(dumpStatisticsFile, text)) {
      return fail("cannot write statistics: " + toString(std::move(e)));
    }
  }

  // --profile times the --benchmark runs, else one more run.
  if (profileFlag)
    (*model)->setProfiling(true);
  auto profileStart = std::chrono::steady_clock::now();
  if (profileFlag && benchmark == 0) {
    auto r = (*model)->run(args, pool);
    if (!r)
      return fail(toString(r.takeError()));
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
  if (profileFlag) {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                profileStart)
                      .count();
    (*model)->setProfiling(false);
    jitrun::Profile profile = (*model)->profile();
    wall /= static_cast<double>(std::max<int64_t>(1, profile.runs));
    jitrun::cli::HostPeak peak = jitrun::cli::measureHostPeak(pool.numThreads(), forceAvx2);
    printProfile(outs(), profile, peak, wall);
  }
  outs().flush();
  if (outs().has_error()) {
    outs().clear_error();
    return fail("cannot write to standard output");
  }
  return status;
}
