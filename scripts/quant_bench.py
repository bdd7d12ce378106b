#!/usr/bin/python3
"""Quantized models against their float exports, side by side in one run.

torchvision CNNs (seeded random weights, as onnx_models.py builds them)
exported to ONNX and quantized as ONNX Runtime's quantize_static writes them
(QDQ: int8 per-channel weights, uint8 activations calibrated on the input),
and a 4-layer PyTorch transformer encoder of BERT-base's size quantized as
quantize_dynamic writes it (MatMulInteger, activations quantized per call):
jitrun's best latency of the float and the quantized model at 1 and 2
threads, alternating, and the quantized output against the float one (top-1
agreement for the CNNs, max |int8 - f32| / max |f32|).

    quant_bench.py --write docs/quant_bench.md

Run it with Debian's /usr/bin/python3 (python3-torch, python3-torchvision,
python3-onnx). A benchmark, not a test: it takes minutes.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from onnx_models import build  # noqa: E402
from onnx_quantize import calibration_inputs, quantize_dynamic, quantize_static  # noqa: E402

CNNS = ["resnet18", "resnet50", "mobilenet_v2"]
ROUNDS = 3


def jitrun(cli, path, x_path, *extra):
    p = subprocess.run([cli, path, "--input=@" + x_path] + list(extra),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (path, p.stderr.strip()[-400:]))
    return p.stderr + p.stdout


def best_ms(cli, path, x_path, threads):
    out = jitrun(cli, path, x_path, "--threads=%d" % threads, "--benchmark=10")
    return float(re.search(r"latency_ms min=([0-9.]+)", out).group(1))


def outputs(cli, path, x_path, tmp, count=1):
    names = [os.path.join(tmp, "out%d.npy" % i) for i in range(count)]
    jitrun(cli, path, x_path, *["--output=@" + n for n in names])
    return [np.load(n) for n in names]


def calibrated(cli, f32_path, x_path, tmp):
    """quantize_static's ranges: each quantized activation's min and max on
    the input, from jitrun's run of the float model with them as outputs."""
    model = onnx.load(f32_path)
    names = calibration_inputs(model)
    first = len(model.graph.output)
    for n in names:
        model.graph.output.append(onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
    cal = os.path.join(tmp, "calibrate.onnx")
    onnx.save(model, cal)
    values = outputs(cli, cal, x_path, tmp, first + len(names))[first:]
    return {n: (v.min(), v.max()) for n, v in zip(names, values)}


def encoder(tmp):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True, dropout=0.0)
    enc = torch.nn.TransformerEncoder(layer, 4).eval()
    with torch.no_grad():
        for p in enc.parameters():  # distinct weights per layer
            p.copy_(torch.randn_like(p) * (0.05 if p.dim() > 1 else 0.02))
    x = torch.randn(1, 128, 768)
    path = os.path.join(tmp, "encoder.onnx")
    torch.onnx.export(enc, x, path, opset_version=14)
    return path, x.numpy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jitrun", default=os.path.join(ROOT, "build", "tools", "jitrun"))
    ap.add_argument("--write", help="write the table (markdown) here")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name in CNNS:
            model = build(name)
            x = torch.rand(1, 3, 224, 224)
            f32 = os.path.join(tmp, name + ".onnx")
            torch.onnx.export(model, x, f32, opset_version=14)
            x_path = os.path.join(tmp, name + ".x.npy")
            np.save(x_path, x.numpy())
            q = os.path.join(tmp, name + "_qdq.onnx")
            onnx.save(quantize_static(onnx.load(f32), calibrated(a.jitrun, f32, x_path, tmp)), q)
            cases.append((name + " (QDQ, torchvision)", "1x3x224x224", f32, q, x_path, True))
        f32, x = encoder(tmp)
        x_path = os.path.join(tmp, "encoder.x.npy")
        np.save(x_path, x)
        q = os.path.join(tmp, "encoder_dyn.onnx")
        onnx.save(quantize_dynamic(onnx.load(f32)), q)
        cases.append(("4-layer encoder, d=768 (dynamic, PyTorch)", "1x128x768", f32, q, x_path, False))
        for label, shape, f32, q, x_path, classifier in cases:
            ref, got = outputs(a.jitrun, f32, x_path, tmp)[0], outputs(a.jitrun, q, x_path, tmp)[0]
            err = float(np.abs(got - ref).max() / np.abs(ref).max())
            top1 = ("yes" if ref.argmax() == got.argmax() else "no") if classifier else "-"
            times = {}
            for threads in (1, 2):
                for _ in range(ROUNDS):
                    for kind, path in (("f32", f32), ("int8", q)):
                        t = best_ms(a.jitrun, path, x_path, threads)
                        key = (kind, threads)
                        times[key] = min(times.get(key, t), t)
            row = (label, shape, times[("f32", 1)], times[("int8", 1)], times[("f32", 2)],
                   times[("int8", 2)], top1, err)
            print("%-45s f32 %.2f int8 %.2f (1T)  f32 %.2f int8 %.2f (2T)  top1 %s  err %.2f%%" % (
                row[0], row[2], row[3], row[4], row[5], top1, 100 * err), flush=True)
            rows.append(row)
    if a.write:
        with open(a.write, "w") as f:
            f.write("# Quantized models against their float exports\n\n")
            f.write("`make quant-bench` (scripts/quant_bench.py), one run on one machine: each "
                    "model's float ONNX export and its quantized form (scripts/onnx_quantize.py: "
                    "ONNX Runtime's quantize_static in its default QDQ form, int8 per-channel "
                    "weights and uint8 activations calibrated on the input; quantize_dynamic in "
                    "its MatMulInteger form), jitrun's best of 10 runs in %d alternating rounds "
                    "at 1 and 2 threads. f32/int8 above 1: the quantized model is faster. "
                    "Error: max |int8 - f32| / max |f32| of the output. Compare ratios, not "
                    "absolute times, across machines.\n\n" % ROUNDS)
            f.write("| model | input | f32 1T ms | int8 1T ms | f32/int8 1T | f32 2T ms | "
                    "int8 2T ms | f32/int8 2T | top-1 same | error |\n")
            f.write("|---|---|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                f.write("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.1f%% |\n" % (
                    r[0], r[1], r[2], r[3], r[2] / r[3], r[4], r[5], r[4] / r[5], r[6], 100 * r[7]))
        print("wrote " + a.write)


if __name__ == "__main__":
    main()
