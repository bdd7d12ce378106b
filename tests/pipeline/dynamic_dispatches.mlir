// Import and fusion of dynamic programs (a `?` batch or sequence length):
// dispatches form as in static ones. A dispatch recomputes the dims its
// tensor.empty ops take (tensor.dim of a tensor it is passed) and the
// scalars computed from them (a mean's 1/n); a shape query of a result
// (tensor.dim, the output shape of a reshape) is the dim of the operand it
// comes from, not a use that keeps the result from fusing; the transposes
// around an NCHW convolution with a dynamic batch take their sizes from the
// init, not from the result they replace.
//
// RUN: %jit-opt %s --split-input-file --mlir-print-local-scope \
// RUN:   --jitrun-import-pipeline --jitrun-fusion-pipeline | FileCheck %s

// A matmul with a dynamic row count, its bias add (whose rows a shape query
// of the matmul's result gives) and the reshape of the sum: one dispatch.
// CHECK-LABEL: func.func private @main_dispatch_0(
// CHECK-SAME:    %[[DA:[^:]+]]: tensor<?x16xf32>
// CHECK:         %[[N:.+]] = tensor.dim %[[DA]], %{{.*}} : tensor<?x16xf32>
// CHECK:         tensor.empty(%[[N]]) : tensor<?x32xf32>
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:         arith.addf
// CHECK-NOT:     linalg.{{[a-z_]+}} {{.*}}ins(
// CHECK:         return
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<?x16xf32>
// CHECK:         %[[R:.+]] = call @main_dispatch_0(%[[A]], %{{.*}}, %{{.*}}) : (tensor<?x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
// CHECK-NOT:     call
// CHECK:         tensor.expand_shape %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = tensor.dim %mm, %c0 : tensor<?x32xf32>
  %e2 = tensor.empty(%m) : tensor<?x32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x32xf32>, tensor<32xf32>) outs(%e2 : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  %r = tensor.expand_shape %sum [[0], [1, 2]] output_shape [%m, 4, 8] : tensor<?x32xf32> into tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}

// -----

// A mean over a dynamic sequence: the sum and its division by n, whose
// conversion to f32 comes after the sum in the host, are one dispatch.
// CHECK-LABEL: func.func private @main_dispatch_0(
// CHECK-SAME:    %[[DX:[^:]+]]: tensor<?x64xf32>
// CHECK-DAG:     %[[N:.+]] = tensor.dim %[[DX]], %{{.*}} : tensor<?x64xf32>
// CHECK-DAG:     %[[NI:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG:     %[[NF:.+]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         linalg.generic
// CHECK:           arith.divf %{{.*}}, %[[NF]] : f32
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x64xf32>
// CHECK:         call @main_dispatch_0(%[[X]]) : (tensor<?x64xf32>) -> tensor<64xf32>
// CHECK-NOT:     call
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %mean = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sum : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %nf : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  return %mean : tensor<64xf32>
}

// -----

// An NCHW convolution, its bias and relu with a dynamic batch: computed in
// NHWC (the image and the filter transposed in dispatches of their own, the
// padding on the host), the bias, relu and transpose back in the
// convolution's dispatch, which measures the batch on the image it is given.
// CHECK-LABEL: func.func private @main_dispatch_2(
// CHECK:         tensor.dim
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.{{[a-z_]+}} {{.*}}ins(
// CHECK:         return
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x8x9x7xf32>
// CHECK:         call @main_dispatch_0(%[[X]]) : (tensor<?x8x9x7xf32>) -> tensor<?x9x7x8xf32>
// CHECK:         tensor.insert_slice
// CHECK:         call @main_dispatch_1(
// CHECK:         %[[Y:.+]] = call @main_dispatch_2(
// CHECK-SAME:      -> tensor<?x16x9x7xf32>
// CHECK-NOT:     call
// CHECK:         return %[[Y]]
func.func @main(%x: tensor<?x8x9x7xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x9x7xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8x9x7xf32>
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x8x9x7xf32> to tensor<?x8x11x9xf32>
  %e = tensor.empty(%n) : tensor<?x16x9x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16x9x7xf32>) -> tensor<?x16x9x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%xp, %w : tensor<?x8x11x9xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<?x16x9x7xf32>) -> tensor<?x16x9x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<?x16x9x7xf32>, tensor<16xf32>) outs(%e : tensor<?x16x9x7xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x16x9x7xf32>
  return %r : tensor<?x16x9x7xf32>
}
