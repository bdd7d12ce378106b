#!/usr/bin/python3
"""ONNX backend conformance: jitrun on Debian's ONNX test data (libonnx-testdata).

Each test is a `model.onnx` with `test_data_set_*/input_*.pb` and the expected
`output_*.pb`. The runner converts the inputs to .npy, runs
`jitrun model.onnx --input=@... --output=@...` once per data set and compares
every output with the expected tensor under the tolerances of ONNX's own
backend runner (numpy.testing.assert_allclose, rtol=1e-3, atol=1e-7; exact for
integers and booleans).

    onnx_conformance.py --write docs/onnx_conformance.md   # regenerate the table
    onnx_conformance.py --check docs/onnx_conformance.md   # CI: no pass may regress

A test is `pass`, `fail` (ran, wrong values or shapes), `unsupported` (jitrun
said so: an op, an attribute, a type it does not take) or `error` (anything
else, with jitrun's message). Run it with Debian's /usr/bin/python3 (NumPy and
onnx come from python3-numpy and python3-onnx).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 120
UNSUPPORTED = re.compile(r"unsupported|not supported|is not read yet|symbolic")


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return "no message"


def run_test(jitrun, suite, name):
    """(status, reason) of one test directory."""
    d = os.path.join(DATA, suite, name)
    sets = sorted(s for s in os.listdir(d) if s.startswith("test_data_set_"))
    if not sets:
        return "error", "no test data"
    with tempfile.TemporaryDirectory() as tmp:
        for ds in sets:
            sd = os.path.join(d, ds)
            ins = sorted((f for f in os.listdir(sd) if f.startswith("input_")),
                         key=lambda f: int(f[6:-3]))
            outs = sorted((f for f in os.listdir(sd) if f.startswith("output_")),
                          key=lambda f: int(f[7:-3]))
            args = [jitrun, os.path.join(d, "model.onnx"), "--threads=1"]
            try:
                for i, f in enumerate(ins):
                    p = os.path.join(tmp, "in%d.npy" % i)
                    np.save(p, read_tensor(os.path.join(sd, f)))
                    args.append("--input=@" + p)
                expected = [read_tensor(os.path.join(sd, f)) for f in outs]
            except Exception as e:  # sequences, optionals, strings
                return "unsupported", "test data jitrun cannot take: %s" % str(e)[:120]
            for j in range(len(outs)):
                args.append("--output=@" + os.path.join(tmp, "out%d.npy" % j))
            try:
                r = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                return "error", "timed out after %d s" % TIMEOUT
            if r.returncode != 0:
                msg = first_line(r.stderr).replace(tmp, "<tmp>").replace(DATA + "/", "")
                if r.returncode < 0:
                    return "error", "killed by signal %d: %s" % (-r.returncode, msg)
                return ("unsupported" if UNSUPPORTED.search(msg) else "error"), msg
            for j, exp in enumerate(expected):
                got = np.load(os.path.join(tmp, "out%d.npy" % j))
                if got.shape != exp.shape:
                    return "fail", "output %d has shape %s, expected %s" % (
                        j, got.shape, exp.shape)
                if exp.dtype.kind in "fc":
                    try:
                        np.testing.assert_allclose(got.astype(np.float64),
                                                   exp.astype(np.float64),
                                                   rtol=1e-3, atol=1e-7)
                    except AssertionError:
                        diff = np.nanmax(np.abs(got.astype(np.float64) - exp))
                        return "fail", "output %d differs (max |diff| %.3g)" % (j, diff)
                elif not np.array_equal(got.astype(exp.dtype), exp):
                    return "fail", "output %d differs" % j
    return "pass", ""


def all_tests():
    for suite in SUITES:
        base = os.path.join(DATA, suite)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if os.path.isfile(os.path.join(base, name, "model.onnx")):
                yield suite, name


def read_table(path):
    status = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| (\S+) \| (\S+) \| (pass|fail|unsupported|error) \|", line)
            if m:
                status[(m.group(1), m.group(2))] = m.group(3)
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jitrun", default=os.path.join(ROOT, "build", "tools", "jitrun"))
    ap.add_argument("--write", help="write the table (markdown) here")
    ap.add_argument("--check", help="fail if a test this table marks pass does not pass")
    ap.add_argument("--filter", default="", help="only tests whose name contains this")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print("onnx_conformance: %s is missing (install libonnx-testdata)" % DATA)
        return 1
    tests = [t for t in all_tests() if a.filter in t[1]]
    if a.check:
        baseline = read_table(a.check)
        tests = [t for t in tests if baseline.get(t) == "pass"]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = dict(zip(tests, pool.map(lambda t: run_test(a.jitrun, *t), tests)))
    counts = {}
    for (suite, _), (status, _) in results.items():
        counts.setdefault(suite, {}).setdefault(status, 0)
        counts[suite][status] += 1
    for suite in SUITES:
        if suite in counts:
            c = counts[suite]
            print("%-18s pass %4d  fail %4d  unsupported %4d  error %4d  (of %d)" % (
                suite, c.get("pass", 0), c.get("fail", 0), c.get("unsupported", 0),
                c.get("error", 0), sum(c.values())))
    if a.check:
        regressed = [(t, r) for t, r in results.items() if r[0] != "pass"]
        for (suite, name), (status, reason) in regressed:
            print("REGRESSED %s/%s: %s: %s" % (suite, name, status, reason))
        print("onnx conformance: %d passing tests checked, %d regressed" % (
            len(results), len(regressed)))
        return 1 if regressed else 0
    if a.write:
        with open(a.write, "w", encoding="utf-8") as f:
            f.write("# ONNX backend conformance\n\n")
            f.write("jitrun on Debian's ONNX %s test data (`libonnx-testdata`), "
                    "regenerated by `make onnx-conformance`; CI checks that every `pass` "
                    "still passes (`make onnx-conformance-check`). Tolerances: ONNX's own "
                    "runner's (rtol 1e-3, atol 1e-7; exact for integers).\n\n" % onnx.__version__)
            f.write("| suite | pass | fail | unsupported | error | total |\n|---|---|---|---|---|---|\n")
            for suite in SUITES:
                if suite in counts:
                    c = counts[suite]
                    f.write("| %s | %d | %d | %d | %d | %d |\n" % (
                        suite, c.get("pass", 0), c.get("fail", 0), c.get("unsupported", 0),
                        c.get("error", 0), sum(c.values())))
            f.write("\n| suite | test | status | reason |\n|---|---|---|---|\n")
            for (suite, name), (status, reason) in sorted(results.items()):
                f.write("| %s | %s | %s | %s |\n" % (suite, name, status,
                                                     reason.replace("|", "\\|")))
        print("wrote " + a.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
