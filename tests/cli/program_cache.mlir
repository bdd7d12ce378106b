// The fused program is cached too: a warm start reads the module after
// fusion from `KEY.jrp` and skips parsing, import and fusion
// ("cached_program":1), with the same statistics and results. The key is the
// model's bytes and the options that shape fusion: another fusion mode or
// entry point is another entry. A damaged entry (truncated, a byte flipped,
// another entry's content) is a miss, compiled and rewritten. The cache
// folder defaults to $JITRUN_CACHE_DIR, else $XDG_CACHE_HOME/jitrun, else
// $HOME/.cache/jitrun; --no-cache neither reads nor writes it.
//
// RUN: rm -rf %t.cache %t.xdg %t.home %t.env %t.mapped && mkdir -p %t.home
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,FIRST
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,WARM
// RUN: ls %t.cache/*.jrp | wc -l | FileCheck %s --check-prefix=ONE
// Another fusion mode: a second entry, then warm as well.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --fusion=none --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,PCOLD
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --fusion=none --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,WARM
// RUN: ls %t.cache/*.jrp | wc -l | FileCheck %s --check-prefix=TWO
// Damage: each kind is a miss (cold), rewritten (warm again after).
// RUN: %debian-python %S/Inputs/damage_cache.py %t.cache truncate-program
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,PCOLD
// RUN: %debian-python %S/Inputs/damage_cache.py %t.cache flip-program
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,PCOLD
// RUN: %debian-python %S/Inputs/damage_cache.py %t.cache swap-program
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,PCOLD
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --cache-dir=%t.cache --expected_output=@%t.ref.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,WARM
// The default folder: $JITRUN_CACHE_DIR, then $XDG_CACHE_HOME/jitrun, then
// $HOME/.cache/jitrun (lit sets JITRUN_CACHE_DIR="" for every other test).
// RUN: env JITRUN_CACHE_DIR=%t.env %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 > /dev/null
// RUN: ls %t.env | FileCheck %s --check-prefix=ENTRIES
// RUN: env -u JITRUN_CACHE_DIR XDG_CACHE_HOME=%t.xdg HOME=%t.home %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 > /dev/null
// RUN: ls %t.xdg/jitrun | FileCheck %s --check-prefix=ENTRIES
// RUN: env -u JITRUN_CACHE_DIR -u XDG_CACHE_HOME HOME=%t.home %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: env -u JITRUN_CACHE_DIR -u XDG_CACHE_HOME HOME=%t.home %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: ls %t.home/.cache/jitrun | FileCheck %s --check-prefix=ENTRIES
// --no-cache: nothing read (cold although warm entries exist), nothing written.
// RUN: env -u JITRUN_CACHE_DIR -u XDG_CACHE_HOME HOME=%t.home %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --no-cache --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=NOCACHE
// RUN: ls %t.home/.cache/jitrun | wc -l > %t.count1
// RUN: env -u JITRUN_CACHE_DIR -u XDG_CACHE_HOME HOME=%t.home %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --no-cache --fusion=aggressive > /dev/null
// RUN: ls %t.home/.cache/jitrun | wc -l | diff - %t.count1

// The weights (constants of 4 KiB or more; a packed 128x256 matrix here)
// are files of their own, `HASH.jrw`, named by the BLAKE3 of their bytes;
// the compile that writes them and every warm start read them where the
// file is mapped, not copied; same results.
// RUN: %debian-python %S/Inputs/packed_rows_model.py 8 > %t.matmul.mlir
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --reference --output=@%t.mapped.npy
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MCOLD
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MWARM
// RUN: ls %t.mapped/*.jrw | wc -l | FileCheck %s --check-prefix=ONE
// RUN: %debian-python -c "import glob; print(sum(len(open(f, 'rb').read()) for f in glob.glob('%t.mapped/*.jrw')))" | FileCheck %s --check-prefix=WSIZE
// The entry holds no weights: the program is under 64 KiB.
// RUN: %debian-python -c "import glob; print(max(len(open(f, 'rb').read()) for f in glob.glob('%t.mapped/*.jrp')) < 65536)" | FileCheck %s --check-prefix=TRUE
// The payloads start at 4096 bytes (page-aligned in a mapping).
// RUN: head -c 4096 %t.mapped/*.jrp | tail -c 1 | od -An -c | FileCheck %s --check-prefix=PAD
// RUN: head -c 4096 %t.mapped/*.jrw | tail -c 1 | od -An -c | FileCheck %s --check-prefix=PAD
// A weight file that does not hash to its name, or is gone, makes the
// entry a miss: compiled again, the file rewritten, warm again after.
// RUN: %debian-python %S/Inputs/damage_cache.py %t.mapped flip-weights
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MCOLD
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MWARM
// RUN: %debian-python %S/Inputs/damage_cache.py %t.mapped remove-weights
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MCOLD
// RUN: %jitrun %t.matmul.mlir --input=8x128xf32 --cache-dir=%t.mapped --expected_output=@%t.mapped.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESULT,MWARM
// RUN: ls %t.mapped/*.jrw | wc -l | FileCheck %s --check-prefix=ONE

// Programs that share weights share their files: the dynamic BERT
// encoder's programs at lengths 16, 50 and 100 (each its own entry) write
// one set of weights.
// RUN: rm -rf %t.shared
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --cache-dir=%t.shared --shape-policy=specialize --input=1x16x64xf32 > /dev/null
// RUN: ls %t.shared/*.jrw | wc -l > %t.weights1
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --cache-dir=%t.shared --shape-policy=specialize --input=1x50x64xf32 --input=1x100x64xf32 > /dev/null
// RUN: ls %t.shared/*.jrw | wc -l | diff - %t.weights1
// RUN: ls %t.shared/*.jrp | wc -l | FileCheck %s --check-prefix=THREE

// RESULT: result[0]: matches the expected output
// FIRST: "cached_kernels":0,"cached_program":0,
// PCOLD: "cached_program":0,
// WARM: "executables":[[N:[1-9][0-9]*]],{{.*}}"cached_kernels":[[N]],"cached_program":1,
// NOCACHE: "cached_kernels":0,"cached_program":0,
// MCOLD: "cached_program":0,{{.*}}"mapped_constant_bytes":131072,
// MWARM: "cached_program":1,{{.*}}"mapped_constant_bytes":131072,
// PAD: {{^ +$}}
// WSIZE: {{^}}135168{{$}}
// TRUE: {{^}}True{{$}}
// ONE: {{^}}1{{$}}
// THREE: {{^}}3{{$}}
// TWO: {{^}}2{{$}}
// ENTRIES-DAG: {{[0-9a-f]+}}.jrk
// ENTRIES-DAG: {{[0-9a-f]+}}.jrp
