// @main takes two tensors; one input and three inputs are both errors.
// RUN: sh -c '%jitrun %s --input=4xf32=1 2>%t.few.err; test $? -eq 1'
// RUN: FileCheck %s < %t.few.err --check-prefix=FEW
// RUN: sh -c '%jitrun %s --input=4xf32=1 --input=4xf32=2 --input=4xf32=3 2>%t.many.err; test $? -eq 1'
// RUN: FileCheck %s < %t.many.err --check-prefix=MANY
// FEW: error:
// FEW-SAME: expected 2 input
// FEW-SAME: 1
// MANY: error:
// MANY-SAME: expected 2 input
// MANY-SAME: 3
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
