#!/usr/bin/env python3
"""The Markdown tables of docs/tree-aggregation-transformer.md from the runs of
scripts/run_tat_experiments.sh (build/train/tat-wikiqa-*/: the dev MAP of the kept
epoch from log.jsonl, test MAP/MRR/P@1 from test.tsv through score_pairs_map.py)
and the `probe-pairs --json` reports in build/train/tat-probes/*.json.
Usage: scripts/tat_tables.py [BUILD_TRAIN_DIR]"""
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score_pairs_map import score  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else "build/train"


def best_dev(log):
    best = None
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if e.get("event") == "eval" and e.get("improved"):
                best = e["details"]
    return best


def spread(xs):
    return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f}" if len(xs) > 1 else f"{xs[0]:.4f}"


rows = {}
for d in sorted(glob.glob(os.path.join(root, "tat-wikiqa-*-s*"))):
    name = os.path.basename(d)
    variant, seed = name[len("tat-wikiqa-"):].rsplit("-s", 1)
    dev = best_dev(os.path.join(d, "log.jsonl"))
    test = score(os.path.join(d, "test.tsv"))
    rows.setdefault(variant, []).append((int(seed), dev, test))

print("| model | seed | dev MAP | test MAP | test MRR | test P@1 |")
print("|---|---|---|---|---|---|")
for variant in ("full", "semantic", "sequential"):
    for seed, dev, test in sorted(rows.get(variant, [])):
        print(f"| {variant} | {seed} | {dev['map']:.4f} | {test['map']:.4f} | {test['mrr']:.4f} | {test['p_at_1']:.4f} |")
print()
print("| model | dev MAP (mean ± sd, 3 seeds) | test MAP | test MRR | test P@1 |")
print("|---|---|---|---|---|")
for variant in ("full", "semantic", "sequential"):
    r = rows.get(variant, [])
    if r:
        print(f"| {variant} | {spread([x[1]['map'] for x in r])} | {spread([x[2]['map'] for x in r])} | "
              f"{spread([x[2]['mrr'] for x in r])} | {spread([x[2]['p_at_1'] for x in r])} |")

probes = {}
for p in sorted(glob.glob(os.path.join(root, "tat-probes", "*.json"))):
    for m in json.load(open(p)):
        kind = "tree" if "full" in m["model"] else "sequential"
        if m["random_init"]:
            kind += " (random init)"
        for r in m["rows"]:
            probes.setdefault((kind, r["task"]), []).append(r)
if probes:
    print()
    print("| representation | TopConst macro-F1 | TreeDepth macro-F1 | SentLen MSE | runs |")
    print("|---|---|---|---|---|")
    for kind in ("tree", "sequential", "tree (random init)", "sequential (random init)"):
        cells = [spread([r["probe"] for r in probes.get((kind, t), [])]) if probes.get((kind, t)) else "—"
                 for t in ("topconst", "treedepth", "sentlen")]
        print(f"| {kind} | {' | '.join(cells)} | {len(probes.get((kind, 'topconst'), []))} |")
    base = {t: probes[("tree", t)][0]["baseline"] for t in ("topconst", "treedepth", "sentlen") if ("tree", t) in probes}
    print(f"| majority class / train mean | {base.get('topconst', 0):.4f} | {base.get('treedepth', 0):.4f} | "
          f"{base.get('sentlen', 0):.2f} | |")
