// Zoo model bert_encoder (modelgen bert_encoder --size=test, built into
// build/zoo): two BERT encoder layers (seq 16, hidden 64, 2 heads, ffn 256):
// q/k/v/output matmuls + bias, heads by expand_shape + transpose generics,
// batch_matmul attention with softmax generics, erf GELU, layer norms; full
// size BERT-base (12 layers, seq 128, hidden 768, 12 heads). The two layers
// share their kernels. jitrun matches its reference path at 1 and 2 threads in
// every fusion mode; the statistics pin the architecture (an accidental change
// to the model, to fusion or to dispatch formation shows here; update the
// counts on purpose).
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --reference --output=@%t.ref.npy
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --threads=1 --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --threads=2 --fusion=aggressive --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --threads=2 --fusion=none --expected_output=@%t.ref.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
//
// The dynamic variant (modelgen --dynamic: the sequence length open, `?`): at the
// static shape its specialization is the static model's program
// (bit-identical results, as many dispatches); at another sequence length it
// matches its own reference path.
// RUN: %jitrun %zoo/bert_encoder.mlirbc --input=1x16x64xf32 --output=@%t.static.npy
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --input=1x16x64xf32 --expected_output=@%t.static.npy --expected_atol=0 --expected_rtol=0 | FileCheck %s
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --input=1x16x64xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=DYNSTATS
// DYNSTATS: "dispatches":28,
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --input=1x37x64xf32 --reference --output=@%t.other.npy
// RUN: %jitrun %zoo/dynamic/bert_encoder.mlirbc --input=1x37x64xf32 --threads=2 --expected_output=@%t.other.npy --expected_atol=1e-3 --expected_rtol=1e-3 | FileCheck %s

// CHECK: result[0]: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":60,"generic_after":60,"root_ops":28,"dispatch_regions":28,"dispatches":28,"executables":11,"fills":0,"copies":0,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":60,"generic_after":60,"root_ops":28,"dispatch_regions":28,"dispatches":28,"executables":11,"fills":0,"copies":0,
// AGGR-SAME: "scalar_kernels":0,
