#!/usr/bin/python3
"""Real models through ONNX: torchvision exports, jitrun against PyTorch.

Each model is built by torchvision (seeded random weights: no download),
exported with torch.onnx.export, run by PyTorch on a seeded input, and run
by jitrun on the same input through the exported .onnx. The result must be
within 1e-4 of the output's scale: max|jitrun - torch| <= 1e-4 * max|torch|.

    onnx_models.py --ci                      # the small models (ctest)
    onnx_models.py --write docs/onnx_models.md --bench   # all, with latency

With --bench each model is also timed side by side in this one run, at 1 and
2 threads: jitrun's `--benchmark` (best of its runs after a warm-up) and
PyTorch's own forward (best of as many runs), and the table gives their ratio
(PyTorch ms / jitrun ms: above 1, jitrun is faster). Run it with Debian's
/usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.utils.mkldnn
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (name, input size): torchvision's classification models at their sizes.
MODELS = [
    ("resnet18", 224), ("resnet50", 224), ("mobilenet_v2", 224),
    ("mobilenet_v3_small", 224), ("efficientnet_b0", 224), ("squeezenet1_1", 224),
    ("shufflenet_v2_x1_0", 224), ("googlenet", 224), ("densenet121", 224),
    ("regnet_y_400mf", 224), ("convnext_tiny", 224), ("vit_b_16", 224),
    ("inception_v3", 299),
]
CI_MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1"]
TOLERANCE = 1e-4


def build(name):
    """The model with seeded weights that exercise every op: zero-initialized
    parameters (ViT's head) get small random values and batch norms random
    running statistics, so that no output is trivially constant."""
    torch.manual_seed(0)
    kwargs = {}
    if name in ("googlenet", "inception_v3"):
        kwargs = {"aux_logits": False, "init_weights": True}
    model = getattr(torchvision.models, name)(**kwargs).eval()
    with torch.no_grad():
        for p in model.parameters():
            if not p.any():
                p.normal_(0, 0.02)
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model


def best_ms(fn, runs, budget_s=10.0):
    """The best of `runs` runs after a warm-up, or of as many (at least 3) as
    fit in `budget_s` seconds: Debian's eager ViT takes 8 s a run."""
    with torch.no_grad():
        fn()
        best = float("inf")
        start = time.perf_counter()
        for i in range(runs):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
            if i >= 2 and time.perf_counter() - start > budget_s:
                break
    return best * 1e3


def torch_ms(model, x, threads, runs):
    """PyTorch's best of three ways to run the model: eager NCHW, eager
    channels-last, and oneDNN's own layouts (torch.utils.mkldnn.to_mkldnn:
    Debian's build runs eager ResNet-50 convolutions 10x slower)."""
    # Denormals: random weights make some, and PyTorch's default does not
    # flush them (its slow path); timing flushes them, as an inference
    # deployment would (the reference output was computed before).
    torch.set_flush_denormal(True)
    torch.set_num_threads(threads)
    times = [best_ms(lambda: model(x), runs)]
    try:
        cl = copy.deepcopy(model).to(memory_format=torch.channels_last)
        xc = x.to(memory_format=torch.channels_last)
        times.append(best_ms(lambda: cl(xc), runs))
    except Exception:  # noqa: BLE001 - a layout PyTorch cannot take is no contender
        pass
    try:
        mk = torch.utils.mkldnn.to_mkldnn(copy.deepcopy(model))
        times.append(best_ms(lambda: mk(x.to_mkldnn()).to_dense(), runs))
    except Exception:  # noqa: BLE001
        pass
    return min(times)


def jitrun_cmd(jitrun, path, x_path, *extra):
    return [jitrun, path, "--input=@" + x_path] + list(extra)


def run_model(jitrun, name, size, tmp, bench, runs):
    row = {"model": name, "input": "1x3x%dx%d" % (size, size)}
    model = build(name)
    torch.manual_seed(1)
    x = torch.randn(1, 3, size, size)
    with torch.no_grad():
        ref = model(x).numpy()
    path = os.path.join(tmp, name + ".onnx")
    t = time.perf_counter()
    torch.onnx.export(model, x, path, opset_version=14)
    row["export_s"] = time.perf_counter() - t
    x_path = os.path.join(tmp, name + ".x.npy")
    out_path = os.path.join(tmp, name + ".out.npy")
    np.save(x_path, x.numpy())
    # --no-cache: the compile time reported is a cold compile's.
    r = subprocess.run(jitrun_cmd(jitrun, path, x_path, "--output=@" + out_path, "--no-cache",
                                  "--dump-statistics=json", "--dump-statistics-file=" +
                                  os.path.join(tmp, name + ".json")),
                       capture_output=True, text=True)
    if r.returncode != 0:
        row["status"] = "error: " + (r.stderr.strip().splitlines() or ["?"])[0][:160]
        return row
    got = np.load(out_path)
    if float(np.std(ref)) == 0.0:
        row["status"] = "error: PyTorch's output is constant; the comparison would prove nothing"
        return row
    scale = float(np.max(np.abs(ref)))
    err = float(np.max(np.abs(got - ref))) if got.shape == ref.shape else float("inf")
    row["rel_err"] = err / scale if scale else err
    row["status"] = "pass" if row["rel_err"] <= TOLERANCE else "FAIL"
    with open(os.path.join(tmp, name + ".json")) as f:
        stats = json.loads(f.read().strip().splitlines()[-1])
    row["dispatches"] = stats.get("dispatches")
    row["compile_s"] = stats.get("compile_seconds")
    if bench:
        for threads in (1, 2):
            b = subprocess.run(jitrun_cmd(jitrun, path, x_path, "--threads=%d" % threads,
                                          "--benchmark=%d" % runs),
                               capture_output=True, text=True)
            m = re.search(r"latency_ms min=([0-9.]+)", b.stdout)
            row["jitrun_ms_%dt" % threads] = float(m.group(1)) if m else None
            row["torch_ms_%dt" % threads] = torch_ms(model, x, threads, runs)
    return row


def fmt(v, spec="%.3g"):
    return "-" if v is None else (spec % v if isinstance(v, float) else str(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jitrun", default=os.path.join(ROOT, "build", "tools", "jitrun"))
    ap.add_argument("--ci", action="store_true", help="only " + ", ".join(CI_MODELS))
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--bench", action="store_true", help="time jitrun and PyTorch")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--write", help="write the table (markdown) here")
    a = ap.parse_args()
    names = CI_MODELS if a.ci else [n for n, _ in MODELS]
    if a.only:
        names = a.only.split(",")
    sizes = dict(MODELS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            row = run_model(a.jitrun, n, sizes[n], tmp, a.bench, a.runs)
            rows.append(row)
            print("%-20s %-6s rel_err=%s dispatches=%s compile=%ss %s" % (
                n, row["status"].split(":")[0], fmt(row.get("rel_err")), fmt(row.get("dispatches")),
                fmt(row.get("compile_s")),
                " ".join("%s=%s" % (k, fmt(v)) for k, v in row.items() if k.endswith("ms_1t") or k.endswith("ms_2t"))),
                flush=True)
            if row["status"] != "pass":
                print("  " + row["status"])
    if a.write:
        with open(a.write, "w", encoding="utf-8") as f:
            f.write("# torchvision models through ONNX: jitrun vs PyTorch\n\n")
            f.write("`make onnx-models` (scripts/onnx_models.py): each model exported by "
                    "PyTorch %s's `torch.onnx.export` (seeded random weights, batch 1), run "
                    "by jitrun from the .onnx and by PyTorch on the same input. "
                    "rel. error = max|jitrun - torch| / max|torch| (pass: <= 1e-4). "
                    "Latency: best of %d runs after a warm-up, both measured in this one "
                    "run; PyTorch's time is the best of eager NCHW, eager channels-last and "
                    "`torch.utils.mkldnn.to_mkldnn` (oneDNN layouts), denormals flushed; speedup = PyTorch ms / "
                    "jitrun ms. Compare ratios, not absolute times, across machines.\n\n" % (torch.__version__, a.runs))
            f.write("| model | input | status | rel. error | dispatches | compile s | "
                    "jitrun 1T ms | PyTorch 1T ms | speedup 1T | jitrun 2T ms | "
                    "PyTorch 2T ms | speedup 2T |\n")
            f.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                def ratio(t):
                    j, p = r.get("jitrun_ms_%dt" % t), r.get("torch_ms_%dt" % t)
                    return p / j if j and p else None
                f.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                    r["model"], r["input"], r["status"].replace("|", "\\|"),
                    fmt(r.get("rel_err"), "%.1e"), fmt(r.get("dispatches")),
                    fmt(r.get("compile_s"), "%.2f"),
                    fmt(r.get("jitrun_ms_1t"), "%.2f"), fmt(r.get("torch_ms_1t"), "%.2f"),
                    fmt(ratio(1), "%.2f"), fmt(r.get("jitrun_ms_2t"), "%.2f"),
                    fmt(r.get("torch_ms_2t"), "%.2f"), fmt(ratio(2), "%.2f")))
        print("wrote " + a.write)
    return 0 if all(r["status"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
