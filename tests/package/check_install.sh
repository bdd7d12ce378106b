#!/usr/bin/env bash
# The installed package: `cmake --install` into a scratch prefix, build
# examples/ against it with find_package(jitrun), run the example on a zoo
# model, and check its top-5 against the installed jitrun CLI's result for the
# same input. Usage: check_install.sh BUILD_DIR SOURCE_DIR ZOO_DIR
set -euo pipefail
build=$1 src=$2 zoo=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
for f in include/jitrun/jitrun.h include/jitrun/jitrun.hpp lib/cmake/jitrun/jitrunConfig.cmake bin/jitrun; do
  [ -e "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
cmake -S "$src/examples" -B "$tmp/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/examples" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
# The example runs on the installed library, not the build tree's. ldd's
# output is read whole first: `ldd | grep -q` under pipefail fails whenever
# grep exits on its first match before ldd has written the rest (SIGPIPE).
libs=$(ldd "$tmp/examples/classify")
case "$libs" in
  *"$tmp/prefix/lib/libjitrun.so"*) ;;
  *) echo "classify does not load the installed libjitrun:"; echo "$libs"; exit 1 ;;
esac
"$tmp/examples/classify" "$zoo/mnist.mlirbc" 0.25 2 | tee "$tmp/classify.txt"
"$tmp/prefix/bin/jitrun" "$zoo/mnist.mlirbc" --input=1x1x28x28xf32=0.25 --output=@"$tmp/ref.npy" > /dev/null
python3 "$src/tests/package/compare_top.py" "$tmp/classify.txt" "$tmp/ref.npy"
