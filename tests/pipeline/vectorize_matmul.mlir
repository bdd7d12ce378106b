// Proves that jitrun-codegen-tile-and-vectorize turns a fill + matmul dispatch
// (64x96 * 96x80 f32, as fusion/DispatchFormation.cpp outlines it) into
// vector code: the fill becomes a vector store of zeros, the matmul a loop
// over K of vector.contract on a register tile of 8 rows x 2 vectors (the
// default vector-bits=512 gives 16 f32 lanes, so rows are vector<32xf32>);
// N = 80 is not a multiple of 32, so the edge tile is masked instead of being
// left to scalar code. No linalg op and no scalar tensor.extract is left, and
// the fill is not yielded as a second workgroup result (it writes the output
// tile in place). With vector-bits=256 (AVX2) the rows are 2 x 8 lanes.
//
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize))' \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not='{{tensor\.extract[^_]}}'
// RUN: %jit-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-lower-dispatch-abi,jitrun-codegen-tile-and-vectorize{vector-bits=256}))' \
// RUN:   | FileCheck %s --check-prefix=AVX2 --implicit-check-not=linalg. --implicit-check-not='{{tensor\.extract[^_]}}'

// The kernel ABI: buffers in, the output buffer, the workgroup id.
// CHECK-LABEL: func.func private @matmul_dispatch(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<64x96xf32>{{[^,]*}}, %[[B:[a-z0-9]+]]: memref<96x80xf32>{{[^,]*}}, %[[C:[a-z0-9]+]]: memref<64x80xf32>{{[^,]*}}, %{{[a-z0-9]+}}: index)
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK:         %[[TA:.*]] = bufferization.to_tensor %[[A]] restrict
// CHECK:         %[[TB:.*]] = bufferization.to_tensor %[[B]] restrict
// CHECK:         %[[TC:.*]] = bufferization.to_tensor %[[C]] restrict writable
// Workgroups of 8 x 32 outputs; one shared output, the output buffer.
// CHECK:         scf.forall (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) = (0, 0) to (64, 80) step (8, 32) shared_outs(%{{[a-z0-9]+}} = %[[TC]]) -> (tensor<64x80xf32>) {
// The fill: masked vector store of zeros over the 8 x 32 (or 8 x 16 at the
// edge) tile.
// CHECK:           %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<8x32xi1>
// CHECK:           vector.mask %[[MASK]] { vector.transfer_write %[[ZERO]], %{{.*}} : vector<8x32xf32>, tensor<8x?xf32> }
// The reduction loop over K, one step at a time.
// CHECK:           scf.for %[[K:[a-z0-9]+]] = %c0 to %c96 step %c1 iter_args(%{{.*}}) -> (tensor<8x?xf32>) {
// A column of 8 rows of A, a row of 32 columns of B, the accumulator tile.
// CHECK:             vector.transfer_read %[[TA]][%[[I]], %[[K]]], %{{.*}} : tensor<64x96xf32>, vector<8x1xf32>
// CHECK:             vector.mask %{{.*}} { vector.transfer_read %[[TB]][%[[K]], %{{.*}}], %{{.*}} : tensor<96x80xf32>, vector<1x32xf32> } : vector<1x32xi1> -> vector<1x32xf32>
// CHECK:             vector.mask %{{.*}} { vector.transfer_read %{{.*}} : tensor<8x?xf32>, vector<8x32xf32> } : vector<8x32xi1> -> vector<8x32xf32>
// CHECK:             vector.mask %{{.*}} { vector.contract {indexing_maps = {{.*}}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %{{.*}}, %{{.*}}, %{{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32> } : vector<8x32x1xi1> -> vector<8x32xf32>
// CHECK:             vector.mask %{{.*}} { vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<8x?xf32> }
// CHECK:             scf.yield
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], %[[J]]] [8, %{{.*}}] [1, 1] : tensor<8x?xf32> into tensor<64x80xf32>
// CHECK-NEXT:      }
// CHECK:         bufferization.materialize_in_destination %{{.*}} in restrict writable %[[C]]
// CHECK:         return

// AVX2-LABEL: func.func private @matmul_dispatch(
// AVX2:         arith.constant dense<0.000000e+00> : vector<8x16xf32>
// AVX2:         scf.forall
// AVX2:           vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<8x?xf32>
// AVX2:           scf.for %{{.*}} = %c0 to %c96 step %c1
// AVX2:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// AVX2:         return

func.func private @matmul_dispatch(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}
