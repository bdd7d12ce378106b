#!/usr/bin/env bash
# The installed package: `cmake --install` into a scratch prefix, then as its
# users would: examples/ built with find_package(jitrun) (C++ and C), the C
# example alone with xtensor hidden (COMPONENTS C), the C example by
# pkg-config, a C++14 file told clearly that jitrun.hpp needs C++17, and the
# Python package imported from the prefix running examples/classify.py. Each
# example's top-5 is checked against the installed jitrun CLI's result.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR ZOO_DIR
set -euo pipefail
build=$1 src=$2 zoo=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
pydir=$(ls -d "$prefix"/lib/python3*/*-packages)
for f in include/jitrun/jitrun.h include/jitrun/jitrun.hpp lib/cmake/jitrun/jitrunConfig.cmake \
         lib/pkgconfig/jitrun.pc bin/jitrun; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
[ -e "$pydir/jitrun/__init__.py" ] || { echo "not installed: the Python package"; exit 1; }
model=$zoo/mnist.mlirbc
"$prefix/bin/jitrun" "$model" --input=1x1x28x28xf32=0.25 --output=@"$tmp/ref.npy" > /dev/null

# Runs an example and checks its top-5 against the CLI's.
check() {
  local name=$1; shift
  "$@" "$model" 0.25 2 > "$tmp/$name.txt" || { cat "$tmp/$name.txt"; echo "$name failed"; exit 1; }
  echo "$name: $(python3 "$src/tests/package/compare_top.py" "$tmp/$name.txt" "$tmp/ref.npy")"
}
# An executable must load the installed library, not the build tree's. ldd's
# output is read whole first: `ldd | grep -q` under pipefail fails whenever
# grep exits on its first match before ldd has written the rest (SIGPIPE).
uses_installed() {
  local libs path
  libs=$(ldd "$1")
  path=$(echo "$libs" | sed -n 's/.*libjitrun.so[.0-9]* => \(.*\) (0x.*/\1/p')
  case "$(realpath "${path:-/nonexistent}" 2>/dev/null)" in
    "$(realpath "$prefix/lib")"/libjitrun.so*) ;;
    *) echo "$1 does not load the installed libjitrun:"; echo "$libs"; exit 1 ;;
  esac
}

cmake -S "$src/examples" -B "$tmp/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/examples" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
uses_installed "$tmp/examples/classify"
uses_installed "$tmp/examples/classify_c"
check "C++ (find_package)" "$tmp/examples/classify"
check "C (find_package)" "$tmp/examples/classify_c"

# C users need no xtensor: with it hidden from CMake, COMPONENTS C still works.
cmake -S "$src/examples" -B "$tmp/examples-c" -G Ninja -DJITRUN_EXAMPLES_C_ONLY=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_xtensor=ON --no-warn-unused-cli -DCMAKE_PREFIX_PATH="$prefix" \
      > "$tmp/configure-c.log" || { cat "$tmp/configure-c.log"; exit 1; }
cmake --build "$tmp/examples-c" > "$tmp/build-c.log" || { cat "$tmp/build-c.log"; exit 1; }
check "C (COMPONENTS C, no xtensor)" "$tmp/examples-c/classify_c"

# pkg-config, no CMake; -Wall -Werror: the header is warning-free C99.
cc -std=c99 -Wall -Wextra -Werror "$src/examples/classify.c" -o "$tmp/classify_pc" \
   $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs jitrun)
uses_installed "$tmp/classify_pc"
check "C (pkg-config)" "$tmp/classify_pc"

# A C++14 translation unit gets a clear message, not std::void_t errors.
echo '#include <jitrun/jitrun.hpp>' > "$tmp/old.cpp"
if c++ -std=c++14 -fsyntax-only -I"$prefix/include" "$tmp/old.cpp" 2> "$tmp/old.log"; then
  echo "jitrun.hpp compiled as C++14"; exit 1
fi
grep -q "needs C++17" "$tmp/old.log" || { cat "$tmp/old.log"; exit 1; }
echo "C++14: $(grep -o 'needs C++17[^"]*' "$tmp/old.log" | head -1)"

# The Python package from the prefix (Debian's python3, which has NumPy).
(cd "$tmp" && PYTHONPATH="$pydir" /usr/bin/python3 -c \
  "import jitrun, sys; assert jitrun.__file__.startswith(sys.argv[1]), jitrun.__file__" "$pydir")
check "Python (cmake --install)" env PYTHONPATH="$pydir" /usr/bin/python3 "$src/examples/classify.py"
