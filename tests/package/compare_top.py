#!/usr/bin/env python3
"""Checks the example's `index I: V` top-5 lines against an f32 .npy result:
the same indices in the same order, values within 1e-5 relative."""
import ast
import re
import struct
import sys


def read_npy_f32(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not an npy file"
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], header
    body = data[10 + header_len:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))


def main():
    lines = open(sys.argv[1]).read().splitlines()
    top = [(int(m.group(1)), float(m.group(2)))
           for m in (re.match(r"\s+index (\d+): (\S+)", l) for l in lines) if m]
    values = read_npy_f32(sys.argv[2])
    expected = sorted(range(len(values)), key=lambda i: -values[i])[:5]
    if [i for i, _ in top] != expected:
        sys.exit("top-5 indices %s, the CLI's %s" % ([i for i, _ in top], expected))
    for i, v in top:
        if abs(v - values[i]) > 1e-5 * max(1.0, abs(values[i])):
            sys.exit("index %d: %g, the CLI's %g" % (i, v, values[i]))
    print("top-5 matches the jitrun CLI: %s" % expected)


if __name__ == "__main__":
    main()
