// MLIR text cut off in the middle of a function body: a parse error with a
// location in this file.
// RUN: sh -c '%jitrun %s --input=4xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// CHECK: truncated_mlir.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
