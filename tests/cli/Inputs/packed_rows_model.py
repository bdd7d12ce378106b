"""Writes an MLIR model of matmuls by one constant 128x256 weight (large
enough to be packed into panels, jitrun-fusion-pack-weights) at the row
counts given on the command line: dispatches that differ only in their rows
share one generic kernel (generic_kernels.mlir). Seeded random weights, as a
hex-encoded dense constant."""
import sys

import numpy as np

rows = [int(r) for r in sys.argv[1:]]
w = np.random.RandomState(11).uniform(-0.1, 0.1, (128, 256)).astype("<f4")
args = ", ".join("%%x%d: tensor<%dx128xf32>" % (i, m) for i, m in enumerate(rows))
results = ", ".join("tensor<%dx256xf32>" % m for m in rows)
out = ['func.func @main(%s) -> (%s) {' % (args, results),
       '  %%w = arith.constant dense<"0x%s"> : tensor<128x256xf32>' % w.tobytes().hex().upper(),
       '  %zero = arith.constant 0.0 : f32']
for i, m in enumerate(rows):
    t = "tensor<%dx256xf32>" % m
    out += ['  %%e%d = tensor.empty() : %s' % (i, t),
            '  %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s' % (i, i, t, t),
            '  %%r%d = linalg.matmul ins(%%x%d, %%w : tensor<%dx128xf32>, tensor<128x256xf32>) '
            'outs(%%f%d : %s) -> %s' % (i, i, m, i, t, t)]
out.append('  return %s : %s' % (", ".join("%%r%d" % i for i in range(len(rows))), results))
out.append('}')
sys.stdout.write("\n".join(out) + "\n")
