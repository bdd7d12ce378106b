// An input whose element type differs from the argument's (inline and npy).
// RUN: sh -c '%jitrun %s --input=4xi32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// RUN: sh -c '%jitrun %s --input=@%S/Inputs/f64_4.npy 2>%t.npy.err; test $? -eq 1'
// RUN: FileCheck %s < %t.npy.err --check-prefix=NPY
// CHECK: jitrun: error: input 0: expected shape and type 4xf32, got 4xi32
// NPY: jitrun: error: input 0: expected shape and type 4xf32, got 4xf64
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
