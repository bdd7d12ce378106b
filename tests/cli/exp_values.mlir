// exp of f32 vectors on AVX-512 (codegen/ScalefExp.cpp): within one ulp of
// the correctly rounded value over the whole range, subnormal results
// included (exp(-103.9) is the smallest subnormal, exp(-100) 27 of them),
// +inf above 88.72, 0 below -103.98 and for -inf, NaN for NaN. The values
// are numpy's float64 exp rounded to f32; rtol 1.2e-7 is one ulp, atol
// 1.5e-45 one subnormal step. Two registers of 16 lanes, so that each takes
// vscalefps.
// REQUIRES: avx512
// RUN: %jitrun %s --threads=1 \
// RUN:   --input=32xf32=-inf,-200.0,-104.5,-103.9000015258789,-100.0,-95.0,-90.0,-87.5,-87.30000305175781,-50.0,-10.0,-1.0,-0.5,-1.0000000031710769e-30,0.0,1.0000000031710769e-30,0.3465735912322998,0.5,1.0,2.0,3.1415927410125732,10.0,20.5,50.0,80.0,88.0,88.72000122070312,88.7300033569336,100.0,inf,nan,-0.3465735912322998 \
// RUN:   --expected_output=32xf32=0.0,0.0,0.0,1.401298464324817e-45,3.783505853677006e-44,5.521115949439779e-42,8.194008692231508e-40,9.982351397596697e-39,1.2192433092680476e-38,1.9287498933537385e-22,4.539993096841499e-05,0.3678794503211975,0.6065306663513184,1.0,1.0,1.0,1.4142135381698608,1.6487212181091309,2.7182817459106445,7.389056205749512,23.140695571899414,22026.46484375,799902208.0,5.184705457665547e+21,5.540622484676759e+34,1.6516362661361307e+38,3.3931806003874245e+38,inf,inf,inf,nan,0.7071067690849304 \
// RUN:   --expected_rtol=1.2e-7 --expected_atol=1.5e-45 | FileCheck %s
// CHECK: result[0]: matches the expected output
// The sigmoid's form, 1 / (1 + exp(-x)), on the same host: within 2 ulp
// (its reciprocal estimate), a NaN NaN; below 6e-39 (exp's argument capped
// at 88, codegen/LowerVectors.cpp) within 6.1e-39 of the value.
// RUN: %jitrun %s --function=sigmoid --threads=1 \
// RUN:   --input=32xf32=-inf,-200.0,-104.5,-103.9000015258789,-100.0,-95.0,-90.0,-87.5,-87.30000305175781,-50.0,-10.0,-1.0,-0.5,-1.0000000031710769e-30,0.0,1.0000000031710769e-30,0.3465735912322998,0.5,1.0,2.0,3.1415927410125732,10.0,20.5,50.0,80.0,88.0,88.72000122070312,88.7300033569336,100.0,inf,nan,-0.3465735912322998 \
// RUN:   --expected_output=32xf32=0.0,0.0,0.0,1.401298464324817e-45,3.783505853677006e-44,5.521115949439779e-42,8.194008692231508e-40,9.982351397596697e-39,1.2192433092680476e-38,1.9287498933537385e-22,4.539786823443137e-05,0.2689414322376251,0.3775406777858734,0.5,0.5,0.5,0.5857864618301392,0.622459352016449,0.7310585975646973,0.8807970881462097,0.9585761427879333,0.9999545812606812,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,nan,0.4142135679721832 \
// RUN:   --expected_rtol=2.4e-7 --expected_atol=6.1e-39 | FileCheck %s

func.func @main(%x: tensor<32xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

func.func @sigmoid(%x: tensor<32xf32>) -> tensor<32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
