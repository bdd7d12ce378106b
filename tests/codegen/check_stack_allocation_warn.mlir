// jitrun-codegen-check-stack-allocation{fail=false}: over the limit is only a
// warning; the pass succeeds and still records the total. A dynamic alloca
// remains an error.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation{fail=false}))' \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation{limit=32768 fail=false}))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @under()
// CHECK-SAME:    jitrun.stack_bytes = 1024 : i64
func.func @under() {
  %a = memref.alloca() : memref<16x16xf32>
  return
}

// -----

// The function is kept, with its total, and the alloca stays.
// CHECK-LABEL: func.func @over()
// CHECK-SAME:    jitrun.stack_bytes = 65536 : i64
// CHECK:         memref.alloca() : memref<128x128xf32>
// expected-warning @below {{bytes for dispatch 'over': got 65536 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @over() {
  // expected-note @below {{largest allocation (65536 bytes)}}
  %a = memref.alloca() : memref<128x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @two_over()
// CHECK-SAME:    jitrun.stack_bytes = 33024 : i64
// expected-warning @below {{bytes for dispatch 'two_over': got 33024 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @two_over() {
  %a = memref.alloca() : memref<64x64xf32>
  // expected-note @below {{largest allocation (16640 bytes)}}
  %b = memref.alloca() : memref<64x65xf32>
  return
}

// -----

// CHECK-NOT: func.func @dynamic
func.func @dynamic(%n: index) {
  // expected-error @below {{'memref.alloca' op has a dynamic size}}
  %a = memref.alloca(%n) : memref<?xf32>
  return
}
