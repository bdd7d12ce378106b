// 20000 chained elementwise ops compile in seconds, into one dispatch:
// elementwise fusion copies the growing body at every step, so it ran in
// rounds of doubling body-size caps (O(N log N) copies, not O(N^2); the
// chain took over 120 s). The timeout makes a regression fail, not hang.
// RUN: python3 %S/Inputs/elementwise_chain.py 20000 > %t.mlir
// RUN: timeout 120 %jitrun %t.mlir --input=16xf32=1 --dump-statistics=json 2>&1 | FileCheck %s
// Each op adds 1 then multiplies by 1: 1 + 10000 = 10001.
// CHECK: result[0]: 16xf32=10001 10001
// CHECK: "dispatches":1,
