//===- Harness.cpp - Shared machinery of the oneDNN end-to-end tests ------===//
//
// Subprocess (posix_spawn with redirected output files and a time limit),
// temporary folders, seeded data and the tolerance check used by every
// e2e tester.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace jitrun {
namespace e2e {

std::string ProcessResult::describe() const {
  if (spawnFailed)
    return "could not be started";
  if (timedOut)
    return "timed out (killed)";
  if (signal != 0)
    return "killed by signal " + std::to_string(signal) + " (" +
           strsignal(signal) + ")";
  return "exit " + std::to_string(exitCode);
}

static std::string readWholeFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ProcessResult runProcess(const std::vector<std::string> &argv,
                         const std::string &workDir, int timeoutSeconds) {
  ProcessResult result;
  std::string outPath = workDir + "/stdout.txt";
  std::string errPath = workDir + "/stderr.txt";

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);

  std::vector<char *> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.spawnFailed = true;
    result.stdErr = std::string("posix_spawn failed: ") + strerror(rc);
    return result;
  }

  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(timeoutSeconds);
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      result.spawnFailed = true;
      result.stdErr = std::string("waitpid failed: ") + strerror(errno);
      return result;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!result.timedOut) {
    if (WIFEXITED(status))
      result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result.signal = WTERMSIG(status);
  }
  result.stdOut = readWholeFile(outPath);
  result.stdErr = readWholeFile(errPath);
  return result;
}

std::string jitrunBinary() {
  const char *bin = std::getenv("JITRUN_BIN");
  if (!bin || !*bin)
    FAIL("JITRUN_BIN is not set; it must name the jitrun binary "
         "(ctest sets it)");
  return bin;
}

TempDir::TempDir(const std::string &tag) {
  const char *tmp = std::getenv("TMPDIR");
  std::string base = (tmp && *tmp) ? tmp : "/tmp";
  std::string safe = tag;
  for (char &c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      c = '_';
  if (safe.size() > 60)
    safe.resize(60);
  std::string templ = base + "/jitrun-e2e-" + safe + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    FAIL("mkdtemp(" << templ << ") failed: " << strerror(errno));
  dir = buf.data();
  if (std::getenv("JITRUN_E2E_KEEP"))
    keepIt = true;
}

TempDir::~TempDir() {
  if (keepIt || dir.empty())
    return;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

std::string TempDir::file(const std::string &name) const {
  return dir + "/" + name;
}

void writeTextFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    FAIL("could not write " << path);
}

std::optional<int64_t> statisticsField(const std::string &json, const std::string &name) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *object = value->getAsObject();
  return object ? object->getInteger(name) : std::nullopt;
}

std::string readTextFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

uint64_t hashString(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t splitMix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

HostTensor randomTensor(const std::vector<int64_t> &shape, uint64_t seed,
                        float lo, float hi) {
  HostTensor t(ElementType::F32, shape);
  float *p = t.dataAs<float>();
  uint64_t state = seed;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    // 24 random bits -> [0, 1) exactly representable in f32.
    float u = static_cast<float>(splitMix64(state) >> 40) * (1.0f / 16777216.0f);
    p[i] = lo + (hi - lo) * u;
  }
  return t;
}

HostTensor randomInt8Tensor(const std::vector<int64_t> &shape, uint64_t seed) {
  HostTensor t(ElementType::I8, shape);
  int8_t *p = t.dataAs<int8_t>();
  uint64_t state = seed;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    p[i] = static_cast<int8_t>(static_cast<uint8_t>(splitMix64(state) >> 56));
  return t;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += "x";
    s += std::to_string(shape[i]);
  }
  return s;
}

std::string tensorType(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "tensor<f32>";
  return "tensor<" + shapeString(shape) + "xf32>";
}

std::string f32Literal(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08X", bits);
  return buf;
}

std::string hexLiteral(const HostTensor &t) {
  return "\"0x" +
         llvm::toHex(llvm::StringRef(static_cast<const char *>(t.data()), t.byteSize())) +
         "\"";
}

std::string runSuffix(int threads, const std::string &fusion) {
  std::string s = " threads=" + std::to_string(threads);
  if (!fusion.empty())
    s += " fusion=" + fusion;
  return s;
}

JitrunRun makeRun(const std::string &name, const std::string &module,
                  std::vector<const HostTensor *> inputs, const HostTensor &expected,
                  int threads, bool avx2) {
  JitrunRun run;
  run.caseName = name;
  run.module = module;
  run.inputs = std::move(inputs);
  run.resultShape = expected.shape();
  run.resultType = expected.elementType();
  run.threads = threads;
  if (avx2)
    run.extraFlags.push_back("--force-avx2");
  return run;
}

HostTensor runJitrun(const JitrunRun &run, TempDir &dir) {
  std::string bin = jitrunBinary();
  std::string modelPath = dir.file("model.mlir");
  writeTextFile(modelPath, run.module);

  std::vector<std::string> argv = {bin, modelPath};
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    std::string p = dir.file("in" + std::to_string(i) + ".npy");
    if (llvm::Error err = writeNpy(p, *run.inputs[i])) {
      dir.keep();
      FAIL("writing " << p << ": " << llvm::toString(std::move(err)));
    }
    argv.push_back("--input=@" + p);
  }
  std::string outPath = dir.file("out.npy");
  argv.push_back("--output=@" + outPath);
  argv.push_back("--threads=" + std::to_string(run.threads));
  if (!run.fusion.empty())
    argv.push_back("--fusion=" + run.fusion);
  for (const std::string &f : run.extraFlags)
    argv.push_back(f);
  // Every kernel's inner loops must be vector code: the statistics count
  // kernels left with element-by-element loops.
  std::string statsPath = dir.file("stats.json");
  argv.push_back("--dump-statistics=json");
  argv.push_back("--dump-statistics-file=" + statsPath);

  std::string cmdline;
  for (const std::string &a : argv)
    cmdline += (cmdline.empty() ? "" : " ") + a;

  ProcessResult pr = runProcess(argv, dir.path(), /*timeoutSeconds=*/300);
  if (pr.exitCode != 0) {
    dir.keep();
    FAIL(run.caseName << ": jitrun " << pr.describe() << "\n  command: "
                      << cmdline << "\n  stderr:\n"
                      << pr.stdErr.substr(0, 4000));
  }

  std::string stats = readTextFile(statsPath);
  if (run.statistics)
    *run.statistics = stats;
  if (statisticsField(stats, "scalar_kernels") != 0) {
    dir.keep();
    FAIL(run.caseName << ": a kernel has scalar inner loops (statistics: "
                      << stats << ")\n  command: " << cmdline);
  }

  llvm::Expected<HostTensor> out = readNpy(outPath);
  if (!out) {
    dir.keep();
    FAIL(run.caseName << ": reading jitrun's result " << outPath << ": "
                      << llvm::toString(out.takeError()) << "\n  command: "
                      << cmdline << "\n  stderr:\n"
                      << pr.stdErr.substr(0, 4000));
  }
  if (out->elementType() != run.resultType || out->shape() != run.resultShape) {
    dir.keep();
    FAIL(run.caseName << ": jitrun's result is " << out->typeString()
                      << ", expected " << shapeString(run.resultShape) << "x"
                      << elementTypeName(run.resultType).str() << "\n  command: " << cmdline);
  }
  return std::move(*out);
}

void checkClose(const HostTensor &actual, const HostTensor &expected,
                double atol, double rtol, const std::string &what,
                TempDir &dir) {
  if (llvm::Error err = compareTensors(actual, expected, atol, rtol)) {
    double maxAbs = 0.0;
    int64_t n = std::min(actual.numElements(), expected.numElements());
    for (int64_t i = 0; i < n; ++i) {
      double d = std::fabs(actual.getAsDouble(i) - expected.getAsDouble(i));
      if (!(d <= maxAbs))
        maxAbs = d; // also propagates NaN
    }
    dir.keep();
    FAIL(what << ": jitrun (actual) vs oneDNN (expected), atol=" << atol
              << " rtol=" << rtol << ": " << llvm::toString(std::move(err))
              << "; max abs error " << maxAbs << "; files kept in "
              << dir.path());
  }
  SUCCEED(what);
}

} // namespace e2e
} // namespace jitrun
