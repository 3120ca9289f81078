#!/usr/bin/env bash
# The recursive models' comparison and ablations on sentence polarity (docs/recursive-models.md):
# CTT, DTT, DTT + edges, Child-Sum and binary Tree-LSTM with attention and the
# Dependency-Transformer, seeds 1-3, the same split, recipe budget (2 epochs, Adam 5e-4,
# batch 32) and one thread each, two runs at a time; then the ablations (positional
# encoding on; single-head and multi-head composition) for CTT and DTT. A run whose
# model exists is skipped, so the script resumes. Then: python3 scripts/recursive_tables.py
set -euo pipefail
cd "$(dirname "$0")/../resources/models/experiments"
cli=${TREELENS_CLI:-../../../build/dev/app/treelens-cli}
runs=()
for s in 1 2 3; do
  for m in ctt dtt dtte tlcs tlbin; do runs+=("rec-$m-s$s"); done
  runs+=("dt-abl-full-s$s")
done
for s in 1 2 3; do
  for m in ctt dtt; do for v in pe multihead singlehead; do runs+=("rec-$m-$v-s$s"); done; done
done
run() {
  local name=$1 family
  family=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['family'])" "$name.recipe.json")
  local out=../../../build/train/$name
  if [ -f "$out/model.safetensors" ]; then echo "skip $name"; return; fi
  mkdir -p "$out"
  "$cli" train "$family" -c "$name.recipe.json" > "$out/train.txt" 2>&1 && tail -n 1 "$out/train.txt" | sed "s/^/$name: /"
}
i=0
while [ $i -lt ${#runs[@]} ]; do
  run "${runs[$i]}" &
  if [ $((i + 1)) -lt ${#runs[@]} ]; then run "${runs[$((i + 1))]}" & fi
  wait
  i=$((i + 2))
done
