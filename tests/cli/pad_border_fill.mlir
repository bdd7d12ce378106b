// A tensor.pad becomes a fill and a slice copy into the filled buffer; the
// fill then writes only the border, the box outside the copy (the copy
// writes the interior right after it). Values checked against literals:
// - 2x3 padded low [1, 1] high [0, 2] with 0.5: the innermost dimension is
//   split around the interior (rows of the interior get 1 + 2 border
//   elements, the first row is all border);
// - 2x2x2 padded low [0, 1, 0] high [1, 0, 0] with 9 (a 4-byte pattern,
//   not a memset): the innermost dimension is not padded, whole runs of 2.
// The profile names the fills fill:SHAPE:border.
//
// RUN: %jitrun %s --input=2x3xf32=1,2,3,4,5,6 --input=2x2x2xf32=1,2,3,4,5,6,7,8 \
// RUN:   --expected_output=3x6xf32=0.5,0.5,0.5,0.5,0.5,0.5,0.5,1,2,3,0.5,0.5,0.5,4,5,6,0.5,0.5 \
// RUN:   --expected_output=3x3x2xf32=9,9,1,2,3,4,9,9,5,6,7,8,9,9,9,9,9,9 \
// RUN:   --expected_atol=0 --expected_rtol=0 | FileCheck %s
// RUN: %jitrun %s --input=2x3xf32 --input=2x2x2xf32 --profile | FileCheck %s --check-prefix=PROF

// CHECK: result[0]: matches the expected output
// CHECK: result[1]: matches the expected output
// PROF-DAG: profile: fill:3x6xf32:border
// PROF-DAG: profile: fill:3x3x2xf32:border
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x2x2xf32>) -> (tensor<3x6xf32>, tensor<3x3x2xf32>) {
  %half = arith.constant 0.5 : f32
  %nine = arith.constant 9.0 : f32
  %p = tensor.pad %x low[1, 1] high[0, 2] {
  ^bb0(%a: index, %b: index):
    tensor.yield %half : f32
  } : tensor<2x3xf32> to tensor<3x6xf32>
  %q = tensor.pad %y low[0, 1, 0] high[1, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %nine : f32
  } : tensor<2x2x2xf32> to tensor<3x3x2xf32>
  return %p, %q : tensor<3x6xf32>, tensor<3x3x2xf32>
}
