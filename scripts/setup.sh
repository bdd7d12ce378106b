#!/usr/bin/env bash
# Installs every Debian package jitrun needs to build and test; a no-op when all are present.
# Debian allows one libmlir-NN-dev at a time: installing 22 lets apt replace an older one.
# `setup.sh sanitize` also installs clang 22 and its sanitizer/libFuzzer runtimes
# (make test-sanitize, make fuzz); the plain command never needs clang.
set -euo pipefail
PKGS=(cmake ninja-build ccache g++ python3 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
      libdnnl-dev libxtensor-dev libxsimd-dev xtl-dev catch2 graphviz
      libonnx-dev libonnx-testdata libprotobuf-dev python3-numpy python3-onnx
      python3-torch python3-torchvision
      python3-dev pybind11-dev libdlpack-dev python3-pytest python3-pip python3-venv pkgconf)
case "${1:-}" in
  "") ;;
  sanitize) PKGS+=(clang-22 libclang-rt-22-dev) ;;
  *) echo "usage: setup.sh [sanitize]" >&2; exit 2 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "setup: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
