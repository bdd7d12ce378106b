"""Writes an MLIR model of row softmaxes (over 48 columns) at the row
counts given on the command line, as linalg generics: a row maximum, the
exponentials of the differences, their row sum and the quotients. The
dispatches differ only in their rows and share one generic kernel, whose
row maxima and sums are read through a broadcast (generic_kernels.mlir)."""
import sys

IDENT = "affine_map<(i, j) -> (i, j)>"
ROW = "affine_map<(i, j) -> (i)>"


def generic(result, ins, out, parallel, body):
    """A linalg.generic over (rows, 48): `ins` are (value, type, map) and
    `out` is (value, type, map); `body` the payload's ops on %a, %b (%c: the
    output), yielding %v."""
    maps = ", ".join(m for _, _, m in ins + [out])
    kinds = '"parallel", "parallel"' if parallel else '"parallel", "reduction"'
    args = ", ".join(v for v, _, _ in ins)
    types = ", ".join(t for _, t, _ in ins)
    block = ", ".join("%%%s: f32" % n for n in "abc"[:len(ins) + 1])
    return (['  %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}'
             ' ins(%s : %s) outs(%s : %s) {' % (result, maps, kinds, args, types, out[0], out[1]),
             '  ^bb0(%s):' % block] + ['    ' + op for op in body] +
            ['    linalg.yield %v : f32', '  } -> %s' % out[1]])


rows = [int(r) for r in sys.argv[1:]]
args = ", ".join("%%x%d: tensor<%dx48xf32>" % (i, m) for i, m in enumerate(rows))
results = ", ".join("tensor<%dx48xf32>" % m for m in rows)
out = ['func.func @main(%s) -> (%s) {' % (args, results),
       '  %ninf = arith.constant 0xFF800000 : f32',
       '  %zero = arith.constant 0.0 : f32']
for i, m in enumerate(rows):
    t, r = "tensor<%dx48xf32>" % m, "tensor<%dxf32>" % m
    x, mx, e, sm = "%%x%d" % i, "%%m%d" % i, "%%e%d" % i, "%%s%d" % i
    out += ['  %%re%d = tensor.empty() : %s' % (i, r),
            '  %%mi%d = linalg.fill ins(%%ninf : f32) outs(%%re%d : %s) -> %s' % (i, i, r, r),
            '  %%si%d = linalg.fill ins(%%zero : f32) outs(%%re%d : %s) -> %s' % (i, i, r, r),
            '  %%te%d = tensor.empty() : %s' % (i, t)]
    out += generic(mx, [(x, t, IDENT)], ("%%mi%d" % i, r, ROW), False,
                   ['%v = arith.maximumf %a, %b : f32'])
    out += generic(e, [(x, t, IDENT), (mx, r, ROW)], ("%%te%d" % i, t, IDENT), True,
                   ['%d = arith.subf %a, %b : f32', '%v = math.exp %d : f32'])
    out += generic(sm, [(e, t, IDENT)], ("%%si%d" % i, r, ROW), False,
                   ['%v = arith.addf %a, %b : f32'])
    out += generic("%%y%d" % i, [(e, t, IDENT), (sm, r, ROW)], ("%%te%d" % i, t, IDENT), True,
                   ['%v = arith.divf %a, %b : f32'])
out.append('  return %s : %s' % (", ".join("%%y%d" % i for i in range(len(rows))), results))
out.append('}')
sys.stdout.write("\n".join(out) + "\n")
