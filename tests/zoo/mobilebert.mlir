// Zoo model mobilebert (modelgen mobilebert --size=test, built into build/zoo):
// two MobileBERT layers (seq 16, hidden 64, bottleneck 32, 2 heads, 4 stacked
// FFNs, NoNorm affine generics, relu); full size 24 layers, hidden 512,
// bottleneck 128. jitrun matches its reference path at 1 and 2 threads in every
// fusion mode; the statistics pin the architecture (an accidental change to the
// model, to fusion or to dispatch formation shows here; update the counts on
// purpose).
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --threads=1 --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
//
// The dynamic variant (modelgen --dynamic: the sequence length open, `?`): at the
// static shape its specialization is the static model's program
// (bit-identical results, as many dispatches); at another sequence length it
// matches its own reference path.
// RUN: %jitrun %zoo/mobilebert.mlirbc --input=1x16x64xf32 --output=@%t.static.npy
// RUN: %jitrun %zoo/dynamic/mobilebert.mlirbc --input=1x16x64xf32 --expected_output=@%t.static.npy --expected_atol=0 --expected_rtol=0 | FileCheck %s
// RUN: %jitrun %zoo/dynamic/mobilebert.mlirbc --input=1x16x64xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=DYNSTATS
// DYNSTATS: "dispatches":38,
// RUN: %jitrun %zoo/dynamic/mobilebert.mlirbc --input=1x23x64xf32 --reference --output=@%t.other.npy
// RUN: %jitrun %zoo/dynamic/mobilebert.mlirbc --input=1x23x64xf32 --threads=2 --expected_output=@%t.other.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":84,"generic_after":54,"root_ops":38,"dispatch_regions":38,"dispatches":38,"executables":13,"fills":0,"copies":0,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":84,"generic_after":54,"root_ops":38,"dispatch_regions":38,"dispatches":38,"executables":13,"fills":0,"copies":0,
// AGGR-SAME: "scalar_kernels":0,
