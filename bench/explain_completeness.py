#!/usr/bin/env python3
"""How closely Integrated Gradients' attributions add up (issue 34): runs
`treelens-cli explain --json` over the first N/2 sentences of rt-polarity.neg and .pos
(Dependency-Transformer) and the first N pairs of WikiQA dev (GGSA) and prints, per
model, the relative completeness gap |sum - (f(input) - f(baseline))| / |f(input) -
f(baseline)| as JSON: count, median, 90th percentile, max, the share within 2%, and the
worst input. Needs ../shared/data (the sentence-polarity and wikiqa folders).

    bench/explain_completeness.py [--cli build/ci/app/treelens-cli] [--n 60] [--steps 256]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")


def stats(name, rows):
    rel = sorted((abs(r["completeness_gap"]) / max(1e-12, abs(r["f_input"] - r["f_baseline"])), i) for i, r in enumerate(rows))
    vals = [v for v, _ in rel]
    return {
        "model": name,
        "count": len(vals),
        "median": vals[len(vals) // 2],
        "p90": vals[int(0.9 * (len(vals) - 1))],
        "max": vals[-1],
        "within_2_percent": sum(v <= 0.02 for v in vals) / len(vals),
        "max_abs_gap": max(abs(r["completeness_gap"]) for r in rows),
        # The inputs over 2%: their f(input) - f(baseline) and gap.
        "over_2_percent": [{"input": i + 1, "delta": rows[i]["f_input"] - rows[i]["f_baseline"], "gap": rows[i]["completeness_gap"]}
                           for v, i in rel if v > 0.02],
    }


def run(cli, args):
    out = subprocess.run([cli, "explain", "--json"] + args, check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "ci", "app", "treelens-cli"))
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--steps", type=int, default=256)
    a = ap.parse_args()
    polarity = os.path.join(DATA, "sentence-polarity")
    wikiqa = os.path.join(DATA, "wikiqa", "dev")
    if not os.path.isdir(polarity) or not os.path.isdir(wikiqa):
        print("explain_completeness: SKIPPED: ../shared/data (sentence-polarity, wikiqa) not found", file=sys.stderr)
        return 0
    models = os.path.join(ROOT, "resources", "models")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        # Polarity: the first N/2 sentences of rt-polarity.neg and of .pos (completeness does
        # not depend on whether the model saw them in training).
        sentences = []
        for name in ("rt-polarity.neg", "rt-polarity.pos"):
            with open(os.path.join(polarity, name), encoding="latin-1") as f:
                lines = [l.strip() for l in f if l.strip()]
            sentences += lines[: a.n // 2]
        path = os.path.join(tmp, "polarity.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(sentences) + "\n")
        rows = run(a.cli, ["--model", os.path.join(models, "dependency-transformer-en-polarity.safetensors"), "--input", path,
                           "--steps", str(a.steps)])
        results.append(stats("dependency-transformer-en-polarity", rows))
        cols = [open(os.path.join(wikiqa, n), encoding="utf-8").read().split("\n") for n in ("id.txt", "a.toks", "b.toks", "sim.txt")]
        path = os.path.join(tmp, "pairs.tsv")
        with open(path, "w", encoding="utf-8") as f:
            for i in range(a.n):
                f.write("\t".join(c[i] for c in cols) + "\n")
        rows = run(a.cli, ["--model", os.path.join(models, "ggsa-en-wikiqa.safetensors"), "--pairs", path, "--steps", str(a.steps)])
        results.append(stats("ggsa-en-wikiqa", rows))
    print(json.dumps({"steps": a.steps, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
