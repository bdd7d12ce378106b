//===- Main.cpp - Catch2 entry point of jitrun_onednn_tests ---------------===//
//
// The oneDNN end-to-end tests run the jitrun CLI (path in $JITRUN_BIN) on
// generated MLIR modules and compare its results with oneDNN primitives.
//
// oneDNN is kept off AMX: on an Intel host with AMX (Sapphire Rapids and
// later) oneDNN 2.6's bf16 matmul ran tdpbf16ps on an OpenMP worker that
// had no tile configuration loaded and died of SIGILL, with or without the
// process's AMX permission (arch_prctl ARCH_REQ_XCOMP_PERM). Its AVX-512
// bf16 and VNNI kernels remain, the reference everywhere else too.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <dnnl.hpp>

int main(int argc, char **argv) {
  // Before the first primitive; a host without AVX-512 keeps its own ISA.
  (void)dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_bf16);
  return Catch::Session().run(argc, argv);
}
