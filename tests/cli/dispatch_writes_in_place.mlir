// Dispatches write straight into their box of a concat or a padded buffer
// (compiler/InPlaceWrites.cpp) when nothing reads the buffer, or writes an
// overlapping part of it, between the dispatch and the insert; the copies
// statistic counts the inserts left as copies. Values worked out by hand,
// fused and on the reference path.
// RUN: %jitrun %s --function=concat --input=2x2xf32=1,2,3,4 --input=2x2x2xf32=1,2,3,4,5,6,7,8 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CAT,CATSTATS
// RUN: %jitrun %s --function=concat --input=2x2xf32=1,2,3,4 --input=2x2x2xf32=1,2,3,4,5,6,7,8 \
// RUN:   --reference | FileCheck %s --check-prefix=CAT
// RUN: %jitrun %s --function=overlap --input=2x4xf32=1,2,3,4,5,6,7,8 --input=2x2xf32=1,2,3,4 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=OVER,OVERSTATS
// RUN: %jitrun %s --function=overlap --input=2x4xf32=1,2,3,4,5,6,7,8 --input=2x2xf32=1,2,3,4 \
// RUN:   --reference | FileCheck %s --check-prefix=OVER
// RUN: %jitrun %s --function=read_between --input=2x2xf32=1,2,3,4 --input=2x2xf32=1,2,3,4 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=READ,READSTATS
// RUN: %jitrun %s --function=read_between --input=2x2xf32=1,2,3,4 --input=2x2xf32=1,2,3,4 \
// RUN:   --reference | FileCheck %s --check-prefix=READ
// RUN: %jitrun %s --function=pads --input=2x2xf32=1,2,3,4 --input=2x2xf32=1,2,3,4 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=PADS,PADSTATS
// RUN: %jitrun %s --function=pads --input=2x2xf32=1,2,3,4 --input=2x2xf32=1,2,3,4 \
// RUN:   --reference | FileCheck %s --check-prefix=PADS
// RUN: %jitrun %s --function=reshapes --input=4xf32=1,2,3,4 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=RESHAPE,RESHAPESTATS
// RUN: %jitrun %s --function=reshapes --input=4xf32=1,2,3,4 --reference \
// RUN:   | FileCheck %s --check-prefix=RESHAPE
// RUN: %jitrun %s --function=shared_body --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 \
// RUN:   --input=2x2xf32=9,9,9,9 --dump-statistics=json 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SHARED,SHAREDSTATS
// RUN: %jitrun %s --function=shared_empty --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=SHAREDEMPTY,SHAREDEMPTYSTATS
// RUN: %jitrun %s --function=shared_empty --input=2x2xf32=1,2,3,4 --input=2x2xf32=5,6,7,8 \
// RUN:   --reference | FileCheck %s --check-prefix=SHAREDEMPTY

// [a+1 | (b*b reshaped) | a+2], each part a dispatch writing its box: no copy.
// CAT: result[0]: 2x8xf32=[2 3 1 4 9 16 3 4][4 5 25 36 49 64 5 6]
// CATSTATS: "fills":0,"copies":0,
func.func @concat(%a: tensor<2x2xf32>, %b: tensor<2x2x2xf32>) -> tensor<2x8xf32> {
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %two = arith.constant dense<2.0> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<2x2x2xf32>
  %a1 = linalg.add ins(%a, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %bb = linalg.mul ins(%b, %b : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%e3 : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %b2 = tensor.collapse_shape %bb [[0], [1, 2]] : tensor<2x2x2xf32> into tensor<2x4xf32>
  %a2 = linalg.add ins(%a, %two : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %dst = tensor.empty() : tensor<2x8xf32>
  %0 = tensor.insert_slice %a1 into %dst[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  %1 = tensor.insert_slice %b2 into %0[0, 2] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %2 = tensor.insert_slice %a2 into %1[0, 6] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// The second insert overwrites half of the first box: the first dispatch
// writes in place, the second keeps its copy, after the first.
// OVER: result[0]: 2x6xf32=[2 4 1 4 0 0][10 12 9 16 0 0]
// OVERSTATS: "fills":1,"copies":1,
func.func @overlap(%a: tensor<2x4xf32>, %b: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %b1 = linalg.mul ins(%b, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %a1 = linalg.add ins(%a, %a : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e6 = tensor.empty() : tensor<2x6xf32>
  %dst = linalg.fill ins(%zero : f32) outs(%e6 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %0 = tensor.insert_slice %a1 into %dst[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x6xf32>
  %1 = tensor.insert_slice %b1 into %0[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// A dispatch reads the padded buffer between the dispatch whose result is
// inserted next and the insert: written in place, the box would hold that
// result before the read.
// READ: result[0]: 2x4xf32=[1 2 1 4][3 4 9 16]
// READ: result[1]: 2x4xf32=[2.71828 7.38906 1 1][20.0855 54.5982 1 1]
// READSTATS: "fills":1,"copies":2,
func.func @read_between(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %b1 = linalg.mul ins(%b, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %0 = tensor.insert_slice %a into %f[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %s = linalg.exp ins(%0 : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tensor.insert_slice %b1 into %0[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  return %1, %s : tensor<2x4xf32>, tensor<2x4xf32>
}

// Pads of two dispatch results sharing one fill: each result written into
// the interior of its own buffer, whose fill writes only the border.
// PADS: result[0]: 2x4xf32=[1 7.38906 54.5982 1][1 403.429 2980.96 1]
// PADS: result[1]: 2x4xf32=[1 2.71828 54.5982 1][1 8103.08 8.88611e+06 1]
// PADSTATS: "fills":1,"copies":0,
func.func @pads(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %a1 = linalg.add ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b1 = linalg.mul ins(%b, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %p1 = tensor.insert_slice %a1 into %f[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %p2 = tensor.insert_slice %b1 into %f[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %s1 = linalg.exp ins(%p1 : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %s2 = linalg.exp ins(%p2 : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %s1, %s2 : tensor<2x4xf32>, tensor<2x4xf32>
}

// Reshapes between the dispatch and the insert: a split of a 4-vector into
// 2x2 rows is not one run of the 2x8 buffer (a copy), a 1x4 row is.
// RESHAPE: result[0]: 2x8xf32=[2 4 0 0 0 0 0 0][6 8 0 0 1 4 9 16]
// RESHAPESTATS: "fills":1,"copies":1,
func.func @reshapes(%a: tensor<4xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %a1 = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a2 = linalg.mul ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sq = tensor.expand_shape %a1 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %row = tensor.expand_shape %a2 [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %e8 = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e8 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %0 = tensor.insert_slice %row into %f[1, 4] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x8xf32>
  %1 = tensor.insert_slice %sq into %0[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// One body, three calls: into a 2x4 concat, into a 6-wide pad, and
// returned. Each box would make a kernel of its own to save 16 bytes of
// copy: both stay copies, and the three calls share one kernel.
// SHARED: result[0]: 2x4xf32=[2 4 0 0][6 8 0 0]
// SHARED: result[1]: 2x6xf32=[0 10 12 0 0 0][0 14 16 0 0 0]
// SHARED: result[2]: 2x2xf32=[18 18][18 18]
// SHAREDSTATS: "executables":1,"fills":2,"copies":2,
func.func @shared_body(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x6xf32>, tensor<2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %a1 = linalg.add ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b1 = linalg.add ins(%b, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c1 = linalg.add ins(%c, %c : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %cat = tensor.insert_slice %a1 into %f4[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %e6 = tensor.empty() : tensor<2x6xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %pad = tensor.insert_slice %b1 into %f6[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  return %cat, %pad, %c1 : tensor<2x4xf32>, tensor<2x6xf32>, tensor<2x2xf32>
}

// Two concats into one empty (CSE merges equal empties): the second gets a
// buffer of its own, with nothing copied into it (an empty holds nothing),
// and all four parts are written in place.
// SHAREDEMPTY: result[0]: 2x4xf32=[2 3 6 7][4 5 8 9]
// SHAREDEMPTY: result[1]: 2x4xf32=[3 4 7 8][5 6 9 10]
// SHAREDEMPTYSTATS: "fills":0,"copies":0,
func.func @shared_empty(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %two = arith.constant dense<2.0> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %a1 = linalg.add ins(%a, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b1 = linalg.add ins(%b, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %a2 = linalg.add ins(%a, %two : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b2 = linalg.add ins(%b, %two : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %dst = tensor.empty() : tensor<2x4xf32>
  %c1a = tensor.insert_slice %a1 into %dst[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %c1 = tensor.insert_slice %b1 into %c1a[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %c2a = tensor.insert_slice %a2 into %dst[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %c2 = tensor.insert_slice %b2 into %c2a[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  return %c1, %c2 : tensor<2x4xf32>, tensor<2x4xf32>
}
