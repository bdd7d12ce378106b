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
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
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
                             cl::desc("An input: 2x3xf32=1,2,3,4,5,6, 2x3xf32=1 (fill), 2x3xf32 (seeded random) or @file.npy; one per argument, and more sets of them run the model again"),
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
                                        cl::desc("Write the statistics to FILE (default, or '-': "
                                                 "standard error)"),
                                        cl::value_desc("FILE"), cl::cat(category));
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
cl::opt<bool> printSplitDims(
    "print-split-dims",
    cl::desc("For a model with dynamic dims: print which of them it computes index by index "
             "(a run at a new size can be split into sizes already compiled: the API's "
             "tiered and split shape policies), imported once per dim, and exit"),
    cl::init(false), cl::cat(category));
cl::opt<unsigned> benchmark("benchmark",
                            cl::desc("Run N times after one warm-up and print the latency: min, "
                                     "median, max, mean, p90, p99, stddev, throughput"),
                            cl::init(0), cl::cat(category));
cl::opt<std::string> benchmarkJson("benchmark-json",
                                   cl::desc("Also write the --benchmark figures as JSON to FILE "
                                            "('-': standard error)"),
                                   cl::value_desc("FILE"), cl::cat(category));
cl::opt<bool> reference("reference",
                        cl::desc("Run the slow, simple reference path: no fusion, tiling or vectors, one thread"),
                        cl::init(false), cl::cat(category));
cl::opt<std::string> weights("weights",
                             cl::desc("Weights of matmuls and 1x1 convolutions (and, on AMX "
                                      "hosts, of the KxK convolutions the tiles take): f32 "
                                      "(default) or bf16 (f32 weights "
                                      "stored as bf16, inputs rounded to bf16, f32 "
                                      "accumulation)"),
                             cl::init("f32"), cl::cat(category));
cl::opt<bool> genericKernels(
    "generic-kernels",
    cl::desc("Dispatches that differ only in the size of one dim (DenseNet's growing channel "
             "counts) share one kernel, the dim passed at run time: fewer kernels to compile "
             "(default true; false: every shape its own kernel)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> amx("amx",
                  cl::desc("bf16 and int8 matmuls and convolutions in AMX tiles where the "
                           "host has AMX (default true; false: AVX-512 dot products)"),
                  cl::init(true), cl::cat(category));
cl::opt<bool> forceAvx2("force-avx2", cl::desc("Generate AVX2 code even on AVX-512 hosts"), cl::init(false),
                        cl::cat(category));
cl::opt<std::string> cacheDir("cache-dir",
                              cl::desc("The cache of compiled kernels and fused programs: a second "
                                       "start of a model skips import, fusion and codegen (default: "
                                       "$JITRUN_CACHE_DIR, else $XDG_CACHE_HOME/jitrun, else "
                                       "~/.cache/jitrun)"),
                              cl::value_desc("PATH"), cl::cat(category));
cl::opt<bool> noCache("no-cache", cl::desc("Neither read nor write the cache"), cl::init(false),
                      cl::cat(category));
cl::opt<uint64_t> cacheMaxBytes("cache-max-bytes",
                                cl::desc("The cache folder's size cap: least recently used "
                                         "entries go when a compile leaves it larger (0: no cap)"),
                                cl::init(uint64_t(1) << 30), cl::cat(category));
cl::opt<bool> explainFusion("explain-fusion",
                            cl::desc("Print one line per producer/consumer pair that was not "
                                     "fused, with both locations and the rule that refused it"),
                            cl::init(false), cl::cat(category));
cl::opt<bool> profileFlag("profile",
                          cl::desc("Print a per-dispatch table: time, share, GFLOP/s or GB/s, % of "
                                   "the host's measured peak"),
                          cl::init(false), cl::cat(category));
cl::opt<std::string> profileJson("profile-json",
                                 cl::desc("Also write the --profile table as JSON to FILE "
                                          "('-': standard error)"),
                                 cl::value_desc("FILE"), cl::cat(category));
cl::opt<std::string> profileSort("profile-sort",
                                 cl::desc("Order of the --profile rows: run (run order) or time "
                                          "(slowest first)"),
                                 cl::init("run"), cl::cat(category));
cl::opt<cl::boolOrDefault> progressFlag(
    "progress",
    cl::desc("Show compile progress on standard error (default: when it is a terminal and "
             "compiling takes over a second)"),
    cl::cat(category));
cl::opt<uint64_t> memoryLimit("memory-limit",
                               cl::desc("Most host memory the model may allocate (constants, one "
                                        "run's intermediates, results), bytes; 0: no limit"),
                               cl::init(0), cl::cat(category));
cl::opt<std::string> shapePolicy(
    "shape-policy",
    cl::desc("What a run of a dynamic model at new shapes waits for (several --input sets): "
             "specialize (compile them), tiered (default), split, buckets or generic (see the API)"),
    cl::init("tiered"), cl::cat(category));
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

/// The statistics' integer fields, in the order every format prints them.
static std::vector<std::pair<const char *, int64_t>> statisticsFields(const jitrun::Statistics &s) {
  return {{"generic_before", s.genericBefore},   {"generic_after", s.genericAfter},
          {"root_ops", s.rootOps},               {"dispatch_regions", s.dispatchRegions},
          {"dispatches", s.dispatches},          {"executables", s.executables},
          {"fills", s.fills},                    {"copies", s.copies},
          {"workgroups", s.workgroups},          {"transient_bytes", s.transientBytes},
          {"intermediate_bytes", s.intermediateBytes}, {"stack_bytes_max", s.stackBytesMax},
          {"vector_kernels", s.vectorizedOps},   {"scalar_kernels", s.scalarOps},
          {"vnni_kernels", s.vnniKernels},       {"amx_kernels", s.amxKernels},
          {"cached_kernels", s.cachedKernels},   {"cached_program", s.cachedProgram},
          {"generic_kernels", s.genericKernels}, {"mapped_constant_bytes", s.mappedConstantBytes},
          {"reused_weight_bytes", s.reusedWeightBytes}};
}

static void printStatistics(raw_ostream &os, const jitrun::Statistics &s, StringRef kind,
                            StringRef model) {
  if (kind == "json") {
    json::OStream j(os);
    j.object([&] {
      j.attribute("function", s.function);
      j.attribute("fusion", s.fusion);
      for (const auto &[name, value] : statisticsFields(s))
        j.attribute(name, value);
      j.attribute("compile_seconds", s.compileSeconds);
    });
    os << "\n";
  } else if (kind == "csv") {
    os << "Model,Fills,Copies,Dispatches,Executables,Generic Before,Generic After,DispatchWorkgroups\n";
    os << model << "," << s.fills << "," << s.copies << "," << s.dispatches << ","
       << s.executables << "," << s.genericBefore << "," << s.genericAfter << ","
       << s.dispatchRegions << "\n";
  } else {
    os << "statistics for @" << s.function << " (fusion " << s.fusion << "):\n";
    for (const auto &[name, value] : statisticsFields(s))
      os << "  " << left_justify(name, 20) << value << "\n";
    os << "  compile_seconds     " << format("%.3f", s.compileSeconds) << "\n";
  }
}

/// One row of the --profile table: per-run time and the rates it implies.
struct ProfileRow {
  std::string name, op, location;
  double seconds = 0, flops = 0, bytes = 0;
  int64_t workgroups = 0;
  double gflops() const { return seconds > 0 ? flops / seconds / 1e9 : 0; }
  double gbs() const { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
  /// "flops" or "bw": which of the host's peaks bounds the row ("-": none).
  std::string bound(double balance) const {
    if (seconds <= 0)
      return "-";
    return flops > 0 && (bytes <= 0 || flops / bytes >= balance) ? "flops" : "bw";
  }
  double percentOfPeak(const jitrun::cli::HostPeak &peak, double balance) const {
    std::string b = bound(balance);
    return b == "flops" ? 100.0 * gflops() / peak.gflops
           : b == "bw"  ? 100.0 * gbs() / peak.triadGBs
                        : 0.0;
  }
};

/// The profiled commands as rows (per run), sorted as --profile-sort asks,
/// then the total.
static std::vector<ProfileRow> profileRows(const jitrun::Profile &p, bool byTime) {
  double runs = static_cast<double>(std::max<int64_t>(1, p.runs));
  std::vector<ProfileRow> rows;
  ProfileRow total{"total", "-", "", 0, 0, 0};
  for (const jitrun::CommandProfile &c : p.commands) {
    rows.push_back(ProfileRow{c.name, c.op, c.location, c.seconds / runs, c.flops,
                              static_cast<double>(c.bytes), c.workgroups});
    total.seconds += rows.back().seconds;
    total.flops += c.flops;
    total.bytes += static_cast<double>(c.bytes);
  }
  if (byTime)
    std::stable_sort(rows.begin(), rows.end(), [](const ProfileRow &a, const ProfileRow &b) {
      return a.seconds > b.seconds;
    });
  rows.push_back(total);
  return rows;
}

/// The whole model against the host's roofline: its root ops' FLOPs and the
/// bytes that must move at least once per run (weights, inputs, results),
/// the time the host's measured peak and triad bandwidth allow for them, and
/// the share of the measured time per run that limit is.
struct ModelRoofline {
  double flops = 0, bytes = 0, limitSeconds = 0, measuredSeconds = 0;
  std::string bound;
  double efficiency() const { return measuredSeconds > 0 ? limitSeconds / measuredSeconds : 0; }
};

static ModelRoofline modelRoofline(const std::vector<ProfileRow> &rows,
                                   const jitrun::CompiledModel &model,
                                   const jitrun::cli::HostPeak &peak, double wallSeconds) {
  ModelRoofline r;
  r.flops = rows.back().flops; // the total row
  r.bytes = static_cast<double>(model.statistics().constantBytes);
  for (const auto *specs : {&model.inputs(), &model.outputs()})
    for (const jitrun::TensorSpec &s : *specs) {
      double n = static_cast<double>(jitrun::elementSize(s.type));
      for (int64_t d : s.shape)
        n *= static_cast<double>(d);
      r.bytes += n;
    }
  double computeSeconds = r.flops / std::max(peak.gflops * 1e9, 1.0);
  double memorySeconds = r.bytes / std::max(peak.triadGBs * 1e9, 1.0);
  r.limitSeconds = std::max(computeSeconds, memorySeconds);
  r.bound = computeSeconds >= memorySeconds ? "flops" : "bw";
  r.measuredSeconds = wallSeconds;
  return r;
}

/// The --profile table: one line per host-program command (run order or
/// slowest first), then the total (see README.md, "The CLI").
static void printProfile(raw_ostream &os, const std::vector<ProfileRow> &rows,
                         int64_t runs, const jitrun::cli::HostPeak &peak, double wallSeconds,
                         const ModelRoofline &roofline) {
  double totalSeconds = rows.back().seconds;
  size_t nameWidth = 5, opWidth = 2;
  for (const ProfileRow &r : rows) {
    nameWidth = std::max(nameWidth, r.name.size());
    opWidth = std::max(opWidth, r.op.size());
  }
  double balance = peak.gflops / std::max(peak.triadGBs, 1e-9); // FLOPs per byte
  auto pad = [&](StringRef s, size_t w) {
    os << s;
    for (size_t i = s.size(); i < w; ++i)
      os << ' ';
  };
  os << "profile: host peak " << format("%.2f", peak.gflops) << " GFLOP/s fp32 on "
     << peak.threads << " thread" << (peak.threads == 1 ? "" : "s") << " (" << peak.isa
     << ", " << jitrun::cli::kFmaChains << " FMA chains; 1 thread " << format("%.2f", peak.gflops1)
     << "), triad " << format("%.2f", peak.triadGBs) << " GB/s; " << runs << " timed run"
     << (runs == 1 ? "" : "s") << ", wall " << format("%.4f", wallSeconds * 1e3)
     << " ms/run\n";
  os << "profile: ";
  pad("name", nameWidth);
  os << ' ';
  pad("op", opWidth);
  os << format(" %10s %7s %10s %9s %7s  %-5s  %s\n", "ms", "share", "GFLOP/s", "GB/s", "%peak",
               "bound", "source");
  for (const ProfileRow &r : rows) {
    os << "profile: ";
    pad(r.name, nameWidth);
    os << ' ';
    pad(r.op, opWidth);
    double share = totalSeconds > 0 ? 100.0 * r.seconds / totalSeconds : 0.0;
    os << format(" %10.4f %6.1f%%", r.seconds * 1e3, share);
    if (r.flops > 0 && r.seconds > 0)
      os << format(" %10.2f", r.gflops());
    else
      os << format(" %10s", "-");
    if (r.seconds > 0)
      os << format(" %9.2f", r.gbs());
    else
      os << format(" %9s", "-");
    std::string bound = r.bound(balance);
    if (bound == "-")
      os << format(" %6s  %-5s", "-", "-");
    else
      os << format(" %6.1f%%  %-5s", r.percentOfPeak(peak, balance), bound.c_str());
    os << "  " << (r.location.empty() ? "-" : r.location) << "\n";
  }
  os << format("profile: roofline: %.3f GFLOP and %.2f MB that must move (weights, inputs, "
               "results): at least %.4f ms (%s); measured %.4f ms/run: %.1f%% of the roofline\n",
               roofline.flops / 1e9, roofline.bytes / 1e6, roofline.limitSeconds * 1e3,
               roofline.bound.c_str(), roofline.measuredSeconds * 1e3,
               100.0 * roofline.efficiency());
}

/// --profile-json: the host's peaks and the same rows as the table.
static void writeProfileJson(raw_ostream &os, const std::vector<ProfileRow> &rows, int64_t runs,
                             const jitrun::cli::HostPeak &peak, double wallSeconds,
                             const ModelRoofline &roofline) {
  double balance = peak.gflops / std::max(peak.triadGBs, 1e-9);
  json::OStream j(os);
  j.object([&] {
    j.attributeObject("host", [&] {
      j.attribute("isa", peak.isa);
      j.attribute("threads", static_cast<int64_t>(peak.threads));
      j.attribute("peak_gflops", peak.gflops);
      j.attribute("peak_gflops_1_thread", peak.gflops1);
      j.attribute("triad_gbs", peak.triadGBs);
    });
    j.attribute("runs", runs);
    j.attribute("wall_ms", wallSeconds * 1e3);
    j.attributeObject("roofline", [&] {
      j.attribute("flops", roofline.flops);
      j.attribute("bytes", roofline.bytes);
      j.attribute("limit_ms", roofline.limitSeconds * 1e3);
      j.attribute("bound", roofline.bound);
      j.attribute("measured_ms", roofline.measuredSeconds * 1e3);
      j.attribute("efficiency", roofline.efficiency());
    });
    j.attributeArray("commands", [&] {
      for (const ProfileRow &r : rows) {
        j.object([&] {
          j.attribute("name", r.name);
          j.attribute("op", r.op);
          j.attribute("location", r.location);
          j.attribute("ms", r.seconds * 1e3);
          j.attribute("flops", r.flops);
          j.attribute("bytes", r.bytes);
          j.attribute("gflops", r.gflops());
          j.attribute("gbs", r.gbs());
          j.attribute("percent_of_peak", r.percentOfPeak(peak, balance));
          j.attribute("bound", r.bound(balance));
          j.attribute("workgroups", r.workgroups);
        });
      }
    });
  });
  os << "\n";
}

/// Writes `text` to FILE, or to standard error for "-"; an error message,
/// or "" on success.
static std::string writeReport(StringRef file, StringRef text) {
  if (file == "-") {
    errs() << text;
    return "";
  }
  if (Error e = jitrun::writeFileSafely(file, text))
    return toString(std::move(e));
  return "";
}

/// --threads. libMLIR registers an option of that name (with no help), so
/// that one is renamed out of the way first and jitrun's own is registered
/// after it, listed in --help like every other flag.
static cl::opt<unsigned> &threadsOption() {
  auto &registered = cl::getRegisteredOptions();
  auto it = registered.find("threads");
  if (it != registered.end())
    it->second->setArgStr("jitrun-llvm-threads");
  static cl::opt<unsigned> threads(
      "threads", cl::desc("Worker threads running each kernel's workgroups, the caller "
                          "included (0: one per core)"),
      cl::init(0), cl::cat(category));
  return threads;
}

/// --version: jitrun's version, then LLVM's and the code this host gets.
static void printVersion(raw_ostream &os) {
  os << "jitrun " << JITRUN_VERSION << "\n  built with LLVM " << LLVM_VERSION_STRING
     << " (MLIR " << LLVM_VERSION_STRING << "), code for: " << sys::getHostCPUName() << "\n";
}

/// The --progress line: how far a compile is, on standard error. On a
/// terminal one line is rewritten in place; elsewhere (with --progress) a
/// line is printed at most every half second and when the kernels are done.
class ProgressLine {
public:
  ProgressLine(bool forced, bool disabled)
      : enabled(!disabled && (forced || sys::Process::StandardErrIsDisplayed())),
        terminal(sys::Process::StandardErrIsDisplayed()), forced(forced),
        start(std::chrono::steady_clock::now()) {}
  void operator()(const char *phase, size_t done, size_t total) {
    if (!enabled)
      return;
    double elapsed = secondsSince(start);
    // Quiet for the first second unless asked for: quick compiles say nothing.
    if (!forced && elapsed < 1.0)
      return;
    bool last = std::string(phase) == "compile" && done == total;
    if (!terminal && !last && printed && secondsSince(lastPrint) < 0.5)
      return;
    std::string text = std::string(phase) == "read"   ? "reading the model"
                       : std::string(phase) == "fuse" ? "fusing"
                                                      : "compiling kernels " +
                                                            std::to_string(done) + "/" +
                                                            std::to_string(total);
    errs() << (terminal ? "\r\x1b[K" : "") << "jitrun: " << text << " ("
           << format("%.1f", elapsed) << " s)" << (terminal ? "" : "\n");
    printed = true;
    lastPrint = std::chrono::steady_clock::now();
  }
  /// Clears the terminal line once compiling is over.
  void finish() {
    if (enabled && terminal && printed)
      errs() << "\r\x1b[K";
  }

private:
  static double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  bool enabled, terminal, forced, printed = false;
  std::chrono::steady_clock::time_point start, lastPrint;
};

/// --benchmark's figures over the sorted latencies `ms`.
struct BenchmarkSummary {
  double min, median, max, mean, p90, p99, stddev, throughput;
  unsigned threads;
  size_t runs;
};

static BenchmarkSummary summarize(std::vector<double> ms, unsigned threads) {
  std::sort(ms.begin(), ms.end());
  // Nearest rank: the smallest value with at least p% of the runs at or below it.
  auto percentile = [&](double p) {
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(ms.size())));
    return ms[std::min(ms.size(), std::max<size_t>(rank, 1)) - 1];
  };
  double sum = 0;
  for (double v : ms)
    sum += v;
  double mean = sum / static_cast<double>(ms.size());
  double var = 0;
  for (double v : ms)
    var += (v - mean) * (v - mean);
  double stddev = ms.size() > 1 ? std::sqrt(var / static_cast<double>(ms.size() - 1)) : 0.0;
  return BenchmarkSummary{ms.front(), percentile(50), ms.back(), mean, percentile(90),
                          percentile(99), stddev, mean > 0 ? 1000.0 / mean : 0.0,
                          threads, ms.size()};
}

static void printBenchmark(raw_ostream &os, const BenchmarkSummary &b) {
  os << format("latency_ms min=%.3f median=%.3f max=%.3f mean=%.3f p90=%.3f p99=%.3f "
               "stddev=%.3f\n",
               b.min, b.median, b.max, b.mean, b.p90, b.p99, b.stddev)
     << format("throughput %.1f runs/s on %u thread%s (%zu runs after a warm-up)\n",
               b.throughput, b.threads, b.threads == 1 ? "" : "s", b.runs);
}

static void writeBenchmarkJson(raw_ostream &os, const BenchmarkSummary &b) {
  json::OStream j(os);
  j.object([&] {
    j.attribute("runs", static_cast<int64_t>(b.runs));
    j.attribute("threads", static_cast<int64_t>(b.threads));
    j.attribute("min_ms", b.min);
    j.attribute("median_ms", b.median);
    j.attribute("p50_ms", b.median);
    j.attribute("p90_ms", b.p90);
    j.attribute("p99_ms", b.p99);
    j.attribute("max_ms", b.max);
    j.attribute("mean_ms", b.mean);
    j.attribute("stddev_ms", b.stddev);
    j.attribute("throughput_per_s", b.throughput);
  });
  os << "\n";
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


/// --print-signature: the entry point's inputs and outputs, text or JSON.
static void printSignatureOf(raw_ostream &os, const jitrun::CompiledModel &model, bool json) {
  const std::string &function = model.function();
  if (json) {
    json::OStream j(os);
    auto list = [&](const std::vector<jitrun::TensorSpec> &specs) {
      for (const jitrun::TensorSpec &s : specs)
        j.object([&] {
          j.attribute("name", s.name);
          j.attributeArray("shape", [&] {
            for (int64_t d : s.shape)
              j.value(d);
          });
          j.attribute("dtype", jitrun::elementTypeName(s.type));
          if (s.dynamic())
            j.attributeArray("dims", [&] {
              for (size_t d = 0; d < s.shape.size(); ++d)
                j.value(d < s.dimNames.size() ? s.dimNames[d] : "");
            });
        });
    };
    j.object([&] {
      j.attribute("function", function);
      j.attributeArray("inputs", [&] { list(model.inputs()); });
      j.attributeArray("outputs", [&] { list(model.outputs()); });
    });
    os << "\n";
    return;
  }
  auto list = [&](const std::vector<jitrun::TensorSpec> &specs) {
    std::string out;
    for (const jitrun::TensorSpec &s : specs) {
      out += "  " + (s.name.empty() ? std::string("-") : s.name) + "  " + s.str();
      // Dynamic dims by name: dims of one name are equal at run time.
      std::string dims;
      for (size_t d = 0; d < s.shape.size(); ++d)
        if (s.shape[d] < 0)
          dims += (dims.empty() ? "" : ", ") + std::string("dim ") + std::to_string(d) +
                  (d < s.dimNames.size() && !s.dimNames[d].empty() ? " '" + s.dimNames[d] + "'"
                                                                   : std::string());
      out += (dims.empty() ? std::string() : "  (dynamic: " + dims + ")") + "\n";
    }
    return out;
  };
  os << "function @" << function << "\ninputs:\n" << list(model.inputs()) << "outputs:\n"
     << list(model.outputs());
}

static int run(int argc, char **argv);

int main(int argc, char **argv) {
  // A shell that ignores SIGXFSZ (`trap '' XFSZ` under `ulimit -f`) wants a
  // write past the limit to fail with EFBIG, which jitrun reports as a
  // warning; InitLLVM's crash handler would take the signal instead and
  // print a crash report with a stack dump. Ignored stays ignored.
  struct sigaction inherited {};
  bool xfszIgnored = sigaction(SIGXFSZ, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN;
  InitLLVM init(argc, argv);
  if (xfszIgnored)
    signal(SIGXFSZ, SIG_IGN);
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
  // --mlir-print-ir-after=PASS and friends.
  jitrun::registerCompilerCommandLineOptions();
  cl::opt<unsigned> &threadsFlag = threadsOption();
  // --help shows jitrun's flags; LLVM's and MLIR's (--mlir-print-ir-after-all,
  // --mlir-timing, ...) still parse, and --help-hidden lists them.
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(argc, argv, "jitrun: compile an MLIR or ONNX model for this CPU and run it\n");
  unsigned threads = threadsFlag;
  if (threads > 1024)
    return fail("--threads takes a whole number from 1 to 1024 (0: all cores), not " +
                Twine(threads));
  if (profileSort != "run" && profileSort != "time")
    return fail("--profile-sort must be run or time, not '" + profileSort + "'");
  for (cl::opt<std::string> *file : {&benchmarkJson, &profileJson, &dumpStatisticsFile})
    if (file->getNumOccurrences() && file->empty())
      return fail("--" + file->ArgStr + " needs a file name (or '-')");

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
  options.amx = amx;
  options.genericKernels = genericKernels;
  if (weights != "f32" && weights != "bf16")
    return fail("--weights must be f32 or bf16, not '" + weights + "'");
  options.bf16Weights = weights == "bf16";
  std::optional<jitrun::ShapePolicy> policy = jitrun::parseShapePolicy(shapePolicy);
  if (!policy)
    return fail("--shape-policy must be " + Twine(jitrun::kShapePolicyNames) + ", not '" +
                shapePolicy + "'");
  options.shapePolicy = *policy;
  options.stackLimitBytes = stackLimit;
  options.failOnStackLimit = failOnStack;
  options.explainFusion = explainFusion;
  options.memoryLimitBytes = memoryLimit;
  if (cacheDir.getNumOccurrences() && cacheDir.empty())
    return fail("--cache-dir needs a directory (--no-cache turns the cache off)");
  if (cacheDir.getNumOccurrences())
    options.cacheDir = cacheDir;
  if (noCache)
    options.cacheDir.clear();
  options.cacheMaxBytes = cacheMaxBytes;
  options.dispatchGraphPath = dumpDispatchGraph;
  options.configurePassManager = jitrun::commandLinePassManagerOptions();
  ProgressLine progress(progressFlag == cl::BOU_TRUE, progressFlag == cl::BOU_FALSE);
  options.progress = [&](const char *phase, size_t done, size_t total) {
    progress(phase, done, total);
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
  if (printSplitDims) {
    options.signatureOnly = true;
    auto model = jitrun::CompiledModel::compileFile(modelPath, options);
    if (!model)
      return fail(toString(model.takeError()));
    if (!(*model)->dynamic())
      return fail("'" + modelPath + "' has no dynamic dims");
    for (const jitrun::DimAnalysis &d : (*model)->analyzeDims()) {
      outs() << "'" << d.name << "': ";
      if (!d.independent) {
        outs() << "mixed (a new size compiles)\n";
        continue;
      }
      outs() << "index by index (results' dims";
      for (int64_t o : d.outputDims)
        outs() << " " << o;
      outs() << ")\n";
    }
    outs().flush();
    return outs().has_error() ? fail("cannot write to standard output") : 0;
  }
  auto model = jitrun::CompiledModel::compileFile(modelPath, options);
  progress.finish();
  if (!model)
    return fail(toString(model.takeError()));
  for (const std::string &w : (*model)->warnings())
    errs() << warningText(w) << "\n";
  for (const std::string &e : (*model)->fusionExplanations())
    outs() << e << "\n";
  // One set of --input flags per run, in order: several sets run the model
  // several times in this process (a dynamic model at each set's shapes).
  const auto &specs = (*model)->inputs();
  size_t numResults = (*model)->outputs().size();
  size_t sets = specs.empty() ? 1 : inputTensors.size() / specs.size();
  if (specs.empty() ? !inputTensors.empty()
                    : inputTensors.empty() || inputTensors.size() % specs.size() != 0) {
    std::string want, flags;
    for (const auto &s : specs) {
      want += (want.empty() ? "" : ", ") + s.described();
      // A dynamic dim takes any size: 1 in the suggestion.
      jitrun::TensorSpec example = s;
      for (int64_t &d : example.shape)
        d = d < 0 ? 1 : d;
      flags += " --input=" + example.str();
    }
    return fail("expected " + Twine(specs.size()) + " inputs (" + StringRef(want).trim() +
                "), got " + Twine(inputTensors.size()) +
                " --input flags (one per input, or a whole set per run); to run it on seeded "
                "random data:" +
                flags);
  }
  if (outputs.size() > sets * numResults)
    return fail("got " + Twine(outputs.size()) + " --output flags for " +
                Twine(sets * numResults) + " results");
  if (expected.size() > sets * numResults)
    return fail("got " + Twine(expected.size()) + " --expected_output flags for " +
                Twine(sets * numResults) + " results");
  bool profiling = profileFlag || !profileJson.empty();
  if (sets > 1 && (!benchmarkJson.empty() || !profileJson.empty()))
    return fail("--benchmark-json and --profile-json take one set of --input flags, not " +
                Twine(sets) + " (--benchmark and --profile print one table per set)");

  jitrun::ThreadPool pool(reference ? 1 : threads);
  // The host's peak and bandwidth, probed once for every set's profile.
  std::optional<jitrun::cli::HostPeak> peak;
  int status = 0;
  for (size_t set = 0; set < sets; ++set) {
    // With several sets, every line a set prints names it.
    std::string prefix = sets > 1 ? "run[" + std::to_string(set) + "] " : "";
    std::vector<const jitrun::HostTensor *> args;
    for (size_t i = 0; i < specs.size(); ++i)
      args.push_back(&inputTensors[set * specs.size() + i]);
    auto results = (*model)->run(args, pool);
    if (!results)
      return fail((sets > 1 ? "input set " + Twine(set) + ": " : Twine()) +
                  toString(results.takeError()));
    for (size_t i = 0; i < results->size(); ++i) {
      const jitrun::HostTensor &r = (*results)[i];
      size_t flag = set * numResults + i;
      if (flag < outputs.size()) {
        if (Error e = jitrun::writeNpy(StringRef(outputs[flag]).drop_front(), r))
          return fail("--output " + Twine(flag) + ": " + toString(std::move(e)));
      } else if (expected.empty()) {
        outs() << prefix << "result[" << i << "]: ";
        jitrun::printTensor(outs(), r);
        outs() << "\n";
      }
      if (flag < expected.size()) {
        if (Error e = jitrun::compareTensors(r, expected[flag], absTol, relTol)) {
          errs() << "jitrun: error: " << prefix << "result " << i
                 << " does not match --expected_output: " << toString(std::move(e)) << "\n";
          status = 1;
        } else {
          outs() << prefix << "result[" << i << "]: matches the expected output\n";
        }
      }
    }
    outs().flush();

    // --profile times the --benchmark runs, else one more run.
    if (profiling)
      (*model)->setProfiling(true);
    auto profileStart = std::chrono::steady_clock::now();
    if (profiling && benchmark == 0) {
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
      BenchmarkSummary summary = summarize(std::move(ms), pool.numThreads());
      if (sets > 1)
        outs() << prefix << "benchmark\n";
      printBenchmark(outs(), summary);
      if (!benchmarkJson.empty()) {
        std::string text;
        raw_string_ostream os(text);
        writeBenchmarkJson(os, summary);
        if (std::string e = writeReport(benchmarkJson, text); !e.empty())
          return fail("cannot write the benchmark: " + e);
      }
    }
    if (profiling) {
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                  profileStart)
                        .count();
      (*model)->setProfiling(false);
      jitrun::Profile profile = (*model)->profile();
      wall /= static_cast<double>(std::max<int64_t>(1, profile.runs));
      if (!peak)
        peak = jitrun::cli::measureHostPeak(pool.numThreads(), forceAvx2);
      std::vector<ProfileRow> rows = profileRows(profile, profileSort == "time");
      ModelRoofline roofline = modelRoofline(rows, **model, *peak, wall);
      if (profileFlag) {
        if (sets > 1)
          outs() << prefix << "profile\n";
        printProfile(outs(), rows, profile.runs, *peak, wall, roofline);
      }
      if (!profileJson.empty()) {
        std::string text;
        raw_string_ostream os(text);
        writeProfileJson(os, rows, profile.runs, *peak, wall, roofline);
        if (std::string e = writeReport(profileJson, text); !e.empty())
          return fail("cannot write the profile: " + e);
      }
    }
  }

  // The statistics of the compile that ran last (a dynamic model: the
  // last set's shapes).
  if (!dumpStatistics.empty()) {
    std::string text;
    raw_string_ostream os(text);
    printStatistics(os, (*model)->statistics(), dumpStatistics, sys::path::stem(modelPath));
    if (std::string e = writeReport(dumpStatisticsFile.empty() ? StringRef("-") : StringRef(dumpStatisticsFile), text);
        !e.empty())
      return fail("cannot write statistics: " + e);
  }
  outs().flush();
  if (outs().has_error()) {
    outs().clear_error();
    return fail("cannot write to standard output");
  }
  return status;
}
