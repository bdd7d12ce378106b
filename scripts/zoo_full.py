#!/usr/bin/env python3
"""Runs every zoo model at full size (`make zoo-bench`): generates it with
modelgen into BUILD/zoo-full, then reports dispatches (default and
aggressive fusion), root ops, cold compile time and latency at 1 and 2
threads (min and median of RUNS runs after a warm-up) as a markdown table on
stdout. Models are loaded and run with the jitrun Python package
(build/python). A benchmark, not a test: numbers depend on the machine and
its load. Kernels are cached in BUILD/zoo-full/cache between the loads."""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
TOOLS = os.path.join(BUILD, "tools")
OUT = os.path.join(BUILD, "zoo-full")
RUNS = int(os.environ.get("RUNS", "5"))
sys.path.insert(0, os.path.join(BUILD, "python"))
import jitrun  # noqa: E402


def random_inputs(model, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for t in model.inputs:
        dtype = np.float32 if t.dtype == "bfloat16" else np.dtype(t.dtype)
        if dtype.kind == "f":
            out.append(rng.random(t.shape, dtype=np.float32).astype(dtype))
        elif dtype.kind == "b":
            out.append(rng.random(t.shape) < 0.5)
        else:
            out.append(rng.integers(0, 100, t.shape).astype(dtype))
    return out


def latency_ms(model, inputs):
    model(*inputs)  # warm-up
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        model(*inputs)
        times.append((time.perf_counter() - start) * 1e3)
    return "%.3f / %.3f" % (min(times), statistics.median(times))


def main():
    os.makedirs(OUT, exist_ok=True)
    cache = os.path.join(OUT, "cache")
    names = subprocess.run([os.path.join(TOOLS, "modelgen"), "--list"], capture_output=True,
                           text=True, check=True).stdout.split()
    if len(sys.argv) > 1:
        names = [n for n in names if n in sys.argv[1:]]
    print("| Model | Dispatches (default) | Dispatches (aggressive) | Root ops | Compile s | 1 thread ms (min / median) | 2 threads ms (min / median) |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        path = os.path.join(OUT, name + ".mlirbc")
        if not os.path.exists(path):
            subprocess.run([os.path.join(TOOLS, "modelgen"), name, "--size=full", "-o", path],
                           check=True)
        try:
            stats = {f: jitrun.load(path, fusion=f, threads=1, cache_dir=cache).statistics
                     for f in ("default", "aggressive")}
            # Compile time without the cache, default fusion.
            cold = jitrun.load(path, threads=2)
            inputs = random_inputs(cold)
            lat = [latency_ms(jitrun.load(path, threads=t, cache_dir=cache), inputs)
                   for t in (1, 2)]
            cells = [str(stats["default"]["dispatches"]), str(stats["aggressive"]["dispatches"]),
                     str(stats["default"]["root_ops"]),
                     "%.2f" % cold.statistics["compile_seconds"]] + lat
        except jitrun.Error as e:
            cells = ["error: " + (str(e).strip().splitlines() or ["failed"])[0]]
        print("| %s | %s |" % (name, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
