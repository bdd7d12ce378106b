// The over-the-limit message with a non-default limit names that limit.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation{limit=1024}))'

// expected-error @below {{exceeded stack allocation limit of 1024 bytes for dispatch 'over': got 1025 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @over() {
  // expected-note @below {{largest allocation (1024 bytes)}}
  %a = memref.alloca() : memref<256xf32>
  %b = memref.alloca() : memref<1xi8>
  return
}
