#!/usr/bin/python3
"""`make model-bench`: real models at full size, jitrun against PyTorch and
against the host's roofline, at 1 and 2 threads, side by side in one run.

Models: torchvision's classification models exported to ONNX by PyTorch
(scripts/onnx_models.py builds them: seeded weights, batch 1) and the zoo's
models generated at full size (jitrun only: they have no PyTorch twin).

Per model and thread count:
- jitrun ms: `jitrun --benchmark=RUNS`, the best run after a warm-up;
- PyTorch ms: the best of eager NCHW, channels-last and to_mkldnn (as
  onnx_models.py measures it);
- roofline: the least time the host allows, max(FLOPs / measured peak,
  bytes that must move / measured triad bandwidth), from `--profile-json`
  (peak and bandwidth probed on this host at that thread count; FLOPs of the
  root ops; bytes: weights, inputs and results), and efficiency = that
  limit / jitrun ms.
A second table runs the models whose work is mostly matmuls, and the CNNs
whose convolutions AMX tiles take, with `--weights=bf16` (f32 weights
stored as bf16, inputs rounded to bf16, f32 accumulation): best ms at 1 and
2 threads, the speedup over f32, and the output's max |bf16 - f32| / max
|f32| on the same input.
Writes markdown tables (--write) and prints them. Run with Debian's python3.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models  # noqa: E402  (build, torch_ms, MODELS)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
TOOLS = os.path.join(BUILD, "tools")


def jitrun_figures(path, inputs, threads, runs, tmp):
    """(best ms, roofline dict) of `jitrun path inputs` at `threads`."""
    out = os.path.join(tmp, "out.npy")
    base = [os.path.join(TOOLS, "jitrun"), path, "--threads=%d" % threads, "--output=@" + out] + inputs
    b = subprocess.run(base + ["--benchmark=%d" % runs], capture_output=True, text=True)
    m = re.search(r"latency_ms min=([0-9.]+)", b.stdout)
    if not m:
        return None, None
    prof = os.path.join(tmp, "profile.json")
    subprocess.run(base + ["--profile-json=" + prof], capture_output=True, text=True, check=True)
    with open(prof) as f:
        profile = json.load(f)
    roofline = profile["roofline"]
    roofline["commands"] = profile["commands"]
    roofline["wall_ms"] = profile["wall_ms"]
    return float(m.group(1)), roofline


# Below this roofline efficiency a row is explained in the limits table.
EFFICIENCY_GOAL = 0.75


def limits_line(r):
    """What limits a row below EFFICIENCY_GOAL at one thread, from its
    --profile-json: the share of the run in compute-bound and in
    memory-bound dispatches, each with its time-weighted % of its own limit
    (the host's peak or triad), the share in the host program's fills and
    copies and outside any of them (calls, waits), and the three dispatches
    that lose the most time against their own limit. None for a row at or
    above the goal."""
    roof, best = r["roofline_1"], r["jitrun_1"]
    if not roof or not best or roof["limit_ms"] / best >= EFFICIENCY_GOAL:
        return None
    wall = roof["wall_ms"]
    dispatches = [c for c in roof["commands"] if "_dispatch_" in c["name"]]
    host_ms = sum(c["ms"] for c in roof["commands"] if c["name"].startswith(("fill:", "copy:")))

    def pct(c):
        return min(c["percent_of_peak"], 100.0)

    def share(bound):
        sel = [c for c in dispatches if c["bound"] == bound]
        ms = sum(c["ms"] for c in sel)
        return ms, (sum(c["ms"] * pct(c) for c in sel) / ms if ms else 0.0)

    fl_ms, fl_pct = share("flops")
    bw_ms, bw_pct = share("bw")
    rest = max(0.0, wall - fl_ms - bw_ms - host_ms)
    top = sorted(dispatches, key=lambda c: c["ms"] * (1 - pct(c) / 100), reverse=True)[:3]
    worst = "; ".join("%s (%s): %.2f ms at %.0f%% of its %s" % (
        c["name"], ", ".join(x for x in (c["op"].replace("linalg.", ""),
                                         os.path.basename(c["location"])) if x),
        c["ms"], c["percent_of_peak"], "peak" if c["bound"] == "flops" else "bandwidth")
        for c in top)
    moved = sum(c["bytes"] for c in roof["commands"] if c["name"] != "total")
    return ("| %s | %.0f%% | %.0f%% at %.0f%% | %.0f%% at %.0f%% | %.0f%% | %.0f%% | %.1fx | %s |" % (
        r["model"], 100 * roof["limit_ms"] / best, 100 * fl_ms / wall, fl_pct,
        100 * bw_ms / wall, bw_pct, 100 * host_ms / wall, 100 * rest / wall,
        moved / roof["bytes"] if roof["bytes"] else 0.0, worst))


LIMITS_HEADER = ("| model | efficiency 1T | compute-bound dispatches: share of the run at % "
                 "of peak | memory-bound dispatches: share at % of triad | fills and copies "
                 "| the rest | bytes moved / bytes that must move "
                 "| the dispatches that lose most against their own limit |\n"
                 + "|---" * 8 + "|")


def compile_figures(row, path, inputs, tmp):
    """Adds the compile times to `row`: jitrun's compile_seconds (import,
    fusion, kernels; not reading the model file, not running it) with an
    empty cache folder (cold: best of 2, each in a folder of its own) and
    with the folder a cold compile filled (warm: best of 3), and the number
    of kernels."""
    import shutil
    def compile_s(cache):
        stats = os.path.join(tmp, "stats.json")
        r = subprocess.run([os.path.join(TOOLS, "jitrun"), path, "--cache-dir=" + cache,
                            "--output=@" + os.path.join(tmp, "compile.npy"),
                            "--dump-statistics=json", "--dump-statistics-file=" + stats] + inputs,
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, None
        with open(stats) as f:
            s = json.loads(f.read().strip().splitlines()[-1])
        return s["compile_seconds"], s["vector_kernels"] + s["scalar_kernels"]
    cold, warm = [], []
    for i in range(2):
        cache = os.path.join(tmp, "cache%d" % i)
        shutil.rmtree(cache, ignore_errors=True)
        seconds, row["kernels"] = compile_s(cache)
        cold.append(seconds)
    for _ in range(3):
        warm.append(compile_s(cache)[0])
    shutil.rmtree(os.path.join(tmp, "cache0"), ignore_errors=True)
    shutil.rmtree(os.path.join(tmp, "cache1"), ignore_errors=True)
    row["cold_s"] = None if None in cold else min(cold)
    row["warm_s"] = None if None in warm else min(warm)


# Models whose work is mostly matmuls, and CNNs whose convolutions take AMX
# tiles in bf16 (channels in 32s): the bf16 table's rows.
BF16_MODELS = {"vit_b_16", "convnext_tiny", "bert_encoder", "minilm", "mobilebert",
               "resnet18", "resnet50", "inception_v3", "googlenet", "densenet121"}


def bf16_figures(row, path, inputs, runs, tmp):
    """Adds the --weights=bf16 figures to `row`: best ms at 1 and 2 threads and
    the output's error against the f32 output of the same input, the one
    jitrun_figures just wrote to tmp/out.npy."""
    f32 = np.load(os.path.join(tmp, "out.npy")).astype(np.float64)
    out = os.path.join(tmp, "out.bf16.npy")
    for t in (1, 2):
        b = subprocess.run([os.path.join(TOOLS, "jitrun"), path, "--weights=bf16",
                            "--threads=%d" % t, "--benchmark=%d" % runs, "--output=@" + out]
                           + inputs, capture_output=True, text=True)
        m = re.search(r"latency_ms min=([0-9.]+)", b.stdout)
        row["bf16_%d" % t] = float(m.group(1)) if m else None
    bf16 = np.load(out).astype(np.float64)
    scale = np.abs(f32).max()
    row["bf16_err"] = float(np.abs(bf16 - f32).max() / scale) if scale > 0 else None


def torchvision_rows(names, runs, tmp):
    import torch
    sizes = dict(onnx_models.MODELS)
    for name in names:
        model = onnx_models.build(name)
        torch.manual_seed(1)
        x = torch.randn(1, 3, sizes[name], sizes[name])
        path = os.path.join(tmp, name + ".onnx")
        torch.onnx.export(model, x, path, opset_version=14)
        x_path = os.path.join(tmp, name + ".x.npy")
        np.save(x_path, x.numpy())
        row = {"model": name + " (torchvision)", "input": "1x3x%dx%d" % (sizes[name], sizes[name])}
        # jitrun first: PyTorch's OpenMP workers keep spinning for a while
        # after its runs and would take a core from jitrun's.
        for t in (1, 2):
            row["jitrun_%d" % t], row["roofline_%d" % t] = jitrun_figures(
                path, ["--input=@" + x_path], t, runs, tmp)
        if name in BF16_MODELS:
            bf16_figures(row, path, ["--input=@" + x_path], runs, tmp)
        compile_figures(row, path, ["--input=@" + x_path], tmp)
        for t in (1, 2):
            row["torch_%d" % t] = onnx_models.torch_ms(model, x, t, runs)
        yield row


def zoo_rows(names, runs, tmp):
    zoo = os.path.join(BUILD, "zoo-full")
    os.makedirs(zoo, exist_ok=True)
    for name in names:
        path = os.path.join(zoo, name + ".mlirbc")
        if not os.path.exists(path):
            subprocess.run([os.path.join(TOOLS, "modelgen"), name, "--size=full", "-o", path],
                           check=True)
        sig = json.loads(subprocess.run([os.path.join(TOOLS, "jitrun"), path,
                                         "--print-signature=json"], capture_output=True,
                                        text=True, check=True).stdout)
        inputs = ["--input=" + "".join("%dx" % d for d in t["shape"]) + t["dtype"]
                  for t in sig["inputs"]]
        row = {"model": name + " (zoo)", "input": ", ".join(i[8:] for i in inputs)}
        for t in (1, 2):
            row["jitrun_%d" % t], row["roofline_%d" % t] = jitrun_figures(path, inputs, t, runs, tmp)
            row["torch_%d" % t] = None
        if name in BF16_MODELS:
            bf16_figures(row, path, inputs, runs, tmp)
        compile_figures(row, path, inputs, tmp)
        yield row


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def line(r):
    cells = [r["model"], r["input"]]
    for t in (1, 2):
        j, p, roof = r["jitrun_%d" % t], r["torch_%d" % t], r["roofline_%d" % t]
        eff = roof["limit_ms"] / j if roof and j else None
        cells += [fmt(j), fmt(p), fmt(j / p if j and p else None),
                  fmt(roof["limit_ms"] if roof else None, "%.3f"),
                  (roof["bound"] if roof else "-"), fmt(100 * eff if eff else None, "%.0f%%")]
    return "| " + " | ".join(cells) + " |"


BF16_HEADER = ("| model | f32 1T ms | bf16 1T ms | f32/bf16 1T | f32 2T ms | bf16 2T ms "
               "| f32/bf16 2T | max abs error / max abs f32 output |\n" + "|---" * 8 + "|")


def bf16_line(r):
    cells = [r["model"]]
    for t in (1, 2):
        f, b = r["jitrun_%d" % t], r["bf16_%d" % t]
        cells += [fmt(f), fmt(b), fmt(f / b if f and b else None)]
    err = r["bf16_err"]
    cells.append("-" if err is None else "%.2g%%" % (100 * err))
    return "| " + " | ".join(cells) + " |"


COMPILE_HEADER = ("| model | kernels | cold compile s | warm compile s |\n" + "|---" * 4 + "|")


def compile_line(r):
    return "| %s | %s | %s | %s |" % (r["model"], r.get("kernels", "-"),
                                      fmt(r.get("cold_s")), fmt(r.get("warm_s"), "%.3f"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--write", help="write the markdown table here")
    a = ap.parse_args()
    tv = [n for n, _ in onnx_models.MODELS]
    zoo = subprocess.run([os.path.join(TOOLS, "modelgen"), "--list"], capture_output=True,
                         text=True, check=True).stdout.split()
    if a.only:
        keep = set(a.only.split(","))
        tv, zoo = [n for n in tv if n in keep], [n for n in zoo if n in keep]
    header = ("| model | input | jitrun 1T ms | PyTorch 1T ms | jitrun/PyTorch 1T | roofline 1T ms "
              "| bound | efficiency 1T | jitrun 2T ms | PyTorch 2T ms | jitrun/PyTorch 2T "
              "| roofline 2T ms | bound | efficiency 2T |\n" + "|---" * 14 + "|")
    print(header, flush=True)
    lines, bf16_lines, compile_lines, limit_lines = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rows in (torchvision_rows(tv, a.runs, tmp), zoo_rows(zoo, a.runs, tmp)):
            for r in rows:
                lines.append(line(r))
                print(lines[-1], flush=True)
                if "bf16_err" in r:
                    bf16_lines.append(bf16_line(r))
                compile_lines.append(compile_line(r))
                limit = limits_line(r)
                if limit:
                    limit_lines.append(limit)
    if bf16_lines:
        print("\n" + BF16_HEADER + "\n" + "\n".join(bf16_lines), flush=True)
    print("\n" + COMPILE_HEADER + "\n" + "\n".join(compile_lines), flush=True)
    if limit_lines:
        print("\n" + LIMITS_HEADER + "\n" + "\n".join(limit_lines), flush=True)
    if a.write:
        import torch
        with open(a.write, "w", encoding="utf-8") as f:
            f.write("# Real models against PyTorch and the roofline\n\n"
                    "`make model-bench` (scripts/model_bench.py), one run on one machine: "
                    "jitrun's best of %d runs after a warm-up; PyTorch %s's best of eager NCHW, "
                    "channels-last and to_mkldnn; roofline = max(FLOPs / peak, bytes that must "
                    "move / triad bandwidth) with the peak and bandwidth measured on this host at "
                    "that thread count, FLOPs of the root ops (convolutions, matmuls, pooling, "
                    "reductions) and bytes = weights + inputs + results; efficiency = roofline / "
                    "jitrun ms. jitrun/PyTorch below 1: jitrun is faster. The triad is a "
                    "main-memory figure: a small model whose weights stay in cache between runs "
                    "can pass 100%%; integer models are measured against the f32 peak. "
                    "Compare ratios, not absolute times, across machines.\n\n" % (a.runs, torch.__version__))
            f.write(header + "\n" + "\n".join(lines) + "\n")
            if bf16_lines:
                f.write("\n## `--weights=bf16`\n\n"
                        "The models whose work is mostly matmuls, and CNNs, with f32 weights "
                        "stored as bf16 and inputs rounded to bf16 (f32 accumulation): jitrun's "
                        "best of %d runs in each, the f32 figures from the table above, and the "
                        "output's max |bf16 - f32| / max |f32| on the same input ('-': an "
                        "all-zero output). Intel hosts with AMX run the bf16 matmuls of many "
                        "rows (K a multiple of 32) and the convolutions with input channels in "
                        "32s and output channels in two or more panels of 32 in AMX tiles; "
                        "other AVX512_BF16 hosts run the matmuls as vdpbf16ps dot products "
                        "and keep the convolutions f32; others widen them to f32.\n\n" % a.runs)
                f.write(BF16_HEADER + "\n" + "\n".join(bf16_lines) + "\n")
            f.write("\n## Compile time\n\n"
                    "jitrun's `compile_seconds` (import, fusion, kernels compiled on all cores; "
                    "not reading the model file, not running it): cold with an empty cache "
                    "folder (best of 2), warm with the folder a cold compile filled (best of 3: "
                    "the fused program and kernels read, the weights mapped). The goal: under "
                    "3 s cold and 0.2 s warm on two cores.\n\n")
            f.write(COMPILE_HEADER + "\n" + "\n".join(compile_lines) + "\n")
            if limit_lines:
                f.write("\n## What limits the rows below %.0f %%\n\n"
                        "From each such model's `jitrun --profile-json` at one thread (its "
                        "own timed runs and wall time): the share of the run in "
                        "compute-bound and in memory-bound dispatches, each at its time-weighted "
                        "%% of its own limit (the measured peak or triad), the host program's "
                        "fills and copies, the rest (calls, waits), the bytes all dispatches, "
                        "fills and copies read and write over the bytes the roofline counts "
                        "(weights, inputs, results: what intermediates add), and the three dispatches "
                        "that lose the most time against their own limit (dispatch, root op, "
                        "source line). A memory-bound dispatch's limit is main-memory "
                        "bandwidth: one that works in cache can pass 100%%, counted as 100.\n\n"
                        % (100 * EFFICIENCY_GOAL))
                f.write(LIMITS_HEADER + "\n" + "\n".join(limit_lines) + "\n")
        print("wrote " + a.write)


if __name__ == "__main__":
    main()
