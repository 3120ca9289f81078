#!/usr/bin/env python3
"""Differences between two analyses of the same sentences (e.g. fp16 vs fp32 storage,
int8 or bf16 vs fp32 compute): the largest and mean absolute differences of the link
probabilities, the constituent prior C, the attention and the embeddings, and how many
induced trees are identical.
Usage: compare_models.py CLI MODEL_A MODEL_B SENTENCES [extra analyze flags for B]
Prints one JSON object."""
import json, subprocess, sys

cli, a, b, sentences = sys.argv[1:5]
extra = sys.argv[5:]

def run(model, flags):
    out = subprocess.run([cli, "analyze", "--json", "--model", model, "--input", sentences] + flags,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]

def flat(v):
    if isinstance(v, list):
        for e in v:
            yield from flat(e)
    else:
        yield v

ra, rb = run(a, ["--precision", "fp32"]), run(b, extra)
keys = ["link_probs", "constituent_prior", "attention", "embedding"]
worst = {k: 0.0 for k in keys}
total = {k: 0.0 for k in keys}
count = {k: 0 for k in keys}
same_trees = 0
flat_trees = 0
argmin_same = argmin_total = 0
for x, y in zip(ra, rb):
    flat_trees += not x["induced_brackets"]
    # The first split decision of the top-down parse at every layer: where the weakest
    # word-to-word link is (a finer agreement measure when the trees themselves are flat).
    for lx, ly in zip(x["link_probs"], y["link_probs"]):
        wx, wy = lx[1:], ly[1:]
        if len(wx) > 1:
            argmin_total += 1
            argmin_same += wx.index(min(wx)) == wy.index(min(wy))
    for key in keys:
        for p, q in zip(flat(x[key]), flat(y[key])):
            d = abs(p - q)
            worst[key] = max(worst[key], d)
            total[key] += d
            count[key] += 1
    same_trees += x["induced_brackets"] == y["induced_brackets"]
print(json.dumps({"sentences": len(ra), "flags_b": extra,
                  "max_abs_diff": worst,
                  "mean_abs_diff": {k: total[k] / max(1, count[k]) for k in keys},
                  "identical_induced_trees": same_trees,
                  "identical_induced_trees_share": same_trees / max(1, len(ra)),
                  "flat_induced_trees_a": flat_trees,
                  "weakest_link_same_share": argmin_same / max(1, argmin_total)}))
