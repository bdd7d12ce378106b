// The zoo's dynamic variants (modelgen --dynamic) at five shapes in one
// process through the CLI: each set of --input flags is one run, and a
// dynamic model compiles a specialization for each set's shapes (or, under
// --shape-policy=tiered, runs a new batch at once as pieces of a batch
// already compiled). Every run matches the reference path, itself run at
// the five shapes in one process.
//
// BERT's encoder with a dynamic sequence length (1x?x64):
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --reference --no-cache \
// RUN:   --input=1x16x64xf32 --input=1x1x64xf32 --input=1x7x64xf32 --input=1x33x64xf32 --input=1x100x64xf32 \
// RUN:   --output=@%t.b0.npy --output=@%t.b1.npy --output=@%t.b2.npy --output=@%t.b3.npy --output=@%t.b4.npy
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --threads=2 --no-cache --dump-statistics=json \
// RUN:   --input=1x16x64xf32 --input=1x1x64xf32 --input=1x7x64xf32 --input=1x33x64xf32 --input=1x100x64xf32 \
// RUN:   --expected_output=@%t.b0.npy --expected_output=@%t.b1.npy --expected_output=@%t.b2.npy \
// RUN:   --expected_output=@%t.b3.npy --expected_output=@%t.b4.npy 2>&1 | FileCheck %s --check-prefixes=FIVE,BERT
// FIVE: run[0] result[0]: matches the expected output
// FIVE-NEXT: run[1] result[0]: matches the expected output
// FIVE-NEXT: run[2] result[0]: matches the expected output
// FIVE-NEXT: run[3] result[0]: matches the expected output
// FIVE-NEXT: run[4] result[0]: matches the expected output
// The statistics are the last run's compile: the same dispatches as the
// static model's.
// BERT: "dispatches":28
// Its compile took the weights the first length's compile packed: no
// program keeps them in a cache folder here, each run's program does.
// BERT-SAME: "reused_weight_bytes":{{[1-9]}}
// Under --shape-policy=generic (it needs a cache folder), every length after
// the first runs on kernels generic in the sequence length, compiled once.
// RUN: rm -rf %t.generic && %jitrun %zoo/dynamic/bert_encoder.mlirbc --threads=2 \
// RUN:   --cache-dir=%t.generic --shape-policy=generic --dump-statistics=json \
// RUN:   --input=1x16x64xf32 --input=1x1x64xf32 --input=1x7x64xf32 --input=1x33x64xf32 --input=1x100x64xf32 \
// RUN:   --expected_output=@%t.b0.npy --expected_output=@%t.b1.npy --expected_output=@%t.b2.npy \
// RUN:   --expected_output=@%t.b3.npy --expected_output=@%t.b4.npy 2>&1 | FileCheck %s --check-prefixes=FIVE,GENERIC
// GENERIC: "dispatches":28
// GENERIC-SAME: "generic_kernels":{{[1-9]}}
// Here the weights live in the cache folder's mapped weight files, which
// the later compiles reuse.
// GENERIC-SAME: "reused_weight_bytes":{{[1-9]}}
//
// MobileNetV2 with a dynamic batch (?x32x32x3), whose batch sizes 3 and 9
// no tile divides:
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --reference --no-cache \
// RUN:   --input=1x32x32x3xf32 --input=4x32x32x3xf32 --input=3x32x32x3xf32 --input=9x32x32x3xf32 --input=2x32x32x3xf32 \
// RUN:   --output=@%t.m0.npy --output=@%t.m1.npy --output=@%t.m2.npy --output=@%t.m3.npy --output=@%t.m4.npy
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --threads=2 --no-cache \
// RUN:   --input=1x32x32x3xf32 --input=4x32x32x3xf32 --input=3x32x32x3xf32 --input=9x32x32x3xf32 --input=2x32x32x3xf32 \
// RUN:   --expected_output=@%t.m0.npy --expected_output=@%t.m1.npy --expected_output=@%t.m2.npy \
// RUN:   --expected_output=@%t.m3.npy --expected_output=@%t.m4.npy | FileCheck %s --check-prefix=FIVE
// The same under the tiered policy: batch 4, 3, 9 and 2 first run as
// pieces of the batches compiled before them.
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --threads=2 --no-cache --shape-policy=tiered \
// RUN:   --input=1x32x32x3xf32 --input=4x32x32x3xf32 --input=3x32x32x3xf32 --input=9x32x32x3xf32 --input=2x32x32x3xf32 \
// RUN:   --expected_output=@%t.m0.npy --expected_output=@%t.m1.npy --expected_output=@%t.m2.npy \
// RUN:   --expected_output=@%t.m3.npy --expected_output=@%t.m4.npy | FileCheck %s --check-prefix=FIVE
//
// Printed results and per-set benchmarks name their run.
// RUN: %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --no-cache --input=1x32x32x3xf32=0 --input=2x32x32x3xf32=0 \
// RUN:   --benchmark=2 | FileCheck %s --check-prefix=PRINT
// PRINT: run[0] result[0]: 1x10xf32=
// PRINT-NEXT: run[0] benchmark
// PRINT-NEXT: latency_ms min=
// PRINT: run[1] result[0]: 2x10xf32=
// PRINT-NEXT: run[1] benchmark
//
// A count of --input flags that is not a whole number of sets, too many
// --output flags, a JSON report of several sets, and a bad policy are errors.
// RUN: not %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --no-cache --input=1x32x32x3xf32 --input=2x32x32x3xf32 \
// RUN:   --output=@%t.x0.npy --output=@%t.x1.npy --output=@%t.x2.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: jitrun: error: got 3 --output flags for 2 results
// RUN: not %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --no-cache --input=1x32x32x3xf32 --input=2x32x32x3xf32 \
// RUN:   --benchmark=1 --benchmark-json=- 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: jitrun: error: --benchmark-json and --profile-json take one set of --input flags, not 2
// RUN: not %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --no-cache --shape-policy=eager \
// RUN:   --input=1x32x32x3xf32 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: jitrun: error: --shape-policy must be specialize, tiered, split, buckets or generic, not 'eager'
// A run whose shapes the model refuses names its set.
// RUN: not %jitrun %zoo/dynamic/mobilenet_v2.mlirbc --no-cache --input=1x32x32x3xf32 \
// RUN:   --input=2x31x32x3xf32 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: jitrun: error: input set 1: input 0{{.*}}expected shape ?x32x32x3xf32, got 2x31x32x3
