#!/usr/bin/env python3
"""`make check-layout`: the folders and the arrows between them hold.

Each folder may include only the folders its row allows (quoted includes,
`#include "FOLDER/..."`), and the folders that the runtime links must not
see MLIR at all, not even through a contract header:

    support   -> support                                   (no MLIR)
    contract  -> contract                (KernelAbi.h, Target.h, FusionMode.h: no MLIR)
    runtime   -> runtime, support, the MLIR-free contract  (no MLIR)
    fusion    -> fusion, contract
    codegen   -> codegen, contract
    onnx      -> onnx, support            (the ONNX importer: MLIR and protobuf)
    compiler  -> compiler, onnx, fusion, codegen, contract, runtime, support
    api       -> api, compiler, runtime, contract, support
    testing   -> testing, support   (oneDNN references and benchmark peers)
    tools     -> api, support; jit-opt and modelgen, MLIR tools, also
                 fusion, codegen, contract and onnx; bench/ also testing
    python    -> python, and the public C API <jitrun/jitrun.h>  (no MLIR)

No C++ source file is longer than 1000 lines. The lit tests of a folder of
passes (tests/fusion, tests/codegen) run one pass each, so that a failing test
names the pass that broke; pass chains and pipelines live in tests/pipeline,
jitrun runs in tests/cli. Prints each violation and exits 1 if there is any. `--root DIR` checks another tree (its test).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_runs import kind, run_commands  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) > 2 and sys.argv[1] == "--root":  # lit checks the checker
    ROOT = os.path.abspath(sys.argv[2])
MAX_LINES = 1000
MLIR_FREE_CONTRACT = {"contract/KernelAbi.h", "contract/Target.h", "contract/FusionMode.h"}
ALLOWED = {
    "support": {"support"},
    "contract": {"contract"},
    "runtime": {"runtime", "support", "contract"},
    "fusion": {"fusion", "contract"},
    "codegen": {"codegen", "contract"},
    "onnx": {"onnx", "support"},
    "compiler": {"compiler", "onnx", "fusion", "codegen", "contract", "runtime", "support"},
    "api": {"api", "compiler", "runtime", "contract", "support"},
    "testing": {"testing", "support"},
    "tools": {"api", "support", "tools"},
    "python": {"python"},
}
# Tools that are MLIR pass drivers or model generators, not users of the API.
MLIR_TOOLS = ("tools/jit-opt.cpp", "tools/modelgen/")
# The benchmark compares jitrun with the oneDNN primitives of testing/.
BENCH = "tools/bench/"
NO_MLIR = {"support", "runtime", "testing", "python"}
SOURCES = (".cpp", ".h", ".hpp", ".c")
PASS_TEST_FOLDERS = ("tests/fusion", "tests/codegen")
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^">]+)[">]')


def sources(folder):
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(files):
            if f.endswith(SOURCES):
                yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def main():
    problems = []
    for folder, allowed in ALLOWED.items():
        for path in sources(folder):
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                lines = f.readlines()
            if len(lines) > MAX_LINES:
                problems.append("%s: %d lines (at most %d)" % (path, len(lines), MAX_LINES))
            mlir_tool = path.startswith(MLIR_TOOLS)
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                top = inc.split("/")[0]
                where = "%s:%d: includes %s" % (path, n, inc)
                if top == "mlir" and (folder in NO_MLIR or path in MLIR_FREE_CONTRACT):
                    problems.append(where + " (no MLIR here)")
                elif top not in ALLOWED or "/" not in inc:
                    continue  # system, LLVM, third-party or same-directory headers
                elif folder in NO_MLIR and top == "contract" and inc not in MLIR_FREE_CONTRACT:
                    problems.append(where + " (a contract header with MLIR)")
                elif top not in allowed and not (
                        mlir_tool and top in ("fusion", "codegen", "contract", "onnx")) and not (
                        path.startswith(BENCH) and top == "testing"):
                    problems.append(where + " (%s may include only %s)" %
                                    (folder, ", ".join(sorted(allowed))))
    for folder in PASS_TEST_FOLDERS:
        directory = os.path.join(ROOT, folder)
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(folder, name)
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
            for first, _, command in run_commands(text):
                k = kind(command)
                if k != "pass":
                    problems.append("%s:%d: a RUN line of a pass test runs %s "
                                    "(one pass only; move it to tests/%s)" %
                                    (path, first + 1, "jitrun" if k == "cli" else "a pipeline",
                                     "cli" if k == "cli" else "pipeline"))
    for p in problems:
        print(p)
    print("layout: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
