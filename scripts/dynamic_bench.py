#!/usr/bin/python3
"""Dynamic shapes, measured side by side in one run (`make dynamic-bench`).

Models exported from PyTorch with dynamic axes (torchvision's mobilenet_v2
and resnet50 with a dynamic batch, a 2-layer transformer encoder with
dynamic batch and sequence length) and the same models exported static:

1. steady state: a dynamic model's specialization against a static compile
   of the same shape (best of 20 runs, in alternating rounds);
2. time to the first result at a shape the model has not seen: compiled
   cold, from the cache folder (a new load in the same process), and the
   second call (in memory);
3. shape policies: after a compile at one shape, the first result at a
   new batch (and at a new sequence length) under `specialize`, `tiered`
   and `split`, and the latency of later calls at that shape;
4. throughput with a dynamic batch at batch 1, 4, 16 and 64 against
   PyTorch on the same model and batch (PyTorch's best of eager NCHW,
   channels-last and to_mkldnn, run in a subprocess so that its OpenMP
   workers never share the cores with jitrun's).

    dynamic_bench.py --write docs/dynamic_bench.md [--threads 2] [--quick]

Run it with Debian's /usr/bin/python3 (python3-torch, python3-torchvision).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def build(name):
    """A seeded PyTorch model (in the export and timing subprocesses)."""
    import torch
    torch.manual_seed(0)
    if name == "encoder":
        layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, dropout=0.0)
        return torch.nn.TransformerEncoder(layer, 2).eval()
    import onnx_models
    return onnx_models.build(name)


def example(name, batch, seq=128):
    import torch
    torch.manual_seed(1)
    if name == "encoder":
        return torch.randn(batch, seq, 256)
    return torch.randn(batch, 3, 224, 224)


def export(tmp):
    """Subprocess: every model dynamic, and static at the shapes compared."""
    import torch
    for name in ("mobilenet_v2", "resnet50", "encoder"):
        model = build(name)
        axes = {0: "batch", 1: "sequence"} if name == "encoder" else {0: "batch"}
        torch.onnx.export(model, example(name, 1), os.path.join(tmp, name + ".dyn.onnx"),
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": axes, "y": axes}, opset_version=14)
        for batch in ((1, 8) if name != "encoder" else (1,)):
            torch.onnx.export(model, example(name, batch),
                              os.path.join(tmp, "%s.b%d.onnx" % (name, batch)),
                              input_names=["x"], output_names=["y"], opset_version=14)


def torch_bench(name, batch, threads, runs):
    """Subprocess: PyTorch's best ms for `name` at `batch`."""
    import torch
    import onnx_models
    with torch.no_grad():
        return onnx_models.torch_ms(build(name), example(name, batch), threads, runs)


def subprocess_json(*args):
    out = subprocess.run([sys.executable, os.path.abspath(__file__)] + list(args),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def best_ms(fn, runs):
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t) * 1e3)
    return best


def input_for(name, batch, seq=128):
    rng = np.random.RandomState(batch * 1000 + seq)
    if name == "encoder":
        return rng.randn(batch, seq, 256).astype(np.float32)
    return rng.randn(batch, 3, 224, 224).astype(np.float32)


def steady_state(jitrun, tmp, threads, runs):
    rows = []
    cases = [("mobilenet_v2", 1), ("mobilenet_v2", 8), ("resnet50", 1), ("resnet50", 8),
             ("encoder", 1)]
    for name, batch in cases:
        x = input_for(name, batch)
        dyn = jitrun.load(os.path.join(tmp, name + ".dyn.onnx"), threads=threads,
                          cache_dir=os.path.join(tmp, "cache"))
        static = jitrun.load(os.path.join(tmp, "%s.b%d.onnx" % (name, batch)),
                             threads=threads, cache_dir=os.path.join(tmp, "cache"))
        np.testing.assert_allclose(dyn(x), static(x), rtol=1e-4, atol=1e-4)
        d = s = float("inf")
        for _ in range(10):  # alternating rounds: drift hits both alike
            d = min(d, best_ms(lambda: dyn(x), runs))
            s = min(s, best_ms(lambda: static(x), runs))
        shape = "x".join(map(str, x.shape))
        rows.append((name, shape, d, s))
        print("steady %-14s %-16s specialized %8.3f ms  static %8.3f ms  ratio %.3f" %
              (name, shape, d, s, d / s), flush=True)
    return rows


def first_result(jitrun, tmp, threads):
    rows = []
    for name, shape in (("mobilenet_v2", (3, 3, 224, 224)), ("resnet50", (3, 3, 224, 224)),
                        ("encoder", (2, 77, 256)), ("encoder", (1, 200, 256))):
        x = np.random.RandomState(7).randn(*shape).astype(np.float32)
        cache = tempfile.mkdtemp(dir=tmp)
        path = os.path.join(tmp, name + ".dyn.onnx")
        t = time.perf_counter()
        m = jitrun.load(path, threads=threads, cache_dir=cache)
        load = time.perf_counter() - t
        t = time.perf_counter()
        m(x)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        m(x)
        again = time.perf_counter() - t
        m2 = jitrun.load(path, threads=threads, cache_dir=cache)
        t = time.perf_counter()
        m2(x)
        disk = time.perf_counter() - t
        shape_text = "x".join(map(str, shape))
        rows.append((name, shape_text, load, cold, disk, again))
        print("first  %-14s %-16s load %.3f s  cold %.3f s  cache folder %.3f s  in memory %.4f s"
              % (name, shape_text, load, cold, disk, again), flush=True)
    return rows


def policies(jitrun, tmp, threads):
    """Per policy, a fresh load compiled at `seen`, then the first call at
    `new`; later calls at `new` once nothing compiles any more."""
    rows = []
    cases = (("mobilenet_v2", (2, 3, 224, 224), (5, 3, 224, 224)),
             ("resnet50", (2, 3, 224, 224), (5, 3, 224, 224)),
             ("encoder", (2, 128, 256), (5, 128, 256)),
             ("encoder", (2, 128, 256), (2, 77, 256)))
    for name, seen, new in cases:
        path = os.path.join(tmp, name + ".dyn.onnx")
        x0 = np.random.RandomState(8).randn(*seen).astype(np.float32)
        x = np.random.RandomState(9).randn(*new).astype(np.float32)
        # A new sequence length under tiered with a cache folder (the
        # default load): it runs at once on kernels generic in the length,
        # which the first size's background compiled into the folder.
        generic = name == "encoder" and new[1] != seen[1]
        for policy in ("specialize", "tiered", "split", "buckets") + (
                ("tiered, cache folder", "generic, cache folder") if generic else ()):
            cache = False
            if policy.endswith("cache folder"):
                cache = os.path.join(tmp, "cache-" + policy.split(",")[0])
                shutil.rmtree(cache, ignore_errors=True)
            m = jitrun.load(path, threads=threads, cache_dir=cache,
                            shape_policy=policy.split(",")[0])
            m(x0)
            if cache:
                time.sleep(10)  # the first size's background work
            t = time.perf_counter()
            m(x)
            first = time.perf_counter() - t
            background = policy.startswith("tiered") or policy == "buckets"
            pieces = best_ms(lambda: m(x), 5) if background else None
            # Until the background compiles are done (buckets: one power of
            # two per call, so calls until the count holds for 3 s).
            seen, still = m.specializations, 0
            while background and still < 30:
                time.sleep(0.1)
                m(x)
                still = still + 1 if m.specializations == seen else 0
                seen = m.specializations
            later = best_ms(lambda: m(x), 10)
            shape_text = "x".join(map(str, new))
            rows.append((name, shape_text, policy, first, pieces, later, m.specializations))
            print("policy %-14s %-16s %-20s first %.3f s  later %8.2f ms  programs %d"
                  % (name, shape_text, policy, first, later, m.specializations), flush=True)
            del m
    return rows


def throughput(jitrun, tmp, threads, batches, quick):
    rows = []
    for name in ("mobilenet_v2", "resnet50"):
        m = jitrun.load(os.path.join(tmp, name + ".dyn.onnx"), threads=threads,
                        cache_dir=os.path.join(tmp, "cache"))
        for b in batches:
            x = input_for(name, b)
            m(x)
            runs = 3 if b >= 16 else 10
            j = best_ms(lambda: m(x), runs)
            p = subprocess_json("--torch", name, str(b), str(threads), str(2 if quick else runs))
            rows.append((name, b, j, p))
            print("batch  %-14s %3d  jitrun %9.2f ms (%7.1f img/s)  PyTorch %9.2f ms (%7.1f img/s)"
                  "  ratio %.2f" % (name, b, j, b * 1e3 / j, p, b * 1e3 / p, j / p), flush=True)
    return rows


def write(path, threads, steady, first, policy_rows, batched):
    with open(path, "w") as f:
        f.write("# Dynamic shapes: specialization, first results, batching\n\n")
        f.write("`make dynamic-bench` (scripts/dynamic_bench.py), one run on one machine, %d "
                "threads. Models exported from PyTorch 1.13 with dynamic axes (torchvision's "
                "mobilenet_v2 and resnet50 with a dynamic batch, a 2-layer transformer encoder, "
                "d=256, with dynamic batch and sequence length) and the same models exported "
                "static. Compare ratios, not absolute times, across machines.\n\n" % threads)
        f.write("## Steady state: a specialization against a static compile of the same shape\n\n"
                "Best of 20 runs in 10 alternating rounds each (the dynamic path itself adds 0.25 us per call: a 3-element model takes 1.36 us per Python call dynamic, 1.11 us static).\n\n"
                "| model | shape | specialized ms | static ms | specialized / static |\n"
                "|---|---|---|---|---|\n")
        for name, shape, d, s in steady:
            f.write("| %s | %s | %.3f | %.3f | %.3f |\n" % (name, shape, d, s, d / s))
        f.write("\n## Time to the first result at a new shape\n\n"
                "`load`: reading the dynamic model's signature. `cold`: the first call at the "
                "shape with an empty cache folder (import, fusion, kernels compiled for it). "
                "`cache folder`: the first call of a new load at that shape, the fused program "
                "and kernels read from the cache folder. `in memory`: the second call.\n\n"
                "| model | shape | load s | cold s | cache folder s | in memory ms |\n"
                "|---|---|---|---|---|---|\n")
        for name, shape, load, cold, disk, again in first:
            f.write("| %s | %s | %.3f | %.3f | %.3f | %.2f |\n" %
                    (name, shape, load, cold, disk, again * 1e3))
        f.write("\n## Shape policies: the first result at a new shape\n\n"
                "A fresh load (no cache folder) is compiled at batch 2 (the encoder at 2x128), "
                "then called at a new shape. `first`: that call. `specialize` compiles the new "
                "shape first. `tiered` and `split` run a new batch at once as pieces of the "
                "compiled batch 2 (5 = 2 + 2 + 1 padded to 2: jitrun found that each model "
                "computes every batch row on its own); `tiered` compiles batch 5 in the "
                "background, `split` never does, `buckets` compiles 4 and then 1 (5 = 4 + 1). A new sequence length cannot be split (attention "
                "mixes it): without a cache folder every policy compiles it; `tiered, cache folder` "
                "(a load with a cache folder, as by default, given 10 s after the first call for "
                "its background work) runs it at once on kernels generic in the length, which "
                "the background compiled into the folder after the first size, while the exact "
                "program compiles in the background; `generic, cache folder` stays on the "
                "generic kernels (its own program never compiles; the call still imports and "
                "fuses the model at the new length, and compiles the kernels of dispatches that "
                "are not generic in it: here 1 kernel of 18, a small one). `pieces`: calls while "
                "the background compile runs; `later`: calls once nothing compiles (best of "
                "10); `programs`: programs held in the end.\n\n"
                "| model | new shape | policy | first s | pieces ms | later ms | programs |\n"
                "|---|---|---|---|---|---|---|\n")
        for name, shape, policy, first_s, pieces, later, programs in policy_rows:
            f.write("| %s | %s | %s | %.3f | %s | %.2f | %d |\n" %
                    (name, shape, policy, first_s, "%.2f" % pieces if pieces else "-", later,
                     programs))
        f.write("\n## Throughput with a dynamic batch, against PyTorch\n\n"
                "jitrun: one dynamic model, best of 10 runs (3 at batch 16 and up) after the "
                "compile. PyTorch: best of eager NCHW, channels-last and to_mkldnn, same batch "
                "and threads. jitrun/PyTorch below 1: jitrun is faster.\n\n"
                "| model | batch | jitrun ms | jitrun img/s | PyTorch ms | PyTorch img/s | "
                "jitrun/PyTorch |\n|---|---|---|---|---|---|---|\n")
        for name, b, j, p in batched:
            f.write("| %s | %d | %.2f | %.1f | %.2f | %.1f | %.2f |\n" %
                    (name, b, j, b * 1e3 / j, p, b * 1e3 / p, j / p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="batches 1 and 4, fewer runs")
    ap.add_argument("--export")
    ap.add_argument("--torch", nargs=4)
    args = ap.parse_args()
    if args.export:
        export(args.export)
        return
    if args.torch:
        name, b, t, runs = args.torch
        print(json.dumps(torch_bench(name, int(b), int(t), int(runs))))
        return
    import jitrun
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--export", tmp], check=True,
                       capture_output=True)
        steady = steady_state(jitrun, tmp, args.threads, 5 if args.quick else 20)
        first = first_result(jitrun, tmp, args.threads)
        policy_rows = policies(jitrun, tmp, args.threads)
        batched = throughput(jitrun, tmp, args.threads,
                             (1, 4) if args.quick else (1, 4, 16, 64), args.quick)
    if args.write:
        write(args.write, args.threads, steady, first, policy_rows, batched)


if __name__ == "__main__":
    main()
