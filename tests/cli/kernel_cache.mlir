// --cache-dir: the first start compiles every kernel and stores it; the
// second start loads all of them from the cache (no codegen, no LLVM) and
// computes the same results; a damaged entry is recompiled, not trusted; a
// different stack-limit setting is a different key.
//
// RUN: rm -rf %t.cache
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json | FileCheck %s --check-prefix=COLD
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json | FileCheck %s --check-prefix=WARM
// RUN: python3 -c "import glob; f=sorted(glob.glob('%t.cache/*.o'))[0]; open(f,'wb').write(b'garbage')"
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json | FileCheck %s --check-prefix=DAMAGED
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --stack-allocation-limit=16384 --expected_output=@%t.ref.npy --dump-statistics=json | FileCheck %s --check-prefix=COLD
// RUN: not %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir= 2>&1 | FileCheck %s --check-prefix=EMPTY

// COLD: result[0]: matches the expected output
// COLD: "executables": [[N:[1-9][0-9]*]],
// COLD-SAME: "cached_kernels": 0,
// WARM: result[0]: matches the expected output
// WARM: "executables": [[N:[1-9][0-9]*]],
// WARM-SAME: "cached_kernels": [[N]],
// DAMAGED: result[0]: matches the expected output
// DAMAGED: "executables": [[N:[1-9][0-9]*]],
// DAMAGED-NOT: "cached_kernels": [[N]],
// EMPTY: jitrun: error: --cache-dir needs a directory
