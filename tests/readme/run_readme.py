#!/usr/bin/env python3
"""Runs README.md's code blocks as a reader would, in order, in a scratch
directory: ```python blocks in one interpreter (later blocks use earlier
names, as in a notebook), ```sh blocks with bash (-e, pipefail) with the
build tree's jitrun on PATH and its Python package on PYTHONPATH, ```c
blocks compiled (-Wall -Werror) against the build tree's libjitrun and run.
A block preceded by `<!-- not run by tests/readme: REASON -->` is skipped
with its reason; blocks of other languages are output samples.
Usage: run_readme.py README BUILD_DIR SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

readme, build, source = (os.path.abspath(p) for p in sys.argv[1:4])
text = open(readme).read()
blocks = []
for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
    before = text[:m.start()].rstrip().splitlines()
    skip = re.match(r"<!-- not run by tests/readme: (.*) -->", before[-1]) if before else None
    line = text[:m.start()].count("\n") + 1
    blocks.append((line, m.group(1), m.group(2), skip.group(1) if skip else None))

work = tempfile.mkdtemp(prefix="readme-")
# A user's environment: the default cache folder, under a scratch $HOME.
for var in ("JITRUN_CACHE_DIR", "XDG_CACHE_HOME"):
    os.environ.pop(var, None)
os.environ["HOME"] = work
env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"),
           PATH=os.path.join(build, "tools") + os.pathsep + os.environ["PATH"])
sys.path.insert(0, os.path.join(build, "python"))
os.chdir(work)
namespace = {"__name__": "__readme__"}
ran = {"python": 0, "sh": 0, "c": 0}
for line, lang, code, skip in blocks:
    where = "README.md:%d (```%s)" % (line, lang)
    if skip:
        print("skipped %s: %s" % (where, skip))
        continue
    if lang not in ran:
        continue
    print("running %s" % where, flush=True)
    if lang == "python":
        exec(compile(code, where, "exec"), namespace)
    elif lang == "sh":
        res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], env=env)
        if res.returncode:
            sys.exit("%s failed with exit status %d" % (where, res.returncode))
    elif lang == "c":
        exe = os.path.join(work, "readme_%d" % line)
        with open(exe + ".c", "w") as f:
            f.write(code)
        subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", exe + ".c", "-o", exe,
                        "-I" + os.path.join(source, "api", "include"),
                        "-L" + os.path.join(build, "api"), "-ljitrun",
                        "-Wl,-rpath," + os.path.join(build, "api")], check=True)
        subprocess.run([exe], check=True, env=env)
    ran[lang] += 1
print("README.md: ran %s" % ", ".join("%d %s" % (n, l) for l, n in ran.items()))
if not all(ran.values()):
    sys.exit("README.md: a kind of block ran zero times: %s" % ran)
