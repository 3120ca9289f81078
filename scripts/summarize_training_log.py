#!/usr/bin/env python3
"""Markdown summary of a TreeLens training log (`treelens-cli train` / `train-parser`,
JSON Lines, core/training/trainer.cpp): the data, then one row per dev evaluation
(every EVERY-th, plus the first three, the best and the last) with the training
loss and learning rate of the last progress record before it, then the final
report. Usage: summarize_training_log.py LOG [EVERY]"""
import json
import sys

log = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
every = int(sys.argv[2]) if len(sys.argv) > 2 else 5
starts = [e for e in log if e.get("event") in ("start", "resume")]
evals = [e for e in log if e.get("event") == "eval"]
finals = [e for e in log if e.get("event") == "final"]
if not evals:
    sys.exit("no dev evaluations in " + sys.argv[1] + " (a log of an earlier TreeLens version?)")

print("# Training log summary\n")
for e in starts:
    print(f"- {e['event']} at step {e['step']}")
if starts:
    print("\nData: " + ", ".join(f"{k} {v}" for k, v in starts[0]["data"].items()) + "\n")

last_batch = {}
batch = None
for e in log:
    if e.get("event") == "batch":
        batch = e
    elif e.get("event") == "eval":
        last_batch[id(e)] = batch
metric = evals[0]["metric"]
valued = [e for e in evals if e["value"] is not None]
higher = metric not in ("held-out MLM loss",)
best = (max if higher else min)(valued, key=lambda e: e["value"]) if valued else None
keys = sorted({k for e in evals for k, v in e.get("details", {}).items() if isinstance(v, (int, float))})
print("| step | epoch | train loss | " + " | ".join([f"dev {metric}"] + keys) + " | lr | elapsed (s) |")
print("|---" * (6 + len(keys)) + "|")
for i, e in enumerate(evals):
    if not (i < 3 or (i + 1) % every == 0 or e is best or i == len(evals) - 1):
        continue
    b = last_batch.get(id(e)) or {}
    value = "–" if e["value"] is None else f"{e['value']:.4g}"
    details = [f"{e['details'][k]:.4g}" if k in e.get("details", {}) else "" for k in keys]
    mark = " (best)" if e is best else ""
    loss = f"{b['loss']:.4f}" if "loss" in b else ""
    lr = f"{b['lr']:.2e}" if "lr" in b else ""
    print(f"| {e['step']}{mark} | {e['epoch']} | {loss} | " + " | ".join([value] + details) + f" | {lr} | {e['elapsed_s']:.0f} |")
if finals and finals[-1].get("report"):
    print("\nFinal report:\n")
    print("```")
    print(finals[-1]["report"])
    print("```")
