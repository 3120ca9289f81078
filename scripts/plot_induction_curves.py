#!/usr/bin/env python3
"""F1-per-CPU-hour curves of Tree Transformer training runs, as an SVG (no
matplotlib needed). Reads TreeLens training logs (JSON Lines, `treelens-cli train`
with data "induction_dev"): x = training hours (elapsed_s of every eval event,
over all sessions of a run), y = development unsupervised-parsing sentence F1
(the best start layer, as the trainer selects by), with the right-branching
baseline on the same trees as a dashed line.

Usage: plot_induction_curves.py OUT.svg NAME=LOG [NAME=LOG ...] [--key sentence_f1|best_sentence_f1]
Also prints the points as a Markdown table."""
import json
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
key = "best_sentence_f1"
for a in sys.argv[1:]:
    if a.startswith("--key="):
        key = a.split("=", 1)[1]
if len(args) < 2:
    sys.exit(__doc__)
out, runs = args[0], []
right = None
for spec in args[1:]:
    name, path = spec.split("=", 1)
    pts = []
    for line in open(path):
        if not line.strip():
            continue
        e = json.loads(line)
        if e.get("event") != "eval":
            continue
        ind = (e.get("details") or {}).get("induction")
        if not ind:
            continue
        pts.append((e.get("cpu_s", e["elapsed_s"]) / 3600.0, ind[key], e["step"]))
        right = ind.get("right_branching_sentence_f1", right)
    runs.append((name, pts))

W, H, L, R, T, B = 900, 420, 60, 300, 30, 50
xmax = max([p[0] for _, pts in runs for p in pts] + [0.1])
ys = [p[1] for _, pts in runs for p in pts] + ([right] if right else [])
ymin, ymax = 0.0, max(ys + [10.0]) * 1.1
X = lambda x: L + (W - L - R) * x / xmax
Y = lambda y: H - B - (H - T - B) * (y - ymin) / (ymax - ymin)
colors = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<line x1="{L}" y1="{H-B}" x2="{W-R}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H-B}" stroke="black"/>',
       f'<text x="{(L+W-R)/2}" y="{H-12}" text-anchor="middle">training time (CPU hours, this machine)</text>',
       f'<text x="16" y="{(T+H-B)/2}" text-anchor="middle" transform="rotate(-90 16 {(T+H-B)/2})">dev sentence F1 (%)</text>']
for i in range(6):
    v = ymin + (ymax - ymin) * i / 5
    svg.append(f'<text x="{L-6}" y="{Y(v)+4}" text-anchor="end">{v:.0f}</text>')
    svg.append(f'<line x1="{L}" y1="{Y(v)}" x2="{W-R}" y2="{Y(v)}" stroke="#ddd"/>')
for i in range(6):
    v = xmax * i / 5
    svg.append(f'<text x="{X(v)}" y="{H-B+16}" text-anchor="middle">{v:.1f}</text>')
if right:
    svg.append(f'<line x1="{L}" y1="{Y(right)}" x2="{W-R}" y2="{Y(right)}" stroke="#555" stroke-dasharray="6,4"/>')
    svg.append(f'<text x="{L+6}" y="{Y(right)-5}" fill="#555">right-branching (dev, {right:.1f})</text>')
for k, (name, pts) in enumerate(runs):
    c = colors[k % len(colors)]
    if pts:
        path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _ in pts)
        svg.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{path}"/>')
    svg.append(f'<rect x="{W-R+6}" y="{T+18*k}" width="12" height="12" fill="{c}"/>')
    svg.append(f'<text x="{W-R+22}" y="{T+18*k+10}">{name}</text>')
svg.append("</svg>")
open(out, "w").write("\n".join(svg))
print(f"| run | hours | step | dev F1 ({key}) |")
print("|---|---|---|---|")
for name, pts in runs:
    for x, y, s in pts:
        print(f"| {name} | {x:.2f} | {s} | {y:.2f} |")
if right:
    print(f"\nright-branching on the same trees: {right:.2f}")
