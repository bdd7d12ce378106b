"""Fake cache entries for cache_prune.mlir, and what became of them.

Usage: cache_files.py make DIR | list DIR"""
import os
import sys
import time

how, folder = sys.argv[1], sys.argv[2]
FILES = {"old.jrk": (10 ** 6, 2), "mid.jrk": (10 ** 6, 1), "ancient.jrp": (10, 40),
         "ancient.jrw": (10, 45), "notes.txt": (3 * 10 ** 6, 50)}
if how == "make":
    now = time.time()
    for name, (size, days) in FILES.items():
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(b"x" * size)
        os.utime(path, (now - days * 86400, now - days * 86400))
else:
    present = sorted(os.listdir(folder))
    kept = [f for f in present if f in FILES]
    new = [f for f in present if f not in FILES and f.endswith((".jrk", ".jrp", ".jrw"))]
    gone = sorted(f for f in FILES if f not in present)
    print("kept: %s; new entries: %d; gone: %s" % (" ".join(kept), len(new), " ".join(gone)))
