// A dynamic model's own shape checks: a cf.assert on the dims that folds to
// false at a run's shapes refuses them with its message (status 1, nothing
// compiled); at shapes it accepts, the check folds away and the model runs.
// RUN: not %jitrun %s --input=5xf32=2 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: dynamic_shape_checks.mlir:[[@LINE+8]]:3: error: the model refuses these input shapes: at most 4 rows
// RUN: %jitrun %s --input=3xf32=2 | FileCheck %s
// CHECK: result[0]: 3xf32=4 4 4
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d0 = tensor.dim %a, %c0 : tensor<?xf32>
  %ok = arith.cmpi ule, %d0, %c4 : index
  cf.assert %ok, "at most 4 rows"
  %e = tensor.empty(%d0) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
