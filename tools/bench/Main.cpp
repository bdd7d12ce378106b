//===- Main.cpp - jitrun vs oneDNN, side by side in one process -----------===//
//
// A benchmark, not a test: it compiles a fixed set of kernels (matmuls,
// convolutions, a fused matmul epilogue, an element-wise chain; Cases.cpp)
// with jitrun, runs the equivalent oneDNN primitives on the same data, checks
// the results against each other once, and prints throughputs and their
// ratio. It never fails on the machine's noise; it exits non-zero only on a
// setup error.
//
//===----------------------------------------------------------------------===//

#include "api/Model.h"
#include "bench/Cases.h"
#include "support/Tensor.h"
#include "support/ThreadPool.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using jitrun::ElementType;
using jitrun::HostTensor;
using jitrun::bench::Case;
using jitrun::bench::CaseFactory;

namespace {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

struct BenchOptions {
  unsigned threads = 1;
  std::string jsonPath = "bench.json";
  std::string filter;
  /// If set, each kernel's module is written to DIR/NAME.mlir (to replay it
  /// with `jitrun --profile`).
  std::string dumpDir;
  int trials = 5;
  double minSeconds = 0.3;
  int minIters = 5;
};

void usage() {
  llvm::outs()
      << "usage: jitrun-bench [--threads=N] [--json=PATH] [--filter=SUBSTR]\n"
         "                    [--trials=N] [--min-time=SECONDS] [--min-iters=N]\n"
         "  --threads=N      threads for jitrun and for oneDNN (default 1)\n"
         "  --json=PATH      results file (default bench.json)\n"
         "  --filter=SUBSTR  only kernels whose name contains SUBSTR\n"
         "  --dump-mlir=DIR  write each kernel's module to DIR/NAME.mlir\n"
         "  --trials=N       trials per side, the best is reported (default 5)\n"
         "  --min-time=S     minimum duration of one trial (default 0.3)\n"
         "  --min-iters=N    minimum iterations of one trial (default 5)\n";
}

bool parseArgs(int argc, char **argv, BenchOptions &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *prefix, std::string &out) {
      size_t n = std::string(prefix).size();
      if (a.compare(0, n, prefix) != 0)
        return false;
      out = a.substr(n);
      return true;
    };
    std::string v;
    try {
      if (a == "--help" || a == "-h") {
        usage();
        std::exit(0);
      } else if (value("--threads=", v)) {
        long t = std::stol(v);
        if (t < 1 || t > 1024)
          throw std::invalid_argument("range");
        o.threads = static_cast<unsigned>(t);
      } else if (value("--json=", v)) {
        o.jsonPath = v;
      } else if (value("--dump-mlir=", v)) {
        o.dumpDir = v;
      } else if (value("--filter=", v)) {
        o.filter = v;
      } else if (value("--trials=", v)) {
        o.trials = std::max(1, std::stoi(v));
      } else if (value("--min-time=", v)) {
        o.minSeconds = std::max(0.0, std::stod(v));
      } else if (value("--min-iters=", v)) {
        o.minIters = std::max(1, std::stoi(v));
      } else {
        llvm::errs() << "jitrun-bench: error: unknown argument '" << a << "'\n";
        usage();
        return false;
      }
    } catch (const std::exception &) {
      llvm::errs() << "jitrun-bench: error: bad value in '" << a << "'\n";
      return false;
    }
  }
  return true;
}

/// oneDNN here is built on OpenMP; set its thread count through libgomp,
/// which libdnnl has already loaded (no link-time dependency on it).
void setOneDnnThreads(unsigned n) {
  using Fn = void (*)(int);
  if (auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads")))
    fn(static_cast<int>(n));
  else
    llvm::errs() << "jitrun-bench: warning: omp_set_num_threads not found; "
                    "oneDNN uses its default thread count\n";
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Runs `fn` for at least `minSeconds` and `minIters` iterations; returns
/// seconds per iteration.
double trial(const std::function<void()> &fn, double minSeconds, int minIters) {
  int iters = 0;
  Clock::time_point start = Clock::now();
  double elapsed = 0;
  do {
    fn();
    ++iters;
    elapsed = secondsSince(start);
  } while (iters < minIters || elapsed < minSeconds);
  return elapsed / iters;
}

struct Result {
  std::string name, unit, error, onednnImpl, warning;
  double jitrun = 0, onednn = 0, compileMs = 0, maxDiff = 0, tolerance = 0;
  double jitrunSec = 0, onednnSec = 0;
  int trials = 0, minIters = 0;
  int64_t dispatches = 0, executables = 0, scalarOps = 0, vectorizedOps = 0;
};

std::string jsonString(const std::string &s) {
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      r += '\\';
      r += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      r += buf;
    } else {
      r += ch;
    }
  }
  return r + "\"";
}

std::string num(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Result runCase(Case &c, const BenchOptions &o, jitrun::ThreadPool &pool) {
  Result r;
  r.name = c.name;
  r.unit = c.bandwidth ? "GB/s" : c.integer ? "GOP/s" : "GFLOP/s";
  r.onednnImpl = c.ref->implementation();
  r.tolerance = c.integer ? 0 : 1e-3 * std::sqrt(c.reduction);

  Clock::time_point compileStart = Clock::now();
  jitrun::CompileOptions options;
  options.cacheDir.clear(); // the compile time reported is a cold compile's
  auto model = jitrun::CompiledModel::compileBuffer(c.mlir, c.name + ".mlir", options);
  double compileWall = secondsSince(compileStart);
  std::unique_ptr<jitrun::CompiledModel> m;
  if (!model) {
    r.error = "compile: " + llvm::toString(model.takeError());
  } else {
    m = std::move(*model);
    const jitrun::Statistics &s = m->statistics();
    r.compileMs = 1e3 * (s.compileSeconds > 0 ? s.compileSeconds : compileWall);
    r.dispatches = s.dispatches;
    r.executables = s.executables;
    r.scalarOps = s.scalarOps;
    r.vectorizedOps = s.vectorizedOps;
  }

  std::vector<const HostTensor *> args;
  for (const HostTensor &t : c.inputs)
    args.push_back(&t);
  std::string runError;
  // Result tensors are allocated once, as an application would: the timed
  // runs write into them.
  std::vector<HostTensor> results;
  if (m)
    for (const jitrun::TensorSpec &spec : m->outputs())
      results.emplace_back(spec.type, spec.shape);
  auto runJitrun = [&] {
    if (llvm::Error e = m->runInto(args, results, pool)) {
      if (runError.empty())
        runError = llvm::toString(std::move(e));
      else
        llvm::consumeError(std::move(e));
    }
  };
  auto runOneDnn = [&] { c.ref->run(); };

  // Warm up once each and check jitrun against oneDNN.
  Clock::time_point t0 = Clock::now();
  runOneDnn();
  double oneDnnWarm = secondsSince(t0);
  double jitrunWarm = 0;
  if (m) {
    t0 = Clock::now();
    auto out = m->run(args, pool);
    jitrunWarm = secondsSince(t0);
    if (!out) {
      r.error = "run: " + llvm::toString(out.takeError());
      m.reset();
    } else {
      HostTensor expected = c.expected();
      const HostTensor &actual = (*out)[0];
      if (actual.shape() != expected.shape()) {
        r.error = "result shape " + actual.typeString() + " vs oneDNN " +
                  expected.typeString();
        m.reset();
      } else {
        double worst = 0;
        for (int64_t i = 0; i < actual.numElements(); ++i) {
          double d = std::fabs(actual.getAsDouble(i) - expected.getAsDouble(i));
          if (!(d <= worst)) // also catches NaN
            worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
        }
        r.maxDiff = worst;
        if (worst > r.tolerance)
          r.warning = "max abs diff " + num(worst) + " exceeds " +
                      (c.integer ? std::string("0 (exact)") : "1e-3*sqrt(K) = " + num(r.tolerance));
      }
    }
  }

  // A slow side gets fewer iterations so that the whole run stays short.
  double slowest = std::max(oneDnnWarm, jitrunWarm);
  r.trials = o.trials;
  r.minIters = o.minIters;
  if (slowest * o.minIters > 4 * o.minSeconds)
    r.minIters = std::max(1, static_cast<int>(std::ceil(o.minSeconds / slowest)));
  if (slowest * r.minIters * r.trials > 20)
    r.trials = std::max(2, static_cast<int>(20 / (slowest * r.minIters)));

  double bestJ = std::numeric_limits<double>::infinity(), bestO = bestJ;
  for (int t = 0; t < r.trials; ++t) {
    // Alternate the two sides so both see the same machine conditions.
    if (m)
      bestJ = std::min(bestJ, trial(runJitrun, o.minSeconds, r.minIters));
    bestO = std::min(bestO, trial(runOneDnn, o.minSeconds, r.minIters));
  }
  if (!runError.empty() && r.error.empty())
    r.error = "run: " + runError;
  double scale = 1e-9 * c.work;
  r.onednnSec = bestO;
  r.onednn = scale / bestO;
  if (m && runError.empty()) {
    r.jitrunSec = bestJ;
    r.jitrun = scale / bestJ;
  }
  return r;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  BenchOptions o;
  if (!parseArgs(argc, argv, o))
    return 1;
  setOneDnnThreads(o.threads);
  jitrun::ThreadPool pool(o.threads);

  llvm::outs() << "jitrun-bench: jitrun vs oneDNN " << jitrun::testing::onednn::version()
               << ", f32, "
               << o.threads << " thread(s) each, same inputs, one process\n"
               << "Timing: one warm-up, then best of " << o.trials
               << " trials per side (each >= " << num(o.minSeconds) << " s and >= "
               << o.minIters << " iterations), trials of the two sides alternate.\n"
               << "ratio = jitrun / onednn (>1: jitrun faster). compile = jitrun "
                  "compile time of the module. maxdiff = max |jitrun - onednn|.\n"
               << "Note: these are best-of-N numbers on a shared, noisy machine; "
                  "compare ratios, not absolute values.\n";
  llvm::outs().flush();

  std::vector<Result> results;
  bool anyFailed = false;
  for (auto &[name, make] : jitrun::bench::allCases()) {
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos)
      continue;
    Result r;
    try {
      Case c = make();
      if (!o.dumpDir.empty()) {
        std::error_code ec;
        llvm::raw_fd_ostream f(o.dumpDir + "/" + c.name + ".mlir", ec);
        if (ec)
          llvm::errs() << "jitrun-bench: warning: cannot write to " << o.dumpDir
                       << ": " << ec.message() << "\n";
        else
          f << c.mlir;
      }
      r = runCase(c, o, pool);
    } catch (const std::exception &e) { // oneDNN reports failures as dnnl::error
      r.name = name;
      r.error = std::string("oneDNN: ") + e.what();
    }
    char line[512];
    if (r.onednn > 0 && r.jitrun > 0)
      std::snprintf(line, sizeof line,
                    "%-44s jitrun=%8.2f %s  onednn=%8.2f %s  ratio=%5.2f  "
                    "compile=%7.1f ms  maxdiff=%.2e",
                    r.name.c_str(), r.jitrun, r.unit.c_str(), r.onednn, r.unit.c_str(),
                    r.jitrun / r.onednn, r.compileMs, r.maxDiff);
    else
      std::snprintf(line, sizeof line,
                    "%-44s jitrun=  FAILED %s  onednn=%8.2f %s  ratio=  n/a",
                    r.name.c_str(), r.unit.c_str(), r.onednn, r.unit.c_str());
    llvm::outs() << line;
    if (r.trials && (r.trials != o.trials || r.minIters != o.minIters))
      llvm::outs() << "  (best of " << r.trials << " x " << r.minIters << " iters)";
    llvm::outs() << "\n";
    if (!r.warning.empty())
      llvm::outs() << "  warning: " << r.name << ": " << r.warning << "\n";
    if (!r.error.empty()) {
      anyFailed = true;
      llvm::outs() << "  error: " << r.name << ": " << r.error << "\n";
    }
    llvm::outs().flush();
    results.push_back(std::move(r));
  }

  std::error_code ec;
  llvm::raw_fd_ostream json(o.jsonPath, ec);
  if (ec) {
    llvm::errs() << "jitrun-bench: error: cannot write " << o.jsonPath << ": "
                 << ec.message() << "\n";
    return 1;
  }
  json << "{\"threads\": " << o.threads << ", \"trials\": " << o.trials
       << ", \"min_seconds\": " << num(o.minSeconds)
       << ", \"min_iters\": " << o.minIters << ", \"statistic\": \"best\",\n"
       << " \"note\": \"best-of-N on a shared noisy machine\",\n \"kernels\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    json << (i ? ",\n" : "\n") << "  {\"name\": " << jsonString(r.name)
         << ", \"unit\": " << jsonString(r.unit)
         << ", \"jitrun\": " << (r.jitrun > 0 ? num(r.jitrun) : "null")
         << ", \"onednn\": " << (r.onednn > 0 ? num(r.onednn) : "null")
         << ", \"ratio\": "
         << (r.jitrun > 0 && r.onednn > 0 ? num(r.jitrun / r.onednn) : "null")
         << ", \"jitrun_ms\": " << (r.jitrun > 0 ? num(1e3 * r.jitrunSec) : "null")
         << ", \"onednn_ms\": " << (r.onednn > 0 ? num(1e3 * r.onednnSec) : "null")
         << ", \"compile_ms\": " << num(r.compileMs)
         << ", \"max_abs_diff\": " << num(r.maxDiff)
         << ", \"tolerance\": " << num(r.tolerance)
         << ", \"trials\": " << r.trials << ", \"min_iters\": " << r.minIters
         << ", \"dispatches\": " << r.dispatches
         << ", \"executables\": " << r.executables
         << ", \"vectorized_ops\": " << r.vectorizedOps
         << ", \"scalar_ops\": " << r.scalarOps
         << ", \"onednn_impl\": " << jsonString(r.onednnImpl);
    if (!r.warning.empty())
      json << ", \"warning\": " << jsonString(r.warning);
    if (!r.error.empty())
      json << ", \"error\": " << jsonString(r.error);
    json << "}";
  }
  json << "\n]}\n";
  llvm::outs() << "wrote " << o.jsonPath << "\n";
  (void)anyFailed; // a benchmark reports failures, it does not fail on them
  return 0;
}
