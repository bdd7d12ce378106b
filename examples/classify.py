#!/usr/bin/env python3
"""The Python twin of classify.cpp: load a model, fill its input with one
value, run it, print the five largest values of the first result.
Usage: classify.py MODEL [FILL=0.5] [THREADS=0]"""
import sys

import numpy as np

import jitrun


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: classify.py MODEL [FILL=0.5] [THREADS=0]")
    fill = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    model = jitrun.load(sys.argv[1], threads=threads)
    (info,) = model.inputs
    scores = model.run([np.full(info.shape, fill, dtype=info.dtype)])[0].ravel()
    top = sorted(range(scores.size), key=lambda i: (-scores[i], i))[:5]
    print("model: %s (@%s), jitrun %s, %d threads" % (sys.argv[1], model.function,
                                                      jitrun.__version__, model.threads))
    print("top %d:" % len(top))
    for i in top:
        print("  index %d: %.6g" % (i, scores[i]))


if __name__ == "__main__":
    main()
