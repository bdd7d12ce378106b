// Proves the strategy for a contraction over packed weight panels
// (jitrun-fusion-pack-weights marks it jitrun.packed_panels): workgroups
// split the panels and never one panel's 64 columns, so each workgroup reads
// a contiguous run of weights (4 panels, 4 workgroups: a plain split would
// also halve the 64 columns into 2 x 32 and give 8); the register tile is
// a whole panel row, 64 lanes, one FMA chain per K step.
//
// RUN: %jit-opt %s --jitrun-codegen-pipeline --mlir-print-ir-after=jitrun-codegen-lower-vectors \
// RUN:   -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: func.func private @fc_dispatch_0(
// CHECK-SAME:    jitrun.workgroups = 4
// CHECK:         scf.for {{.*}} to %c512
// CHECK:           vector.transfer_read %arg1[%arg3, %{{.*}}, %c0]{{.*}} : memref<4x512x64xf32>, vector<1x64xf32>
// CHECK:           vector.fma {{.*}} : vector<64xf32>
// CHECK:         scf.yield
func.func private @fc_dispatch_0(%a: tensor<1x512xf32>, %w: tensor<4x512x64xf32>) -> tensor<1x4x64xf32> attributes {jitrun.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, p, t, k) -> (m, k)>, affine_map<(m, p, t, k) -> (p, k, t)>, affine_map<(m, p, t, k) -> (m, p, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x512xf32>, tensor<4x512x64xf32>) outs(%f : tensor<1x4x64xf32>) attrs = {jitrun.packed_panels} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x64xf32>
  return %r : tensor<1x4x64xf32>
}
