// An input whose shape differs from the argument's (inline value and npy).
// RUN: sh -c '%jitrun %s --input=3x2xf32=1 2>%t.err; test $? -eq 1'
// RUN: FileCheck %s < %t.err
// RUN: sh -c '%jitrun %s --input=@%S/Inputs/f32_3x2.npy 2>%t.npy.err; test $? -eq 1'
// RUN: FileCheck %s < %t.npy.err
// RUN: sh -c '%jitrun %s --input=6xf32=1 2>%t.rank.err; test $? -eq 1'
// RUN: FileCheck %s < %t.rank.err
// CHECK: jitrun: error: input 0: expected shape and type 2x3xf32, got {{3x2xf32|6xf32}}
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
