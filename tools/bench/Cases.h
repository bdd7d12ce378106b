//===- Cases.h - the kernels jitrun-bench compares with oneDNN -*- C++ -*-===//

#ifndef JITRUN_TOOLS_BENCH_CASES_H
#define JITRUN_TOOLS_BENCH_CASES_H

#include "support/Tensor.h"
#include "testing/OneDnn.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace jitrun {
namespace bench {

using Shape = std::vector<int64_t>;

/// One benchmark case: the jitrun module with its inputs and the matching
/// prepared oneDNN primitive.
struct Case {
  std::string name;
  bool bandwidth = false; ///< GB/s instead of GFLOP/s
  bool integer = false;   ///< i8 x i8 -> i32: GOP/s, exact results
  double work = 0;        ///< flops (or bytes) per run
  double reduction = 1;   ///< elements summed per output, for the tolerance
  std::string mlir;
  std::vector<HostTensor> inputs;
  std::unique_ptr<testing::onednn::Prepared> ref;
  /// oneDNN's result in jitrun's layout, when oneDNN runs another one.
  std::function<HostTensor(HostTensor)> toJitrunLayout;

  /// The result of the last oneDNN run, in jitrun's layout.
  HostTensor expected() const;
};

using CaseFactory = std::pair<std::string, std::function<Case()>>;

/// Every case, built lazily (inputs and primitives only for those run).
std::vector<CaseFactory> allCases();

} // namespace bench
} // namespace jitrun

#endif // JITRUN_TOOLS_BENCH_CASES_H
