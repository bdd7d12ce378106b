"""The RUN commands of a lit test and what each one runs.

Shared by `check_layout.py` (the per-pass test folders hold single-pass runs
only) and kept small: a RUN command is the text of its `RUN:` lines joined at
trailing backslashes.
"""
import re

RUN = re.compile(r"^\s*//\s*RUN:(.*)$")
PIPELINE = re.compile(r"--pass-pipeline='([^']*)'")
FLAG_PASS = re.compile(r"--(jitrun-[a-z0-9-]+)")


def run_commands(text):
    """[(first line index, last line index, command)] of `text`'s RUN lines."""
    runs, current, start = [], None, 0
    for i, line in enumerate(text.splitlines()):
        m = RUN.match(line)
        if not m:
            continue
        part = m.group(1).strip()
        if current is None:
            current, start = "", i
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        runs.append((start, i, (current + part).strip()))
        current = None
    return runs


def passes_of(command):
    """The jitrun passes and pipelines a jit-opt command runs, in order."""
    names = []
    m = PIPELINE.search(command)
    if m:
        names += re.findall(r"(jitrun-[a-z0-9-]+|canonicalize|cse)", m.group(1))
    names += [n for n in FLAG_PASS.findall(command)]
    return names


def kind(command):
    """'cli' (runs jitrun), 'pass' (jit-opt running one pass) or 'pipeline'."""
    if re.search(r"%jitrun\b", command) or "%modelgen" in command:
        return "cli"
    if "%jit-opt" not in command:
        return "cli"
    names = passes_of(command)
    if len(names) == 1 and not names[0].endswith("-pipeline") and \
            names[0] != "jitrun-codegen-tile-and-vectorize":
        return "pass"
    return "pipeline"


def prefixes(command):
    """The FileCheck prefixes a command checks with ({} if no FileCheck)."""
    if "FileCheck" not in command:
        return set()
    found = set()
    for m in re.finditer(r"--check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)", command):
        found.update(m.group(1).split(","))
    return found or {"CHECK"}
