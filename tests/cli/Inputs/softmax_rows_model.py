"""Writes an MLIR model of row softmaxes (over 48 columns) at the row
counts given on the command line, as linalg generics: a row maximum, the
exponentials of the differences, their row sum and the quotients. The
dispatches differ only in their rows and share one generic kernel, whose
row maxima and sums are read through a broadcast (generic_kernels.mlir)."""
import sys

rows = [int(r) for r in sys.argv[1:]]
args = ", ".join("%%x%d: tensor<%dx48xf32>" % (i, m) for i, m in enumerate(rows))
results = ", ".join("tensor<%dx48xf32>" % m for m in rows)
ident = "affine_map<(i, j) -> (i, j)>"
row = "affine_map<(i, j) -> (i)>"
out = ['func.func @main(%s) -> (%s) {' % (args, results),
       '  %ninf = arith.constant 0xFF800000 : f32',
       '  %zero = arith.constant 0.0 : f32']
for i, m in enumerate(rows):
    t, r = "tensor<%dx48xf32>" % m, "tensor<%dxf32>" % m
    out += [
        '  %%re%d = tensor.empty() : %s' % (i, r),
        '  %%mi%d = linalg.fill ins(%%ninf : f32) outs(%%re%d : %s) -> %s' % (i, i, r, r),
        '  %%m%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = ["parallel", "reduction"]}'
        ' ins(%%x%d : %s) outs(%%mi%d : %s) {' % (i, ident, row, i, t, i, r),
        '  ^bb0(%a: f32, %b: f32):',
        '    %v = arith.maximumf %a, %b : f32',
        '    linalg.yield %v : f32',
        '  } -> %s' % r,
        '  %%te%d = tensor.empty() : %s' % (i, t),
        '  %%e%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = ["parallel", "parallel"]}'
        ' ins(%%x%d, %%m%d : %s, %s) outs(%%te%d : %s) {' % (i, ident, row, ident, i, i, t, r, i, t),
        '  ^bb0(%a: f32, %b: f32, %c: f32):',
        '    %d = arith.subf %a, %b : f32',
        '    %v = math.exp %d : f32',
        '    linalg.yield %v : f32',
        '  } -> %s' % t,
        '  %%si%d = linalg.fill ins(%%zero : f32) outs(%%re%d : %s) -> %s' % (i, i, r, r),
        '  %%s%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = ["parallel", "reduction"]}'
        ' ins(%%e%d : %s) outs(%%si%d : %s) {' % (i, ident, row, i, t, i, r),
        '  ^bb0(%a: f32, %b: f32):',
        '    %v = arith.addf %a, %b : f32',
        '    linalg.yield %v : f32',
        '  } -> %s' % r,
        '  %%y%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = ["parallel", "parallel"]}'
        ' ins(%%e%d, %%s%d : %s, %s) outs(%%te%d : %s) {' % (i, ident, row, ident, i, i, t, r, i, t),
        '  ^bb0(%a: f32, %b: f32, %c: f32):',
        '    %v = arith.divf %a, %b : f32',
        '    linalg.yield %v : f32',
        '  } -> %s' % t]
out.append('  return %s : %s' % (", ".join("%%y%d" % i for i in range(len(rows))), results))
out.append('}')
sys.stdout.write("\n".join(out) + "\n")
