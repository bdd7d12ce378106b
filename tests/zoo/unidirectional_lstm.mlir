// Zoo model unidirectional_lstm (modelgen unidirectional_lstm --size=test,
// built into build/zoo): a single-layer LSTM (PyTorch gate order i, f, g, o),
// 4 time steps, input 8, hidden 16, as an scf.for with tensor iter_args h, c
// and the output sequence. Each step slices x_t at the induction variable,
// computes x_t W_ih + h W_hh + b (two matmuls and a generic), slices the four
// gates, computes c and h with sigmoid/tanh generics and inserts h into the
// sequence at the induction variable. Returns the sequence (4x1x16), h and c
// (1x16). Full size: 32 steps, input 256, hidden 256.
//
// The host program runs the scf.for: slices at the induction variable are
// host copies with run-time offsets, the steps' matmuls and gate generics
// are dispatches inside the loop, h, c and the sequence are carried in
// buffers of their own. lstm_reference.py computes the same LSTM in plain
// Python from the model's weights (modelgen's text form), independently of
// jitrun's host program, and compares all three results (1e-5); the model
// also matches the reference path at 1 and 2 threads in every fusion mode.
//
// RUN: python3 %S/lstm_reference.py %modelgen %jitrun %t.dir | FileCheck %s --check-prefix=PYTHON
// RUN: python3 %S/lstm_reference.py %modelgen %jitrun %t.dir --threads=2 --fusion=aggressive | FileCheck %s --check-prefix=PYTHON
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --reference --output=@%t.0.npy --output=@%t.1.npy --output=@%t.2.npy
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --threads=1 --expected_output=@%t.0.npy --expected_output=@%t.1.npy --expected_output=@%t.2.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --threads=2 --fusion=aggressive --expected_output=@%t.0.npy --expected_output=@%t.1.npy --expected_output=@%t.2.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --threads=2 --fusion=none --expected_output=@%t.0.npy --expected_output=@%t.1.npy --expected_output=@%t.2.npy | FileCheck %s --check-prefix=MATCH
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %jitrun %zoo/unidirectional_lstm.mlirbc --input=4x1x8xf32 --fusion=aggressive --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=AGGR
// PYTHON: lstm matches the Python LSTM
// MATCH-COUNT-3: matches the expected output
// STATS: "function":"main","fusion":"default","generic_before":3,"generic_after":3,"root_ops":2,"dispatch_regions":4,"dispatches":4,"executables":4,"fills":2,"copies":11,
// STATS-SAME: "scalar_kernels":0,
// AGGR: "function":"main","fusion":"aggressive","generic_before":3,"generic_after":3,"root_ops":2,"dispatch_regions":3,"dispatches":3,"executables":3,"fills":2,"copies":11,
// RUN: %jit-opt %zoo/unidirectional_lstm.mlirbc | FileCheck %s
// RUN: %jit-opt %zoo/unidirectional_lstm.mlirbc | grep -c linalg.matmul | FileCheck %s --check-prefix=MATMULS
// RUN: %jit-opt %zoo/unidirectional_lstm.mlirbc | grep -c linalg.generic | FileCheck %s --check-prefix=GENERICS
// RUN: %jit-opt %zoo/unidirectional_lstm.mlirbc --jitrun-import-pipeline | FileCheck %s --check-prefix=IMPORT

// CHECK-LABEL: func.func @main(%{{.*}}: tensor<4x1x8xf32>) -> (tensor<4x1x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>)
// CHECK-DAG: dense_resource<lstm.weight_ih> : tensor<8x64xf32>
// CHECK-DAG: dense_resource<lstm.weight_hh> : tensor<16x64xf32>
// CHECK-DAG: dense_resource<lstm.bias> : tensor<64xf32>
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: tensor.extract_slice %{{.*}}[%[[T]], 0, 0] [1, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> to tensor<1x8xf32>
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract_slice {{.*}} : tensor<1x64xf32> to tensor<1x16xf32>
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 0] [1, 1, 16] [1, 1, 1] : tensor<1x16xf32> into tensor<4x1x16xf32>
// CHECK: scf.yield
// CHECK: return %[[LOOP]]#2, %[[LOOP]]#0, %[[LOOP]]#1
// MATMULS: {{^}}2{{$}}
// GENERICS: {{^}}3{{$}}
// IMPORT: scf.for
// IMPORT: tensor.insert_slice
