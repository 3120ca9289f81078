#!/usr/bin/env python3
"""The Markdown tables of docs/recursive-models.md from the runs of
scripts/run_recursive_experiments.sh (build/train/rec-*-s{1,2,3}/ and the
Dependency-Transformer's build/train/dt-abl-full-s{1,2,3}/): the dev accuracy of
the kept epoch and the training wall time per epoch from log.jsonl, the test
accuracy from its "final" event (scored once, after training).
Usage: scripts/recursive_tables.py [BUILD_TRAIN_DIR]"""
import glob
import json
import os
import re
import statistics
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "build/train"


def read(log):
    best, evals, test = None, [], None
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if e.get("event") == "eval":
                evals.append(e["elapsed_s"])
                if e.get("improved"):
                    best = e["value"]
            if e.get("event") == "final":
                m = re.search(r"test accuracy ([0-9.]+)", e.get("report", ""))
                test = float(m.group(1)) if m else None
    # Seconds per epoch: the loop's wall time to each epoch's evaluation, averaged.
    per_epoch = evals[-1] / len(evals) if evals else None
    return best, test, per_epoch


def spread(xs):
    if not xs:
        return "—"
    vals = ", ".join(f"{x:.4f}" for x in xs)
    return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f} ({vals})" if len(xs) > 1 else f"{xs[0]:.4f}"


rows = {}
for d in sorted(glob.glob(os.path.join(root, "rec-*-s[0-9]")) + glob.glob(os.path.join(root, "dt-abl-full-s[0-9]"))):
    log = os.path.join(d, "log.jsonl")
    if not os.path.exists(log):
        continue
    name, seed = os.path.basename(d).rsplit("-s", 1)
    rows.setdefault(name, []).append((int(seed),) + read(log))

names = {
    "rec-ctt": "CTT (multi-branch, no PE)",
    "rec-dtt": "DTT (multi-branch, no PE)",
    "rec-dtte": "DTT + edge labels",
    "rec-tlcs": "Child-Sum Tree-LSTM + attention (self query)",
    "rec-tlbin": "binary Tree-LSTM + attention (self query)",
    "dt-abl-full": "Dependency-Transformer (seed 003, full)",
    "rec-ctt-pe": "CTT, positional encoding on",
    "rec-ctt-multihead": "CTT, multi-head composition",
    "rec-ctt-singlehead": "CTT, single-head composition",
    "rec-dtt-pe": "DTT, positional encoding on",
    "rec-dtt-multihead": "DTT, multi-head composition",
    "rec-dtt-singlehead": "DTT, single-head composition",
}
for title, keys in (("Models", ["rec-ctt", "rec-dtt", "rec-dtte", "rec-tlcs", "rec-tlbin", "dt-abl-full"]),
                    ("Ablations", ["rec-ctt", "rec-ctt-pe", "rec-ctt-multihead", "rec-ctt-singlehead",
                                   "rec-dtt", "rec-dtt-pe", "rec-dtt-multihead", "rec-dtt-singlehead"])):
    print(f"### {title}\n")
    print("| model | seeds | dev accuracy | test accuracy | s / epoch (1 thread, 2 runs at a time) |")
    print("|---|---|---|---|---|")
    for k in keys:
        r = sorted(rows.get(k, []))
        if not r:
            continue
        dev = [x[1] for x in r if x[1] is not None]
        test = [x[2] for x in r if x[2] is not None]
        sec = [x[3] for x in r if x[3] is not None]
        print(f"| {names.get(k, k)} | {len(r)} | {spread(dev)} | {spread(test)} | {statistics.mean(sec):.1f} |")
    print()
