#!/usr/bin/env python3
"""How closely Integrated Gradients' attributions add up (issue 34): runs
`treelens-cli explain --json` over the first N/2 sentences of rt-polarity.neg and .pos
(the Dependency-Transformer and DTT + edges polarity classifiers), the first N pairs of
WikiQA dev (GGSA, the Tree Aggregation Transformer) and the first N pairs of RTE-3 dev
(the attentive Tree-LSTM) and prints, per model, the relative completeness gap
|sum - (f(input) - f(baseline))| / |f(input) - f(baseline)| as JSON: count, median, 90th
percentile, max, the share within 2%, and the inputs over 2%. Needs ../shared/data (the
sentence-polarity, wikiqa and rte folders).

    bench/explain_completeness.py [--cli build/ci/app/treelens-cli] [--n 60] [--steps 256] [--models a,b]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

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
        "baseline": rows[0].get("baseline", "") if rows else "",
        "warnings": sum(1 for r in rows if r.get("warning")),
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
    ap.add_argument("--models", default="dependency-transformer-en-polarity,dtt-edges-en-polarity,ggsa-en-wikiqa,tat-en-wikiqa,"
                    "tree-lstm-attention-en-rte", help="comma-separated shipped models (default: all five)")
    a = ap.parse_args()
    chosen = a.models.split(",")
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
        polarityInput = path
        cols = [open(os.path.join(wikiqa, n), encoding="utf-8").read().split("\n") for n in ("id.txt", "a.toks", "b.toks", "sim.txt")]
        pairs = os.path.join(tmp, "pairs.tsv")
        with open(pairs, "w", encoding="utf-8") as f:
            for i in range(a.n):
                f.write("\t".join(c[i] for c in cols) + "\n")
        # RTE-3 dev: its first N pairs as an RTE XML file of their own.
        rte = os.path.join(tmp, "rte.xml")
        source = os.path.join(DATA, "rte", "rte3_dev.xml")
        if os.path.exists(source):
            root = ET.parse(source).getroot()
            for extra in list(root)[a.n:]:
                root.remove(extra)
            ET.ElementTree(root).write(rte, encoding="utf-8", xml_declaration=True)
        inputs = {"dependency-transformer-en-polarity": ["--input", polarityInput],
                  "dtt-edges-en-polarity": ["--input", polarityInput],
                  "ggsa-en-wikiqa": ["--pairs", pairs], "tat-en-wikiqa": ["--pairs", pairs],
                  "tree-lstm-attention-en-rte": ["--pairs", rte]}
        for name in chosen:
            if name not in inputs:
                print("explain_completeness: unknown model " + name, file=sys.stderr)
                return 2
            if inputs[name][1] == rte and not os.path.exists(rte):
                print("explain_completeness: SKIPPED " + name + ": ../shared/data/rte not found", file=sys.stderr)
                continue
            rows = run(a.cli, ["--model", os.path.join(models, name + ".safetensors"), "--steps", str(a.steps)] + inputs[name])
            results.append(stats(name, rows))
    print(json.dumps({"steps": a.steps, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
