// A constant larger than the host's memory is refused before anything is
// allocated (it aborted with "LLVM ERROR: out of memory"), with or without
// --memory-limit; the C API says RESOURCE_EXHAUSTED (api tests).
// RUN: not %jitrun %s 2>&1 | FileCheck %s
// RUN: not %jitrun %s --function=cube 2>&1 | FileCheck %s
// RUN: not %jitrun %s --memory-limit=1000000 2>&1 | FileCheck %s --check-prefix=LIMIT
// CHECK: jitrun: error: model '{{main|cube}}' needs {{[0-9]+}} bytes of host memory (constants {{[0-9]+}}, {{.*}} over this host's memory of {{[0-9]+}} bytes
// LIMIT: over the memory limit of 1000000 bytes
func.func @main() -> tensor<100000x100000xf32> {
  %c = arith.constant dense<1.0> : tensor<100000x100000xf32>
  return %c : tensor<100000x100000xf32>
}
func.func @cube() -> tensor<100000x100000x100000xf32> {
  %c = arith.constant dense<1.0> : tensor<100000x100000x100000xf32>
  return %c : tensor<100000x100000x100000xf32>
}
