#!/usr/bin/env python3
"""`make python-bench`: the Python package against the C API and the CLI,
side by side in one run (a benchmark, not a test).

1. Call overhead: a 1-element model (y = x + x), microseconds per call
   through the C API (jitrun-call-overhead, caller buffers) and through
   Python: m(x, out=y), m(x) (a new result array), m.run({"a": x}); best of
   5 rounds.
2. resnet18 (torchvision, exported to ONNX here): latency through Python
   (best of RUNS) and the CLI (--benchmark=RUNS, min), 1 and 2 threads.
3. Warm starts: the load time of a model whose fused program and kernels
   are in the cache, against its cold load: resnet18.onnx, and the shared
   corpus' resnet18 and the zoo's full-size MobileNetV2 when present.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
TOOLS = os.path.join(BUILD, "tools")
RUNS = int(os.environ.get("RUNS", "20"))
sys.path.insert(0, os.path.join(BUILD, "python"))
import jitrun  # noqa: E402

ONE = """
func.func @main(%a: tensor<1xf32> {jitrun.name = "a"}) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<1xf32>) outs(%e : tensor<1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
"""


def best_us(fn, calls):
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) * 1e6 / calls)
    return best


def overhead(work):
    path = os.path.join(work, "one.mlir")
    with open(path, "w") as f:
        f.write(ONE)
    calls = 20000
    c = subprocess.run([os.path.join(TOOLS, "jitrun-call-overhead"), path, str(calls)],
                       capture_output=True, text=True, check=True).stdout
    c_us = float(c.split()[1])
    m = jitrun.load(path, threads=1, cache_dir=False)
    x = np.ones(1, np.float32)
    y = np.empty(1, np.float32)
    rows = [("C API jitrun_model_run (caller buffers)", c_us),
            ("Python m(x, out=y)", best_us(lambda: m(x, out=y), calls)),
            ("Python m(x) (allocates the result)", best_us(lambda: m(x), calls)),
            ("Python m.run({'a': x})", best_us(lambda: m.run({"a": x}), calls))]
    print("## Call overhead: a 1-element model, us per call (best of 5 x %d)\n" % calls)
    print("| path | us/call | vs C API |\n|---|---|---|")
    for name, us in rows:
        print("| %s | %.2f | +%.2f |" % (name, us, us - c_us))
    print()


def export_resnet18(work):
    """torchvision's resnet18 as ONNX, exported in a process of its own:
    PyTorch's idle OpenMP workers spin for a while after each call and would
    take the second core from the measurements here."""
    path = os.path.join(work, "resnet18.onnx")
    subprocess.run([sys.executable, "-c", """if True:
        import sys, torch, torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18(weights=None).eval()
        torch.onnx.export(model, torch.rand(1, 3, 224, 224), sys.argv[1], input_names=["image"])
        """, path], check=True)
    return path


def latency(path):
    x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)
    np.save(os.path.join(os.path.dirname(path), "image.npy"), x)
    print("## resnet18 latency: Python vs CLI, ms (best of %d after a warm-up)\n" % RUNS)
    print("| threads | Python m(x) | CLI --benchmark | Python/CLI |\n|---|---|---|---|")
    for threads in (1, 2):
        m = jitrun.load(path, threads=threads)
        out = np.empty((1, 1000), np.float32)
        m(x, out=out)
        best = float("inf")
        for _ in range(RUNS):
            start = time.perf_counter()
            m(x)
            best = min(best, (time.perf_counter() - start) * 1e3)
        cli = subprocess.run([os.path.join(TOOLS, "jitrun"), path, "--threads=%d" % threads,
                              "--input=@" + os.path.join(os.path.dirname(path), "image.npy"),
                              "--output=@" + os.path.join(os.path.dirname(path), "out.npy"),
                              "--benchmark=%d" % RUNS], capture_output=True, text=True,
                             check=True).stdout
        cli_ms = float(re.search(r"latency_ms min=([0-9.]+)", cli).group(1))
        print("| %d | %.3f | %.3f | %.3f |" % (threads, best, cli_ms, best / cli_ms))
    print()


def warm_starts(paths, work):
    print("## Warm start: load time with the fused program and kernels cached\n")
    print("| model | cold load s | warm load s | warm CLI process s (run included) |")
    print("|---|---|---|---|")
    for name, path, flags in paths:
        cache = tempfile.mkdtemp(dir=work)
        start = time.perf_counter()
        jitrun.load(path, cache_dir=cache)
        cold = time.perf_counter() - start
        warm = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            m = jitrun.load(path, cache_dir=cache)
            warm = min(warm, time.perf_counter() - start)
            assert m.statistics["cached_program"] == 1
        cli = float("inf")
        cmd = [os.path.join(TOOLS, "jitrun"), path, "--cache-dir=" + cache,
               "--output=@" + os.path.join(work, "o.npy")] + flags
        subprocess.run(cmd, check=True, capture_output=True)  # the CLI's own kernels' key
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            cli = min(cli, time.perf_counter() - start)
        print("| %s | %.3f | %.3f | %.3f |" % (name, cold, warm, cli))
    print()


def main():
    work = tempfile.mkdtemp(prefix="python-bench-")
    overhead(work)
    resnet = export_resnet18(work)
    latency(resnet)
    paths = [("resnet18.onnx (torchvision)", resnet, ["--input=1x3x224x224xf32"])]
    corpus = os.path.join(BUILD, "corpus", "resnet18.mlir")
    if os.path.exists(corpus):
        paths.append(("resnet18 (corpus, desplatted)", corpus, ["--input=1x3x32x32xf32"]))
    mobilenet = os.path.join(BUILD, "zoo-full", "mobilenet_v2.mlirbc")
    if not os.path.exists(mobilenet):
        os.makedirs(os.path.dirname(mobilenet), exist_ok=True)
        subprocess.run([os.path.join(TOOLS, "modelgen"), "mobilenet_v2", "--size=full", "-o",
                        mobilenet], check=True)
    paths.append(("mobilenet_v2 (zoo, full size)", mobilenet, ["--input=1x224x224x3xf32"]))
    warm_starts(paths, work)


if __name__ == "__main__":
    main()
