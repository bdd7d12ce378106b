// jitrun-codegen-read-padding-in-place alone, on depthwise convolutions
// tiled with their input padding in the dispatch (jitrun-codegen-tile never
// fuses the tensor.pad): each tile of the padded input is read straight from
// the unpadded input when it lies inside it, and padded on the stack only at
// the border.
// - NHWC: inside, a slice of the input itself; at the border, a 1x3x10x16
//   tile whose 30 rows of 16 channels are one masked vector read each (the
//   lanes of a row outside the input take the padding value).
// - NCHW: at the border, a 1x1x3x14 tile filled with the padding value, then
//   the rows inside the input copied, one masked vector each.
// RUN: %jit-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(jitrun-codegen-read-padding-in-place))' | FileCheck %s

// CHECK-LABEL: func.func private @dw_dispatch(
// CHECK:         %[[IN:.*]] = bufferization.to_tensor %arg0
// CHECK:         scf.forall
// CHECK:           arith.cmpi sge, %{{.*}}, %c1
// CHECK:           arith.cmpi sle, %{{.*}}, %c21
// CHECK:           arith.cmpi sge, %{{.*}}, %c1
// CHECK:           arith.cmpi sle, %{{.*}}, %c25
// CHECK:           scf.if
// CHECK-NEXT:        tensor.extract_slice %[[IN]][{{.*}}] [1, 3, 10, 16] [1, 1, 1, 1] : tensor<1x20x24x16xf32> to tensor<1x3x10x16xf32>
// CHECK:             linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:           } else {
// CHECK:             %[[TILE:.*]] = tensor.empty() : tensor<1x3x10x16xf32>
// CHECK-NOT:         scf.for
// CHECK:             vector.transfer_read %[[IN]]{{.*}} : tensor<1x20x24x16xf32>, vector<16xf32>
// CHECK:             vector.transfer_write %{{.*}}, %[[TILE]]
// CHECK-COUNT-29:    vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x3x10x16xf32>
// CHECK-NOT:         vector.transfer_write
// CHECK:             linalg.depthwise_conv_2d_nhwc_hwc

func.func private @dw_dispatch(%arg0: memref<1x20x24x16xf32> {llvm.noalias}, %arg1: memref<3x3x16xf32> {llvm.noalias}, %arg2: memref<1x20x24x16xf32> {llvm.noalias}, %arg3: index) attributes {jitrun.dispatch} {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x20x24x16xf32> to tensor<1x20x24x16xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x16xf32> to tensor<3x3x16xf32>
  %padded = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index):
    tensor.yield %cst : f32
  } : tensor<1x20x24x16xf32> to tensor<1x22x26x16xf32>
  %2 = bufferization.to_tensor %arg2 restrict writable : memref<1x20x24x16xf32> to tensor<1x20x24x16xf32>
  %3 = scf.forall (%arg4) in (20) shared_outs(%arg5 = %2) -> (tensor<1x20x24x16xf32>) {
    %extracted_slice = tensor.extract_slice %padded[0, %arg4, 0, 0] [1, 3, 26, 16] [1, 1, 1, 1] : tensor<1x22x26x16xf32> to tensor<1x3x26x16xf32>
    %extracted_slice_0 = tensor.extract_slice %arg5[0, %arg4, 0, 0] [1, 1, 24, 16] [1, 1, 1, 1] : tensor<1x20x24x16xf32> to tensor<1x1x24x16xf32>
    %4 = scf.for %arg6 = %c0 to %c1 step %c1 iter_args(%arg7 = %extracted_slice_0) -> (tensor<1x1x24x16xf32>) {
      %5 = scf.for %arg8 = %c0 to %c1 step %c1 iter_args(%arg9 = %arg7) -> (tensor<1x1x24x16xf32>) {
        %6 = scf.for %arg10 = %c0 to %c24 step %c8 iter_args(%arg11 = %arg9) -> (tensor<1x1x24x16xf32>) {
          %7 = scf.for %arg12 = %c0 to %c16 step %c16 iter_args(%arg13 = %arg11) -> (tensor<1x1x24x16xf32>) {
            %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg6, %arg8, %arg10, %arg12] [1, 3, 10, 16] [1, 1, 1, 1] : tensor<1x3x26x16xf32> to tensor<1x3x10x16xf32>
            %extracted_slice_2 = tensor.extract_slice %1[0, 0, %arg12] [3, 3, 16] [1, 1, 1] : tensor<3x3x16xf32> to tensor<3x3x16xf32>
            %extracted_slice_3 = tensor.extract_slice %arg13[%arg6, %arg8, %arg10, %arg12] [1, 1, 8, 16] [1, 1, 1, 1] : tensor<1x1x24x16xf32> to tensor<1x1x8x16xf32>
            %8 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
            %9 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, jitrun.lowering_config = {cache = array<i64: 0, 0, 0, 0, 0, 0>, reduction = array<i64: 0, 0, 0, 0, 1, 0>, scheme = "convolution", vector = array<i64: 1, 1, 8, 16, 0, 0>, workgroup = array<i64: 0, 1, 0, 0, 0, 0>}, strides = dense<1> : tensor<2xi64>} ins(%extracted_slice_1, %extracted_slice_2 : tensor<1x3x10x16xf32>, tensor<3x3x16xf32>) outs(%8 : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
            %inserted_slice = tensor.insert_slice %9 into %arg13[%arg6, %arg8, %arg10, %arg12] [1, 1, 8, 16] [1, 1, 1, 1] : tensor<1x1x8x16xf32> into tensor<1x1x24x16xf32>
            scf.yield %inserted_slice : tensor<1x1x24x16xf32>
          }
          scf.yield %7 : tensor<1x1x24x16xf32>
        }
        scf.yield %6 : tensor<1x1x24x16xf32>
      }
      scf.yield %5 : tensor<1x1x24x16xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %4 into %arg5[0, %arg4, 0, 0] [1, 1, 24, 16] [1, 1, 1, 1] : tensor<1x1x24x16xf32> into tensor<1x20x24x16xf32>
    }
  }
  bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<1x20x24x16xf32>, memref<1x20x24x16xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func private @dw_nchw_dispatch(
// CHECK:         %[[IN:.*]] = bufferization.to_tensor %arg0
// CHECK:         scf.if
// CHECK-NEXT:      tensor.extract_slice %[[IN]][{{.*}}] [1, 1, 3, 14] [1, 1, 1, 1]
// CHECK:         } else {
// CHECK:           %[[TILE:.*]] = tensor.empty() : tensor<1x1x3x14xf32>
// CHECK:           %[[PADS:.*]] = vector.broadcast %cst : f32 to vector<1x1x3x14xf32>
// CHECK:           vector.transfer_write %[[PADS]], %[[TILE]]
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 vector.transfer_read %[[IN]]{{.*}} : tensor<1x16x20x24xf32>, vector<14xf32>
// CHECK:                 vector.transfer_write {{.*}} : vector<14xf32>, tensor<1x1x3x14xf32>
// CHECK:           linalg.depthwise_conv_2d_nchw_chw

func.func private @dw_nchw_dispatch(%arg0: memref<1x16x20x24xf32> {llvm.noalias}, %arg1: memref<16x3x3xf32> {llvm.noalias}, %arg2: memref<1x16x20x24xf32> {llvm.noalias}, %arg3: index) attributes {jitrun.dispatch} {
  %c16 = arith.constant 16 : index
  %c12 = arith.constant 12 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x16x20x24xf32> to tensor<1x16x20x24xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<16x3x3xf32> to tensor<16x3x3xf32>
  %padded = tensor.pad %0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index):
    tensor.yield %cst : f32
  } : tensor<1x16x20x24xf32> to tensor<1x16x22x26xf32>
  %2 = bufferization.to_tensor %arg2 restrict writable : memref<1x16x20x24xf32> to tensor<1x16x20x24xf32>
  %3 = scf.forall (%arg4, %arg5) = (0, 0) to (20, 24) step (1, 12) shared_outs(%arg6 = %2) -> (tensor<1x16x20x24xf32>) {
    %extracted_slice = tensor.extract_slice %padded[0, 0, %arg4, %arg5] [1, 16, 3, 14] [1, 1, 1, 1] : tensor<1x16x22x26xf32> to tensor<1x16x3x14xf32>
    %extracted_slice_0 = tensor.extract_slice %arg6[0, 0, %arg4, %arg5] [1, 16, 1, 12] [1, 1, 1, 1] : tensor<1x16x20x24xf32> to tensor<1x16x1x12xf32>
    %4 = scf.for %arg7 = %c0 to %c1 step %c1 iter_args(%arg8 = %extracted_slice_0) -> (tensor<1x16x1x12xf32>) {
      %5 = scf.for %arg9 = %c0 to %c1 step %c1 iter_args(%arg10 = %arg8) -> (tensor<1x16x1x12xf32>) {
        %6 = scf.for %arg11 = %c0 to %c12 step %c12 iter_args(%arg12 = %arg10) -> (tensor<1x16x1x12xf32>) {
          %7 = scf.for %arg13 = %c0 to %c16 step %c1 iter_args(%arg14 = %arg12) -> (tensor<1x16x1x12xf32>) {
            %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg7, %arg13, %arg9, %arg11] [1, 1, 3, 14] [1, 1, 1, 1] : tensor<1x16x3x14xf32> to tensor<1x1x3x14xf32>
            %extracted_slice_2 = tensor.extract_slice %1[%arg13, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<16x3x3xf32> to tensor<1x3x3xf32>
            %extracted_slice_3 = tensor.extract_slice %arg14[%arg7, %arg13, %arg9, %arg11] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<1x16x1x12xf32> to tensor<1x1x1x12xf32>
            %8 = linalg.fill ins(%cst : f32) outs(%extracted_slice_3 : tensor<1x1x1x12xf32>) -> tensor<1x1x1x12xf32>
            %9 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, jitrun.lowering_config = {cache = array<i64: 0, 0, 0, 0, 0, 0>, reduction = array<i64: 0, 0, 0, 0, 1, 1>, scheme = "convolution", vector = array<i64: 1, 1, 12, 1, 0, 0>, workgroup = array<i64: 0, 1, 12, 0, 0, 0>}, strides = dense<1> : tensor<2xi64>} ins(%extracted_slice_1, %extracted_slice_2 : tensor<1x1x3x14xf32>, tensor<1x3x3xf32>) outs(%8 : tensor<1x1x1x12xf32>) -> tensor<1x1x1x12xf32>
            %inserted_slice = tensor.insert_slice %9 into %arg14[%arg7, %arg13, %arg9, %arg11] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<1x1x1x12xf32> into tensor<1x16x1x12xf32>
            scf.yield %inserted_slice : tensor<1x16x1x12xf32>
          }
          scf.yield %7 : tensor<1x16x1x12xf32>
        }
        scf.yield %6 : tensor<1x16x1x12xf32>
      }
      scf.yield %5 : tensor<1x16x1x12xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %4 into %arg6[0, 0, %arg4, %arg5] [1, 16, 1, 12] [1, 1, 1, 1] : tensor<1x16x1x12xf32> into tensor<1x16x20x24xf32>
    }
  }
  bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<1x16x20x24xf32>, memref<1x16x20x24xf32>) -> ()
  return
}
