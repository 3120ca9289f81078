#!/usr/bin/env bash
# The Tree Aggregation Transformer's WikiQA experiments (docs/tree-aggregation-transformer.md):
# the full model, the semantic-only ablation and the sequential model (the same LM, its <s>
# output alone), seeds 1-3, the same recipe and budget; two runs at a time, one thread each.
# Each model is then scored on WikiQA test by score-pairs and the independent scorer.
# Needs stage 1 first: treelens-cli train tat-lm --config resources/models/tat-lm-en.recipe.json
# Usage: scripts/run_tat_experiments.sh [BUILD_DIR]; results in build/train/tat-wikiqa-*/.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/dev}/app/treelens-cli
run() {
  local name=$1
  mkdir -p "build/train/$name"
  "$cli" train tree-aggregation-transformer --config "resources/models/experiments/$name.recipe.json" \
    > "build/train/$name/train.log" 2>&1
  "$cli" score-pairs --model "build/train/$name/model.safetensors" --input ../shared/data/wikiqa/test \
    -o "build/train/$name/test.tsv" 2> /dev/null
  echo "$name $(grep -o 'best [0-9.]*' "build/train/$name/train.log" | tail -1) test $(python3 scripts/score_pairs_map.py "build/train/$name/test.tsv")"
}
for seed in 1 2 3; do
  run "tat-wikiqa-full-s$seed" &
  run "tat-wikiqa-semantic-s$seed" &
  wait
done
for seed in 1 2 3; do
  run "tat-wikiqa-sequential-s$seed" &
  [ "$seed" = 2 ] && wait
done
wait
