// The whole over-the-limit message of jitrun-codegen-check-stack-allocation,
// word for word: "exceeded stack allocation limit of 32768 bytes for
// dispatch 'NAME': got N bytes", with the limit printed as a number.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation))'

// expected-error @below {{exceeded stack allocation limit of 32768 bytes for dispatch 'over': got 65536 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @over() {
  // expected-note @below {{largest allocation (65536 bytes)}}
  %a = memref.alloca() : memref<128x128xf32>
  return
}
