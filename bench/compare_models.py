#!/usr/bin/env python3
"""Largest differences between two models' analyses (e.g. fp16 vs fp32 storage,
bf16 vs fp32 compute) over a file of sentences, plus how often the induced trees
agree. Usage: compare_models.py CLI MODEL_A MODEL_B SENTENCES [extra analyze flags for B]
Prints one JSON object."""
import json, subprocess, sys

cli, a, b, sentences = sys.argv[1:5]
extra = sys.argv[5:]

def run(model, flags):
    out = subprocess.run([cli, "analyze", "--json", "--model", model, "--input", sentences] + flags,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]

ra, rb = run(a, []), run(b, extra)
worst = {"link_probs": 0.0, "constituent_prior": 0.0, "attention": 0.0, "embedding": 0.0}
same_trees = 0
for x, y in zip(ra, rb):
    for key in worst:
        def flat(v):
            if isinstance(v, list):
                for e in v:
                    yield from flat(e)
            else:
                yield v
        d = max((abs(p - q) for p, q in zip(flat(x[key]), flat(y[key]))), default=0.0)
        worst[key] = max(worst[key], d)
    same_trees += x["induced_brackets"] == y["induced_brackets"]
print(json.dumps({"sentences": len(ra), "max_abs_diff": worst, "identical_induced_trees": same_trees}))
