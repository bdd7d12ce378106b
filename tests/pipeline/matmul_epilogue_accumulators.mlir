// Proves that for a matmul with a fused epilogue (a bias add, in the same
// dispatch as fusion/DispatchFormation.cpp forms it) the kernel pipeline keeps
// the 8 x 32 accumulator tile in registers across the K loop: after
// jitrun-codegen-lower-vectors the loop carries it as an iter_arg of type
// vector<8x32xf32>, its body is the reads of A and B and 8 vector.fma on
// vector<32xf32> and no transfer of the accumulator, and the tile is stored
// once, after the loop, into its 1 KiB stack temporary (8 x 32 x 4 bytes);
// the bias add then reads it back, adds a row of bias and stores the result
// into the output buffer. The whole pipeline records 1024 stack bytes.
// (Without an epilogue the accumulator tile lives in the output buffer:
// matmul_accumulator_hoisting.mlir.)
//
// RUN: %jit-opt %s --jitrun-codegen-pipeline \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// RUN: %jit-opt %s --jitrun-codegen-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: IR Dump After LowerVectorsPass
// CHECK:       func.func private @matmul_bias_dispatch(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<64x96xf32>{{[^,]*}}, %[[B:[a-z0-9]+]]: memref<96x64xf32>{{[^,]*}}, %[[BIAS:[a-z0-9]+]]: memref<64xf32>{{[^,]*}}, %[[C:[a-z0-9]+]]: memref<64x64xf32>{{[^,]*}}, %{{[a-z0-9]+}}: index)
// CHECK:         %[[TMP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xf32>
// CHECK:         vector.transfer_write %{{.*}}, %[[TMP]][%c0, %c0] {{.*}} : vector<8x32xf32>, memref<8x32xf32>
// CHECK:         %[[INIT:.*]] = vector.transfer_read %[[TMP]][%c0, %c0]{{.*}} : memref<8x32xf32>, vector<8x32xf32>
// CHECK:         %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}} = %[[INIT]]) -> (vector<8x32xf32>) {
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %[[A]]{{.*}} : memref<64x96xf32>, vector<8x1xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           vector.transfer_read %[[B]]{{.*}} : memref<96x64xf32>, vector<1x32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       vector.transfer_
// CHECK:           scf.yield %{{.*}} : vector<8x32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    vector.transfer_write %[[ACC]], %[[TMP]][%c0, %c0] {{.*}} : vector<8x32xf32>, memref<8x32xf32>
// CHECK:         vector.transfer_read %[[BIAS]]
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<8x32xf32>
// The output tile's subview is folded into the store's indices.
// CHECK:         vector.transfer_write %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {{.*}} : vector<8x32xf32>, memref<64x64xf32>
// CHECK:         return

// LLVM-LABEL: llvm.func @matmul_bias_dispatch(
// LLVM-SAME:      jitrun.stack_bytes = 1024 : i64

func.func private @matmul_bias_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>, %bias: tensor<64xf32>) -> tensor<64x64xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
