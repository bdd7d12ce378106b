// Proves, through the jitrun CLI, that a kernel whose first tiles exceed
// --stack-allocation-limit is retiled (compiler/KernelCompiler.cpp:
// tile scales 1, 2, 4, 8) until its stack fits, still compiles to vector
// code, and still computes the same result as --reference. The model, this
// file: a 64x96 * 96x80 matmul with a fused bias + relu epilogue, one
// dispatch whose only stack buffer is the matmul's accumulator tile (the
// epilogue reads it).
//
// No limit that matters is exceeded with the defaults: at tile scale 1 the
// tile is 8 x 32 f32 = 1024 bytes, and the N edge (80 = 2 x 32 + 16), peeled
// off the full tiles, has its own buffer bounded by 8 x 31 f32 = 992 bytes:
// 2016 in all, far below the default 32768 (no matmul
// tile of the current tile policy comes near 32 KiB; the stack temporaries
// are vector-register tiles). So the retiling is exercised with smaller
// limits that the scale-1 tiles exceed:
//   limit 512: scale 1 (2016 bytes) fails, scale 2 (4 x 16 and its edge, 496 bytes) fits;
//   limit 128: scale 4 (2 x 8 and its edge, 128 bytes) fits;
//   limit 16:  scale 8 (1 x 4, 16 bytes) fits;
//   limit 15:  even scale 8 exceeds it: an error, exit code 1; with
//              --fail-on-out-of-bounds-stack-allocation=false only a warning,
//              and the scale-8 kernel runs.
// stack_bytes_max of --dump-statistics=json is the largest kernel's stack.
//
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --expected_output=@%t.ref.npy \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --expected_output=@%t.ref.npy \
// RUN:   --stack-allocation-limit=512 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,LIMIT512
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --expected_output=@%t.ref.npy \
// RUN:   --stack-allocation-limit=128 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,LIMIT128
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --expected_output=@%t.ref.npy \
// RUN:   --stack-allocation-limit=16 --threads=1 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,LIMIT16
// RUN: not %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 \
// RUN:   --stack-allocation-limit=15 2>&1 | FileCheck %s --check-prefix=TOOSMALL
// RUN: %jitrun %s --input=64x96xf32 --input=96x80xf32 --input=80xf32 --expected_output=@%t.ref.npy \
// RUN:   --stack-allocation-limit=15 --fail-on-out-of-bounds-stack-allocation=false \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHECK,WARN

// WARN:      warning: exceeded stack allocation limit of 15 bytes for dispatch 'main_dispatch_0': got 16 bytes
// CHECK:     result[0]: matches the expected output
// CHECK:     "dispatches":1,
// At scale 1 the kernel takes 1024 + 992 bytes (<= the default 32768 limit).
// DEFAULT-SAME:  "stack_bytes_max":2016,
// Retiled to fit: <= 512, <= 128, <= 16 bytes.
// LIMIT512-SAME: "stack_bytes_max":{{([0-9]|[1-9][0-9]|[1-4][0-9][0-9]|50[0-9]|51[0-2])}},
// LIMIT128-SAME: "stack_bytes_max":{{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}},
// LIMIT16-SAME:  "stack_bytes_max":{{([0-9]|1[0-6])}},
// WARN-SAME:     "stack_bytes_max":16,
// Whatever the tiles, the kernel is vector code.
// CHECK-SAME:    "vector_kernels":1,"scalar_kernels":0,

// TOOSMALL:     error: exceeded stack allocation limit of 15 bytes for dispatch 'main_dispatch_0': got 16 bytes
// TOOSMALL-NOT: result[0]

func.func @main(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>, %b: tensor<80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<64x80xf32>, tensor<80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%a: f32, %bias: f32, %o: f32):
    %s = arith.addf %a, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x80xf32>
  return %h : tensor<64x80xf32>
}
