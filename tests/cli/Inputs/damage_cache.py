"""Damages every entry of a jitrun kernel cache one way (kernel_cache.mlir).

Usage: damage_cache.py DIR workgroups10|workgroups0|workgroups1|xorcode|swap
       damage_cache.py DIR truncate-program|flip-program|swap-program
       damage_cache.py DIR flip-weights|remove-weights
An entry is a header line (jitrun-kernel KEY WORKGROUPS STACK VECTOR VNNI
SIZE SHA256) and the object file; every kind of damage must be a miss.
"""
import glob
import os
import sys

directory, how = sys.argv[1], sys.argv[2]
if how.endswith("-weights"):
    # Weight files (program_cache.mlir): a header line (jitrun-weights HASH
    # SIZE) padded to 4096 bytes, then the bytes whose BLAKE3 is HASH.
    files = sorted(glob.glob(directory + "/*.jrw"))
    assert files, directory
    for f in files:
        if how == "remove-weights":
            os.remove(f)
            continue
        d = open(f, "rb").read()
        open(f, "wb").write(d[:-1] + bytes([d[-1] ^ 0x01]))
    sys.exit(0)
if how.endswith("-program"):
    # Program entries (program_cache.mlir): a header line (jitrun-program KEY
    # SIZE BLAKE3) padded to 4096 bytes and MLIR bytecode.
    files = sorted(glob.glob(directory + "/*.jrp"))
    assert files, directory
    datas = [open(f, "rb").read() for f in files]
    if how == "truncate-program":
        datas = [d[: len(d) * 2 // 3] for d in datas]
    elif how == "flip-program":
        datas = [d[:-100] + bytes([d[-100] ^ 0x20]) + d[-99:] for d in datas]
    elif how == "swap-program":
        assert len(files) >= 2, files
        bodies = [d.partition(b"\n") for d in datas]
        # Each keeps its own header over the next one's payload.
        datas = [bodies[i][0] + b"\n" + bodies[(i + 1) % len(bodies)][2]
                 for i in range(len(bodies))]
    for f, d in zip(files, datas):
        open(f, "wb").write(d)
    sys.exit(0)
files = sorted(glob.glob(directory + "/*.jrk"))
assert len(files) >= 2, files
entries = []
for f in files:
    with open(f, "rb") as fh:
        entries.append(fh.read())
if how == "swap":
    entries = entries[1:] + entries[:1]
for f, data in zip(files, entries):
    header, _, obj = data.partition(b"\n")
    fields = header.split(b" ")
    if how.startswith("workgroups"):
        wg = int(fields[2])
        fields[2] = str(wg * 10 if how == "workgroups10" else int(how[10:])).encode()
        if fields[2] == str(wg).encode():  # already that count: change it anyway
            fields[2] = str(wg + 1).encode()
    elif how == "xorcode":
        mid = len(obj) // 2
        obj = obj[:mid] + bytes(b ^ 0x5A for b in obj[mid:mid + 4]) + obj[mid + 4:]
    with open(f, "wb") as fh:
        fh.write(b" ".join(fields) + b"\n" + obj)
