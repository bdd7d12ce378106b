#!/usr/bin/env python3
"""An oracle for jitrun that shares nothing with it: upstream MLIR's own
lowering to loops, run by `mlir-runner`.

Given a model (.mlir text or .mlirbc bytecode) and an entry function, the
oracle

  1. writes a wrapper module: the model's functions plus `@oracle_main`, which
     materialises every input as an `arith.constant dense<"0xHEX">` (booleans
     as a literal list), calls the entry, and prints every result with
     `printMemrefI32`/`printMemrefI64` as raw bits (floats are bitcast to
     integers first, so nothing is lost to decimal printing);
  2. lowers it with upstream passes only (TOSA -> linalg -> one-shot
     bufferization -> `convert-linalg-to-loops` -> LLVM, math via libm) and
     runs it with `mlir-runner`;
  3. runs `jitrun` on the same inputs (.npy files in a temporary directory) in
     one or more modes, and compares: exact for integers and booleans, a
     tolerance for floats (|got - ref| <= atol * max|ref| + rtol * |ref|, NaN
     equals NaN), reporting the largest absolute error of every output.

Usage:
  python3 scripts/mlir_oracle.py MODEL [MODEL...] [--function F | --all-functions]
      [--input @x.npy | --input 3x4xf32 ...] [--seed N] [--full-range]
      [--specials] [--range=LO,HI] [--int-range=LO,HI]
      [--jitrun-flag=--fusion=aggressive ...]
      [--modes default,aggressive,none,t1,t2,avx2,reference | --modes all]
      [--rtol R] [--atol A] [--keep DIR] [-v]

  e.g. python3 scripts/mlir_oracle.py build/zoo/*.mlirbc --modes all

One verdict line per model, function and mode (PASS/FAIL, with the largest
absolute and relative error of every output, the first bad element, and the
oracle's and jitrun's wall time); exit status 0 when everything matches, 1 on
a mismatch or a jitrun failure, 2 when the oracle cannot handle a model. The
inputs and wrapper of a failing model are kept (the path is printed).

Inputs: without --input, inputs are generated from --seed: floats uniform in
[-1, 1) (or --range), integers in a small range (i8: [-8, 8], wider types
[-100, 100], or --int-range); --full-range spans an integer type's whole
range; --specials sets about 1% of the float input elements to NaN, +-Inf,
-0.0 or a denormal. `--input 3x4xf32` is seeded data of that shape (dynamic arguments).

Tolerances (per element type, overridable): f32 rtol 1e-4, atol 1e-5 (atol
is relative to the output's largest magnitude), f16 1e-2/2e-3, bf16
3e-2/1e-2, integers and booleans exact. Programs with undefined behaviour
for some inputs (out-of-range gathers) differ legitimately: narrow the
inputs with --int-range.

What it shares with jitrun: the MLIR parser and, for TOSA models, upstream's
TOSA-to-linalg conversion (jitrun imports TOSA with the same passes); from
linalg on, nothing.

bf16 tensors have no .npy dtype: bf16 inputs are passed to jitrun as a
literal list, bf16 results are read from jitrun's printed results (%g
printing is exact for bf16).

As a library (used by scripts/fuzz_diff.py):
  r = check(path, function=None, inputs=None, modes=[("default", [])])
  r["oracle"]                     # the oracle's results (Tensor)
  for mr in r["modes"]: mr.ok, mr.error, mr.comparisons (Comparison)
  Lower level: load_model, make_inputs, run_oracle, run_jitrun, compare,
  read_npy / write_npy (NumPy-free .npy I/O).
"""

import argparse
import ast
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

LLVM_BIN = os.environ.get("MLIR_ORACLE_LLVM_BIN", "/usr/lib/llvm-22/bin")
LLVM_LIB = os.environ.get("MLIR_ORACLE_LLVM_LIB", "/usr/lib/llvm-22/lib")
MLIR_OPT = os.path.join(LLVM_BIN, "mlir-opt")
MLIR_RUNNER = os.path.join(LLVM_BIN, "mlir-runner")
RUNNER_LIBS = [os.path.join(LLVM_LIB, "libmlir_runner_utils.so"),
               os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so")]
HERE = os.path.dirname(os.path.abspath(__file__))
JITRUN = os.environ.get(
    "JITRUN", os.path.join(os.path.dirname(HERE), "build", "tools", "jitrun"))

# Upstream-only lowering. Functions the entry does not reach are dropped
# first (a file may hold other functions the lowering cannot handle). TOSA first (named ops, then the rest, then the
# tensor/arith leftovers), elementwise arith on tensors (the wrapper's
# bitcasts) to linalg, bufferize across function boundaries with identity
# layouts, linalg to plain loops, then everything to LLVM. Math ops that
# LLVM has no intrinsic for (tanh, erf, ...) become libm calls; f16/bf16 math
# is computed in f32 first.
PIPELINE = ",".join([
    "builtin.module(symbol-privatize{exclude=oracle_main,%(entry)s}",
    "symbol-dce",
    "func.func(tosa-to-scf",
    "tosa-to-linalg-named",
    "tosa-to-linalg",
    "tosa-to-arith{include-apply-rescale=true}",
    "tosa-to-tensor)",
    "convert-elementwise-to-linalg",
    "one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map "
    "unknown-type-conversion=identity-layout-map}",
    "func.func(convert-linalg-to-loops)",
    "func.func(math-extend-to-supported-types{target-type=f32})",
    "func.func(arith-expand{include-bf16=true})",
    "convert-math-to-funcs",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "lower-affine",
    "finalize-memref-to-llvm",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-ub-to-llvm",
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts)",
])

MODES = {
    "default": [],
    "aggressive": ["--fusion=aggressive"],
    "none": ["--fusion=none"],
    "t1": ["--threads=1"],
    "t2": ["--threads=2"],
    "avx2": ["--force-avx2"],
    "reference": ["--reference"],
}

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


class OracleError(Exception):
    """The oracle could not handle the model (not a verdict about jitrun)."""


class JitrunError(Exception):
    """jitrun failed: crashed, timed out, or reported an error."""


# --------------------------------------------------------------------------
# Tensors, types, .npy
# --------------------------------------------------------------------------

class Tensor:
    """A host tensor: element type name ('f32', 'i8', 'i1', ...), shape (a
    tuple of ints) and a flat row-major list of Python floats or ints."""

    def __init__(self, dtype, shape, values):
        self.dtype = dtype
        self.shape = tuple(shape)
        self.values = list(values)
        if len(self.values) != numel(self.shape):
            raise ValueError("%s %s: %d values" % (dtype, self.shape,
                                                   len(self.values)))

    def type_str(self):
        return "tensor<%s>" % "x".join([str(d) for d in self.shape] +
                                       [self.dtype])

    def __repr__(self):
        return "Tensor(%s, %s)" % (self.type_str(), self.values[:8])


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def parse_tensor_type(text):
    """'tensor<2x?x3xf32>' -> ([2, None, 3], 'f32'). Raises OracleError for
    anything that is not a ranked tensor of a supported element type."""
    m = re.fullmatch(r"\s*tensor<([^<>,]*?)>\s*", text)
    if not m:
        raise OracleError("unsupported argument/result type '%s'" % text.strip())
    parts = m.group(1).split("x")
    dtype = parts[-1]
    if dtype not in FLOAT_TYPES and dtype not in INT_BITS:
        raise OracleError("unsupported element type '%s'" % dtype)
    shape = [None if p == "?" else int(p) for p in parts[:-1]]
    return shape, dtype


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def round_bf16_bits(x):
    """Round a Python float to bf16 (round to nearest even), return bits."""
    b = f32_bits(to_f32(x))
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF):
        return ((b >> 16) | 0x40) & 0xFFFF  # quiet NaN
    b += 0x7FFF + ((b >> 16) & 1)
    return (b >> 16) & 0xFFFF


def to_f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def to_f16(x):
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def round_to(dtype, x):
    """Round a Python number to a value representable in dtype."""
    if dtype == "f32":
        return to_f32(x)
    if dtype == "f16":
        return to_f16(x)
    if dtype == "bf16":
        return bits_f32(round_bf16_bits(x) << 16)
    if dtype == "f64":
        return float(x)
    bits = INT_BITS[dtype]
    if bits == 1:
        return int(x) & 1
    x = int(x) & ((1 << bits) - 1)
    return x - (1 << bits) if x >> (bits - 1) else x


NPY_DESCR = {"f32": "<f4", "f64": "<f8", "f16": "<f2", "i1": "|b1",
             "i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8"}
STRUCT_CODE = {"f32": "f", "f64": "d", "f16": "e", "i1": "B", "i8": "b",
               "i16": "h", "i32": "i", "i64": "q"}
DESCR_DTYPE = {"f4": "f32", "f8": "f64", "f2": "f16", "b1": "i1", "i1": "i8",
               "i2": "i16", "i4": "i32", "i8": "i64", "u1": "ui8"}


def pack_values(dtype, values):
    """Little-endian raw bytes of a flat list of values."""
    if dtype == "bf16":
        return struct.pack("<%dH" % len(values),
                           *[round_bf16_bits(v) for v in values])
    if dtype == "i1":
        return bytes(1 if v else 0 for v in values)
    return struct.pack("<%d%s" % (len(values), STRUCT_CODE[dtype]), *values)


def write_npy(path, t):
    if t.dtype not in NPY_DESCR:
        raise OracleError("no .npy dtype for %s" % t.dtype)
    shape = "(%s,)" % t.shape[0] if len(t.shape) == 1 else \
        "(%s)" % ", ".join(str(d) for d in t.shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        NPY_DESCR[t.dtype], shape)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(pack_values(t.dtype, t.values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise OracleError("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    descr = header["descr"]
    if header.get("fortran_order"):
        raise OracleError("%s: fortran order is not supported" % path)
    if descr[0] == ">" or descr[1:] not in DESCR_DTYPE:
        raise OracleError("%s: unsupported dtype %s" % (path, descr))
    dtype = DESCR_DTYPE[descr[1:]]
    shape = tuple(header["shape"])
    n = numel(shape)
    body = data[start + hlen:]
    if dtype == "ui8":
        raise OracleError("%s: unsigned dtypes are not supported" % path)
    if dtype == "i1":
        values = [1 if b else 0 for b in body[:n]]
    else:
        values = list(struct.unpack("<%d%s" % (n, STRUCT_CODE[dtype]),
                                    body[:n * struct.calcsize(
                                        STRUCT_CODE[dtype])]))
    return Tensor(dtype, shape, values)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def make_inputs(arg_types, seed=0, full_range=False, specials=False,
                float_range=(-1.0, 1.0), int_range=None):
    """Seeded inputs for a list of (shape, dtype). Dynamic dims become 3."""
    rng = random.Random(seed)
    out = []
    for shape, dtype in arg_types:
        shape = [3 if d is None else d for d in shape]
        n = numel(shape)
        if dtype in FLOAT_TYPES:
            lo, hi = float_range
            vals = [round_to(dtype, rng.uniform(lo, hi)) for _ in range(n)]
            if specials:
                tiny = {"f32": 1e-40, "f64": 1e-310, "f16": 3e-6,
                        "bf16": 1e-40}[dtype]
                pool = [math.nan, math.inf, -math.inf, -0.0, tiny, -tiny]
                # About 1% of the elements (at least one): a NaN spreads
                # through every reduction, so more leaves nothing to see.
                for i in rng.sample(range(n), max(1, n // 100)) if n else []:
                    vals[i] = round_to(dtype, rng.choice(pool))
        elif dtype == "i1":
            vals = [rng.randint(0, 1) for _ in range(n)]
        else:
            bits = INT_BITS[dtype]
            if full_range:
                lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            elif int_range:
                lo, hi = int_range
            else:
                lo, hi = (-8, 8) if bits <= 8 else (-100, 100)
            vals = [rng.randint(lo, hi) for _ in range(n)]
            if full_range and n >= 2:
                vals[0], vals[-1] = lo, hi
        out.append(Tensor(dtype, shape, vals))
    return out


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

class Function:
    def __init__(self, name, public, arg_types, result_types, sym=None):
        self.name = name            # unescaped, as jitrun --function takes it
        self.sym = sym or name      # as written in MLIR (maybe quoted)
        self.public = public
        self.arg_types = arg_types        # list of type strings
        self.result_types = result_types  # list of type strings


class Model:
    """A model as text: `body` is the module without its closing brace and
    `trailer` the brace plus any `{-# dialect_resources #-}` section."""

    def __init__(self, text, path=None):
        self.path = path
        self.text = text
        self.functions = parse_functions(text)

    def entry(self, name=None):
        if name:
            name = name.lstrip("@")
            for f in self.functions:
                if f.name == name:
                    return f
            raise OracleError("no function @%s" % name)
        public = [f for f in self.functions if f.public]
        if len(public) == 1:
            return public[0]
        for f in self.functions:
            if f.name == "main":
                return f
        raise OracleError("no entry: several public functions and no @main")


def load_model(path=None, text=None):
    """Parse and print the model with mlir-opt (also converts bytecode), so
    the text is normalised: one `module` op, custom syntax."""
    cmd = [MLIR_OPT, "--mlir-print-debuginfo=false"]
    if path:
        cmd.append(path)
    p = subprocess.run(cmd, input=None if path else text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise OracleError("mlir-opt cannot parse the model: " +
                          first_error(p.stderr))
    return Model(p.stdout.decode(), path)


def first_error(stderr):
    """The most telling line of a tool's stderr (LLVM fatal errors and
    'error:' diagnostics before stack-dump lines that mention errors)."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) \
        else stderr
    lines = [l.strip() for l in text.splitlines()]
    for test in (lambda l: l.startswith("LLVM ERROR"),
                 lambda l: "error:" in l and not l.startswith("#"),
                 lambda l: "error" in l.lower() and not l.startswith("#")):
        for line in lines:
            if test(line):
                return line[:400]
    return text.strip()[:400]


def _scan(text, start=0):
    """(index, char, depth) of each character of `text` from `start` that
    is outside string literals; depth counts (), <>, [], {} (`->` is no
    bracket) and is the depth after the character."""
    depth, i, instr = 0, start, False
    while i < len(text):
        c = text[i]
        if instr:
            if c == "\\":
                i += 2
                continue
            instr = c != '"'
            i += 1
            continue
        if c == '"':
            instr = True
        elif text.startswith("->", i):
            i += 2
            continue
        elif c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        yield i, c, depth
        i += 1


def split_top(text, sep=","):
    """Split at `sep` outside (), <>, [], {} and string literals."""
    cuts = [i for i, c, depth in _scan(text) if c == sep and depth == 0]
    parts = [text[a + 1:b] for a, b in zip([-1] + cuts, cuts + [len(text)])]
    if parts and not parts[-1].strip():
        parts.pop()
    return parts


def balanced(text, start):
    """Index just past the bracket group opening at text[start]."""
    for i, c, depth in _scan(text, start):
        if c in ")>]}" and depth == 0:
            return i + 1
    raise OracleError("unbalanced brackets in a function signature")


def strip_attrs(t):
    t = t.strip()
    # `%arg0: tensor<..> {attr}` or a result `tensor<..> {attr}`.
    if t.endswith("}"):
        depth = 0
        for i in range(len(t) - 1, -1, -1):
            if t[i] == "}":
                depth += 1
            elif t[i] == "{":
                depth -= 1
                if depth == 0:
                    t = t[:i].strip()
                    break
    if t.startswith("%"):
        t = t.split(":", 1)[1].strip()
    return t


def unescape_symbol(sym):
    """'"a\\22b"' -> 'a"b' (MLIR string escapes: \\XX hex, \\\\)."""
    if not sym.startswith('"'):
        return sym
    body, out, i = sym[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1:i + 3]
            if re.fullmatch(r"[0-9a-fA-F]{2}", nxt):
                out.append(chr(int(nxt, 16)))
                i += 3
                continue
            out.append(body[i + 1])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def parse_functions(text):
    funcs = []
    for m in re.finditer(r"^\s*func\.func\s+(public\s+|private\s+|nested\s+)?"
                         r"@([\w$.-]+|\"[^\"]+\")\s*\(", text, re.M):
        vis = (m.group(1) or "").strip()
        sym = m.group(2)
        name = unescape_symbol(sym)
        open_paren = m.end() - 1
        close = balanced(text, open_paren)
        args = [strip_attrs(a) for a in split_top(text[open_paren + 1:close - 1])]
        rest = text[close:close + 200000]
        results = []
        mr = re.match(r"\s*->\s*", rest)
        if mr:
            r = rest[mr.end():]
            if r.startswith("("):
                end = balanced(r, 0)
                results = [strip_attrs(x) for x in split_top(r[1:end - 1])]
            else:
                # A single result type up to the body or the attributes.
                m2 = re.match(r"([^\s{]+(?:<[^{]*?>)?)", r)
                results = [m2.group(1)] if m2 else []
                if results and results[0].count("<") != results[0].count(">"):
                    end = balanced(r, r.index("<"))
                    results = [r[:end]]
        funcs.append(Function(name, vis != "private", args, results, sym))
    return funcs


# --------------------------------------------------------------------------
# The wrapper module
# --------------------------------------------------------------------------

def nested_literal(values, shape, fmt):
    if not shape:
        return fmt(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(fmt(v) for v in values) + "]"
    step = numel(shape[1:])
    return "[" + ", ".join(nested_literal(values[i * step:(i + 1) * step],
                                          shape[1:], fmt)
                           for i in range(shape[0])) + "]"


def constant_for(t):
    ty = t.type_str()
    if t.dtype == "i1":
        lit = nested_literal(t.values, list(t.shape),
                             lambda v: "true" if v else "false")
        return "arith.constant dense<%s> : %s" % (lit, ty)
    if numel(t.shape) == 0:
        return "arith.constant dense<> : %s" % ty
    return 'arith.constant dense<"0x%s"> : %s' % (
        pack_values(t.dtype, t.values).hex().upper(), ty)


def wrapper_module(model, entry, inputs):
    """The model text with @oracle_main (and print declarations) added."""
    text = model.text
    trailer_at = text.find("\n{-#")
    resources = ""
    if trailer_at >= 0:
        resources = text[trailer_at:]
        text = text[:trailer_at]
    body = text.rstrip()
    if not body.endswith("}"):
        raise OracleError("unexpected module text")
    body = body[:-1]
    lines = []
    decls = []
    for name, ety in (("printMemrefI32", "i32"), ("printMemrefI64", "i64")):
        if not re.search(r"func\.func\s+(private\s+)?@%s\b" % name, body):
            decls.append("  func.func private @%s(memref<*x%s>) attributes "
                         "{llvm.emit_c_interface}" % (name, ety))
    lines += decls
    lines.append("  func.func @oracle_main() {")
    args = []
    for i, (t, want) in enumerate(zip(inputs, entry.arg_types)):
        lines.append("    %%in%d = %s" % (i, constant_for(t)))
        if t.type_str() != want:
            lines.append("    %%inc%d = tensor.cast %%in%d : %s to %s" %
                         (i, i, t.type_str(), want))
            args.append("%%inc%d" % i)
        else:
            args.append("%%in%d" % i)
    sig = "(%s) -> (%s)" % (", ".join(entry.arg_types),
                            ", ".join(entry.result_types))
    nres = len(entry.result_types)
    res = "%r" if nres == 1 else "%%r:%d" % nres if nres else ""
    lines.append("    %scall @%s(%s) : %s" % (res + " = " if res else "",
                                              entry.sym, ", ".join(args), sig))
    for k, rt in enumerate(entry.result_types):
        shape, dtype = parse_tensor_type(rt)
        r = "%r" if nres == 1 else "%%r#%d" % k
        dims = "x".join("?" if d is None else str(d) for d in shape)
        def ty(e):
            return "tensor<%s>" % "x".join(([dims] if shape else []) + [e])
        def mty(e):
            return "memref<%s>" % "x".join(([dims] if shape else []) + [e])
        v = r
        if dtype == "f32":
            lines.append("    %%b%d = arith.bitcast %s : %s to %s" %
                         (k, v, rt, ty("i32")))
            v, width = "%%b%d" % k, "i32"
        elif dtype in ("f16", "bf16"):
            lines.append("    %%b%d = arith.bitcast %s : %s to %s" %
                         (k, v, rt, ty("i16")))
            lines.append("    %%e%d = arith.extui %%b%d : %s to %s" %
                         (k, k, ty("i16"), ty("i32")))
            v, width = "%%e%d" % k, "i32"
        elif dtype == "f64":
            lines.append("    %%b%d = arith.bitcast %s : %s to %s" %
                         (k, v, rt, ty("i64")))
            v, width = "%%b%d" % k, "i64"
        elif dtype == "i1":
            lines.append("    %%e%d = arith.extui %s : %s to %s" %
                         (k, v, rt, ty("i32")))
            v, width = "%%e%d" % k, "i32"
        elif dtype in ("i8", "i16"):
            lines.append("    %%e%d = arith.extsi %s : %s to %s" %
                         (k, v, rt, ty("i32")))
            v, width = "%%e%d" % k, "i32"
        else:
            width = dtype
        lines.append("    %%m%d = bufferization.to_buffer %s : %s to %s" %
                     (k, v, ty(width), mty(width)))
        lines.append("    %%u%d = memref.cast %%m%d : %s to memref<*x%s>" %
                     (k, k, mty(width), width))
        lines.append("    call @printMemref%s(%%u%d) : (memref<*x%s>) -> ()" %
                     (width.upper(), k, width))
    lines.append("    return")
    lines.append("  }")
    return body + "\n".join(lines) + "\n}" + resources


def parse_printed(stdout, result_types):
    """Parse printMemref output back into Tensors of the result types."""
    chunks = stdout.split("Unranked Memref")[1:]
    if len(chunks) != len(result_types):
        raise OracleError("mlir-runner printed %d results, expected %d" %
                          (len(chunks), len(result_types)))
    out = []
    for chunk, rt in zip(chunks, result_types):
        _, dtype = parse_tensor_type(rt)
        m = re.search(r"sizes = \[([^\]]*)\]", chunk)
        shape = [int(x) for x in m.group(1).split(",")] if m and \
            m.group(1).strip() else []
        data = chunk.split("data =", 1)[1]
        ints = [int(x) for x in re.findall(r"-?\d+", data)]
        if dtype == "f32":
            vals = [bits_f32(b) for b in ints]
        elif dtype == "f16":
            vals = [struct.unpack("<e", struct.pack("<H", b & 0xFFFF))[0]
                    for b in ints]
        elif dtype == "bf16":
            vals = [bits_f32((b & 0xFFFF) << 16) for b in ints]
        elif dtype == "f64":
            vals = [struct.unpack("<d", struct.pack("<q", b))[0] for b in ints]
        else:
            vals = ints
        out.append(Tensor(dtype, shape, vals))
    return out


def run_oracle(model, entry, inputs, workdir, timeout=900, opt_level="-O1"):
    """Lower the wrapper with upstream passes and run it. Returns
    (results, seconds)."""
    t0 = time.time()
    src = os.path.join(workdir, "oracle.mlir")
    low = os.path.join(workdir, "oracle.llvm.mlir")
    with open(src, "w") as f:
        f.write(wrapper_module(model, entry, inputs))
    pipeline = PIPELINE % {"entry": entry.name}
    if not re.fullmatch(r"[\w$.-]+", entry.name):
        # A name the option parser cannot take: keep every function.
        pipeline = pipeline.replace(
            "symbol-privatize{exclude=oracle_main,%s}," % entry.name, "")
        pipeline = pipeline.replace("symbol-dce,", "")
    p = subprocess.run([MLIR_OPT, src, "--pass-pipeline=" + pipeline,
                        "-o", low], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    if p.returncode != 0:
        raise OracleError("lowering failed: " + first_error(p.stderr))
    # math-extend-to-supported-types leaves `fastmath = #arith.fastmath<..>`
    # on the llvm.fpext/fptrunc it creates, which mlir-runner (no arith
    # dialect) cannot parse; on a conversion the flag means nothing.
    with open(low) as f:
        lowered = f.read()
    if "#arith.fastmath" in lowered:
        lowered = re.sub(r" \{fastmath = #arith\.fastmath<[a-z, ]*>\}", "",
                         lowered)
        with open(low, "w") as f:
            f.write(lowered)
    try:
        p = subprocess.run([MLIR_RUNNER, low, "-e", "oracle_main",
                            "-entry-point-result=void", opt_level,
                            "-shared-libs=" + ",".join(RUNNER_LIBS)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise OracleError("mlir-runner timed out after %ds" % timeout)
    if p.returncode != 0:
        raise OracleError("mlir-runner failed (%d): %s" %
                          (p.returncode, first_error(p.stderr)))
    return parse_printed(p.stdout.decode(), entry.result_types), \
        time.time() - t0


# --------------------------------------------------------------------------
# jitrun
# --------------------------------------------------------------------------

def literal_spec(t):
    def fmt(v):
        if isinstance(v, float):
            if math.isnan(v):
                return "nan"
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            return repr(v)
        return str(v)
    dims = "x".join([str(d) for d in t.shape] + [t.dtype])
    return "%s=%s" % (dims, ",".join(fmt(v) for v in t.values))


def parse_jitrun_printed(stdout, index, dtype):
    m = re.search(r"^result\[%d\]: ([^=]*)=(.*)$" % index, stdout, re.M)
    if not m:
        raise JitrunError("jitrun printed no result[%d]" % index)
    tokens = re.findall(r"[^\s\[\]]+", m.group(2))
    vals = [round_to(dtype, float(t)) for t in tokens]
    dims = m.group(1).split("x")[:-1]
    return Tensor(dtype, [int(d) for d in dims], vals)


def jitrun_command(model_path, entry_name, input_args, flags, outputs):
    return [JITRUN, model_path, "--function=" + entry_name] + \
        ["--input=" + a for a in input_args] + \
        ["--output=@" + o for o in outputs] + list(flags)


def prepare_inputs(inputs, workdir):
    args = []
    for i, t in enumerate(inputs):
        if t.dtype == "bf16":
            args.append(literal_spec(t))
        else:
            path = os.path.join(workdir, "in%d.npy" % i)
            write_npy(path, t)
            args.append("@" + path)
    return args


def run_jitrun(model_path, entry, input_args, flags, workdir, tag="",
               timeout=300):
    """Run jitrun; returns (results, seconds, command)."""
    rtypes = [parse_tensor_type(t)[1] for t in entry.result_types]
    # --output flags cover the results in order; bf16 ones cannot be
    # written as .npy, so results from the first bf16 one on are printed.
    nout = len(rtypes)
    if "bf16" in rtypes:
        nout = rtypes.index("bf16")
        if any(d != "bf16" for d in rtypes[nout:]):
            raise OracleError("a bf16 result before a non-bf16 one: jitrun "
                              "cannot write it and --output is positional")
    outs = [os.path.join(workdir, "out%s_%d.npy" % (tag, k))
            for k in range(nout)]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)
    cmd = jitrun_command(model_path, entry.name, input_args, flags, outs)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise JitrunError("timed out after %ds" % timeout)
    except OSError as e:  # e.g. the binary is being relinked
        raise JitrunError("cannot start jitrun: %s" % e)
    secs = time.time() - t0
    if p.returncode != 0:
        how = "signal %d" % -p.returncode if p.returncode < 0 else \
            "exit %d" % p.returncode
        raise JitrunError("%s: %s" % (how, first_error(p.stderr) or
                                      p.stderr.decode()[-300:]))
    results = []
    stdout = p.stdout.decode(errors="replace")
    for k, dtype in enumerate(rtypes):
        if k < nout:
            results.append(read_npy(outs[k]))
        else:
            results.append(parse_jitrun_printed(stdout, k, dtype))
    return results, secs, cmd


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

DEFAULT_TOL = {"f32": (1e-4, 1e-5), "f64": (1e-9, 1e-10),
               "f16": (1e-2, 2e-3), "bf16": (3e-2, 1e-2)}


class Comparison:
    def __init__(self, ok, max_abs, max_rel, bad, first_bad, why=""):
        self.ok = ok
        self.max_abs = max_abs
        self.max_rel = max_rel
        self.bad = bad              # number of mismatching elements
        self.first_bad = first_bad  # (index, ref, got) or None
        self.why = why

    def summary(self):
        if self.why:
            return self.why
        s = "max_abs=%.3g max_rel=%.3g" % (self.max_abs, self.max_rel)
        if self.bad:
            i, r, g = self.first_bad
            s += " bad=%d first at %s: ref=%r got=%r" % (self.bad, i, r, g)
        return s


def unflatten(index, shape):
    idx = []
    for d in reversed(shape):
        idx.append(index % d if d else 0)
        index = index // d if d else 0
    return list(reversed(idx))


def compare(ref, got, rtol=None, atol=None):
    """|got - ref| <= atol * max|ref| + rtol * |ref| for floats (NaN matches
    NaN, infinities must match exactly); exact for integers."""
    if tuple(ref.shape) != tuple(got.shape):
        return Comparison(False, math.inf, math.inf, -1, None,
                          "shape %s != oracle %s" % (list(got.shape),
                                                     list(ref.shape)))
    if ref.dtype != got.dtype:
        return Comparison(False, math.inf, math.inf, -1, None,
                          "type %s != oracle %s" % (got.dtype, ref.dtype))
    isf = ref.dtype in FLOAT_TYPES
    drt, dat = DEFAULT_TOL.get(ref.dtype, (0.0, 0.0))
    rtol = drt if rtol is None else rtol
    atol = dat if atol is None else atol
    scale = 0.0
    if isf:
        finite = [abs(v) for v in ref.values if math.isfinite(v)]
        scale = max(finite) if finite else 0.0
    max_abs = max_rel = 0.0
    bad, first = 0, None
    for i, (r, g) in enumerate(zip(ref.values, got.values)):
        if isf:
            if math.isnan(r) or math.isnan(g):
                ok = math.isnan(r) and math.isnan(g)
                err = 0.0 if ok else math.inf
            elif math.isinf(r) or math.isinf(g):
                ok = r == g
                err = 0.0 if ok else math.inf
            else:
                err = abs(g - r)
                ok = err <= atol * scale + rtol * abs(r) or err == 0.0
            rel = err / abs(r) if r and math.isfinite(r) else (
                0.0 if err == 0 else math.inf)
        else:
            err = abs(g - r)
            ok = err == 0
            rel = err / abs(r) if r else (0.0 if err == 0 else math.inf)
        max_abs = max(max_abs, err)
        max_rel = max(max_rel, rel) if err else max_rel
        if not ok:
            bad += 1
            if first is None:
                first = (unflatten(i, ref.shape), r, g)
    return Comparison(bad == 0, max_abs, max_rel, bad, first)


# --------------------------------------------------------------------------
# One model, several modes
# --------------------------------------------------------------------------

class ModeResult:
    def __init__(self, mode, flags):
        self.mode = mode
        self.flags = flags
        self.comparisons = []
        self.error = ""     # jitrun failure
        self.seconds = 0.0
        self.command = []

    @property
    def ok(self):
        return not self.error and all(c.ok for c in self.comparisons)


def check(model_path, function=None, inputs=None, modes=None, seed=0,
          full_range=False, specials=False, float_range=(-1.0, 1.0),
          rtol=None, atol=None, workdir=None, model=None, log=None,
          oracle_timeout=900, int_range=None, output_tols=None):
    """Run the oracle once and jitrun once per mode. Returns a dict with
    'entry', 'inputs', 'oracle' (results), 'oracle_seconds', 'modes' (list of
    ModeResult). Raises OracleError when the oracle cannot run.
    output_tols: optional list of (rtol, atol) per result, overriding the
    defaults of the result's element type."""
    modes = modes or [("default", [])]
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="mlir_oracle_")
    try:
        if model is None:
            model = load_model(model_path)
        entry = model.entry(function)
        arg_types = [parse_tensor_type(t) for t in entry.arg_types]
        for t in entry.result_types:
            parse_tensor_type(t)
        if inputs is None:
            if any(d is None for s, _ in arg_types for d in s):
                raise OracleError("dynamic input shapes: pass --input "
                                  "SHAPExTYPE or @file.npy")
            inputs = make_inputs(arg_types, seed, full_range, specials,
                                 float_range, int_range)
        else:
            # Shape specs ('2x3xf32') become seeded data of that shape.
            inputs = [make_inputs([spec], seed + i, full_range, specials,
                                  float_range, int_range)[0]
                      if isinstance(spec, tuple) else spec
                      for i, spec in enumerate(inputs)]
        if len(inputs) != len(arg_types):
            raise OracleError("%d inputs for %d arguments" %
                              (len(inputs), len(arg_types)))
        ref, osecs = run_oracle(model, entry, inputs, workdir,
                                timeout=oracle_timeout)
        input_args = prepare_inputs(inputs, workdir)
        results = []
        for n, (mode, flags) in enumerate(modes):
            mr = ModeResult(mode, flags)
            try:
                got, mr.seconds, mr.command = run_jitrun(
                    model_path, entry, input_args, flags, workdir, tag=str(n))
            except JitrunError as e:
                mr.error = str(e)
                mr.command = jitrun_command(model_path, entry.name,
                                            input_args, flags, [])
                results.append(mr)
                continue
            if len(got) != len(ref):
                mr.error = "%d results, oracle has %d" % (len(got), len(ref))
            for k, (r, g) in enumerate(zip(ref, got)):
                rt, at = rtol, atol
                if output_tols and output_tols[k]:
                    rt, at = output_tols[k]
                mr.comparisons.append(compare(r, g, rt, at))
            results.append(mr)
        return {"entry": entry, "inputs": inputs, "oracle": ref,
                "oracle_seconds": osecs, "modes": results,
                "workdir": workdir}
    finally:
        if own and not (log and log.get("keep")):
            shutil.rmtree(workdir, ignore_errors=True)


def parse_modes(text, extra_flags):
    modes = []
    for name in (text or "default").split(","):
        name = name.strip()
        if name not in MODES:
            raise SystemExit("unknown mode '%s' (known: %s)" %
                             (name, ", ".join(MODES)))
        modes.append((name, MODES[name] + list(extra_flags)))
    return modes


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check jitrun against upstream MLIR lowered to loops "
                    "and run by mlir-runner.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", metavar="MODEL")
    ap.add_argument("--function", default=None)
    ap.add_argument("--input", action="append", default=[],
                    help="@file.npy (one per argument, in order)")
    ap.add_argument("--jitrun-flag", action="append", default=[],
                    help="extra jitrun flag (repeatable), added to every mode")
    ap.add_argument("--modes", default="default",
                    help="comma list of " + ",".join(MODES) + " or 'all'")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--full-range", action="store_true")
    ap.add_argument("--specials", action="store_true")
    ap.add_argument("--range", default="-1,1",
                    help="float input range LO,HI (default -1,1)")
    ap.add_argument("--int-range", default=None,
                    help="integer input range LO,HI (default i8 -8,8, "
                         "wider -100,100)")
    ap.add_argument("--all-functions", action="store_true",
                    help="check every public function (not just the entry)")
    ap.add_argument("--rtol", type=float, default=None)
    ap.add_argument("--atol", type=float, default=None,
                    help="absolute tolerance, as a fraction of max|oracle|")
    ap.add_argument("--keep", default=None,
                    help="keep the wrapper, lowered IR and .npy files here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    for tool in (MLIR_OPT, MLIR_RUNNER, JITRUN) + tuple(RUNNER_LIBS):
        if not os.path.exists(tool):
            print("mlir_oracle: missing %s" % tool, file=sys.stderr)
            return 2
    modes = parse_modes(",".join(MODES) if args.modes == "all"
                        else args.modes, args.jitrun_flag)
    lo, hi = (float(x) for x in args.range.split(","))
    status = 0
    int_range = tuple(int(x) for x in args.int_range.split(",")) \
        if args.int_range else None
    for path in args.models:
        inputs = None
        if args.input:
            inputs = [read_npy(p[1:]) if p.startswith("@")
                      else parse_tensor_type("tensor<%s>" % p)
                      for p in args.input]
        functions = [args.function]
        if args.all_functions:
            try:
                functions = [f.name for f in load_model(path).functions
                             if f.public]
                if not functions:
                    raise OracleError("no public function")
            except OracleError as e:
                print("SKIP %s: %s" % (os.path.basename(path), e))
                status = max(status, 2)
                continue
        for function in functions:
            status = max(status, check_one(path, function, inputs, modes,
                                           args, (lo, hi), int_range))
    return status


def check_one(path, function, inputs, modes, args, float_range, int_range):
    """Check one function of one model and print its verdicts; returns the
    exit status (0 match, 1 mismatch, 2 the oracle cannot run it)."""
    status = 0
    if args.keep:
        workdir = os.path.join(args.keep, os.path.basename(path) +
                               ("@" + function if function else ""))
        os.makedirs(workdir, exist_ok=True)
    else:
        workdir = tempfile.mkdtemp(prefix="mlir_oracle_")
    name = os.path.basename(path)
    if args.all_functions:
        name += "@" + function
    try:
        r = check(path, function, inputs, modes, args.seed,
                  args.full_range, args.specials, float_range, args.rtol,
                  args.atol, workdir=workdir, int_range=int_range)
    except OracleError as e:
        print("SKIP %s: oracle cannot run it: %s" % (name, e))
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        return 2
    if not args.keep and all(mr.ok for mr in r["modes"]):
        shutil.rmtree(workdir, ignore_errors=True)
    elif not args.keep:
        print("  (inputs and oracle wrapper kept in %s)" % workdir)
    for mr in r["modes"]:
        verdict = "PASS" if mr.ok else "FAIL"
        if not mr.ok:
            status = 1
        detail = mr.error or "; ".join(
            "out%d %s" % (k, c.summary())
            for k, c in enumerate(mr.comparisons))
        print("%s %s [%s] %s (oracle %.1fs, jitrun %.1fs)" %
              (verdict, name, mr.mode, detail, r["oracle_seconds"],
               mr.seconds))
        if args.verbose or not mr.ok:
            print("  reproduce: " + " ".join(mr.command))
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
