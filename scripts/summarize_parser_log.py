#!/usr/bin/env python3
"""Markdown summary of a `treelens-cli train-parser dep|const` JSON-lines log:
dev scores per epoch (every EVERY-th, plus the best and the last) and the final
report. Usage: summarize_parser_log.py LOG [EVERY]"""
import json, sys

log = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
every = int(sys.argv[2]) if len(sys.argv) > 2 else 5
epochs = [e for e in log if "epoch" in e and ("dev" in e or "dev_labelled_f1" in e)]
final = [e["final"] for e in log if "final" in e]
if not epochs:
    sys.exit("no epoch records in " + sys.argv[1])
dep = "dev" in epochs[0]
best = max(epochs, key=lambda e: e["dev"]["las"] if dep else e["dev_labelled_f1"])
keep = [e for e in epochs if e["epoch"] % every == 0 or e["epoch"] <= 3 or e is best or e is epochs[-1]]
seen = set()
if dep:
    print("| epoch | loss | dev UAS | dev LAS | dev UPOS | dev XPOS | lr | elapsed (s) |")
    print("|---|---|---|---|---|---|---|---|")
else:
    print("| epoch | loss | dev labelled F1 (gold tags) | lr | elapsed (s) |")
    print("|---|---|---|---|---|")
for e in keep:
    if e["epoch"] in seen:
        continue
    seen.add(e["epoch"])
    mark = " (best)" if e is best else ""
    if dep:
        d = e["dev"]
        print(f"| {e['epoch']}{mark} | {e['loss']:.3f} | {d['uas']:.2f} | {d['las']:.2f} | {d['upos']:.2f} | {d['xpos']:.2f} | "
              f"{e['lr']:.2e} | {e['elapsed_seconds']:.0f} |")
    else:
        print(f"| {e['epoch']}{mark} | {e['loss']:.4f} | {e['dev_labelled_f1']:.2f} | {e['lr']:.2e} | {e['elapsed_seconds']:.0f} |")
if final:
    print("\nFinal report (best epoch; written into the model file's metrics):\n")
    print("```json")
    print(json.dumps(final[-1], indent=1, sort_keys=True))
    print("```")
