// jitrun-codegen-check-stack-allocation{limit=1024}: the limit option moves
// the threshold; exactly 1024 bytes passes, 1025 fails.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation{limit=1024}))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 1024 : i64
func.func @at_limit() {
  %a = memref.alloca() : memref<16x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @split_at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 1024 : i64
func.func @split_at_limit() {
  %a = memref.alloca() : memref<512xi8>
  %b = memref.alloca() : memref<64xf64>
  return
}

// -----

// CHECK-NOT: func.func @one_over
// expected-error @below {{bytes for dispatch 'one_over': got 1025 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @one_over() {
  // expected-note @below {{largest allocation (1024 bytes)}}
  %a = memref.alloca() : memref<16x16xf32>
  %b = memref.alloca() : memref<1xi8>
  return
}

// -----

// 2 x vector<16xf32> is 128 bytes; 9 of those are 1152.
// expected-error @below {{bytes for dispatch 'vectors_over': got 1152 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @vectors_over() {
  // expected-note @below {{largest allocation (1152 bytes)}}
  %a = memref.alloca() : memref<9x2xvector<16xf32>>
  return
}

// -----

// Well under the default limit, but over this one.
// expected-error @below {{bytes for dispatch 'default_would_pass': got 16384 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @default_would_pass() {
  // expected-note @below {{largest allocation (16384 bytes)}}
  %a = memref.alloca() : memref<64x64xf32>
  return
}
