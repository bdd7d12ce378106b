// --cache-dir: the first start compiles every kernel and stores it; the
// second start loads all of them from the cache (no codegen, no LLVM) and
// computes the same results; a damaged entry is recompiled, not trusted; a
// different stack-limit setting is a different key. Damage of every kind is
// a miss, recompiled and rewritten: garbage, a workgroup count times 10 or
// set to 0 or 1, 4 bytes of code flipped, two entries swapped (each entry
// carries its key and a checksum over its fields and object). An unusable
// cache directory is a warning, and the model still runs.
//
// RUN: rm -rf %t.cache
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=COLD
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: python3 -c "import glob; f=sorted(glob.glob('%t.cache/*.jrk'))[0]; open(f,'wb').write(b'garbage')"
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=DAMAGED
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: python3 %S/Inputs/damage_cache.py %t.cache workgroups10
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: python3 %S/Inputs/damage_cache.py %t.cache workgroups0
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: python3 %S/Inputs/damage_cache.py %t.cache workgroups1
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: python3 %S/Inputs/damage_cache.py %t.cache xorcode
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: python3 %S/Inputs/damage_cache.py %t.cache swap
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: ls %t.cache | FileCheck %s --check-prefix=NOTEMP
// An unusable directory: a file, a path under a file, /dev/null.
// RUN: echo x > %t.file
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.file --expected_output=@%t.ref.npy 2>&1 | FileCheck %s --check-prefix=UNUSABLE
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.file/sub --expected_output=@%t.ref.npy 2>&1 | FileCheck %s --check-prefix=UNUSABLE
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=/dev/null --expected_output=@%t.ref.npy 2>&1 | FileCheck %s --check-prefix=UNUSABLE
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --stack-allocation-limit=16384 --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=COLD
// RUN: not %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir= 2>&1 | FileCheck %s --check-prefix=EMPTY

// COLD: result[0]: matches the expected output
// COLD: "executables":[[N:[1-9][0-9]*]],
// COLD-SAME: "cached_kernels":0,
// WARM: result[0]: matches the expected output
// WARM: "executables":[[N:[1-9][0-9]*]],
// WARM-SAME: "cached_kernels":[[N]],
// DAMAGED: result[0]: matches the expected output
// DAMAGED: "executables":[[N:[1-9][0-9]*]],
// DAMAGED-NOT: "cached_kernels":[[N]],
// NONE: result[0]: matches the expected output
// NONE: "cached_kernels":0,
// NOTEMP-NOT: tmp
// UNUSABLE: jitrun: warning: kernel cache directory '{{.*}}' cannot be used ({{.+}}); compiling without it
// UNUSABLE: result[0]: matches the expected output
// EMPTY: jitrun: error: --cache-dir needs a directory (--no-cache turns the cache off)
