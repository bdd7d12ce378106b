#!/usr/bin/env python3
"""An LSTM in plain Python over the weights of `modelgen unidirectional_lstm`
(read from its text form), compared with jitrun's three results: an answer
that does not go through jitrun's host program, so a loop-carrying bug that
the reference path shares still shows. PyTorch gate order i, f, g, o;
gates = x_t W_ih + h W_hh + b; c = sigmoid(f) c + sigmoid(i) tanh(g);
h = sigmoid(o) tanh(c). Usage: lstm_reference.py MODELGEN JITRUN WORKDIR"""
import math
import os
import re
import struct
import subprocess
import sys

modelgen, jitrun, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
text_path = os.path.join(work, "lstm.mlir")
subprocess.run([modelgen, "unidirectional_lstm", "--size=test", "-o", text_path], check=True)
text = open(text_path).read()


def blob(name, rows, cols):
    hexdata = re.search(r'%s: "0x([0-9A-F]+)"' % re.escape(name), text).group(1)
    raw = bytes.fromhex(hexdata)[4:]  # the blob's 4-byte alignment header
    vals = struct.unpack("<%df" % (len(raw) // 4), raw)
    assert len(vals) == rows * cols, (name, len(vals))
    return [list(vals[r * cols:(r + 1) * cols]) for r in range(rows)]


steps, inp, hidden = 4, 8, 16
w_ih = blob("lstm.weight_ih", inp, 4 * hidden)
w_hh = blob("lstm.weight_hh", hidden, 4 * hidden)
bias = blob("lstm.bias", 1, 4 * hidden)[0]
xs = [[math.sin(0.7 * t + 0.3 * i) for i in range(inp)] for t in range(steps)]


def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


h, c, seq = [0.0] * hidden, [0.0] * hidden, []
for x in xs:
    g = [sum(x[k] * w_ih[k][j] for k in range(inp)) + sum(h[k] * w_hh[k][j] for k in range(hidden)) + bias[j]
         for j in range(4 * hidden)]
    ig, fg, gg, og = (g[q * hidden:(q + 1) * hidden] for q in range(4))
    c = [sigmoid(fg[j]) * c[j] + sigmoid(ig[j]) * math.tanh(gg[j]) for j in range(hidden)]
    h = [sigmoid(og[j]) * math.tanh(c[j]) for j in range(hidden)]
    seq.extend(h)

flat = ",".join("%.9g" % v for x in xs for v in x)
outs = [os.path.join(work, "out%d.npy" % i) for i in range(3)]
subprocess.run([jitrun, text_path, "--input=%dx1x%dxf32=%s" % (steps, inp, flat)] + sys.argv[4:] +
               ["--output=@" + o for o in outs], check=True, stdout=subprocess.DEVNULL)


def read_npy(path):
    data = open(path, "rb").read()
    n = struct.unpack("<H", data[8:10])[0]
    body = data[10 + n:]
    return struct.unpack("<%df" % (len(body) // 4), body)


worst = 0.0
for name, expected, path in (("sequence", seq, outs[0]), ("h", h, outs[1]), ("c", c, outs[2])):
    got = read_npy(path)
    assert len(got) == len(expected), (name, len(got))
    diff = max(abs(a - b) for a, b in zip(got, expected))
    worst = max(worst, diff)
    if diff > 1e-5:
        sys.exit("%s differs from the Python LSTM by %g" % (name, diff))
print("lstm matches the Python LSTM: max |diff| %.2e" % worst)
