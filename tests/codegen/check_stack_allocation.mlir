// jitrun-codegen-check-stack-allocation with its default options (limit=32768
// bytes, fail=true): every static memref.alloca of a function is summed, the
// total is recorded as jitrun.stack_bytes, and a total above the limit is an
// error on the function with a note on the largest alloca. A dynamically
// sized alloca is always an error.
//
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation))' \
// RUN:   | FileCheck %s
//
// The same thing with the limit spelled out explicitly.
// RUN: %jit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-check-stack-allocation{limit=32768 fail=true}))' \
// RUN:   | FileCheck %s
//
// The expected-error lines below match the message from "bytes for dispatch"
// on; check_stack_allocation_message.mlir checks the whole message, limit
// included.

// A function without allocas records zero.
// CHECK-LABEL: func.func @no_alloca()
// CHECK-SAME:    jitrun.stack_bytes = 0 : i64
func.func @no_alloca() {
  return
}

// -----

// 16 x 16 x 4 bytes = 1024: well under the limit.
// CHECK-LABEL: func.func @under()
// CHECK-SAME:    jitrun.stack_bytes = 1024 : i64
// CHECK:         memref.alloca() : memref<16x16xf32>
func.func @under() {
  %a = memref.alloca() : memref<16x16xf32>
  return
}

// -----

// 8192 x 4 bytes = 32768: exactly the limit, which is allowed.
// CHECK-LABEL: func.func @exactly_at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 32768 : i64
func.func @exactly_at_limit() {
  %a = memref.alloca() : memref<8192xf32>
  return
}

// -----

// 128 x 128 x 4 bytes = 65536: over the limit.
// CHECK-NOT: func.func @over
// expected-error @below {{bytes for dispatch 'over': got 65536 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @over() {
  // expected-note @below {{largest allocation (65536 bytes)}}
  %a = memref.alloca() : memref<128x128xf32>
  return
}

// -----

// One byte over the limit: 8192 x 4 + 1 = 32769.
// expected-error @below {{bytes for dispatch 'one_byte_over': got 32769 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @one_byte_over() {
  // expected-note @below {{largest allocation (32768 bytes)}}
  %a = memref.alloca() : memref<8192xf32>
  %b = memref.alloca() : memref<1xi8>
  return
}

// -----

// Two allocas, each under the limit, summing over it: 16384 + 16640 = 33024.
// The note points at the larger one (the second).
// expected-error @below {{bytes for dispatch 'two_allocas': got 33024 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @two_allocas() {
  %a = memref.alloca() : memref<64x64xf32>
  // expected-note-re @below {{largest allocation (16640 bytes): %{{.*}} = memref.alloca() : memref<64x65xf32>}}
  %b = memref.alloca() : memref<64x65xf32>
  return
}

// -----

// Allocas nested in loops are counted too.
// expected-error @below {{bytes for dispatch 'nested': got 40960 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @below {{largest allocation (32768 bytes)}}
    %a = memref.alloca() : memref<64x64xf64>
    scf.for %j = %c0 to %n step %c1 {
      %b = memref.alloca() : memref<2048xf32>
    }
  }
  return
}

// -----

// A dynamically sized alloca is an error whatever its size could be.
// CHECK-NOT: func.func @dynamic
func.func @dynamic(%n: index) {
  // expected-error @below {{'memref.alloca' op has a dynamic size}}
  %a = memref.alloca(%n) : memref<?xf32>
  return
}

// -----

// Even a tiny static shape with one dynamic dimension is an error.
func.func @dynamic_2d(%n: index) {
  %s = memref.alloca() : memref<4xf32>
  // expected-error @below {{'memref.alloca' op has a dynamic size}}
  %a = memref.alloca(%n) : memref<2x?xi8>
  return
}

// -----

// Element sizes: vector<16xf32> is 64 bytes, i8 is 1, f64 is 8, f16 is 2,
// i32 is 4: 4*64 + 3*1 + 4*8 + 5*2 + 7*4 = 256 + 3 + 32 + 10 + 28 = 329.
// CHECK-LABEL: func.func @element_types()
// CHECK-SAME:    jitrun.stack_bytes = 329 : i64
func.func @element_types() {
  %v = memref.alloca() : memref<4xvector<16xf32>>
  %b = memref.alloca() : memref<3xi8>
  %d = memref.alloca() : memref<2x2xf64>
  %h = memref.alloca() : memref<5xf16>
  %i = memref.alloca() : memref<7xi32>
  return
}

// -----

// 512 vectors of 16 x f32 = 32768 bytes: at the limit.
// CHECK-LABEL: func.func @vector_at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 32768 : i64
func.func @vector_at_limit() {
  %v = memref.alloca() : memref<512xvector<16xf32>>
  return
}

// -----

// 8 x 513 x vector<8xf32> (32 bytes) = 131328 bytes.
// expected-error @below {{bytes for dispatch 'vector_over': got 131328 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @vector_over() {
  // expected-note @below {{largest allocation (131328 bytes)}}
  %v = memref.alloca() : memref<8x513xvector<8xf32>>
  return
}

// -----

// f64 counts 8 bytes: 4096 x 8 = 32768 is at the limit, 4097 x 8 is over.
// CHECK-LABEL: func.func @f64_at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 32768 : i64
func.func @f64_at_limit() {
  %a = memref.alloca() : memref<4096xf64>
  return
}

// -----

// expected-error @below {{bytes for dispatch 'f64_over': got 32776 bytes}}
// expected-note @below {{raise the stack allocation limit}}
func.func @f64_over() {
  // expected-note @below {{largest allocation (32776 bytes)}}
  %a = memref.alloca() : memref<4097xf64>
  return
}

// -----

// i8 counts 1 byte: 32768 x i8 is at the limit.
// CHECK-LABEL: func.func @i8_at_limit()
// CHECK-SAME:    jitrun.stack_bytes = 32768 : i64
func.func @i8_at_limit() {
  %a = memref.alloca() : memref<32x1024xi8>
  return
}

// -----

// Each function is checked on its own: two functions of 20000 bytes each
// both pass.
// CHECK-LABEL: func.func @first()
// CHECK-SAME:    jitrun.stack_bytes = 20000 : i64
// CHECK-LABEL: func.func @second()
// CHECK-SAME:    jitrun.stack_bytes = 20000 : i64
func.func @first() {
  %a = memref.alloca() : memref<5000xf32>
  return
}
func.func @second() {
  %a = memref.alloca() : memref<5000xf32>
  return
}
