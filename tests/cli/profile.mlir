// --profile prints one line per host-program command in run order (name,
// root op, ms per run, share of the total, GFLOP/s of the root op, GB/s of
// the buffers read and written, % of the measured host peak and which peak),
// then a total line whose share is 100%. With --benchmark=N the N runs are
// timed, else one extra run. The FLOPs are the root op's (2 * M * N * K for
// a matmul), the bytes those of the dispatch's distinct buffers.
//
// The model below: relu(x @ w), one dispatch (the fill and relu fused in).
// RUN: %jitrun %s --input=128x256xf32 --input=256x128xf32 --output=@%t.mm.npy --profile --benchmark=3 \
// RUN:   --dump-statistics=json --dump-statistics-file=%t.mm.json > %t.mm.txt
// RUN: FileCheck %s --check-prefix=MM < %t.mm.txt
// RUN: python3 -c "import json, re, sys; n = len([l for l in open(sys.argv[1]) if re.match(r'profile: (?!fill:|copy:|host |name |total |roofline: )[^ ]+ ', l)]); s = json.load(open(sys.argv[2]))['dispatches']; print('dispatch lines', n, 'statistics', s)" %t.mm.txt %t.mm.json | FileCheck %s --check-prefix=COUNT
// FLOPs = 2 * 128 * 128 * 256; bytes = x + w + result = 4 * (2 * 32768 + 16384).
// RUN: python3 -c "import sys; f = next(l.split() for l in open(sys.argv[1]) if l.startswith('profile: main_dispatch_0 ')); ms, gf, gb = float(f[3]), float(f[5]), float(f[6]); print('flops ok', abs(gf * ms * 1e6 / (2 * 128 * 128 * 256) - 1) < 0.05, 'bytes ok', abs(gb * ms * 1e6 / 327680 - 1) < 0.05)" %t.mm.txt | FileCheck %s --check-prefix=RATES
//
// Without --benchmark: one timed run after the normal one.
// RUN: %jitrun %s --input=128x256xf32 --input=256x128xf32 --output=@%t.mm1.npy --profile | FileCheck %s --check-prefix=ONE
//
// A bundled model: a fill of the border and a copy (the padding), then four
// dispatches.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --profile --benchmark=3 \
// RUN:   --dump-statistics=json --dump-statistics-file=%t.cnn.json > %t.cnn.txt
// RUN: FileCheck %s --check-prefix=CNN < %t.cnn.txt
// RUN: python3 -c "import json, re, sys; n = len([l for l in open(sys.argv[1]) if re.match(r'profile: (?!fill:|copy:|host |name |total |roofline: )[^ ]+ ', l)]); s = json.load(open(sys.argv[2]))['dispatches']; print('dispatch lines', n, 'statistics', s)" %t.cnn.txt %t.cnn.json | FileCheck %s --check-prefix=COUNT
//
// --reference (no fusion, one thread) profiles too: more dispatches and fills.
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --reference --profile \
// RUN:   --dump-statistics=json --dump-statistics-file=%t.ref.json > %t.ref.txt
// RUN: FileCheck %s --check-prefix=REF < %t.ref.txt
// RUN: python3 -c "import json, re, sys; n = len([l for l in open(sys.argv[1]) if re.match(r'profile: (?!fill:|copy:|host |name |total |roofline: )[^ ]+ ', l)]); s = json.load(open(sys.argv[2]))['dispatches']; print('dispatch lines', n, 'statistics', s)" %t.ref.txt %t.ref.json | FileCheck %s --check-prefix=COUNT
//
// --profile-sort=time puts the slowest row first (the total stays last);
// --profile-json and --benchmark-json write the same figures as JSON (to a
// file, or with '-' to standard error, never into the results on stdout).
// RUN: %jitrun %models/tiny_cnn.mlirbc --input=1x32x32x3xf32 --profile --profile-sort=time --benchmark=5 \
// RUN:   --profile-json=%t.prof.json --benchmark-json=- > %t.sorted.txt 2> %t.bench.json
// RUN: %debian-python %S/Inputs/check_profile_json.py %t.sorted.txt %t.prof.json %t.bench.json | FileCheck %s --check-prefix=SORTED
// SORTED: sorted by time: True; json rows match the table: 7; benchmark runs 5, p50 <= p90 <= p99 <= max: True

// No --profile, no table.
// RUN: %jitrun %s --input=128x256xf32 --input=256x128xf32 --output=@%t.mm2.npy --benchmark=2 | FileCheck %s --check-prefix=NOPROF

// FileCheck folds runs of spaces, so the aligned columns match single spaces.
// MM:      latency_ms min={{[0-9.]+}} median={{[0-9.]+}} max={{[0-9.]+}} mean={{[0-9.]+}} p90={{[0-9.]+}} p99={{[0-9.]+}} stddev={{[0-9.]+}}{{$}}
// MM-NEXT: throughput {{[0-9.]+}} runs/s on {{[0-9]+}} thread{{s?}} (3 runs after a warm-up)
// MM-NEXT: profile: host peak {{[0-9]+\.[0-9]+}} GFLOP/s fp32 on {{[0-9]+}} thread{{s?}} ({{avx512f|avx2\+fma|sse}}, 12 FMA chains; 1 thread {{[0-9]+\.[0-9]+}}), triad {{[0-9]+\.[0-9]+}} GB/s; 3 timed runs, wall {{[0-9]+\.[0-9]+}} ms/run
// MM-NEXT: profile: name op ms share GFLOP/s GB/s %peak bound source{{$}}
// MM-NEXT: profile: main_dispatch_0 linalg.matmul {{[0-9]+\.[0-9][0-9][0-9][0-9]}} 100.0% {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} {{.*}}profile.mlir:90:{{[0-9]+}}{{$}}
// MM-NEXT: profile: total - {{[0-9]+\.[0-9][0-9][0-9][0-9]}} 100.0% {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} -{{$}}
// The whole model against the roofline: 2 x 128 x 128 x 256 FLOPs, and
// x + w + result = 327680 bytes that must move.
// MM-NEXT: profile: roofline: 0.008 GFLOP and 0.33 MB that must move (weights, inputs, results): at least {{[0-9]+\.[0-9]+}} ms ({{flops|bw}}); measured {{[0-9]+\.[0-9]+}} ms/run: {{[0-9]+\.[0-9]}}% of the roofline{{$}}
// MM-NOT:  profile:

// COUNT: dispatch lines [[N:[1-9][0-9]*]] statistics [[N]]

// RATES: flops ok True bytes ok True

// ONE:      profile: host peak {{.*}}; 1 timed run, wall
// ONE-NEXT: profile: name
// ONE-NEXT: profile: main_dispatch_0 linalg.matmul
// ONE-NEXT: profile: total - {{[0-9]+\.[0-9][0-9][0-9][0-9]}} 100.0%

// Columns: name, op, ms, share, GFLOP/s ("-" without a root op), GB/s,
// % of peak, and the peak it is measured against (flops or bw).
// CNN:      profile: host peak
// CNN-NEXT: profile: name op ms share GFLOP/s GB/s %peak bound source{{$}}
// CNN-NEXT: profile: fill:1x34x34x3xf32:border linalg.fill {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} - {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} bw {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: copy:1x32x32x3xf32->1x34x34x3xf32 tensor.insert_slice {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} - {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} bw {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: main_dispatch_0 linalg.conv_2d_nhwc_hwcf {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: main_dispatch_1 linalg.pooling_nhwc_max {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: main_dispatch_2 linalg.generic {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: main_dispatch_3 linalg.matmul {{[0-9]+\.[0-9][0-9][0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} {{.*}}tiny_cnn.mlir:{{[0-9]+}}:{{[0-9]+}}{{$}}
// CNN-NEXT: profile: total - {{[0-9]+\.[0-9][0-9][0-9][0-9]}} 100.0% {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9][0-9]}} {{[0-9]+\.[0-9]%}} {{flops|bw}} -{{$}}
// CNN-NEXT: profile: roofline: {{[0-9.]+}} GFLOP and {{[0-9.]+}} MB that must move
// CNN-NOT:  profile:

// REF:      profile: host peak {{[0-9.]+}} GFLOP/s fp32 on 1 thread (
// REF:      profile: main_dispatch_0 linalg.conv_2d_nhwc_hwcf
// REF:      profile: main_dispatch_5 linalg.matmul
// REF-NEXT: profile: total - {{[0-9]+\.[0-9][0-9][0-9][0-9]}} 100.0%

// NOPROF:     latency_ms
// NOPROF-NOT: profile:

func.func @main(%x: tensor<128x256xf32>, %w: tensor<256x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
