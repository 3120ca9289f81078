#!/usr/bin/env python3
"""Markdown tables comparing encoders from `treelens-cli probe --json` outputs
(docs/probing.md). Usage: probing_tables.py NAME=RESULT.json[+MORE.json] [NAME=...]
(a file without NAME= is the app's multi-model export {"models": [...]}; files joined by + are one encoder's runs: their tasks are merged, a later file's task replacing an earlier one; the first file's
data and settings are reported).
Sentence tasks: test accuracy (SentLen: R²) of the best layer by DEV score, for the
mean-pooled and [CLS] vectors; majority / random-init baselines; selectivity
(task - control, same layer). Structural probes: best layer by dev. Attention: best
cell over layers x heads."""
import json, sys

runs = []
args = []
for arg in sys.argv[1:]:
    # The app's multi-model export {"models": [report, ...]}: one run per model, named by the model.
    if "=" not in arg:
        for rep in json.load(open(arg))["models"]:
            runs.append((rep["model"]["name"], rep))
        continue
    args.append(arg)
for arg in args:
    name, paths = arg.split("=", 1)
    parts = [json.load(open(p)) for p in paths.split("+")]
    for extra in parts[1:]:
        for k, v in extra["tasks"].items():
            parts[0]["tasks"][k] = v
    runs.append((name, parts[0]))

def metric(task, r):
    return r["test"]["r2"] if task == "sentlen" else r["test"]["accuracy"]

NEG_INF = float("-inf")

def devmetric(task, r):
    # A diverged probe (NaN/inf written as null) is never the best layer.
    if task == "sentlen":
        return NEG_INF if r["dev"]["mse"] is None else -r["dev"]["mse"]
    return NEG_INF if r["dev"]["accuracy"] is None else r["dev"]["accuracy"]

def lowloss(l):
    return NEG_INF if l["dev"]["loss"] is None else -l["dev"]["loss"]

def best_layer(task, layers, pooling):
    ls = [l for l in layers if pooling in l]
    return max(ls, key=lambda l: devmetric(task, l[pooling])) if ls else None

first = runs[0][1]
s = first['data']['sentences']
print(f"Data: {s.get('train')} train / {s.get('dev')} dev / {s.get('test')} test sentences ({first['data'].get('split', 'files as given')}); trees: dependency {first['data'].get('dependency_trees','?')}, "
      f"constituency {first['data'].get('constituency_trees','?')}.\n")
print("| task (test metric) | " + " | ".join(f"{n}: mean (layer) | {n}: [CLS] (layer) | {n}: selectivity | {n}: random-init"
                                        for n, _ in runs) + " | majority |")
print("|---|" + "---|---|---|---|" * len(runs) + "---|")
for task in ["sentlen", "sentlen-bins", "treedepth", "topconst"]:
    if task not in first["tasks"]:
        continue
    cells = []
    for name, d in runs:
        t = d["tasks"][task]
        bm = best_layer(task, t["layers"], "mean")
        bc = best_layer(task, t["layers"], "cls")
        fmt = (lambda x: f"{x:.3f}") if task == "sentlen" else (lambda x: f"{x:.1f}")
        sel = bm["mean"].get("selectivity")
        ri = t.get("random_init", {}).get("layers", [])
        rbest = best_layer(task, ri, "mean") if ri else None
        cells += [f"{fmt(metric(task, bm['mean']))} ({bm['layer']})", f"{fmt(metric(task, bc['cls']))} ({bc['layer']})",
                  "—" if sel is None else fmt(sel), "—" if not rbest else f"{fmt(metric(task, rbest['mean']))} ({rbest['layer']})"]
    b = first["tasks"][task]["baselines"]
    maj = f"R² {b['mean']['r2']:.3f}" if task == "sentlen" else f"{b['majority']['accuracy']:.1f}"
    label = {"sentlen": "SentLen (R²)", "sentlen-bins": "SentLen, 6 bins (acc.)", "treedepth": "TreeDepth (acc.)",
             "topconst": "TopConst (acc.)"}[task]
    print(f"| {label} | " + " | ".join(cells) + f" | {maj} |")

print("\n| structural probe (test) | " + " | ".join(f"{n} (layer) | {n} random-init" for n, _ in runs) + " |")
print("|---|" + "---|---|" * len(runs))
for task, key, extra in [("structural-distance", "uuas", "dspr"), ("structural-depth", "root_accuracy", "nspr")]:
    if task not in first["tasks"]:
        continue
    cells = []
    for name, d in runs:
        t = d["tasks"][task]
        b = max(t["layers"], key=lowloss)
        ri = t.get("random_init", {}).get("layers", [])
        rb = max(ri, key=lowloss) if ri else None
        cells += [f"{b['test'][key]:.1f} / {b['test'][extra]:.3f} ({b['layer']})",
                  "—" if not rb else f"{rb['test'][key]:.1f} / {rb['test'][extra]:.3f} ({rb['layer']})"]
    print(f"| {task} ({key} / {extra}) | " + " | ".join(cells) + " |")

print("\n| attention (whole corpus; layer/head numbered from 1: layer k = encoder layer k, as above) | " + " | ".join(n for n, _ in runs) + " |")
print("|---|" + "---|" * len(runs))
rows = {}
for name, d in runs:
    t = d["tasks"]
    if "head-accuracy" in t:
        a = [r for r in t["head-accuracy"]["relations"] if r["relation"] == "all"][0]
        bd = a["best_dep_to_head"]
        rows.setdefault("head accuracy, all relations: best head dep→head (layer/head); best fixed offset", []).append(
            f"{bd['accuracy']:.1f} ({bd['layer'] + 1}/{bd['head'] + 1}); offset {a['best_offset']['offset']:+d}: {a['best_offset']['accuracy']:.1f}")
    if "constituent-mass" in t:
        b = t["constituent-mass"]["best"]
        rows.setdefault("constituent mass: best head, mass / distance-matched baseline (layer/head)", []).append(
            f"{b['mass']:.3f} / {b['baseline']:.3f} ({b['layer'] + 1}/{b['head'] + 1})")
    if "attention-mst" in t:
        b = t["attention-mst"]["best"]
        rows.setdefault("UUAS of the MST of symmetrised attention: best head (layer/head)", []).append(
            f"{b['uuas']:.1f} ({b['layer'] + 1}/{b['head'] + 1})")
    if "link-probs" in t:
        pl = t["link-probs"]["per_layer"]
        rows.setdefault("link probabilities per layer: mean (Spearman with −constituent size)", []).append(
            "; ".join(f"{p['mean']:.2f} (" + ("n/a" if p.get("spearman") is None else f"{p['spearman']:.2f}") + ")" for p in pl))
for k, v in rows.items():
    print(f"| {k} | " + " | ".join(v) + " |")

if any("unsupervised-parsing" in d["tasks"] for _, d in runs):
    ref = next(d["tasks"]["unsupervised-parsing"] for _, d in runs if "unsupervised-parsing" in d["tasks"])
    print(f"\nUnsupervised parsing ({ref['sentences']} sentences, {ref['scope']}; constituency trees "
          f"{ref['constituency_trees']}); sentence-level F1 (the paper's figure) / corpus-level F1; "
          "≤10 words: sentence-level F1:\n")
    print("| parser | " + " | ".join(f"{n}: F1 sent / corpus | {n}: ≤10 words" for n, _ in runs) + " |")
    print("|---|" + "---|---|" * len(runs))
    labels = [("model (official setting: start at the top layer)", "model"), ("right-branching", "right_branching"),
              ("left-branching", "left_branching"), ("random binary", "random")]
    for label, key in labels:
        cells = []
        for _, d in runs:
            t = d["tasks"].get("unsupervised-parsing")
            if not t or key not in t["all"]:
                cells += ["n/a" if t else "—", "n/a" if t else "—"]
                continue
            cells += [f"{t['all'][key]['sentence_f1']:.1f} / {t['all'][key]['corpus_f1']:.1f}",
                      f"{t['length_10'][key]['sentence_f1']:.1f}"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    maxl = max((len(d["tasks"].get("unsupervised-parsing", {}).get("by_start_layer", [])) for _, d in runs), default=0)
    for i in range(maxl):
        cells = []
        for _, d in runs:
            ls = d["tasks"].get("unsupervised-parsing", {}).get("by_start_layer", [])
            if i < len(ls):
                l = ls[i]
                cells += [f"{l['all']['sentence_f1']:.1f} / {l['all']['corpus_f1']:.1f}", f"{l['length_10']['sentence_f1']:.1f}"]
            else:
                cells += ["n/a", "n/a"]
        print(f"| model, starting at layer {i + 1} | " + " | ".join(cells) + " |")
