// Kernels on every element type jitrun's tensors take (f16, bf16, f64, f32,
// i16, i64, i8; i1 in bool_tensors.mlir) compute IEEE and two's-complement
// results, special values included: -0.0, +-inf, NaN, denormals, overflow
// to inf and integer wrap-around (bf16's 1e-40 is its denormal 9.18e-41).
// 19 elements: a vector and a masked edge (a 17-element bf16 tail aborted
// LLVM before bf16 buffers were held as i16). Expected values are worked out
// by hand.
// RUN: %jitrun %s --function=f16 --input=19xf16=1,-0,inf,-inf,nan,6e-8,65504,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf16=2,-0,1,inf,1,6e-8,65504,0.25,-3,1,1,1,1,1,1,1,1,1,3 | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=f16 --input=19xf16=1,-0,inf,-inf,nan,6e-8,65504,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf16=2,-0,1,inf,1,6e-8,65504,0.25,-3,1,1,1,1,1,1,1,1,1,3 --reference | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=f16 --input=19xf16=1,-0,inf,-inf,nan,6e-8,65504,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf16=2,-0,1,inf,1,6e-8,65504,0.25,-3,1,1,1,1,1,1,1,1,1,3 --force-avx2 | FileCheck %s --check-prefix=F16
// RUN: %jitrun %s --function=bf16 --input=19xbf16=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xbf16=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --function=bf16 --input=19xbf16=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xbf16=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 --reference | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --function=bf16 --input=19xbf16=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xbf16=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 --force-avx2 | FileCheck %s --check-prefix=BF16
// RUN: %jitrun %s --function=f64 --input=19xf64=1,-0,inf,-inf,nan,5e-324,1e308,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf64=2,-0,1,inf,1,5e-324,1e308,0.25,-3,1,1,1,1,1,1,1,1,1,3 | FileCheck %s --check-prefix=F64
// RUN: %jitrun %s --function=f64 --input=19xf64=1,-0,inf,-inf,nan,5e-324,1e308,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf64=2,-0,1,inf,1,5e-324,1e308,0.25,-3,1,1,1,1,1,1,1,1,1,3 --reference | FileCheck %s --check-prefix=F64
// RUN: %jitrun %s --function=f64 --input=19xf64=1,-0,inf,-inf,nan,5e-324,1e308,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf64=2,-0,1,inf,1,5e-324,1e308,0.25,-3,1,1,1,1,1,1,1,1,1,3 --force-avx2 | FileCheck %s --check-prefix=F64
// RUN: %jitrun %s --function=f32 --input=19xf32=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf32=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 | FileCheck %s --check-prefix=F32
// RUN: %jitrun %s --function=f32 --input=19xf32=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf32=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 --reference | FileCheck %s --check-prefix=F32
// RUN: %jitrun %s --function=f32 --input=19xf32=1,-0,inf,-inf,nan,1e-40,3e38,0.5,3,1,1,1,1,1,1,1,1,1,2 --input=19xf32=2,-0,1,inf,1,1e-40,3e38,0.25,-3,1,1,1,1,1,1,1,1,1,3 --force-avx2 | FileCheck %s --check-prefix=F32
// RUN: %jitrun %s --function=i16 --input=19xi16=32767,-32768,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,300 --input=19xi16=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,300 | FileCheck %s --check-prefix=I16
// RUN: %jitrun %s --function=i16 --input=19xi16=32767,-32768,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,300 --input=19xi16=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,300 --reference | FileCheck %s --check-prefix=I16
// RUN: %jitrun %s --function=i16 --input=19xi16=32767,-32768,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,300 --input=19xi16=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,300 --force-avx2 | FileCheck %s --check-prefix=I16
// RUN: %jitrun %s --function=i64 --input=19xi64=9223372036854775807,-9223372036854775808,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,4294967296 --input=19xi64=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4294967296 | FileCheck %s --check-prefix=I64
// RUN: %jitrun %s --function=i64 --input=19xi64=9223372036854775807,-9223372036854775808,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,4294967296 --input=19xi64=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4294967296 --reference | FileCheck %s --check-prefix=I64
// RUN: %jitrun %s --function=i64 --input=19xi64=9223372036854775807,-9223372036854775808,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,4294967296 --input=19xi64=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4294967296 --force-avx2 | FileCheck %s --check-prefix=I64
// RUN: %jitrun %s --function=i8 --input=19xi8=127,-128,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,20 --input=19xi8=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,20 | FileCheck %s --check-prefix=I8
// RUN: %jitrun %s --function=i8 --input=19xi8=127,-128,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,20 --input=19xi8=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,20 --reference | FileCheck %s --check-prefix=I8
// RUN: %jitrun %s --function=i8 --input=19xi8=127,-128,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,20 --input=19xi8=1,-1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,20 --force-avx2 | FileCheck %s --check-prefix=I8
// F16: result[0]: 19xf16=3 -0 inf {{-?}}nan nan 1.19209e-07 inf 0.75 0 2 2 2 2 2 2 2 2 2 5
// F16: result[1]: 19xf16=2 0 inf -inf nan 0 inf 0.125 -9 1 1 1 1 1 1 1 1 1 6
// BF16: result[0]: 19xbf16=3 -0 inf {{-?}}nan nan 1.83671e-40 inf 0.75 0 2 2 2 2 2 2 2 2 2 5
// BF16: result[1]: 19xbf16=2 0 inf -inf nan 0 inf 0.125 -9 1 1 1 1 1 1 1 1 1 6
// F64: result[0]: 19xf64=3 -0 inf {{-?}}nan nan 9.88131e-324 inf 0.75 0 2 2 2 2 2 2 2 2 2 5
// F64: result[1]: 19xf64=2 0 inf -inf nan 0 inf 0.125 -9 1 1 1 1 1 1 1 1 1 6
// F32: result[0]: 19xf32=3 -0 inf {{-?}}nan nan 1.99999e-40 inf 0.75 0 2 2 2 2 2 2 2 2 2 5
// F32: result[1]: 19xf32=2 0 inf -inf nan 0 inf 0.125 -9 1 1 1 1 1 1 1 1 1 6
// I16: result[0]: 19xi16=-32768 32767 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 600
// I16: result[1]: 19xi16=32767 -32768 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 24464
// I64: result[0]: 19xi64=-9223372036854775808 9223372036854775807 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 8589934592
// I64: result[1]: 19xi64=9223372036854775807 -9223372036854775808 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 0
// I8: result[0]: 19xi8=-128 127 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 40
// I8: result[1]: 19xi8=127 -128 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 -112
#map = affine_map<(i) -> (i)>
func.func @f16(%a: tensor<19xf16>, %b: tensor<19xf16>) -> (tensor<19xf16>, tensor<19xf16>) {
  %e = tensor.empty() : tensor<19xf16>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xf16>, tensor<19xf16>) outs(%e, %e : tensor<19xf16>, tensor<19xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16, %o2: f16):
    %s = arith.addf %x, %y : f16
    %m = arith.mulf %x, %y : f16
    linalg.yield %s, %m : f16, f16
  } -> (tensor<19xf16>, tensor<19xf16>)
  return %r#0, %r#1 : tensor<19xf16>, tensor<19xf16>
}
func.func @bf16(%a: tensor<19xbf16>, %b: tensor<19xbf16>) -> (tensor<19xbf16>, tensor<19xbf16>) {
  %e = tensor.empty() : tensor<19xbf16>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xbf16>, tensor<19xbf16>) outs(%e, %e : tensor<19xbf16>, tensor<19xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16, %o2: bf16):
    %s = arith.addf %x, %y : bf16
    %m = arith.mulf %x, %y : bf16
    linalg.yield %s, %m : bf16, bf16
  } -> (tensor<19xbf16>, tensor<19xbf16>)
  return %r#0, %r#1 : tensor<19xbf16>, tensor<19xbf16>
}
func.func @f64(%a: tensor<19xf64>, %b: tensor<19xf64>) -> (tensor<19xf64>, tensor<19xf64>) {
  %e = tensor.empty() : tensor<19xf64>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xf64>, tensor<19xf64>) outs(%e, %e : tensor<19xf64>, tensor<19xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64, %o2: f64):
    %s = arith.addf %x, %y : f64
    %m = arith.mulf %x, %y : f64
    linalg.yield %s, %m : f64, f64
  } -> (tensor<19xf64>, tensor<19xf64>)
  return %r#0, %r#1 : tensor<19xf64>, tensor<19xf64>
}
func.func @f32(%a: tensor<19xf32>, %b: tensor<19xf32>) -> (tensor<19xf32>, tensor<19xf32>) {
  %e = tensor.empty() : tensor<19xf32>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xf32>, tensor<19xf32>) outs(%e, %e : tensor<19xf32>, tensor<19xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %o2: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %x, %y : f32
    linalg.yield %s, %m : f32, f32
  } -> (tensor<19xf32>, tensor<19xf32>)
  return %r#0, %r#1 : tensor<19xf32>, tensor<19xf32>
}
func.func @i16(%a: tensor<19xi16>, %b: tensor<19xi16>) -> (tensor<19xi16>, tensor<19xi16>) {
  %e = tensor.empty() : tensor<19xi16>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xi16>, tensor<19xi16>) outs(%e, %e : tensor<19xi16>, tensor<19xi16>) {
  ^bb0(%x: i16, %y: i16, %o: i16, %o2: i16):
    %s = arith.addi %x, %y : i16
    %m = arith.muli %x, %y : i16
    linalg.yield %s, %m : i16, i16
  } -> (tensor<19xi16>, tensor<19xi16>)
  return %r#0, %r#1 : tensor<19xi16>, tensor<19xi16>
}
func.func @i64(%a: tensor<19xi64>, %b: tensor<19xi64>) -> (tensor<19xi64>, tensor<19xi64>) {
  %e = tensor.empty() : tensor<19xi64>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xi64>, tensor<19xi64>) outs(%e, %e : tensor<19xi64>, tensor<19xi64>) {
  ^bb0(%x: i64, %y: i64, %o: i64, %o2: i64):
    %s = arith.addi %x, %y : i64
    %m = arith.muli %x, %y : i64
    linalg.yield %s, %m : i64, i64
  } -> (tensor<19xi64>, tensor<19xi64>)
  return %r#0, %r#1 : tensor<19xi64>, tensor<19xi64>
}
func.func @i8(%a: tensor<19xi8>, %b: tensor<19xi8>) -> (tensor<19xi8>, tensor<19xi8>) {
  %e = tensor.empty() : tensor<19xi8>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<19xi8>, tensor<19xi8>) outs(%e, %e : tensor<19xi8>, tensor<19xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8, %o2: i8):
    %s = arith.addi %x, %y : i8
    %m = arith.muli %x, %y : i8
    linalg.yield %s, %m : i8, i8
  } -> (tensor<19xi8>, tensor<19xi8>)
  return %r#0, %r#1 : tensor<19xi8>, tensor<19xi8>
}
