// Dispatches that are the same code at different sizes of one dim share a
// generic kernel, the dim passed at each call (compiler/GenericKernels.cpp):
// DenseNet's growing channel counts, 134 kernels -> 27. Values by hand, and
// against the reference path and the specialized kernels
// (--generic-kernels=false).
//
// Three row sums and three elementwise ops over 2, 3 and 5 columns: two
// kernels instead of six. Every edge is masked (2, 3 and 5 lanes of 32).
// RUN: %jitrun %s --function=sums --input=1x2xf32=1,2 --input=1x3xf32=3,4,5 \
// RUN:   --input=1x5xf32=1,2,3,4,5 --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=SUMS,SUMSGEN
// RUN: %jitrun %s --function=sums --input=1x2xf32=1,2 --input=1x3xf32=3,4,5 \
// RUN:   --input=1x5xf32=1,2,3,4,5 --generic-kernels=false --dump-statistics=json 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SUMS,SUMSOWN
// SUMS: result[0]: 1x1xf32=[3]
// SUMS: result[1]: 1x1xf32=[12]
// SUMS: result[2]: 1x1xf32=[15]
// SUMS: result[3]: 1x2xf32=[3 5]
// SUMS: result[4]: 1x3xf32=[7 9 11]
// SUMS: result[5]: 1x5xf32=[3 5 7 9 11]
// SUMSGEN: "dispatches":6,"executables":2,
// SUMSGEN-SAME: "generic_kernels":2
// SUMSOWN: "dispatches":6,"executables":6,
// SUMSOWN-SAME: "generic_kernels":0
//
// Matmuls of K = 5, 20 and 37 (a dynamic reduction loop) share one kernel;
// the last one (K = 64) has the chain of adds fused into it. Seeded random
// inputs, against the reference path, with and without generic kernels.
// RUN: %jitrun %s --function=chain --input=4x24xf32 --input=4x5xf32 --input=5x24xf32 \
// RUN:   --input=4x20xf32 --input=20x24xf32 --input=4x37xf32 --input=37x24xf32 \
// RUN:   --input=4x64xf32 --input=64x24xf32 --reference --output=@%t.chain.npy
// RUN: %jitrun %s --function=chain --input=4x24xf32 --input=4x5xf32 --input=5x24xf32 \
// RUN:   --input=4x20xf32 --input=20x24xf32 --input=4x37xf32 --input=37x24xf32 \
// RUN:   --input=4x64xf32 --input=64x24xf32 --threads=2 --expected_output=@%t.chain.npy \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHAIN,CHAINGEN
// RUN: %jitrun %s --function=chain --input=4x24xf32 --input=4x5xf32 --input=5x24xf32 \
// RUN:   --input=4x20xf32 --input=20x24xf32 --input=4x37xf32 --input=37x24xf32 \
// RUN:   --input=4x64xf32 --input=64x24xf32 --generic-kernels=false --expected_output=@%t.chain.npy \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefixes=CHAIN,CHAINOWN
// CHAIN: result[0]: matches the expected output
// CHAINGEN: "dispatches":4,"executables":2,
// CHAINGEN-SAME: "generic_kernels":1
// CHAINOWN: "dispatches":4,"executables":4,
//
// Rows of 40, 72 and 100 lanes: whole vectors of the dim, then a masked edge.
// RUN: %jitrun %s --function=lanes --input=3x40xf32 --input=3x72xf32 --input=3x100xf32 \
// RUN:   --reference --output=@%t.l0.npy --output=@%t.l1.npy --output=@%t.l2.npy
// RUN: %jitrun %s --function=lanes --input=3x40xf32 --input=3x72xf32 --input=3x100xf32 \
// RUN:   --threads=2 --expected_output=@%t.l0.npy --expected_output=@%t.l1.npy \
// RUN:   --expected_output=@%t.l2.npy --expected_atol=0 --expected_rtol=0 --dump-statistics=json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LANES
// LANES-COUNT-3: matches the expected output
// LANES: "dispatches":3,"executables":1,
// LANES-SAME: "generic_kernels":1
//
// Named convolutions keep their own kernels: their vectorizer takes no
// masks, and a dynamic channel edge would stay scalar.
// RUN: %jitrun %s --function=convs --input=1x4x4x2xf32 --input=3x3x2x3xf32 --input=3x3x2x5xf32 \
// RUN:   --input=3x3x2x6xf32 --dump-statistics=json 2>&1 >/dev/null | FileCheck %s --check-prefix=CONVS
// CONVS: "dispatches":3,"executables":3,
// CONVS-SAME: "scalar_kernels":0,
// CONVS-SAME: "generic_kernels":0
//
// Matmuls of 64, 75 and 101 rows by one packed weight: one generic kernel
// whose dynamic rows run in 8-row tiles (8x32 contractions), and the edge
// (3 and 5 rows) one row at a time: its masked writes through the packed
// output map would not verify (codegen/Tile.cpp, unitTileDynamicEdges).
// RUN: %debian-python %S/Inputs/packed_rows_model.py 64 75 101 > %t.rows.mlir
// RUN: %jitrun %t.rows.mlir --input=64x128xf32 --input=75x128xf32 --input=101x128xf32 \
// RUN:   --reference --output=@%t.r0.npy --output=@%t.r1.npy --output=@%t.r2.npy
// RUN: %jitrun %t.rows.mlir --input=64x128xf32 --input=75x128xf32 --input=101x128xf32 \
// RUN:   --threads=2 --expected_output=@%t.r0.npy --expected_output=@%t.r1.npy \
// RUN:   --expected_output=@%t.r2.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: %jitrun %t.rows.mlir --input=64x128xf32 --input=75x128xf32 --input=101x128xf32 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-vectorize 2>&1 >/dev/null | FileCheck %s --check-prefix=ROWTILES
// ROWS-COUNT-3: matches the expected output
// ROWS: "dispatches":3,"executables":1,
// ROWS-SAME: "scalar_kernels":0,
// ROWS-SAME: "generic_kernels":1
// ROWTILES: func.func @main_dispatch_{{[0-9]+}}_generic
// ROWTILES: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// ROWTILES: vector.contract {{.*}} : vector<1xf32>, vector<1x32xf32> into vector<32xf32>
//
// Attention's scores (Q.K^T per head) at 64, 75 and 101 tokens: one generic
// kernel whose K loop keeps its 8x32 accumulator tile in registers. A
// generic kernel views its bare buffer pointers (memref.reinterpret_cast),
// which upstream hoisting never moves transfers of: the tile was loaded
// and stored at each step of K (3.5x the exact kernel at 1000 tokens).
// RUN: %jitrun %s --function=scores --input=8x64x32xf32 --input=8x32x64xf32 --input=8x75x32xf32 \
// RUN:   --input=8x32x75xf32 --input=8x101x32xf32 --input=8x32x101xf32 --reference \
// RUN:   --output=@%t.s0.npy --output=@%t.s1.npy --output=@%t.s2.npy
// RUN: %jitrun %s --function=scores --input=8x64x32xf32 --input=8x32x64xf32 --input=8x75x32xf32 \
// RUN:   --input=8x32x75xf32 --input=8x101x32xf32 --input=8x32x101xf32 --threads=2 \
// RUN:   --expected_output=@%t.s0.npy --expected_output=@%t.s1.npy --expected_output=@%t.s2.npy \
// RUN:   --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=SCORES
// RUN: %jitrun %s --function=scores --input=8x64x32xf32 --input=8x32x64xf32 --input=8x75x32xf32 \
// RUN:   --input=8x32x75xf32 --input=8x101x32xf32 --input=8x32x101xf32 \
// RUN:   --mlir-print-ir-after=jitrun-codegen-lower-vectors 2>&1 >/dev/null | FileCheck %s --check-prefix=SCOREK
// SCORES-COUNT-3: matches the expected output
// SCORES: "dispatches":3,"executables":1,
// SCORES-SAME: "generic_kernels":1
// SCOREK: func.func @scores_dispatch_{{[0-9]+}}_generic
// SCOREK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>)
// SCOREK-NOT: vector.transfer_write
// SCOREK: scf.yield
//
// Row softmaxes of 300, 517 and 1000 rows: their row maxima and sums are
// read through a broadcast, held per workgroup in a stack buffer. The
// generic kernels split the dynamic rows into workgroups of a static
// size (the buffer's bound), a grid counted at each call from the dim: two
// kernels instead of six, more workgroups than calls, a small stack.
// RUN: %debian-python %S/Inputs/softmax_rows_model.py 300 517 1000 > %t.softmax.mlir
// RUN: %jitrun %t.softmax.mlir --input=300x48xf32 --input=517x48xf32 --input=1000x48xf32 \
// RUN:   --reference --output=@%t.m0.npy --output=@%t.m1.npy --output=@%t.m2.npy
// RUN: %jitrun %t.softmax.mlir --input=300x48xf32 --input=517x48xf32 --input=1000x48xf32 \
// RUN:   --threads=2 --expected_output=@%t.m0.npy --expected_output=@%t.m1.npy \
// RUN:   --expected_output=@%t.m2.npy --dump-statistics=json 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX-COUNT-3: matches the expected output
// SOFTMAX: "dispatches":6,"executables":2,
// SOFTMAX-SAME: "workgroups":{{[1-9][0-9]+}},
// SOFTMAX-SAME: "stack_bytes_max":{{[0-9][0-9]?[0-9]?}},
// SOFTMAX-SAME: "generic_kernels":2

func.func @sums(%a: tensor<1x2xf32>, %b: tensor<1x3xf32>, %c: tensor<1x5xf32>)
    -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x2xf32>, tensor<1x3xf32>, tensor<1x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %sa = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<1x2xf32>) outs(%z : tensor<1x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  %sb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<1x3xf32>) outs(%z : tensor<1x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<1x5xf32>) outs(%z : tensor<1x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  %ea = tensor.empty() : tensor<1x2xf32>
  %ya = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<1x2xf32>) outs(%ea : tensor<1x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<1x2xf32>
  %eb = tensor.empty() : tensor<1x3xf32>
  %yb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<1x3xf32>) outs(%eb : tensor<1x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<1x3xf32>
  %ec = tensor.empty() : tensor<1x5xf32>
  %yc = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<1x5xf32>) outs(%ec : tensor<1x5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<1x5xf32>
  return %sa, %sb, %sc, %ya, %yb, %yc : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x2xf32>, tensor<1x3xf32>, tensor<1x5xf32>
}

func.func @chain(%b: tensor<4x24xf32>,
                  %x0: tensor<4x5xf32>, %w0: tensor<5x24xf32>,
                  %x1: tensor<4x20xf32>, %w1: tensor<20x24xf32>,
                  %x2: tensor<4x37xf32>, %w2: tensor<37x24xf32>,
                  %x3: tensor<4x64xf32>, %w3: tensor<64x24xf32>) -> tensor<4x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %m0 = linalg.matmul ins(%x0, %w0 : tensor<4x5xf32>, tensor<5x24xf32>)
      outs(%z : tensor<4x24xf32>) -> tensor<4x24xf32>
  %a0 = linalg.add ins(%m0, %b : tensor<4x24xf32>, tensor<4x24xf32>)
      outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %m1 = linalg.matmul ins(%x1, %w1 : tensor<4x20xf32>, tensor<20x24xf32>)
      outs(%z : tensor<4x24xf32>) -> tensor<4x24xf32>
  %a1 = linalg.add ins(%m1, %a0 : tensor<4x24xf32>, tensor<4x24xf32>)
      outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %m2 = linalg.matmul ins(%x2, %w2 : tensor<4x37xf32>, tensor<37x24xf32>)
      outs(%z : tensor<4x24xf32>) -> tensor<4x24xf32>
  %a2 = linalg.add ins(%m2, %a1 : tensor<4x24xf32>, tensor<4x24xf32>)
      outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %m3 = linalg.matmul ins(%x3, %w3 : tensor<4x64xf32>, tensor<64x24xf32>)
      outs(%z : tensor<4x24xf32>) -> tensor<4x24xf32>
  %a3 = linalg.add ins(%m3, %a2 : tensor<4x24xf32>, tensor<4x24xf32>)
      outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  return %a3 : tensor<4x24xf32>
}

func.func @lanes(%x0: tensor<3x40xf32>, %x1: tensor<3x72xf32>, %x2: tensor<3x100xf32>) -> (tensor<3x40xf32>, tensor<3x72xf32>, tensor<3x100xf32>) {
  %half = arith.constant 0.5 : f32
  %e0 = tensor.empty() : tensor<3x40xf32>
  %y0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x0 : tensor<3x40xf32>) outs(%e0 : tensor<3x40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    %s = arith.subf %m, %half : f32
    linalg.yield %s : f32
  } -> tensor<3x40xf32>
  %e1 = tensor.empty() : tensor<3x72xf32>
  %y1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x1 : tensor<3x72xf32>) outs(%e1 : tensor<3x72xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    %s = arith.subf %m, %half : f32
    linalg.yield %s : f32
  } -> tensor<3x72xf32>
  %e2 = tensor.empty() : tensor<3x100xf32>
  %y2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x2 : tensor<3x100xf32>) outs(%e2 : tensor<3x100xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    %s = arith.subf %m, %half : f32
    linalg.yield %s : f32
  } -> tensor<3x100xf32>
  return %y0, %y1, %y2 : tensor<3x40xf32>, tensor<3x72xf32>, tensor<3x100xf32>
}

func.func @convs(%x: tensor<1x4x4x2xf32>, %f1: tensor<3x3x2x3xf32>, %f2: tensor<3x3x2x5xf32>, %f3: tensor<3x3x2x6xf32>)
    -> (tensor<1x2x2x3xf32>, tensor<1x2x2x5xf32>, tensor<1x2x2x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x2x2x3xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf ins(%x, %f1 : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) outs(%z1 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %e2 = tensor.empty() : tensor<1x2x2x5xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x2x5xf32>) -> tensor<1x2x2x5xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf ins(%x, %f2 : tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) outs(%z2 : tensor<1x2x2x5xf32>) -> tensor<1x2x2x5xf32>
  %e3 = tensor.empty() : tensor<1x2x2x6xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf ins(%x, %f3 : tensor<1x4x4x2xf32>, tensor<3x3x2x6xf32>) outs(%z3 : tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32>
  return %c1, %c2, %c3 : tensor<1x2x2x3xf32>, tensor<1x2x2x5xf32>, tensor<1x2x2x6xf32>
}

func.func @scores(%q0: tensor<8x64x32xf32>, %k0: tensor<8x32x64xf32>, %q1: tensor<8x75x32xf32>,
                  %k1: tensor<8x32x75xf32>, %q2: tensor<8x101x32xf32>, %k2: tensor<8x32x101xf32>)
    -> (tensor<8x64x64xf32>, tensor<8x75x75xf32>, tensor<8x101x101xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x64x64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s0 = linalg.batch_matmul ins(%q0, %k0 : tensor<8x64x32xf32>, tensor<8x32x64xf32>)
      outs(%f0 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %e1 = tensor.empty() : tensor<8x75x75xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x75x75xf32>) -> tensor<8x75x75xf32>
  %s1 = linalg.batch_matmul ins(%q1, %k1 : tensor<8x75x32xf32>, tensor<8x32x75xf32>)
      outs(%f1 : tensor<8x75x75xf32>) -> tensor<8x75x75xf32>
  %e2 = tensor.empty() : tensor<8x101x101xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x101x101xf32>) -> tensor<8x101x101xf32>
  %s2 = linalg.batch_matmul ins(%q2, %k2 : tensor<8x101x32xf32>, tensor<8x32x101xf32>)
      outs(%f2 : tensor<8x101x101xf32>) -> tensor<8x101x101xf32>
  return %s0, %s1, %s2 : tensor<8x64x64xf32>, tensor<8x75x75xf32>, tensor<8x101x101xf32>
}
