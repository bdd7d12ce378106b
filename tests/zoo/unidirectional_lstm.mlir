// Zoo model unidirectional_lstm (modelgen unidirectional_lstm --size=test,
// built into build/zoo): a single-layer LSTM (PyTorch gate order i, f, g, o),
// 4 time steps, input 8, hidden 16, as an scf.for with tensor iter_args h, c
// and the output sequence. Each step slices x_t at the induction variable,
// computes x_t W_ih + h W_hh + b (two matmuls and a generic), slices the four
// gates, computes c and h with sigmoid/tanh generics and inserts h into the
// sequence at the induction variable. Returns the sequence (4x1x16), h and c
// (1x16). Full size: 32 steps, input 256, hidden 256.
//
// jitrun's host program cannot run scf.for yet ("'scf.for' is not supported
// by jitrun's host program yet"), so for now this test pins the structure with
// jit-opt; the run lines come with host-program support. The model was
// checked with upstream mlir-opt (one-shot-bufferize, loops, LLVM) and
// mlir-runner against a plain Python LSTM on the same weights (max |diff|
// 5e-7 over the sequence and c).
//
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
