#!/usr/bin/env python3
"""Differential fuzzer: random well-typed MLIR programs, jitrun in every mode
against an evaluator jitrun does not share (upstream MLIR lowered to loops
and run by mlir-runner, see scripts/mlir_oracle.py).

Usage:
  python3 scripts/fuzz_diff.py --seed S --count N     # N programs
  python3 scripts/fuzz_diff.py --seed S --seconds T   # as many as fit in T s
      [--modes default,aggressive,t1,t2,avx2,reference] [--out DIR]
      [--no-reduce] [--exclude-types bf16,f16] [--start I] [-v]
  python3 scripts/fuzz_diff.py --show SEED INDEX      # print one program
  python3 scripts/fuzz_diff.py --verify-only --count N  # generator self-test

  CI budget: --seed 1 --count 100 (about 2 minutes on 2 cores); long runs:
  --seconds N. JITRUN=/path/to/jitrun overrides build/tools/jitrun. Exit
  status 1 when a run failed.

Every program is a straight-line function over tensors: elementwise
linalg.generic chains with broadcasts (operands read through constant-0 or
dropped dims, (d0, d1) -> (0, d1)) and transposed reads, casts (f32, f16,
bf16, i32, i8, i1), comparisons and selects, reductions (linalg.generic with
reduction iterators, tosa.reduce_*), linalg.matmul / batch_matmul with odd
sizes, convolutions and pooling with odd sizes, strides and dilations,
tensor.pad / concat / extract_slice / expand_shape / collapse_shape,
linalg.transpose, and TOSA elementwise ops with broadcasting. bf16 only lives
inside a program (NumPy has no bf16): it is cast to f32 before a return.

Each program is checked by mlir-opt, evaluated once by the oracle, and run by
jitrun once per mode. Integers and booleans must match exactly. Floats are
compared with the tolerance of the loosest type whose rounding may differ
legitimately: transcendentals and sums (reductions, matmuls, convolutions)
may differ by ulps of their type, every other float op is correctly rounded
op by op, so an f16/bf16 chain of them is held to f32 tolerances (a skipped
intermediate rounding shows). Comparisons and float-to-int casts are only
generated on values every evaluator computes bit-exactly. A failure (a mismatch, a jitrun error or crash) is
saved under --out (default /tmp/fuzz_diff_failures/<seed>_<index>_<mode>/):
the program, its inputs, the reduced program (the backward slice of the
earliest value that still fails), and README.txt with the command lines that
reproduce it. Programs the oracle cannot evaluate are counted as skipped.

The summary counts programs, runs (one per program and mode) and failures;
the last line is exactly `N passed, M failed` over runs. The run is
deterministic for a fixed seed and --count (program i uses seed
S * 1000003 + i).
"""

import argparse
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlir_oracle as oracle  # noqa: E402

FLOATS = ("f32", "f16", "bf16")
INTS = ("i32", "i8")
IO_TYPES = ("f32", "f32", "f32", "f16", "i32", "i8", "i1")
DEFAULT_MODES = "default,aggressive,t1,t2,avx2,reference"
ODD = [1, 2, 3, 5, 7, 9, 11, 13, 17]
# Ops whose result may legitimately differ by an ulp or more of its type:
# transcendentals (libm vs. polynomials) and sums (any association order).
# Every other float op is correctly rounded, op by op, in every evaluator,
# so an f16/bf16 chain of them is compared with f32 tolerances: skipping a
# rounding between two ops shows.
APPROXIMATE = ("un_exp", "un_tanh", "un_erf", "un_sigmoid", "un_rsqrt",
               "reduce_add", "tosa_reduce_sum", "matmul", "batch_matmul",
               "conv_", "tosa_sigmoid", "tosa_tanh", "tosa_exp",
               "tosa_conv2d", "tosa_depthwise", "tosa_matmul",
               "tosa_avg_pool")


def tty(shape, dtype):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [dtype])


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def float_bits_literal(value, dtype):
    """An exact hex literal for a float constant of dtype."""
    if dtype == "f32":
        return "0x%08X" % oracle.f32_bits(oracle.to_f32(value))
    if dtype == "f16":
        import struct
        return "0x%04X" % struct.unpack("<H", struct.pack("<e", value))[0]
    if dtype == "bf16":
        return "0x%04X" % oracle.round_bf16_bits(value)
    raise ValueError(dtype)


def neg_inf(dtype):
    return {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80"}[dtype]


def pos_inf(dtype):
    return {"f32": "0x7F800000", "f16": "0x7C00", "bf16": "0x7F80"}[dtype]


INT_MIN = {"i32": -2147483648, "i8": -128}
INT_MAX = {"i32": 2147483647, "i8": 127}


class Val:
    """An SSA tensor value. `bound` estimates max |x| for floats; `exact`
    says every evaluator must get bit-identical values (so comparisons and
    float-to-int casts of it are safe); `product` marks an unrounded-sum
    hazard (a mulf result an FMA could absorb); `tol` is the loosest float
    type whose rounding differences may have reached it ('f32', 'f16',
    'bf16'): an f32 result computed from inexact bf16 values is compared
    with bf16 tolerances."""

    def __init__(self, name, shape, dtype, bound=1.0, exact=True,
                 product=False):
        self.tol = "f32"  # precision its errors have (set by Gen.emit)
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype
        self.bound = bound
        self.exact = exact
        self.product = product

    @property
    def type(self):
        return tty(self.shape, self.dtype)


class Step:
    def __init__(self, kind, lines, result, uses):
        self.kind = kind
        self.lines = lines
        self.result = result
        self.uses = set(uses)


class Program:
    def __init__(self):
        self.args = []    # Val
        self.steps = []   # Step
        self.results = []  # Val

    def render(self, results=None, keep=None):
        """MLIR text. `keep`: a set of step indices (default: all); args
        not used by kept steps or results are dropped."""
        results = results or self.results
        steps = [s for i, s in enumerate(self.steps)
                 if keep is None or i in keep]
        used = set(r.name for r in results)
        for s in steps:
            used |= s.uses
        args = [a for a in self.args if keep is None or a.name in used]
        out = []
        ret_vals = []
        lines = []
        for s in steps:
            lines += s.lines
        # Results: bf16 values go out as f32.
        for k, r in enumerate(results):
            if r.dtype == "bf16":
                name = "%%ret%d" % k
                e = "%%rete%d" % k
                lines.append("  %s = tensor.empty() : %s" %
                             (e, tty(r.shape, "f32")))
                lines += generic_lines(name, [r], [identity_map(len(r.shape))] * 2,
                                       e, tty(r.shape, "f32"), len(r.shape),
                                       ["%%rx%d: bf16" % k, "%%ro%d: f32" % k],
                                       ["%%ry%d = arith.extf %%rx%d : bf16 to f32"
                                        % (k, k)], "%%ry%d" % k, "f32")
                ret_vals.append((name, tty(r.shape, "f32")))
            else:
                ret_vals.append((r.name, r.type))
        out.append("func.func @main(%s) -> (%s) {" % (
            ", ".join("%s: %s" % (a.name, a.type) for a in args),
            ", ".join(t for _, t in ret_vals)))
        out += lines
        out.append("  return %s : %s" % (", ".join(n for n, _ in ret_vals),
                                         ", ".join(t for _, t in ret_vals)))
        out.append("}")
        return "\n".join(out) + "\n"

    def slice_for(self, val):
        """Indices of the steps `val` depends on."""
        producer = {s.result.name: i for i, s in enumerate(self.steps)}
        keep, todo = set(), [val.name]
        while todo:
            n = todo.pop()
            if n in producer and producer[n] not in keep:
                keep.add(producer[n])
                todo += list(self.steps[producer[n]].uses)
        return keep


def identity_map(rank):
    d = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (d, d)


def amap(rank, exprs):
    d = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (d, ", ".join(exprs))


def generic_lines(name, ins, maps, init, init_type, rank, bbargs, body,
                  yielded, ytype, iterators=None):
    iterators = iterators or ["parallel"] * rank
    lines = ["  %s = linalg.generic {indexing_maps = [%s], iterator_types = "
             "[%s]} ins(%s : %s) outs(%s : %s) {" % (
                 name, ", ".join(maps),
                 ", ".join('"%s"' % it for it in iterators),
                 ", ".join(v.name for v in ins),
                 ", ".join(v.type for v in ins), init, init_type)]
    if not ins:
        lines[0] = lines[0].replace("ins( : ) ", "")
    lines.append("  ^bb0(%s):" % ", ".join(bbargs))
    lines += ["    " + b for b in body]
    lines.append("    linalg.yield %s : %s" % (yielded, ytype))
    lines.append("  } -> %s" % init_type)
    return lines


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.prog = Program()
        self.n = 0
        self.pool = []
        self.kinds = []

    # -- helpers -----------------------------------------------------------
    def fresh(self, p="v"):
        self.n += 1
        return "%%%s%d" % (p, self.n)

    def arg(self, shape, dtype):
        v = Val("%%arg%d" % len(self.prog.args), shape, dtype)
        self.prog.args.append(v)
        return v

    def rand_shape(self, rank=None, maxel=2048):
        r = self.rng
        rank = r.choice([1, 2, 2, 3, 3, 4]) if rank is None else rank
        while True:
            shape = [r.choice(ODD + [4, 8, 16]) for _ in range(rank)]
            if numel(shape) <= maxel:
                return shape

    def operand(self, shape, dtype, allow_const=True):
        """A new argument or a constant of this type (never a pool value)."""
        r = self.rng
        if allow_const and dtype != "i1" and r.random() < 0.3 and \
                numel(shape) <= 256:
            return self.constant(shape, dtype)
        if dtype == "bf16":
            a = self.arg(shape, "f32")
            return self.cast_to(a, "bf16", record=False)
        return self.arg(shape, dtype)

    def constant(self, shape, dtype):
        r = self.rng
        name = self.fresh("cst")
        if dtype in FLOATS:
            vals = [oracle.round_to(dtype, r.uniform(-1, 1)) for _ in
                    range(numel(shape))]
            lit = "[" + ", ".join(repr(v) for v in vals) + "]"
            if len(shape) != 1:
                # Flat data and a reshape would add a step; use a splat for
                # higher ranks half the time, nested literal otherwise.
                lit = oracle.nested_literal(vals, shape, repr)
        else:
            lo, hi = (-8, 8) if dtype == "i8" else (-100, 100)
            vals = [r.randint(lo, hi) for _ in range(numel(shape))]
            lit = oracle.nested_literal(vals, shape, str)
        if not shape:
            lit = lit
        v = Val(name, shape, dtype)
        self.pending.append("  %s = arith.constant dense<%s> : %s" %
                            (name, lit, v.type))
        return v

    def empty(self, shape, dtype):
        e = self.fresh("e")
        self.pending.append("  %s = tensor.empty() : %s" % (e, tty(shape, dtype)))
        return e

    def filled(self, shape, dtype, value_literal):
        e = self.empty(shape, dtype)
        c = self.fresh("c")
        f = self.fresh("f")
        self.pending.append("  %s = arith.constant %s : %s" %
                            (c, value_literal, dtype))
        self.pending.append("  %s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                            % (f, c, dtype, e, tty(shape, dtype),
                               tty(shape, dtype)))
        return f

    def zero(self, dtype):
        return "0.000000e+00" if dtype in FLOATS else "0"

    def emit(self, kind, lines, result, uses):
        """Record a step: pending helper lines plus `lines`."""
        looser = {"f32": 0, "f16": 1, "bf16": 2}
        if not result.exact:
            # An inexact input may flip the rounding of a correctly rounded
            # op: the error is then an ulp of the result's type.
            inexact = [u for u in uses if isinstance(u, Val) and not u.exact]
            tols = [u.tol for u in inexact]
            if result.dtype in FLOATS and (kind.startswith(APPROXIMATE) or
                                           inexact):
                tols.append(result.dtype)
            result.tol = max(tols + ["f32"], key=lambda t: looser[t])
        uses = set(u.name if isinstance(u, Val) else u for u in uses)
        # Arguments read by helper lines (bf16 casts of fresh operands).
        uses |= set(self.helper_uses)
        step = Step(kind, self.pending + lines, result, uses)
        self.pending = []
        self.helper_uses = []
        self.prog.steps.append(step)
        self.pool.append(result)
        self.kinds.append(kind)
        return result

    def begin(self):
        self.pending = []
        self.helper_uses = []

    # -- elementwise -------------------------------------------------------
    def cast_to(self, a, dtype, record=True):
        """Cast a to dtype with a linalg.generic (record: as its own step)."""
        if not record:
            saved_pending = self.pending
            self.pending = []
        name = self.fresh()
        rank = len(a.shape)
        e = self.empty(a.shape, dtype)
        x, o, y = self.fresh("x"), self.fresh("o"), self.fresh("y")
        body = []
        src = a.dtype
        bound, exact = a.bound, a.exact
        if src in FLOATS and dtype in FLOATS:
            wider = {"f16": 16, "bf16": 16, "f32": 32}
            if src == dtype:
                op = None
            elif wider[dtype] > wider[src]:
                op = "arith.extf"
            elif wider[dtype] < wider[src]:
                op = "arith.truncf"
            else:  # f16 <-> bf16 through f32
                t = self.fresh("t")
                body.append("%s = arith.extf %s : %s to f32" % (t, x, src))
                body.append("%s = arith.truncf %s : f32 to %s" % (y, t, dtype))
                op = "done"
            if op in ("arith.extf", "arith.truncf"):
                body.append("%s = %s %s : %s to %s" % (y, op, x, src, dtype))
            elif op is None:
                y = x
            if dtype == "f16" and bound > 6e4:
                bound = math.inf
        elif src in FLOATS and dtype in INTS:
            # fptosi of an out-of-range value is poison: clamp first.
            lim = 100.0
            lo, hi = self.fresh("lo"), self.fresh("hi")
            c1, c2 = self.fresh("c"), self.fresh("c")
            body.append("%s = arith.constant %s : %s" %
                        (c1, float_bits_literal(-lim, src), src))
            body.append("%s = arith.constant %s : %s" %
                        (c2, float_bits_literal(lim, src), src))
            body.append("%s = arith.maximumf %s, %s : %s" % (lo, x, c1, src))
            body.append("%s = arith.minimumf %s, %s : %s" % (hi, lo, c2, src))
            body.append("%s = arith.fptosi %s : %s to %s" % (y, hi, src, dtype))
        elif src in INTS and dtype in FLOATS:
            body.append("%s = arith.sitofp %s : %s to %s" % (y, x, src, dtype))
            bound = 128.0 if src == "i8" else 2.2e9
            exact = dtype == "f32" and src == "i8"
        elif src == "i1" and dtype in FLOATS:
            body.append("%s = arith.uitofp %s : i1 to %s" % (y, x, dtype))
            bound = 1.0
        elif src == "i1" and dtype in INTS:
            body.append("%s = arith.extui %s : i1 to %s" % (y, x, dtype))
        elif src in INTS and dtype in INTS:
            if src == dtype:
                y = x
            elif src == "i8":
                body.append("%s = arith.extsi %s : i8 to %s" % (y, x, dtype))
            else:
                body.append("%s = arith.trunci %s : %s to %s" % (y, x, src,
                                                                 dtype))
        elif dtype == "i1":
            z = self.fresh("z")
            if src in FLOATS:
                body.append("%s = arith.constant %s : %s" %
                            (z, float_bits_literal(0.0, src), src))
                body.append("%s = arith.cmpf one, %s, %s : %s" % (y, x, z, src))
            else:
                body.append("%s = arith.constant 0 : %s" % (z, src))
                body.append("%s = arith.cmpi ne, %s, %s : %s" % (y, x, z, src))
        else:
            raise ValueError((src, dtype))
        lines = generic_lines(name, [a], [identity_map(rank)] * 2, e,
                              tty(a.shape, dtype), rank,
                              ["%s: %s" % (x, src), "%s: %s" % (o, dtype)],
                              body, y, dtype)
        v = Val(name, a.shape, dtype, bound, exact)
        if record:
            return self.emit("cast_%s_%s" % (src, dtype), lines, v, [a])
        # An operand cast (bf16 argument): lines go before the caller's.
        self.pending = saved_pending + self.pending + lines
        self.helper_uses.append(a.name)
        return v

    def broadcast_operand(self, shape, dtype):
        """An operand for an op over `shape`: returns (val, map exprs)."""
        r = self.rng
        rank = len(shape)
        choice = r.random()
        if choice < 0.15 and rank >= 2:
            # Transposed read of a fresh operand.
            perm = list(range(rank))
            r.shuffle(perm)
            oshape = [shape[p] for p in perm]
            return self.operand(oshape, dtype), ["d%d" % p for p in perm]
        if choice < 0.6:
            exprs, oshape = [], []
            for i, d in enumerate(shape):
                k = r.random()
                if k < 0.35:
                    exprs.append("0")          # unit dim read at 0
                    oshape.append(1)
                elif k < 0.55:
                    continue                   # dropped dim
                else:
                    exprs.append("d%d" % i)
                    oshape.append(d)
            return self.operand(oshape, dtype), exprs
        # Same shape: a pool value if one fits, else a fresh operand.
        fits = [v for v in self.pool if v.shape == shape and v.dtype == dtype]
        if fits and r.random() < 0.6:
            return r.choice(fits), ["d%d" % i for i in range(rank)]
        return self.operand(shape, dtype), ["d%d" % i for i in range(rank)]

    def ew_binary(self, a):
        r = self.rng
        dt = a.dtype
        rank = len(a.shape)
        b, bexprs = self.broadcast_operand(a.shape, dt)
        x, y, o, z = self.fresh("x"), self.fresh("y"), self.fresh("o"), \
            self.fresh("z")
        body = []
        bound, exact, product = a.bound, a.exact and b.exact, False
        if dt in FLOATS:
            ops = ["addf", "subf", "maximumf", "minimumf", "mulf", "divf",
                   "mulf"]
            op = r.choice(ops)
            if op == "mulf" and a.bound * b.bound > 1e4:
                op = "addf"
            if dt == "f32" and op in ("addf", "subf") and \
                    (a.product or b.product):
                exact = False  # an FMA may absorb the product
            if op == "divf":
                # x / (|y| + 0.5): no division by zero.
                t, h, d = self.fresh("t"), self.fresh("h"), self.fresh("d")
                body.append("%s = math.absf %s : %s" % (t, y, dt))
                body.append("%s = arith.constant %s : %s" %
                            (h, float_bits_literal(0.5, dt), dt))
                body.append("%s = arith.addf %s, %s : %s" % (d, t, h, dt))
                body.append("%s = arith.divf %s, %s : %s" % (z, x, d, dt))
                bound = a.bound * 2
                # f32 division may use a reciprocal estimate; an f16/bf16
                # quotient computed in f32 and rounded once is exact.
                exact = exact and dt != "f32"
            else:
                body.append("%s = arith.%s %s, %s : %s" % (z, op, x, y, dt))
                if op == "mulf":
                    bound, product = a.bound * b.bound, True
                elif op in ("addf", "subf"):
                    bound = a.bound + b.bound
                else:
                    bound = max(a.bound, b.bound)
        elif dt in INTS:
            op = r.choice(["addi", "subi", "muli", "maxsi", "minsi", "andi",
                           "ori", "xori", "divsi"])
            if op == "divsi":
                # x / (|y| % 7 + 1) via remui-free form: (y & 7) + 1.
                m, c7, c1 = self.fresh("m"), self.fresh("c"), self.fresh("c")
                d = self.fresh("d")
                body.append("%s = arith.constant 7 : %s" % (c7, dt))
                body.append("%s = arith.constant 1 : %s" % (c1, dt))
                body.append("%s = arith.andi %s, %s : %s" % (m, y, c7, dt))
                body.append("%s = arith.addi %s, %s : %s" % (d, m, c1, dt))
                body.append("%s = arith.divsi %s, %s : %s" % (z, x, d, dt))
            else:
                body.append("%s = arith.%s %s, %s : %s" % (z, op, x, y, dt))
        else:  # i1
            op = r.choice(["andi", "ori", "xori"])
            body.append("%s = arith.%s %s, %s : i1" % (z, op, x, y))
        ins = [a, b]
        maps = [identity_map(rank), amap(rank, bexprs), identity_map(rank)]
        init = self.empty(a.shape, dt)
        bb = ["%s: %s" % (x, dt), "%s: %s" % (y, dt), "%s: %s" % (o, dt)]
        if r.random() < 0.15 and dt in FLOATS:
            # Accumulate into an existing tensor: the init is read.
            fits = [v for v in self.pool if v.shape == a.shape and
                    v.dtype == dt]
            if fits:
                acc = r.choice(fits)
                init = acc.name
                w = self.fresh("w")
                body.append("%s = arith.addf %s, %s : %s" % (w, z, o, dt))
                z = w
                bound += acc.bound
                exact = exact and acc.exact and dt != "f32"
                ins_uses = [acc]
            else:
                ins_uses = []
        else:
            ins_uses = []
        name = self.fresh()
        lines = generic_lines(name, ins, maps, init, a.type, rank, bb, body,
                              z, dt)
        v = Val(name, a.shape, dt, bound, exact, product)
        return self.emit("ew_" + op + ("_bcast" if len(bexprs) != rank or
                                       "0" in bexprs else ""),
                         lines, v, [a, b] + ins_uses)

    def ew_unary(self, a):
        r = self.rng
        dt = a.dtype
        rank = len(a.shape)
        x, o = self.fresh("x"), self.fresh("o")
        body, z = [], self.fresh("z")
        bound, exact = a.bound, a.exact
        if dt in FLOATS:
            op = r.choice(["negf", "absf", "exp", "tanh", "sqrt", "rsqrt",
                           "erf", "sigmoid", "relu", "square", "floor",
                           "scale"])
            c = self.fresh("c")
            if op in ("negf", "absf"):
                body.append("%s = %s.%s %s : %s" % (
                    z, "arith" if op == "negf" else "math", op, x, dt))
            elif op == "exp":
                t = self.fresh("t")
                body.append("%s = math.tanh %s : %s" % (t, x, dt))
                body.append("%s = math.exp %s : %s" % (z, t, dt))
                bound, exact = 2.72, False
            elif op in ("tanh", "erf"):
                body.append("%s = math.%s %s : %s" % (z, op, x, dt))
                bound, exact = 1.0, False
            elif op in ("sqrt", "rsqrt"):
                t, one, s = self.fresh("t"), self.fresh("c"), self.fresh("s")
                body.append("%s = math.absf %s : %s" % (t, x, dt))
                body.append("%s = arith.constant %s : %s" %
                            (one, float_bits_literal(1.0, dt), dt))
                body.append("%s = arith.addf %s, %s : %s" % (s, t, one, dt))
                body.append("%s = math.%s %s : %s" % (z, op, s, dt))
                bound = math.sqrt(a.bound + 1) if op == "sqrt" else 1.0
                exact = False
            elif op == "sigmoid":
                t, e, one, s = (self.fresh("t"), self.fresh("t"),
                                self.fresh("c"), self.fresh("s"))
                body.append("%s = arith.negf %s : %s" % (t, x, dt))
                body.append("%s = math.exp %s : %s" % (e, t, dt))
                body.append("%s = arith.constant %s : %s" %
                            (one, float_bits_literal(1.0, dt), dt))
                body.append("%s = arith.addf %s, %s : %s" % (s, e, one, dt))
                body.append("%s = arith.divf %s, %s : %s" % (z, one, s, dt))
                bound, exact = 1.0, False
            elif op == "relu":
                body.append("%s = arith.constant %s : %s" %
                            (c, float_bits_literal(0.0, dt), dt))
                body.append("%s = arith.maximumf %s, %s : %s" % (z, x, c, dt))
            elif op == "square":
                body.append("%s = arith.mulf %s, %s : %s" % (z, x, x, dt))
                bound = a.bound * a.bound
            elif op == "floor":
                if not a.exact:
                    return self.ew_unary_scale(a)
                body.append("%s = math.floor %s : %s" % (z, x, dt))
            else:
                return self.ew_unary_scale(a)
        elif dt in INTS:
            # name: (constant, op, constant first)
            binary = {"neg": (0, "arith.subi", True), "relu": (0, "arith.maxsi", False),
                      "mul3": (3, "arith.muli", False), "shrsi": (2, "arith.shrsi", False),
                      "and15": (15, "arith.andi", False), "rem7": (7, "arith.remsi", False)}
            op = r.choice(["neg", "relu", "mul3", "shrsi", "and15", "rem7",
                           "abs"])
            c = self.fresh("c")
            if op in binary:
                value, name, first = binary[op]
                body.append("%s = arith.constant %d : %s" % (c, value, dt))
                lhs, rhs = (c, x) if first else (x, c)
                body.append("%s = %s %s, %s : %s" % (z, name, lhs, rhs, dt))
            else:
                body.append("%s = math.absi %s : %s" % (z, x, dt))
        else:
            op = "not"
            c = self.fresh("c")
            body.append("%s = arith.constant true" % c)
            body.append("%s = arith.xori %s, %s : i1" % (z, x, c))
        name = self.fresh()
        init = self.empty(a.shape, dt)
        lines = generic_lines(name, [a], [identity_map(rank)] * 2, init,
                              a.type, rank, ["%s: %s" % (x, dt),
                                             "%s: %s" % (o, dt)], body, z, dt)
        return self.emit("un_" + op, lines, Val(name, a.shape, dt, bound,
                                                exact), [a])

    def ew_unary_scale(self, a):
        """Multiply by a power of two that brings the bound near 1 (exact)."""
        dt = a.dtype
        k = max(0, int(math.ceil(math.log2(max(a.bound, 1.0)))))
        k = min(k, 14 if dt == "f16" else 60)
        rank = len(a.shape)
        x, o, c, z = (self.fresh("x"), self.fresh("o"), self.fresh("c"),
                      self.fresh("z"))
        body = ["%s = arith.constant %s : %s" %
                (c, float_bits_literal(2.0 ** -k, dt), dt),
                "%s = arith.mulf %s, %s : %s" % (z, x, c, dt)]
        name = self.fresh()
        init = self.empty(a.shape, dt)
        lines = generic_lines(name, [a], [identity_map(rank)] * 2, init,
                              a.type, rank, ["%s: %s" % (x, dt),
                                             "%s: %s" % (o, dt)], body, z, dt)
        return self.emit("un_scale", lines,
                         Val(name, a.shape, dt, a.bound * 2.0 ** -k, a.exact,
                             a.product), [a])

    def compare_select(self, a):
        """cmp(a, b) -> i1; then select(cond, a, c) half the time."""
        r = self.rng
        dt = a.dtype
        if dt == "i1" or (dt in FLOATS and not a.exact):
            return self.ew_unary(a) if dt == "i1" else self.ew_unary_scale(a)
        rank = len(a.shape)
        b, bexprs = self.broadcast_operand(a.shape, dt)
        if dt in FLOATS and not b.exact:
            b = self.operand(a.shape, dt)
            bexprs = ["d%d" % i for i in range(rank)]
        x, y, o, z = self.fresh("x"), self.fresh("y"), self.fresh("o"), \
            self.fresh("z")
        if dt in FLOATS:
            pred = r.choice(["olt", "ogt", "oge", "ole", "une", "oeq"])
            cmp = "%s = arith.cmpf %s, %s, %s : %s" % (z, pred, x, y, dt)
        else:
            pred = r.choice(["slt", "sgt", "sge", "sle", "ne", "eq", "ult"])
            cmp = "%s = arith.cmpi %s, %s, %s : %s" % (z, pred, x, y, dt)
        name = self.fresh()
        select = r.random() < 0.5
        if not select:
            init = self.empty(a.shape, "i1")
            lines = generic_lines(name, [a, b], [identity_map(rank),
                                                 amap(rank, bexprs),
                                                 identity_map(rank)],
                                  init, tty(a.shape, "i1"), rank,
                                  ["%s: %s" % (x, dt), "%s: %s" % (y, dt),
                                   "%s: i1" % o], [cmp], z, "i1")
            return self.emit("cmp_" + dt, lines, Val(name, a.shape, "i1"),
                             [a, b])
        s = self.fresh("s")
        init = self.empty(a.shape, dt)
        lines = generic_lines(name, [a, b], [identity_map(rank),
                                             amap(rank, bexprs),
                                             identity_map(rank)],
                              init, a.type, rank,
                              ["%s: %s" % (x, dt), "%s: %s" % (y, dt),
                               "%s: %s" % (o, dt)],
                              [cmp, "%s = arith.select %s, %s, %s : %s" %
                               (s, z, x, y, dt)], s, dt)
        return self.emit("select_" + dt, lines,
                         Val(name, a.shape, dt, max(a.bound, b.bound),
                             a.exact and b.exact), [a, b])

    def select_i1(self, a):
        """a is i1: select between two fresh operands."""
        r = self.rng
        dt = r.choice([t for t in ["f32", "i32", "i8", "f16"]
                       if t not in EXCLUDED])
        rank = len(a.shape)
        b = self.operand(a.shape, dt)
        c, cexprs = self.broadcast_operand(a.shape, dt)
        x, y, w, o, z = (self.fresh("x"), self.fresh("y"), self.fresh("w"),
                         self.fresh("o"), self.fresh("z"))
        name = self.fresh()
        init = self.empty(a.shape, dt)
        lines = generic_lines(
            name, [a, b, c], [identity_map(rank), identity_map(rank),
                              amap(rank, cexprs), identity_map(rank)],
            init, tty(a.shape, dt), rank,
            ["%s: i1" % x, "%s: %s" % (y, dt), "%s: %s" % (w, dt),
             "%s: %s" % (o, dt)],
            ["%s = arith.select %s, %s, %s : %s" % (z, x, y, w, dt)], z, dt)
        return self.emit("select_i1", lines,
                         Val(name, a.shape, dt, max(b.bound, c.bound),
                             b.exact and c.exact), [a, b, c])

    # -- reductions --------------------------------------------------------
    def reduce(self, a):
        r = self.rng
        dt = a.dtype
        rank = len(a.shape)
        if rank == 0 or dt == "i1":
            return self.cast(a)
        dims = sorted(r.sample(range(rank), r.randint(1, rank)))
        kinds = ["add", "max", "min"]
        kind = r.choice(kinds)
        acc = dt
        if dt in ("f16", "bf16") and kind == "add":
            acc = "f32"  # widening accumulation: well defined
        oshape = [d for i, d in enumerate(a.shape) if i not in dims]
        oexprs = ["d%d" % i for i in range(rank) if i not in dims]
        if kind == "add":
            init = self.filled(oshape, acc, self.zero(acc))
        elif acc in FLOATS:
            init = self.filled(oshape, acc, neg_inf(acc) if kind == "max"
                               else pos_inf(acc))
        else:
            init = self.filled(oshape, acc, str(INT_MIN[acc] if kind == "max"
                                                else INT_MAX[acc]))
        x, o, z = self.fresh("x"), self.fresh("o"), self.fresh("z")
        body = []
        xv = x
        if acc != dt:
            xv = self.fresh("t")
            body.append("%s = arith.extf %s : %s to %s" % (xv, x, dt, acc))
        opn = {("add", True): "addf", ("add", False): "addi",
               ("max", True): "maximumf", ("max", False): "maxsi",
               ("min", True): "minimumf", ("min", False): "minsi"}[
                   (kind, acc in FLOATS)]
        body.append("%s = arith.%s %s, %s : %s" % (z, opn, xv, o, acc))
        count = numel([a.shape[i] for i in dims])
        name = self.fresh()
        lines = generic_lines(
            name, [a], [identity_map(rank), amap(rank, oexprs)], init,
            tty(oshape, acc), rank, ["%s: %s" % (x, dt), "%s: %s" % (o, acc)],
            body, z, acc,
            ["reduction" if i in dims else "parallel" for i in range(rank)])
        exact = a.exact and (kind != "add" or acc not in FLOATS)
        bound = a.bound * count if kind == "add" else a.bound
        return self.emit("reduce_%s_%s" % (kind, dt), lines,
                         Val(name, oshape, acc, bound, exact), [a])

    def tosa_reduce(self, a):
        r = self.rng
        if a.dtype not in ("f32", "i32") or not a.shape:
            return self.reduce(a)
        axis = r.randrange(len(a.shape))
        kind = r.choice(["sum", "max", "min"])
        oshape = list(a.shape)
        oshape[axis] = 1
        name = self.fresh()
        lines = ["  %s = tosa.reduce_%s %s {axis = %d : i32} : (%s) -> %s" %
                 (name, kind, a.name, axis, a.type, tty(oshape, a.dtype))]
        exact = a.exact and (kind != "sum" or a.dtype == "i32")
        bound = a.bound * a.shape[axis] if kind == "sum" else a.bound
        return self.emit("tosa_reduce_" + kind, lines,
                         Val(name, oshape, a.dtype, bound, exact), [a])

    # -- contractions ------------------------------------------------------
    def to_2d(self, a):
        if len(a.shape) == 2:
            return a
        if len(a.shape) < 2:
            return self.expand(a, force_unit=True, to_rank=2)
        name = self.fresh()
        r = len(a.shape)
        oshape = [numel(a.shape[:-1]), a.shape[-1]]
        assoc = "[[%s], [%d]]" % (", ".join(str(i) for i in range(r - 1)),
                                  r - 1)
        return self.emit_collapse(a, name, assoc, oshape)

    def emit_collapse(self, a, name, assoc, oshape):
        """tensor.collapse_shape of `a` by `assoc` into `oshape`."""
        lines = ["  %s = tensor.collapse_shape %s %s : %s into %s" %
                 (name, a.name, assoc, a.type, tty(oshape, a.dtype))]
        return self.emit("collapse", lines,
                         Val(name, oshape, a.dtype, a.bound, a.exact,
                             a.product), [a])

    def matmul(self, a):
        r = self.rng
        if a.dtype == "i1":
            return self.select_i1(a)
        if r.random() < 0.2 and len(a.shape) == 3 and a.dtype == "f32":
            return self.batch_matmul(a)
        a2 = self.to_2d(a)
        m, k = a2.shape
        n = r.choice(ODD + [4, 8, 16, 32])
        if m * n > 4096:
            n = 3
        b = self.operand([k, n], a2.dtype)
        acc = {"f32": "f32", "f16": r.choice(["f16", "f32"]), "bf16": "f32",
               "i32": "i32", "i8": "i32"}[a2.dtype]
        if acc == "f16" and k > 16:
            acc = "f32"
        init = self.filled([m, n], acc, self.zero(acc))
        name = self.fresh()
        lines = ["  %s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                 % (name, a2.name, b.name, a2.type, b.type, init,
                    tty([m, n], acc), tty([m, n], acc))]
        return self.emit("matmul_%s_%s" % (a2.dtype, acc), lines,
                         Val(name, [m, n], acc, a2.bound * b.bound * k,
                             acc not in FLOATS), [a2, b])

    def batch_matmul(self, a):
        r = self.rng
        bsz, m, k = a.shape
        n = r.choice(ODD)
        b = self.operand([bsz, k, n], a.dtype)
        init = self.filled([bsz, m, n], "f32", "0.000000e+00")
        name = self.fresh()
        lines = ["  %s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s)"
                 " -> %s" % (name, a.name, b.name, a.type, b.type, init,
                             tty([bsz, m, n], "f32"), tty([bsz, m, n], "f32"))]
        return self.emit("batch_matmul", lines,
                         Val(name, [bsz, m, n], "f32", a.bound * b.bound * k,
                             False), [a, b])

    def conv(self, a):
        """A convolution or pooling over a (NHWC or NCHW when rank 4, else a
        fresh input)."""
        r = self.rng
        if len(a.shape) != 4 or a.dtype not in ("f32", "i8", "f16") or \
                numel(a.shape) > 2048:
            dt = r.choice(["f32", "f32", "i8"])
            shape = [r.choice([1, 1, 2]), r.choice([5, 7, 8, 9, 11]),
                     r.choice([5, 6, 7, 9, 13]), r.choice([1, 2, 3, 4])]
            a = self.operand(shape, dt, allow_const=False)
        dt = a.dtype
        kind = r.choice(["nhwc_hwcf", "nhwc_hwcf", "nchw_fchw", "depthwise",
                         "pool_max", "pool_sum"])
        if dt != "f32" and kind == "pool_sum" and dt == "f16":
            kind = "pool_max"
        nb, h, w, c = a.shape
        if kind == "nchw_fchw":
            nb, c, h, w = a.shape
        kh, kw = r.choice([1, 2, 3]), r.choice([1, 2, 3])
        sh, sw = r.choice([1, 1, 2, 3]), r.choice([1, 2])
        dh, dw = r.choice([1, 1, 2]), r.choice([1, 1, 2])
        oh = (h - (kh - 1) * dh - 1) // sh + 1
        ow = (w - (kw - 1) * dw - 1) // sw + 1
        if oh < 1 or ow < 1:
            kh = kw = dh = dw = 1
            oh = (h - 1) // sh + 1
            ow = (w - 1) // sw + 1
        f = r.choice([1, 2, 3, 4, 5])
        acc = {"f32": "f32", "i8": "i32", "f16": "f32"}[dt]
        attrs = ("{dilations = dense<[%d, %d]> : tensor<2xi64>, strides = "
                 "dense<[%d, %d]> : tensor<2xi64>}" % (dh, dw, sh, sw))
        name = self.fresh()
        if kind == "nhwc_hwcf":
            wt = self.operand([kh, kw, c, f], dt)
            oshape = [nb, oh, ow, f]
            op = "linalg.conv_2d_nhwc_hwcf"
        elif kind == "nchw_fchw":
            wt = self.operand([f, c, kh, kw], dt)
            oshape = [nb, f, oh, ow]
            op = "linalg.conv_2d_nchw_fchw"
        elif kind == "depthwise":
            wt = self.operand([kh, kw, c], dt)
            oshape = [nb, oh, ow, c]
            op = "linalg.depthwise_conv_2d_nhwc_hwc"
        else:
            wname = self.empty([kh, kw], acc if dt != "i8" else "i32")
            wt = Val(wname, [kh, kw], acc if dt != "i8" else "i32")
            oshape = [nb, oh, ow, c]
            op = "linalg.pooling_nhwc_max" if kind == "pool_max" else \
                "linalg.pooling_nhwc_sum"
            if dt == "i8":
                acc = "i32"
        if kind == "pool_max":
            init = self.filled(oshape, acc, neg_inf(acc) if acc in FLOATS
                               else str(INT_MIN[acc]))
        else:
            init = self.filled(oshape, acc, self.zero(acc))
        lines = ["  %s = %s %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
                 (name, op, attrs, a.name, wt.name, a.type, wt.type, init,
                  tty(oshape, acc), tty(oshape, acc))]
        terms = kh * kw * (c if kind in ("nhwc_hwcf", "nchw_fchw") else 1)
        bound = a.bound * (wt.bound if kind not in ("pool_max", "pool_sum")
                           else 1) * (terms if kind != "pool_max" else 1)
        exact = acc not in FLOATS or (kind == "pool_max" and a.exact)
        uses = [a] + ([wt] if kind not in ("pool_max", "pool_sum") else [])
        return self.emit("conv_" + kind + "_" + dt, lines,
                         Val(name, oshape, acc, bound, exact), uses)

    # -- data movement -----------------------------------------------------
    def pad(self, a):
        r = self.rng
        if not a.shape:
            return self.expand(a)
        low = [r.choice([0, 0, 1, 2]) for _ in a.shape]
        high = [r.choice([0, 0, 1, 3]) for _ in a.shape]
        oshape = [d + l + h for d, l, h in zip(a.shape, low, high)]
        if numel(oshape) > 8192:
            return self.transpose(a)
        dt = a.dtype
        if dt in FLOATS:
            val = float_bits_literal(r.choice([0.0, 1.5, -0.25]), dt)
        elif dt == "i1":
            val = r.choice(["true", "false"])
        else:
            val = str(r.choice([0, 7, -3]))
        c = self.fresh("c")
        self.pending.append("  %s = arith.constant %s : %s" % (c, val, dt)
                            if dt != "i1" else "  %s = arith.constant %s" %
                            (c, val))
        name = self.fresh()
        idx = ", ".join("%s: index" % self.fresh("i") for _ in a.shape)
        lines = ["  %s = tensor.pad %s low[%s] high[%s] {" % (
            name, a.name, ", ".join(map(str, low)), ", ".join(map(str, high))),
            "  ^bb0(%s):" % idx,
            "    tensor.yield %s : %s" % (c, dt),
            "  } : %s to %s" % (a.type, tty(oshape, dt))]
        return self.emit("pad", lines, Val(name, oshape, dt, max(a.bound, 1.5),
                                           a.exact), [a])

    def concat(self, a):
        r = self.rng
        if not a.shape:
            return self.expand(a)
        dim = r.randrange(len(a.shape))
        bshape = list(a.shape)
        bshape[dim] = r.choice([1, 2, 3, a.shape[dim]])
        fits = [v for v in self.pool if v.shape == bshape and
                v.dtype == a.dtype]
        b = r.choice(fits) if fits and r.random() < 0.5 else \
            self.operand(bshape, a.dtype)
        oshape = list(a.shape)
        oshape[dim] += bshape[dim]
        name = self.fresh()
        lines = ["  %s = tensor.concat dim(%d) %s, %s : (%s, %s) -> %s" %
                 (name, dim, a.name, b.name, a.type, b.type,
                  tty(oshape, a.dtype))]
        return self.emit("concat", lines,
                         Val(name, oshape, a.dtype, max(a.bound, b.bound),
                             a.exact and b.exact), [a, b])

    def slice(self, a):
        r = self.rng
        if not a.shape:
            return self.expand(a)
        offs, sizes, strides = [], [], []
        for d in a.shape:
            st = r.choice([1, 1, 2]) if d > 2 else 1
            off = r.randrange(0, max(1, d // 3))
            size = max(1, (d - off - 1) // st + 1 - r.choice([0, 0, 1]))
            offs.append(off)
            sizes.append(size)
            strides.append(st)
        name = self.fresh()
        lines = ["  %s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" %
                 (name, a.name, ", ".join(map(str, offs)),
                  ", ".join(map(str, sizes)), ", ".join(map(str, strides)),
                  a.type, tty(sizes, a.dtype))]
        return self.emit("slice", lines, Val(name, sizes, a.dtype, a.bound,
                                             a.exact, a.product), [a])

    def expand(self, a, force_unit=False, to_rank=None):
        r = self.rng
        rank = len(a.shape)
        if rank == 0:
            oshape, assoc = [1], "[]"
        else:
            # Split one dim into (p, q) or add a unit dim next to it.
            i = r.randrange(rank)
            d = a.shape[i]
            divs = [q for q in range(2, d) if d % q == 0]
            if divs and not force_unit and r.random() < 0.6:
                q = r.choice(divs)
                parts = [d // q, q]
            else:
                parts = [1, d] if r.random() < 0.5 else [d, 1]
            oshape, groups, j = [], [], 0
            for k, dk in enumerate(a.shape):
                if k == i:
                    groups.append([j, j + 1])
                    oshape += parts
                    j += 2
                else:
                    groups.append([j])
                    oshape.append(dk)
                    j += 1
            assoc = "[%s]" % ", ".join("[%s]" % ", ".join(map(str, g))
                                       for g in groups)
        name = self.fresh()
        lines = ["  %s = tensor.expand_shape %s %s output_shape [%s] : %s "
                 "into %s" % (name, a.name, assoc, ", ".join(map(str, oshape)),
                              a.type, tty(oshape, a.dtype))]
        v = self.emit("expand", lines, Val(name, oshape, a.dtype, a.bound,
                                           a.exact, a.product), [a])
        if to_rank and len(v.shape) < to_rank:
            return self.expand(v, True, to_rank)
        return v

    def collapse(self, a):
        rank = len(a.shape)
        if rank < 2:
            return self.expand(a)
        r = self.rng
        i = r.randrange(rank - 1)
        groups = [[k] for k in range(i)] + [[i, i + 1]] + \
            [[k] for k in range(i + 2, rank)]
        oshape = a.shape[:i] + [a.shape[i] * a.shape[i + 1]] + a.shape[i + 2:]
        assoc = "[%s]" % ", ".join("[%s]" % ", ".join(map(str, g))
                                   for g in groups)
        return self.emit_collapse(a, self.fresh(), assoc, oshape)

    def transpose(self, a):
        r = self.rng
        rank = len(a.shape)
        if rank < 2:
            return self.expand(a)
        perm = list(range(rank))
        while perm == sorted(perm):
            r.shuffle(perm)
        oshape = [a.shape[p] for p in perm]
        name = self.fresh()
        init = self.empty(oshape, a.dtype)
        lines = ["  %s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                 "permutation = [%s]" % (name, a.name, a.type, init,
                                         tty(oshape, a.dtype),
                                         ", ".join(map(str, perm)))]
        return self.emit("transpose", lines,
                         Val(name, oshape, a.dtype, a.bound, a.exact,
                             a.product), [a])

    def cast(self, a):
        r = self.rng
        targets = {"f32": ["f16", "bf16", "i32", "i8", "i1"],
                   "f16": ["f32", "bf16", "i32"],
                   "bf16": ["f32", "f16"],
                   "i32": ["f32", "i8", "f16", "i1"],
                   "i8": ["i32", "f32", "bf16"],
                   "i1": ["f32", "i32", "i8"]}[a.dtype]
        targets = [t for t in targets if t not in EXCLUDED] or ["f32"]
        dt = r.choice(targets)
        if a.dtype in FLOATS and dt in ("i32", "i8", "i1") and not a.exact:
            dt = "f32" if a.dtype != "f32" else "f16"
            if dt == "f16" and (a.bound > 6e4 or "f16" in EXCLUDED):
                return self.ew_unary_scale(a)
        return self.cast_to(a, dt)

    # -- TOSA --------------------------------------------------------------
    def tosa_ew(self, a):
        r = self.rng
        dt = a.dtype
        if dt not in ("f32", "i32", "i8") or not a.shape:
            return self.ew_binary(a)
        kinds = ["add", "sub", "mul", "maximum", "minimum", "clamp"]
        if dt == "f32":
            kinds += ["sigmoid", "tanh", "exp_clamped"]
        if dt == "i8":
            kinds = ["maximum", "minimum", "clamp", "add"]
        kind = r.choice(kinds)
        if kind == "mul" and dt == "f32" and a.bound > 1e3:
            kind = "add"
        name = self.fresh()
        if kind == "clamp":
            if dt == "f32":
                lo, hi = sorted([round(r.uniform(-1, 1), 2) for _ in "ab"])
                attr = "{max_val = %s : f32, min_val = %s : f32}" % (
                    repr(float(hi)), repr(float(lo)))
                bound = max(abs(lo), abs(hi))
            else:
                lo, hi = sorted([r.randint(-20, 20) for _ in "ab"])
                attr = "{max_val = %d : %s, min_val = %d : %s}" % (hi, dt,
                                                                  lo, dt)
                bound = 1.0
            lines = ["  %s = tosa.clamp %s %s : (%s) -> %s" %
                     (name, a.name, attr, a.type, a.type)]
            return self.emit("tosa_clamp", lines,
                             Val(name, a.shape, dt, bound, a.exact), [a])
        if kind in ("sigmoid", "tanh"):
            lines = ["  %s = tosa.%s %s : (%s) -> %s" %
                     (name, kind, a.name, a.type, a.type)]
            return self.emit("tosa_" + kind, lines,
                             Val(name, a.shape, dt, 1.0, False), [a])
        if kind == "exp_clamped":
            t = self.fresh()
            lines = ["  %s = tosa.clamp %s {max_val = 4.0 : f32, min_val = "
                     "-4.0 : f32} : (%s) -> %s" % (t, a.name, a.type, a.type),
                     "  %s = tosa.exp %s : (%s) -> %s" % (name, t, a.type,
                                                         a.type)]
            return self.emit("tosa_exp", lines,
                             Val(name, a.shape, dt, 55.0, False), [a])
        # Binary with TOSA broadcasting (same rank, unit dims).
        bshape = [1 if r.random() < 0.4 else d for d in a.shape]
        b = self.operand(bshape, dt)
        if r.random() < 0.5:
            a, b = (a, b)
            lhs, rhs = a, b
        else:
            lhs, rhs = b, a
        if kind == "mul":
            s = self.fresh("s")
            self.pending.append('  %s = "tosa.const"() <{values = dense<0> : '
                                'tensor<1xi8>}> : () -> tensor<1xi8>' % s)
            lines = ["  %s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s"
                     % (name, lhs.name, rhs.name, s, lhs.type, rhs.type,
                        a.type)]
            bound = a.bound * b.bound
        else:
            lines = ["  %s = tosa.%s %s, %s : (%s, %s) -> %s" %
                     (name, kind, lhs.name, rhs.name, lhs.type, rhs.type,
                      a.type)]
            bound = a.bound + b.bound
        exact = a.exact and b.exact and (dt != "f32" or kind in (
            "maximum", "minimum") or not (a.product or b.product))
        return self.emit("tosa_" + kind, lines,
                         Val(name, a.shape, dt, bound, exact,
                             kind == "mul" and dt == "f32"), [a, b])

    def tconst(self, values, dtype, shape=None):
        """A tosa.const (for zero points, multipliers, shifts)."""
        name = self.fresh("tc")
        shape = shape or [len(values)]
        lit = "[" + ", ".join(str(v) for v in values) + "]"
        if len(set(values)) == 1:
            lit = str(values[0])
        self.pending.append('  %s = "tosa.const"() <{values = dense<%s> : %s}> '
                            ': () -> %s' % (name, lit, tty(shape, dtype),
                                            tty(shape, dtype)))
        return name

    def tshape(self, values):
        name = self.fresh("ts")
        self.pending.append("  %s = tosa.const_shape {values = dense<[%s]> : "
                            "tensor<%dxindex>} : () -> !tosa.shape<%d>" %
                            (name, ", ".join(map(str, values)), len(values),
                             len(values)))
        return name

    def window(self, size, k, d, s):
        """Pads (before, after) so that the TOSA output size is exact."""
        r = self.rng
        pb = r.choice([0, 0, 1]) if k > 1 else 0
        pa = r.choice([0, 1]) if k > 1 else 0
        span = size - 1 + pb + pa - (k - 1) * d
        if span < 0:
            return None
        pa += (s - span % s) % s
        if k > 1 and (pb >= k or pa >= k):
            return None
        span = size - 1 + pb + pa - (k - 1) * d
        return pb, pa, span // s + 1

    def tosa_structured(self, a):
        """TOSA convolution, pooling, matmul, rescale and data movement."""
        r = self.rng
        kind = r.choice(["conv2d", "conv2d", "depthwise", "avg_pool",
                         "max_pool", "matmul", "matmul", "rescale", "cast",
                         "transpose", "reshape", "concat", "pad", "slice"])
        name = self.fresh()
        if kind in ("transpose", "reshape", "concat", "pad", "slice", "cast"):
            if not a.shape or a.dtype not in ("f32", "i32", "i8", "f16"):
                return self.transpose(a) if len(a.shape) > 1 else self.cast(a)
            rank = len(a.shape)
            if kind == "transpose":
                if rank < 2:
                    return self.expand(a)
                perm = list(range(rank))
                while perm == sorted(perm):
                    r.shuffle(perm)
                oshape = [a.shape[p] for p in perm]
                lines = ["  %s = tosa.transpose %s {perms = array<i32: %s>} : "
                         "(%s) -> %s" % (name, a.name, ", ".join(map(str, perm)),
                                         a.type, tty(oshape, a.dtype))]
            elif kind == "reshape":
                n = numel(a.shape)
                divs = [q for q in range(1, n + 1) if n % q == 0]
                q = r.choice(divs)
                oshape = r.choice([[n], [q, n // q], [1, q, n // q],
                                   [n // q, 1, q]])
                sh = self.tshape(oshape)
                lines = ["  %s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) "
                         "-> %s" % (name, a.name, sh, a.type, len(oshape),
                                    tty(oshape, a.dtype))]
            elif kind == "concat":
                axis = r.randrange(rank)
                bshape = list(a.shape)
                bshape[axis] = r.choice([1, 2, 5])
                b = self.operand(bshape, a.dtype)
                oshape = list(a.shape)
                oshape[axis] += bshape[axis]
                lines = ["  %s = tosa.concat %s, %s {axis = %d : i32} : "
                         "(%s, %s) -> %s" % (name, a.name, b.name, axis,
                                             a.type, b.type,
                                             tty(oshape, a.dtype))]
                return self.emit("tosa_concat", lines,
                                 Val(name, oshape, a.dtype,
                                     max(a.bound, b.bound),
                                     a.exact and b.exact), [a, b])
            elif kind == "pad":
                pads = [r.choice([0, 0, 1, 2]) for _ in range(2 * rank)]
                oshape = [d + pads[2 * i] + pads[2 * i + 1]
                          for i, d in enumerate(a.shape)]
                if numel(oshape) > 8192:
                    return self.slice(a)
                sh = self.tshape(pads)
                cval = r.choice([0, 3]) if a.dtype not in FLOATS else \
                    r.choice([0.0, -1.5])
                pc = self.tconst([cval], a.dtype)
                lines = ["  %s = tosa.pad %s, %s, %s : (%s, !tosa.shape<%d>, "
                         "%s) -> %s" % (name, a.name, sh, pc, a.type,
                                        2 * rank, tty([1], a.dtype),
                                        tty(oshape, a.dtype))]
            elif kind == "slice":
                start = [r.randrange(0, max(1, d // 2)) for d in a.shape]
                size = [r.randint(1, d - st) for d, st in zip(a.shape, start)]
                s1, s2 = self.tshape(start), self.tshape(size)
                oshape = size
                lines = ["  %s = tosa.slice %s, %s, %s : (%s, !tosa.shape<%d>, "
                         "!tosa.shape<%d>) -> %s" % (name, a.name, s1, s2,
                                                     a.type, rank, rank,
                                                     tty(oshape, a.dtype))]
            else:  # cast
                to = {"f32": ["i8", "i32", "f16"], "f16": ["f32", "i8"],
                      "i32": ["i8", "f32"], "i8": ["i32", "f32", "f16"]}[
                          a.dtype]
                dt = r.choice([t for t in to if t not in EXCLUDED])
                if a.dtype in FLOATS and dt in INTS and not a.exact:
                    dt = "f32" if a.dtype == "f16" else "f16"
                    if dt == "f16" and (a.bound > 6e4 or "f16" in EXCLUDED):
                        return self.ew_unary_scale(a)
                lines = ["  %s = tosa.cast %s : (%s) -> %s" %
                         (name, a.name, a.type, tty(a.shape, dt))]
                return self.emit("tosa_cast_%s_%s" % (a.dtype, dt), lines,
                                 Val(name, a.shape, dt,
                                     a.bound if dt in FLOATS else 1.0,
                                     a.exact), [a])
            return self.emit("tosa_" + kind, lines,
                             Val(name, oshape, a.dtype, a.bound, a.exact,
                                 a.product), [a])
        if kind == "rescale":
            if a.dtype not in ("i32", "i8") or not a.shape:
                x = self.operand(self.rand_shape(), "i32", allow_const=False)
            else:
                x = a
            to = "i8" if x.dtype == "i32" else r.choice(["i8", "i32"])
            per_channel = r.random() < 0.4
            c = x.shape[-1]
            n = c if per_channel else 1
            mult = [r.randint(1 << 29, (1 << 31) - 1) for _ in range(n)]
            shift = [r.randint(30, 40) for _ in range(n)]
            m = self.tconst(mult, "i32")
            sh = self.tconst(shift, "i8")
            izp = self.tconst([r.choice([0, 0, 3]) if x.dtype == "i8" else 0],
                              x.dtype)
            ozp = self.tconst([r.choice([0, -128, 5]) if to == "i8" else 0], to)
            mode = r.choice(["SINGLE_ROUND", "DOUBLE_ROUND"])
            lines = ["  %s = tosa.rescale %s, %s, %s, %s, %s {input_unsigned = "
                     "false, output_unsigned = false, per_channel = %s, "
                     "rounding_mode = %s, scale32 = true} : (%s, %s, %s, %s, "
                     "%s) -> %s" % (
                         name, x.name, m, sh, izp, ozp,
                         "true" if per_channel else "false", mode, x.type,
                         tty([n], "i32"), tty([n], "i8"),
                         tty([1], x.dtype), tty([1], to),
                         tty(x.shape, to))]
            return self.emit("tosa_rescale_%s" % mode.lower(), lines,
                             Val(name, x.shape, to), [x])
        if kind == "matmul":
            dt = a.dtype if a.dtype in ("f32", "i8") and len(a.shape) == 3 \
                else r.choice(["f32", "f32", "i8"])
            if len(a.shape) == 3 and a.dtype == dt and numel(a.shape) <= 2048:
                x = a
            else:
                x = self.operand([r.choice([1, 1, 2]), r.choice(ODD),
                                  r.choice(ODD + [16])], dt, allow_const=False)
            nb, h, c = x.shape
            w = r.choice(ODD + [16])
            y = self.operand([nb, c, w], dt)
            acc = "f32" if dt == "f32" else "i32"
            zx = self.tconst([0 if dt == "f32" else r.choice([0, 0, 5])], dt)
            zy = self.tconst([0 if dt == "f32" else r.choice([0, -3])], dt)
            if dt == "f32":
                self.pending[-2:] = [l.replace("dense<0>", "dense<0.0>")
                                     for l in self.pending[-2:]]
            lines = ["  %s = tosa.matmul %s, %s, %s, %s : (%s, %s, %s, %s) -> %s"
                     % (name, x.name, y.name, zx, zy, x.type, y.type,
                        tty([1], dt), tty([1], dt), tty([nb, h, w], acc))]
            return self.emit("tosa_matmul_" + dt, lines,
                             Val(name, [nb, h, w], acc,
                                 x.bound * y.bound * c, acc == "i32"), [x, y])
        # Convolutions and pooling: NHWC.
        dt = a.dtype if a.dtype in ("f32", "i8") and len(a.shape) == 4 \
            else r.choice(["f32", "f32", "i8"])
        if kind in ("avg_pool", "max_pool") and dt == "i8" and r.random() < .5:
            dt = "f32"
        if len(a.shape) == 4 and a.dtype == dt and numel(a.shape) <= 2048:
            x = a
        else:
            x = self.operand([r.choice([1, 1, 2]), r.choice([5, 7, 8, 9, 11]),
                              r.choice([5, 6, 7, 9, 13]),
                              r.choice([1, 2, 3, 4, 8])], dt,
                             allow_const=False)
        nb, h, w, c = x.shape
        kh, kw = r.choice([1, 2, 3]), r.choice([1, 2, 3])
        sh, sw = r.choice([1, 1, 2, 3]), r.choice([1, 2])
        dh, dw = (r.choice([1, 1, 2]), r.choice([1, 1, 2])) \
            if kind in ("conv2d", "depthwise") else (1, 1)
        wy, wx = self.window(h, kh, dh, sh), self.window(w, kw, dw, sw)
        if wy is None or wx is None:
            return self.conv(a)
        (pt, pb, oh), (pl, pr, ow) = wy, wx
        if kind in ("avg_pool", "max_pool") and (kh == 1 or kw == 1):
            pt = pb = pl = pr = 0
            wy, wx = self.window(h, kh, 1, sh), self.window(w, kw, 1, sw)
            if wy is None or wx is None or wy[0] or wx[0]:
                return self.conv(a)
            oh, ow, pb, pr = wy[2], wx[2], wy[1], wx[1]
            if pb >= kh or pr >= kw:
                return self.conv(a)
        acc = "f32" if dt == "f32" else "i32"
        zero = "0.0" if dt == "f32" else "0"
        pad = "array<i64: %d, %d, %d, %d>" % (pt, pb, pl, pr)
        if kind == "max_pool":
            lines = ["  %s = tosa.max_pool2d %s {kernel = array<i64: %d, %d>, "
                     "pad = %s, stride = array<i64: %d, %d>} : (%s) -> %s" %
                     (name, x.name, kh, kw, pad, sh, sw, x.type,
                      tty([nb, oh, ow, c], dt))]
            return self.emit("tosa_max_pool_" + dt, lines,
                             Val(name, [nb, oh, ow, c], dt, x.bound, x.exact),
                             [x])
        if kind == "avg_pool":
            zp = self.tconst([zero], dt)
            lines = ["  %s = tosa.avg_pool2d %s, %s, %s {acc_type = %s, kernel ="
                     " array<i64: %d, %d>, pad = %s, stride = array<i64: %d, %d>}"
                     " : (%s, %s, %s) -> %s" %
                     (name, x.name, zp, zp, acc, kh, kw, pad, sh, sw, x.type,
                      tty([1], dt), tty([1], dt), tty([nb, oh, ow, c], dt))]
            return self.emit("tosa_avg_pool_" + dt, lines,
                             Val(name, [nb, oh, ow, c], dt, x.bound,
                                 dt != "f32"), [x])
        if kind == "conv2d":
            f = r.choice([1, 2, 3, 5, 8])
            wt = self.operand([f, kh, kw, c], dt)
            oc = f
            op = "tosa.conv2d"
        else:
            mdep = r.choice([1, 1, 2])
            wt = self.operand([kh, kw, c, mdep], dt)
            oc = c * mdep
            op = "tosa.depthwise_conv2d"
        bias = self.operand([oc], acc) if r.random() < 0.5 else \
            Val(self.tconst([0.0 if acc == "f32" else 0] , acc, [oc]), [oc],
                acc)
        izp = self.tconst([zero if dt == "f32" else r.choice([0, -128, 3])],
                          dt)
        wzp = self.tconst([zero if dt == "f32" else 0], dt)
        oshape = [nb, oh, ow, oc]
        lines = ["  %s = %s %s, %s, %s, %s, %s {acc_type = %s, dilation = "
                 "array<i64: %d, %d>, pad = %s, stride = array<i64: %d, %d>} : "
                 "(%s, %s, %s, %s, %s) -> %s" % (
                     name, op, x.name, wt.name, bias.name, izp, wzp, acc, dh,
                     dw, pad, sh, sw, x.type, wt.type, bias.type,
                     tty([1], dt), tty([1], dt), tty(oshape, acc))]
        uses = [x, wt] + ([bias] if bias.name.startswith("%arg") or
                          bias.name.startswith("%v") else [])
        return self.emit("tosa_%s_%s" % (kind, dt), lines,
                         Val(name, oshape, acc, x.bound * wt.bound * kh * kw *
                             c + bias.bound, acc == "i32"), uses)

    # -- driver ------------------------------------------------------------
    def step(self):
        r = self.rng
        a = self.pool[-1] if r.random() < 0.7 else r.choice(self.pool)
        if a.dtype in FLOATS and a.bound > (1e3 if a.dtype == "f32" else 50):
            return self.ew_unary_scale(a)
        if numel(a.shape) > 4096:
            return self.slice(a)
        table = [
            (self.ew_binary, 14), (self.ew_unary, 8), (self.compare_select, 4),
            (self.cast, 5), (self.reduce, 5), (self.tosa_reduce, 2),
            (self.matmul, 5), (self.conv, 4), (self.pad, 4),
            (self.concat, 4), (self.slice, 3), (self.expand, 3),
            (self.collapse, 3), (self.transpose, 4), (self.tosa_ew, 6),
            (self.tosa_structured, 8),
        ]
        if a.dtype == "i1":
            table = [(self.ew_binary, 3), (self.select_i1, 6),
                     (self.cast, 3), (self.pad, 1), (self.concat, 1),
                     (self.transpose, 1), (self.ew_unary, 1)]
        total = sum(w for _, w in table)
        pick = r.uniform(0, total)
        for fn, w in table:
            pick -= w
            if pick <= 0:
                return fn(a)
        return table[0][0](a)

    def program(self, nsteps):
        r = self.rng
        self.begin()
        # Seed values: one or two arguments.
        for _ in range(r.choice([1, 1, 2])):
            dt = r.choice(IO_TYPES)
            if r.random() < 0.15:
                dt = "bf16"
            if dt in EXCLUDED:
                dt = "f32"
            shape = self.rand_shape()
            if dt == "bf16":
                a = self.arg(shape, "f32")
                self.pool.append(self.cast_to(a, "bf16"))
            else:
                self.pool.append(self.arg(shape, dt))
        for _ in range(nsteps):
            self.begin()
            self.step()
        results = [self.pool[-1]]
        if r.random() < 0.3 and len(self.pool) > 2:
            extra = r.choice(self.pool[:-1])
            if extra.name.startswith("%v"):
                results.append(extra)
        self.prog.results = results
        return self.prog


EXCLUDED = set()


def generate(seed, index):
    rng = random.Random(seed * 1000003 + index)
    g = Gen(rng)
    prog = g.program(rng.randint(2, 7))
    return prog, g


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def verify(text, workdir):
    path = os.path.join(workdir, "prog.mlir")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([oracle.MLIR_OPT, path, "-o", os.devnull],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return path, (None if p.returncode == 0 else
                  p.stderr.decode(errors="replace"))


def input_options(rng, results):
    """Per-program options: sometimes full-range integer inputs; float
    results get the tolerance of the loosest rounding that reached them."""
    return {"full_range": rng.random() < 0.3, "tols": tolerances(results)}


def tolerances(results):
    return [oracle.DEFAULT_TOL[r.tol] if r.dtype in FLOATS else None
            for r in results]


def check_text(text, modes, seed, opts, workdir):
    path, err = verify(text, workdir)
    if err:
        raise oracle.OracleError("generated program does not verify: " +
                                 oracle.first_error(err))
    return path, oracle.check(path, None, None, modes, seed=seed,
                              full_range=opts["full_range"],
                              workdir=workdir,
                              output_tols=opts.get("tols"))


def failing(mr):
    return not mr.ok


def reduce_failure(prog, mode, seed, opts, workdir, signature):
    """The backward slice of the earliest value that still fails in `mode`
    the same way (same failure signature), as (text, result), or None."""
    candidates = [s.result for s in prog.steps] + list(prog.args)
    seen = set()
    for val in candidates:
        if val.name in seen or val.name.startswith("%arg"):
            continue
        seen.add(val.name)
        keep = prog.slice_for(val)
        text = prog.render([val], keep)
        opts = dict(opts, tols=tolerances([val]))
        sub = os.path.join(workdir, "reduce")
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        try:
            _, res = check_text(text, [mode], seed, opts, sub)
        except oracle.OracleError:
            continue
        if failing(res["modes"][0]) and \
                failure_class(res["modes"][0], []) == signature:
            return text, res
    return None


def save_failure(outdir, tag, text, res, mr, reduced, kinds):
    d = os.path.join(outdir, tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "prog.mlir"), "w") as f:
        f.write(text)
    inputs = []
    for i, t in enumerate(res["inputs"]):
        p = os.path.join(d, "in%d.npy" % i)
        oracle.write_npy(p, t)
        inputs.append(p)
    here = os.path.dirname(os.path.abspath(__file__))

    def verdict(m):
        return m.error or "; ".join("out%d %s" % (k, c.summary())
                                    for k, c in enumerate(m.comparisons))

    def oracle_command(prog, ins):
        return "  python3 %s %s %s --modes %s" % (
            os.path.join(here, "mlir_oracle.py"), prog,
            " ".join("--input @" + p for p in ins), mr.mode)

    lines = ["mode: %s (flags: %s)" % (mr.mode, " ".join(mr.flags) or "-"),
             "ops: " + " ".join(kinds),
             "verdict: " + verdict(mr),
             "",
             "oracle vs jitrun:",
             oracle_command(os.path.join(d, "prog.mlir"), inputs),
             "jitrun alone:",
             "  %s %s --function=main %s %s" % (
                 oracle.JITRUN, os.path.join(d, "prog.mlir"),
                 " ".join("--input=@" + p for p in inputs),
                 " ".join(mr.flags))]
    if reduced:
        rtext, rres = reduced
        with open(os.path.join(d, "reduced.mlir"), "w") as f:
            f.write(rtext)
        rin = []
        for i, t in enumerate(rres["inputs"]):
            p = os.path.join(d, "reduced_in%d.npy" % i)
            oracle.write_npy(p, t)
            rin.append(p)
        lines += ["", "reduced (reduced.mlir): " + verdict(rres["modes"][0]),
                  oracle_command(os.path.join(d, "reduced.mlir"), rin)]
    with open(os.path.join(d, "README.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return d


def failure_class(mr, kinds):
    """A coarse signature to group failures: the error text without
    numbers and paths, or 'mismatch' and the element types involved."""
    if mr.error:
        return re.sub(r"0x[0-9a-f]+|/\S+|\d+", "#", mr.error)[:120]
    types = sorted(set(t for k in kinds for t in ("bf16", "f16", "i8")
                       if k.endswith(t) or ("_%s_" % t) in k))
    return "mismatch (%s)" % (",".join(types) or "f32/i32")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Differential fuzzer: jitrun vs upstream MLIR loops.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--start", type=int, default=0,
                    help="index of the first program")
    ap.add_argument("--modes", default=DEFAULT_MODES)
    ap.add_argument("--out", default="/tmp/fuzz_diff_failures")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--exclude-types", default="",
                    help="comma list of f16,bf16 never to generate (e.g. "
                         "to look past a known bf16 bug)")
    ap.add_argument("--show", nargs=2, type=int, metavar=("SEED", "INDEX"))
    ap.add_argument("--verify-only", action="store_true",
                    help="only generate and verify programs (generator test)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    EXCLUDED.update(t for t in args.exclude_types.split(",") if t)
    if args.show:
        prog, g = generate(*args.show)
        sys.stdout.write(prog.render())
        print("// ops: " + " ".join(g.kinds))
        return 0
    if args.count is None and args.seconds is None:
        args.count = 20
    if args.verify_only:
        workdir = tempfile.mkdtemp(prefix="fuzz_diff_")
        bad = 0
        for i in range(args.start, args.start + args.count):
            prog, g = generate(args.seed, i)
            _, err = verify(prog.render(), workdir)
            if err:
                bad += 1
                print("[%d] %s (%s)" % (i, oracle.first_error(err),
                                        " ".join(g.kinds)))
        shutil.rmtree(workdir, ignore_errors=True)
        print("%d of %d programs do not verify" % (bad, args.count))
        return 1 if bad else 0
    modes = oracle.parse_modes(args.modes, [])
    os.makedirs(args.out, exist_ok=True)
    deadline = time.time() + args.seconds if args.seconds else None
    stats = {"programs": 0, "invalid": 0, "skipped": 0, "runs": 0,
             "passed": 0, "failed": 0, "failing_programs": 0}
    classes = {}
    t0 = time.time()
    index = args.start
    while True:
        if args.count is not None and index - args.start >= args.count:
            break
        if deadline and time.time() >= deadline:
            break
        prog, g = generate(args.seed, index)
        text = prog.render()
        pseed = args.seed * 1000003 + index
        opts = input_options(random.Random(pseed ^ 0x5EED), prog.results)
        workdir = tempfile.mkdtemp(prefix="fuzz_diff_")
        stats["programs"] += 1
        tp = time.time()
        try:
            path, res = check_text(text, modes, pseed, opts, workdir)
        except oracle.OracleError as e:
            msg = str(e)
            key = "invalid" if "does not verify" in msg else "skipped"
            stats[key] += 1
            print("[%d] %s: %s" % (index, key.upper(), msg[:300]))
            if key == "invalid" and args.verbose:
                print(text)
            shutil.rmtree(workdir, ignore_errors=True)
            index += 1
            continue
        bad = [mr for mr in res["modes"] if failing(mr)]
        stats["runs"] += len(res["modes"])
        stats["failed"] += len(bad)
        stats["passed"] += len(res["modes"]) - len(bad)
        if bad:
            stats["failing_programs"] += 1
        status = "ok" if not bad else "FAIL in " + ",".join(
            mr.mode for mr in bad)
        print("[%d] %s (%s) %.1fs" % (index, status, " ".join(g.kinds),
                                      time.time() - tp))
        reductions = {}  # failure signature -> reduced program
        for mr in bad:
            sig = failure_class(mr, [])
            if sig not in reductions and not args.no_reduce:
                reductions[sig] = reduce_failure(
                    prog, (mr.mode, mr.flags), pseed, opts, workdir, sig)
            reduced = reductions.get(sig)
            tag = "%d_%d_%s" % (args.seed, index, mr.mode)
            d = save_failure(args.out, tag, text, res, mr, reduced or None,
                             g.kinds)
            classes.setdefault(failure_class(mr, g.kinds), []).append(
                (mr.mode, d))
            print("    %s: %s -> %s" % (mr.mode, mr.error[:200] or "; ".join(
                "out%d %s" % (k, c.summary())
                for k, c in enumerate(mr.comparisons) if not c.ok)[:300], d))
        sys.stdout.flush()
        shutil.rmtree(workdir, ignore_errors=True)
        index += 1
    el = time.time() - t0
    print("programs generated: %d (invalid %d, oracle skipped %d), %.1fs, "
          "%.2fs/program" % (stats["programs"], stats["invalid"],
                            stats["skipped"], el,
                            el / max(1, stats["programs"])))
    print("runs: %d over modes %s; failing programs: %d; failures: %d"
          % (stats["runs"], ",".join(m for m, _ in modes),
             stats["failing_programs"], stats["failed"]))
    for why, runs in sorted(classes.items()):
        modes_seen = sorted(set(m for m, _ in runs))
        print("  %s: %d runs in %s (e.g. %s)" % (why, len(runs),
                                                ",".join(modes_seen),
                                                runs[0][1]))
    print("%d passed, %d failed" % (stats["passed"], stats["failed"]))
    return 1 if stats["failed"] or stats["invalid"] else 0


if __name__ == "__main__":
    sys.exit(main())
