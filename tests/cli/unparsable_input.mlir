// Input values that do not parse: a bad number, a bad element type, a bad
// dimension, too many values for the shape.
// RUN: sh -c '%jitrun %s --input=2x3xf32=1,2,abc,4,5,6 2>%t.num.err; test $? -eq 1'
// RUN: FileCheck %s < %t.num.err --check-prefix=NUM
// RUN: sh -c '%jitrun %s --input=2x3xq7=1 2>%t.type.err; test $? -eq 1'
// RUN: FileCheck %s < %t.type.err --check-prefix=TYPE
// RUN: sh -c '%jitrun %s --input=2xZxf32=1 2>%t.dim.err; test $? -eq 1'
// RUN: FileCheck %s < %t.dim.err --check-prefix=DIM
// RUN: sh -c '%jitrun %s --input=2x3xf32=1,2,3,4,5,6,7 2>%t.count.err; test $? -eq 1'
// RUN: FileCheck %s < %t.count.err --check-prefix=COUNT
// NUM: error:
// NUM-SAME: abc
// TYPE: error:
// TYPE-SAME: q7
// DIM: error:
// DIM-SAME: 2xZxf32
// COUNT: error:
// COUNT-SAME: 7
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
