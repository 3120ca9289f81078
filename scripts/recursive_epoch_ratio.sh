#!/usr/bin/env bash
# Seed 003's claim that the Dependency-Transformer trains about 5x faster per epoch than a
# Tree-LSTM, measured side by side in one run: one training epoch of each on the same
# sentence-polarity split (the experiment recipes dt-abl-full-s1 and rec-tlcs-s1 / rec-tlbin-s1,
# one thread, one run at a time), interleaved A B C D A B C D for REPS rounds. The epoch's wall
# time is the log's elapsed_s at the epoch's dev evaluation (the same dev set for all). A fourth
# run trains the Child-Sum Tree-LSTM node by node (options.evaluation_order "node"), as a
# tree-at-a-time implementation does.
# Prints one JSON object. Usage: scripts/recursive_epoch_ratio.sh [REPS]
set -euo pipefail
reps=${1:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${TREELENS_CLI:-$here/build/dev/app/treelens-cli}
exp=$here/resources/models/experiments
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # family recipe tag round [evaluation order]
  python3 - "$exp/$2.recipe.json" "$tmp/$3-$4" ${5:-} <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
# The data paths are relative to the recipe's folder; the copy lives elsewhere.
base = os.path.dirname(os.path.abspath(sys.argv[1]))
r["data"] = {k: (os.path.normpath(os.path.join(base, v)) if isinstance(v, str) else v) for k, v in r["data"].items()}
r["output"] = sys.argv[2] + "/model.safetensors"; r["log"] = sys.argv[2] + "/log.jsonl"; r["checkpoint"] = ""
r["training"]["epochs"] = 1
if len(sys.argv) > 3:  # the Tree-LSTM evaluated node by node, as a tree-at-a-time implementation trains
    r.setdefault("options", {})["evaluation_order"] = sys.argv[3]
r["training"]["threads"] = 1
json.dump(r, open(sys.argv[2] + ".recipe.json", "w"))
PY
  mkdir -p "$tmp/$3-$4"
  (cd "$exp" && "$cli" train "$1" -c "$tmp/$3-$4.recipe.json" > "$tmp/$3-$4/out.txt" 2>&1)
}
for r in $(seq 1 "$reps"); do
  one dependency-transformer dt-abl-full-s1 dt "$r"
  one tree-lstm-attention rec-tlcs-s1 tlcs "$r"
  one tree-lstm-attention rec-tlbin-s1 tlbin "$r"
  one tree-lstm-attention rec-tlcs-s1 tlcsnode "$r" node
done
python3 - "$tmp" "$reps" <<'PY'
import json, statistics, sys, os, subprocess
tmp, reps = sys.argv[1], int(sys.argv[2])
def epoch_seconds(tag):
    out = []
    for r in range(1, reps + 1):
        with open(os.path.join(tmp, f"{tag}-{r}", "log.jsonl")) as f:
            out += [json.loads(l)["elapsed_s"] for l in f if '"event":"eval"' in l]
    return out
dt, cs, bn, csn = epoch_seconds("dt"), epoch_seconds("tlcs"), epoch_seconds("tlbin"), epoch_seconds("tlcsnode")
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
print(json.dumps({
    "benchmark": "epoch_time_dependency_transformer_vs_tree_lstm",
    "cpu": cpu, "threads": 1, "reps": reps, "split": "sentence polarity, split_seed 1 (8,529 training sentences)",
    "seconds_per_epoch": {"dependency_transformer": dt, "tree_lstm_child_sum": cs, "tree_lstm_binary": bn,
                          "tree_lstm_child_sum_node_by_node": csn},
    "median": {"dependency_transformer": statistics.median(dt), "tree_lstm_child_sum": statistics.median(cs),
               "tree_lstm_binary": statistics.median(bn), "tree_lstm_child_sum_node_by_node": statistics.median(csn)},
    "ratio_tree_lstm_child_sum_over_dependency_transformer": statistics.median(cs) / statistics.median(dt),
    "ratio_tree_lstm_binary_over_dependency_transformer": statistics.median(bn) / statistics.median(dt),
    "ratio_tree_lstm_child_sum_node_by_node_over_dependency_transformer": statistics.median(csn) / statistics.median(dt),
}, indent=2))
PY
