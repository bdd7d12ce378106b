// A full disk under --cache-dir (here a 1 KiB file size limit, with SIGXFSZ
// ignored so that writes fail with EFBIG as they would with ENOSPC on a full
// tmpfs): one warning, the model runs, and no temporary file is left behind.
// Before, the unchecked stream aborted with "LLVM ERROR: IO failure on output
// stream" (and the C API's host process exited). TSan's runtime writes files
// of its own and cannot run under the limit.
// UNSUPPORTED: tsan
// RUN: rm -rf %t.full && mkdir %t.full
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: sh -c "trap '' XFSZ; ulimit -f 2; %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.full --expected_output=@%t.ref.npy" 2>&1 | FileCheck %s
// RUN: ls %t.full | FileCheck %s --allow-empty --check-prefix=NOTEMP
// CHECK: jitrun: warning: kernel cache not written: cannot write '{{.*}}.jrk': File too large
// CHECK-NOT: warning
// CHECK: result[0]: matches the expected output
// NOTEMP-NOT: tmp
