#!/usr/bin/env bash
# `pip install --no-build-isolation .` offline, as the README says: into a
# fresh virtual environment (Debian's python3 with its system packages, for
# NumPy), from the source tree, reusing BUILD_DIR's CMake build. The wheel
# carries libjitrun.so beside the extension; the installed package must load
# that copy, import from the venv (not the build tree) and run a model.
# Usage: check_pip.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
JITRUN_BUILD_DIR="$build" "$tmp/venv/bin/pip" install --no-build-isolation --no-index \
    --disable-pip-version-check -q "$src" > "$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
cd "$tmp"
env -u PYTHONPATH "$tmp/venv/bin/python" - "$tmp/venv" "$build/models/tiny_cnn.mlirbc" <<'PY'
import os, subprocess, sys
import numpy as np
import jitrun
venv, model = sys.argv[1:3]
assert jitrun.__file__.startswith(venv), jitrun.__file__
ext = [f for f in os.listdir(os.path.dirname(jitrun.__file__)) if f.startswith("_jitrun")][0]
libs = subprocess.run(["ldd", os.path.join(os.path.dirname(jitrun.__file__), ext)],
                      capture_output=True, text=True, check=True).stdout
line = [l for l in libs.splitlines() if "libjitrun.so" in l][0]
assert os.path.dirname(jitrun.__file__) in line, line
m = jitrun.load(model)
y = m(np.full(m.inputs[0].shape, 0.5, np.float32))
print("pip install: jitrun %s from %s, %s -> %s" % (jitrun.__version__, os.path.dirname(jitrun.__file__).replace(venv, "VENV"), m.inputs[0].shape, y.shape))
PY
