#!/usr/bin/env python3
"""Runs every zoo model at full size (`make zoo-bench`): generates it with
modelgen into BUILD/zoo-full, then reports dispatches (default and
aggressive fusion), root ops, compile time and latency at 1 and 2 threads
(`jitrun --benchmark=N`, best-of-N figures as min and median) as a markdown
table on stdout. A benchmark, not a test: numbers depend on the machine and
its load. Kernels are cached in BUILD/zoo-full/cache between the runs."""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
TOOLS = os.path.join(BUILD, "tools")
OUT = os.path.join(BUILD, "zoo-full")
RUNS = int(os.environ.get("RUNS", "5"))


def jitrun(path, *flags):
    res = subprocess.run([os.path.join(TOOLS, "jitrun"), path] + list(flags),
                         capture_output=True, text=True)
    return res.returncode, res.stdout, res.stderr


def main():
    os.makedirs(OUT, exist_ok=True)
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
        rc, _, err = jitrun(path)
        m = re.search(r"inputs \(([^)]*)\)", err)
        inputs = ["--input=" + s.rsplit(": ", 1)[-1] for s in m.group(1).split(", ")] if m else []
        cells, stats = [], {}
        for fusion in ("default", "aggressive"):
            rc, out, err = jitrun(path, "--fusion=" + fusion, "--dump-statistics=json",
                                  "--threads=1", "--cache-dir=" + os.path.join(OUT, "cache"),
                                  *inputs)
            if rc != 0:
                cells = ["error: " + err.strip().splitlines()[0]]
                break
            stats[fusion] = json.loads([l for l in err.splitlines() if l.startswith("{")][-1])
        if not cells:
            # Compile time without the cache, default fusion.
            rc, out, err = jitrun(path, "--dump-statistics=json", "--threads=2", *inputs)
            compile_s = json.loads([l for l in err.splitlines() if l.startswith("{")][-1])["compile_seconds"]
            lat = []
            for threads in (1, 2):
                rc, out, err = jitrun(path, "--threads=%d" % threads, "--benchmark=%d" % RUNS,
                                      "--cache-dir=" + os.path.join(OUT, "cache"), *inputs)
                m = re.search(r"latency_ms min=(\S+) median=(\S+)", out)
                lat.append("%s / %s" % (m.group(1), m.group(2)) if m else "error")
            cells = [str(stats["default"]["dispatches"]), str(stats["aggressive"]["dispatches"]),
                     str(stats["default"]["root_ops"]), "%.2f" % compile_s] + lat
        print("| %s | %s |" % (name, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
