#!/usr/bin/env python3
"""Baselines for minimal pairs that differ in one word (make-pairs' agreement and determiner
pairs, BLiMP's one-word pairs): what a model's accuracy must beat before it says anything
about syntax (docs/minimal-pairs.md, "Accuracy of the shipped masked language models").

    minimal_pairs_baselines.py --pairs PAIRS.jsonl --counts TRAIN.conllu [--records RUN.jsonl]

- `unigram`: the pair is "correct" when the good sentence's word is the more frequent word
  form (lower-cased) in TRAIN (ties and unseen forms count as wrong): a model that only
  knows which of *is*/*are* is commoner scores this.
- `chance`: 0.5.
- with `--records` (minimal-pairs --json of a model on the same pairs): the model's accuracy
  on the pairs where the unigram baseline is wrong, and on those where it is right; and, for
  make-pairs' agreement pairs, by the number of attractors (0, 1, 2+) and by the distance
  between subject and verb (1, 2-3, 4+ words), as Linzen et al. 2016 break it down.

Prints one JSON object (accuracies with Wilson 95 % intervals). Standard library only.
"""
import argparse
import collections
import json
import math
import sys


def wilson(hits, n, z=1.96):
    if n == 0:
        return [0.0, 0.0]
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(centre - half, 4), round(centre + half, 4)]


def proportion(hits, n):
    return {"pairs": n, "correct": hits, "accuracy": round(hits / n, 4) if n else None, "ci95": wilson(hits, n)}


def differing_words(good, bad):
    g, b = good.split(), bad.split()
    if len(g) != len(b):
        return None
    diff = [(x, y) for x, y in zip(g, b) if x != y]
    return diff[0] if len(diff) == 1 else None


def form_counts(conllu):
    counts = collections.Counter()
    with open(conllu, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) == 10 and cols[0].isdigit():
                counts[cols[1].lower()] += 1
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--records")
    args = ap.parse_args(argv)
    counts = form_counts(args.counts)
    unigram_right, groups = {}, {}
    for line in open(args.pairs, encoding="utf-8"):
        if not line.strip():
            continue
        p = json.loads(line)
        words = differing_words(p["sentence_good"], p["sentence_bad"])
        if words is None:
            continue
        good, bad = (w.lower() for w in words)
        key = str(p.get("pairID", len(unigram_right) + 1))
        unigram_right[key] = counts[good] > counts[bad]
        if "attractors" in p and "distance" in p:
            a, d = p["attractors"], p["distance"]
            groups[key] = ("attractors " + ("0" if a == 0 else "1" if a == 1 else "2+"),
                           "distance " + ("1" if d <= 1 else "2-3" if d <= 3 else "4+"))
    n = len(unigram_right)
    out = {"pairs": n, "chance": 0.5, "unigram": proportion(sum(unigram_right.values()), n), "counts": args.counts}
    if args.records:
        split = {True: [0, 0], False: [0, 0]}
        by = collections.defaultdict(lambda: [0, 0])
        for line in open(args.records, encoding="utf-8"):
            r = json.loads(line)
            if "summary" in r or "skipped" in r or r["id"] not in unigram_right:
                continue
            for cell in [split[unigram_right[r["id"]]]] + [by[g] for g in groups.get(r["id"], ())]:
                cell[0] += int(r["correct"])
                cell[1] += 1
        out["model_where_unigram_right"] = proportion(*split[True])
        out["model_where_unigram_wrong"] = proportion(*split[False])
        if by:
            out["model_by"] = {g: proportion(*by[g]) for g in sorted(by)}
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
