// Files jitrun reads must be regular (it read /dev/zero forever, 5.6 GB in
// 10 s); files it writes are never replaced unless regular: a device or a
// FIFO is written through, a symlink's target is written and the link kept,
// a regular file is replaced whole (temporary + rename, no leftovers), and a
// write that fails says why with exit 1.
// RUN: not %jitrun /dev/zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %jitrun %s --input=@/dev/zero 2>&1 | FileCheck %s --check-prefix=ZERO-IN
// RUN: rm -rf %t && mkdir %t && mkfifo %t/fifo
// RUN: not %jitrun %t/fifo 2>&1 | FileCheck %s --check-prefix=FIFO
// RUN: not %jitrun %t 2>&1 | FileCheck %s --check-prefix=DIR
// Outputs: /dev/null stays a device, a FIFO stays a FIFO (read by cat),
// a symlink stays a link to a file that now holds the result.
// RUN: %jitrun %s --input=4xf32=1,2,3,4 --output=@/dev/null
// RUN: test -c /dev/null
// RUN: sh -c 'cat %t/fifo > %t/from_fifo & %jitrun %s --input=4xf32=1,2,3,4 --output=@%t/fifo; wait'
// RUN: test -p %t/fifo
// RUN: %jitrun %s --input=@%t/from_fifo | FileCheck %s --check-prefix=TWICE
// RUN: echo old > %t/target && ln -s target %t/link
// RUN: %jitrun %s --input=4xf32=1,2,3,4 --output=@%t/link
// RUN: test -L %t/link
// RUN: %jitrun %s --input=@%t/target | FileCheck %s --check-prefix=TWICE
// RUN: ls %t | FileCheck %s --check-prefix=NOTEMP
// RUN: not %jitrun %s --input=4xf32=1,2,3,4 --output=@/dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not %jitrun %s --input=4xf32=1,2,3,4 --dump-statistics=json --dump-statistics-file=/dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not %jitrun %s --input=4xf32=1,2,3,4 > /dev/full 2>%t/stdout.err
// RUN: FileCheck %s --check-prefix=STDOUT < %t/stdout.err
// ZERO: jitrun: error: cannot read model '/dev/zero': it is a character device, not a regular file
// ZERO-IN: jitrun: error: --input 0: invalid input spec '@/dev/zero': cannot read .npy file '/dev/zero': it is a character device, not a regular file
// FIFO: jitrun: error: cannot read model '{{.*}}fifo': it is a FIFO, not a regular file
// DIR: jitrun: error: cannot read model '{{.*}}': it is a directory, not a regular file
// TWICE: result[0]: 4xf32=4 8 12 16
// NOTEMP-NOT: tmp
// FULL: jitrun: error: {{.*}}cannot write '/dev/full': No space left on device
// STDOUT: jitrun: error: cannot write to standard output
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
