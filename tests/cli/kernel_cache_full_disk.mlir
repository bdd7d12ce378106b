// A full disk under --cache-dir (here a 1 KiB file size limit, with SIGXFSZ
// ignored so that writes fail with EFBIG as they would with ENOSPC on a full
// tmpfs): one warning, the model runs, and no temporary file is left behind.
// No crash report either: LLVM's crash handler took the signal the shell
// ignores and printed a stack dump before the write failed.
// Before, the unchecked stream aborted with "LLVM ERROR: IO failure on output
// stream" (and the C API's host process exited). TSan's runtime writes files
// of its own and cannot run under the limit.
// UNSUPPORTED: tsan
// RUN: rm -rf %t.full && mkdir %t.full
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: sh -c "trap '' XFSZ; ulimit -f 2; %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.full --expected_output=@%t.ref.npy" 2>&1 | FileCheck %s
// RUN: ls %t.full | FileCheck %s --allow-empty --check-prefix=NOTEMP
// CHECK-NOT: PLEASE submit
// CHECK: jitrun: warning: kernel cache not written: cannot write '{{.*}}.jrk': File too large
// CHECK-NOT: warning
// CHECK: result[0]: matches the expected output
// NOTEMP-NOT: tmp

// A weight file that cannot be written (128 KiB under a 50 KiB limit): the
// program is not cached, with one warning, and runs on its own weights.
// RUN: rm -rf %t.weights && mkdir %t.weights
// RUN: %debian-python %S/Inputs/packed_rows_model.py 8 > %t.matmul.mlir
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --reference --output=@%t.mref.npy
// RUN: sh -c "trap '' XFSZ; ulimit -f 100; %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.weights --expected_output=@%t.mref.npy" 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: ls %t.weights | FileCheck %s --allow-empty --check-prefix=NOTEMP
// WEIGHTS-NOT: PLEASE submit
// WEIGHTS: jitrun: warning: program cache not written: cannot write '{{.*}}.jrw': File too large
// WEIGHTS-NOT: warning
// WEIGHTS: result[0]: matches the expected output
