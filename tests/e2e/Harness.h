//===- Harness.h - Shared machinery of the oneDNN end-to-end tests --------===//
//
// The e2e testers write an MLIR module and seeded .npy inputs to a temporary
// folder, run the `jitrun` CLI on them as a subprocess (no shell), read the
// result back and compare it against oneDNN. This header holds the parts
// every tester shares: the subprocess, the temporary folder, seeded data,
// MLIR type spelling and the tolerance check.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_TESTS_E2E_HARNESS_H
#define JITRUN_TESTS_E2E_HARNESS_H

#include "support/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jitrun {
namespace e2e {

/// What a finished subprocess left behind.
struct ProcessResult {
  int exitCode = -1;      ///< exit status, or -1 if it did not exit normally
  int signal = 0;         ///< the terminating signal, 0 if none
  bool timedOut = false;  ///< killed after the time limit
  bool spawnFailed = false;
  std::string stdOut;
  std::string stdErr;

  /// A one-line description for failure messages ("exit 1", "signal 11").
  std::string describe() const;
};

/// Runs `argv` (argv[0] is the program path, no PATH lookup) with stdin from
/// /dev/null and stdout/stderr captured into files of `workDir`. Kills the
/// child after `timeoutSeconds`.
ProcessResult runProcess(const std::vector<std::string> &argv,
                         const std::string &workDir, int timeoutSeconds);

/// The jitrun binary from $JITRUN_BIN; fails the current test if unset.
std::string jitrunBinary();

/// A fresh folder under $TMPDIR (or /tmp) that is removed on destruction,
/// unless a test in it failed or $JITRUN_E2E_KEEP is set.
class TempDir {
public:
  explicit TempDir(const std::string &tag);
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  /// The folder's path.
  const std::string &path() const { return dir; }
  /// `path()/name`.
  std::string file(const std::string &name) const;
  /// Keeps the folder (called when a check fails, so it can be inspected).
  void keep() { keepIt = true; }

private:
  std::string dir;
  bool keepIt = false;
};

/// Writes `text` to `path`; fails the current test on error.
void writeTextFile(const std::string &path, const std::string &text);
std::string readTextFile(const std::string &path);

/// The integer field `name` of jitrun's statistics JSON; nullopt if the text
/// does not parse or has no such integer.
std::optional<int64_t> statisticsField(const std::string &json, const std::string &name);

/// Stable 64-bit FNV-1a hash, used to derive per-case seeds from a case name.
uint64_t hashString(const std::string &s);

/// An f32 tensor of `shape` with values uniform in [lo, hi), from a
/// SplitMix64 stream seeded with `seed` (identical on every platform).
HostTensor randomTensor(const std::vector<int64_t> &shape, uint64_t seed,
                        float lo = -1.0f, float hi = 1.0f);

/// An i8 tensor of `shape` with values uniform over all of [-128, 127],
/// from the same SplitMix64 stream.
HostTensor randomInt8Tensor(const std::vector<int64_t> &shape, uint64_t seed);

/// "tensor<2x3xf32>".
std::string tensorType(const std::vector<int64_t> &shape);

/// "2x3x4".
std::string shapeString(const std::vector<int64_t> &shape);

/// An f32 constant as MLIR spells it exactly (hex bit pattern).
std::string f32Literal(float value);

/// `t`'s bytes as an MLIR hex literal with its quotes, "\"0x...\"" (little
/// endian, as held): a constant's value, `dense<` ... `>`.
std::string hexLiteral(const HostTensor &t);

/// One jitrun invocation on an MLIR module with .npy inputs and one result.
struct JitrunRun {
  std::string caseName;            ///< used in folder names and messages
  std::string module;              ///< MLIR text
  std::vector<const HostTensor *> inputs;
  std::vector<int64_t> resultShape; ///< expected result shape
  ElementType resultType = ElementType::F32; ///< expected result type
  int threads = 1;
  std::string fusion;              ///< "" passes no --fusion flag
  std::vector<std::string> extraFlags;
  /// If set, receives the --dump-statistics=json line of the run.
  std::string *statistics = nullptr;
};

/// A run named `name` of `module` on `inputs`, its result of `expected`'s
/// shape and type, at `threads`, with --force-avx2 when `avx2`.
JitrunRun makeRun(const std::string &name, const std::string &module,
                  std::vector<const HostTensor *> inputs, const HostTensor &expected,
                  int threads, bool avx2);

/// Runs jitrun; on success returns the result read from out.npy. Fails the
/// current test (with stderr in the message) on a non-zero exit, a missing
/// or unreadable result, or a wrong result type or shape.
HostTensor runJitrun(const JitrunRun &run, TempDir &dir);

/// Checks |actual - expected| <= atol + rtol*|expected| element-wise; the
/// failure message names the first bad index, both values, the number of bad
/// elements and the largest absolute error.
void checkClose(const HostTensor &actual, const HostTensor &expected,
                double atol, double rtol, const std::string &what,
                TempDir &dir);

/// The thread-count suffix used in test descriptions: " threads=2 fusion=none".
std::string runSuffix(int threads, const std::string &fusion);

} // namespace e2e
} // namespace jitrun

#endif // JITRUN_TESTS_E2E_HARNESS_H
