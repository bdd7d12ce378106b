"""Checks --profile-sort=time and the --profile-json / --benchmark-json files
against the --profile table: rows slowest first, the same names and ms in
the JSON, the benchmark's percentiles in order. Usage: TABLE PROFILE BENCH"""
import json
import sys

table, profile, bench = (open(p).read() for p in sys.argv[1:4])
rows = [l.split() for l in table.splitlines()
        if l.startswith("profile: ") and not l.startswith(("profile: host", "profile: name", "profile: roofline"))]
ms = [float(r[3]) for r in rows[:-1]]
assert rows[-1][1] == "total", rows[-1]
p = json.loads(profile)
names = [c["name"] for c in p["commands"]]
same = names == [r[1] for r in rows] and all(
    abs(c["ms"] - float(r[3])) < 1e-4 + 1e-3 * float(r[3]) for c, r in zip(p["commands"], rows))
assert p["runs"] == 5 and p["host"]["peak_gflops"] > 0, p
# The model's roofline: the larger of its FLOPs at the peak and its bytes at
# the triad bandwidth, against the measured time per run.
r, host = p["roofline"], p["host"]
limit = max(r["flops"] / (host["peak_gflops"] * 1e9), r["bytes"] / (host["triad_gbs"] * 1e9)) * 1e3
assert abs(r["limit_ms"] - limit) <= 1e-9 + 1e-6 * limit, (r, host)
assert r["flops"] == p["commands"][-1]["flops"] and r["bytes"] > 0, r
assert abs(r["efficiency"] - r["limit_ms"] / r["measured_ms"]) < 1e-9, r
b = json.loads(bench)
ordered = b["min_ms"] <= b["p50_ms"] <= b["p90_ms"] <= b["p99_ms"] <= b["max_ms"]
assert b["threads"] >= 1 and b["throughput_per_s"] > 0 and b["mean_ms"] > 0, b
print("sorted by time: %s; json rows match the table: %s; benchmark runs %d, "
      "p50 <= p90 <= p99 <= max: %s" % (ms == sorted(ms, reverse=True), len(rows) if same else "no",
                                         b["runs"], ordered))
