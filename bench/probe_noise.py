#!/usr/bin/env python3
"""Probing figures in a fast precision against fp32's seed-to-seed noise.

Reads OUT_DIR/probe-fp32-seedS.json and OUT_DIR/probe-PRECISION-seedS.json (treelens-cli
probe --json reports of the same runs but for --precision) for the seeds given, and for
every task x layer (x pooling) figure prints fp32's mean and range over the seeds, the fast
precision's mean, and whether the fast precision's mean lies within fp32's range widened by
fp32's own seed spread ("within noise"). One JSON object on stdout.
Usage: probe_noise.py PRECISION OUT_DIR SEED [SEED ...]"""
import json, statistics, sys

precision, out = sys.argv[1], sys.argv[2]
seeds = sys.argv[3:]

def figures(report):
    f = {}
    for task, t in report["tasks"].items():
        if t.get("kind") == "sentence":
            metric = "r2" if t["regression"] else "accuracy"
            for layer in t["layers"]:
                for pooling, cell in layer.items():
                    if pooling == "layer":
                        continue
                    f["%s/%s/%s" % (task, layer["layer"], pooling)] = cell["test"][metric]
        elif t.get("kind") == "structural":
            for layer in t["layers"]:
                metric = "uuas" if "uuas" in layer["test"] else "root_accuracy"
                f["%s/%s" % (task, layer["layer"])] = layer["test"][metric]
    return f

def load(p, s):
    with open("%s/probe-%s-seed%s.json" % (out, p, s)) as fh:
        return figures(json.load(fh))

base = [load("fp32", s) for s in seeds]
fast = [load(precision, s) for s in seeds]
rows, outside = [], []
for key in sorted(base[0]):
    a = [b[key] for b in base]
    b = [f[key] for f in fast if key in f]
    lo, hi = min(a), max(a)
    spread = hi - lo
    mean_a, mean_b = statistics.mean(a), statistics.mean(b)
    # Within noise: the fast mean no further from fp32's range than fp32's own seed spread
    # (and, with one seed, within 1 point / 0.01 R2).
    slack = spread if len(seeds) > 1 else (0.01 if abs(mean_a) <= 1.0 else 1.0)
    within = lo - slack <= mean_b <= hi + slack
    rows.append({"figure": key, "fp32_mean": round(mean_a, 4), "fp32_min": lo, "fp32_max": hi,
                 precision + "_mean": round(mean_b, 4), "diff": round(mean_b - mean_a, 4), "within_noise": within})
    if not within:
        outside.append(key)
diffs = [abs(r["diff"]) for r in rows]
print(json.dumps({"probe_noise": precision, "seeds": seeds, "figures": len(rows),
                  "within_noise": len(rows) - len(outside), "outside": outside,
                  "largest_abs_diff": max(diffs) if diffs else 0.0,
                  "median_abs_diff": statistics.median(diffs) if diffs else 0.0, "rows": rows}))
