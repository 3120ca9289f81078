#!/usr/bin/env python3
"""Scores a `treelens-cli score-pairs` TSV (qid, index, label, score) with MAP,
MRR and P@1 under the clean protocol (questions with no correct or only correct
candidates left out), independently of TreeLens's own C++ metrics: used to check
the figures of docs/pairs.md. Ties: sorted by score, then input order.

    python3 scripts/score_pairs_map.py SCORES.tsv [SCORES.tsv ...]
"""
import csv
import sys
from collections import OrderedDict


def score(path):
    groups = OrderedDict()
    with open(path, newline="") as f:
        rows = csv.DictReader(f, delimiter="\t")
        for r in rows:
            groups.setdefault(r["qid"], []).append((float(r["score"]), int(r["index"]), r["label"] == "1"))
    aps, rrs, p1s, dropped = [], [], [], 0
    for cands in groups.values():
        labels = [c[2] for c in cands]
        if not any(labels) or all(labels):
            dropped += 1
            continue
        ranked = sorted(cands, key=lambda c: (-c[0], c[1]))
        hits, precisions, rr = 0, [], 0.0
        for rank, (_, _, correct) in enumerate(ranked, 1):
            if correct:
                hits += 1
                precisions.append(hits / rank)
                if rr == 0.0:
                    rr = 1.0 / rank
        aps.append(sum(precisions) / len(precisions))
        rrs.append(rr)
        p1s.append(1.0 if ranked[0][2] else 0.0)
    n = len(aps)
    return {"questions": n, "dropped": dropped, "map": sum(aps) / n, "mrr": sum(rrs) / n, "p_at_1": sum(p1s) / n}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        s = score(p)
        print(f"{p}: MAP {s['map']:.4f}  MRR {s['mrr']:.4f}  P@1 {s['p_at_1']:.4f}  "
              f"({s['questions']} questions, {s['dropped']} left out)")
