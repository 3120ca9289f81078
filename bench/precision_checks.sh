#!/usr/bin/env bash
# The checks a fast precision (int8, bf16) must pass against fp32 on one model
# (docs/performance.md, "Fast paths and their checks"):
#   1. link probabilities, C, attention and embeddings on WSJ 0180-0199 (245 sentences,
#      traces and function tags stripped): largest and mean differences, and how many
#      induced trees are identical (the bar: >= 97 %);
#   2. unsupervised parsing F1 on the same files (eval-induction's protocol);
#   3. probing (SentLen, TreeDepth, TopConst, structural probes; PTB 0001-0159 / 0160-0179 /
#      0180-0199) in fp32 and the fast precision for each --seeds seed: the fast precision's
#      figures against fp32's seed-to-seed spread.
# Usage: bench/precision_checks.sh CLI MODEL PRECISION OUT_DIR [SEEDS (default "1 2 3")] [TASKS]
# Needs ../shared/data. Prints JSON lines; the probe reports stay in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$1 model=$2 precision=$3 out=$4
seeds=${5:-1 2 3}
tasks=${6:-sentlen,treedepth,topconst,structural-distance,structural-depth}
P=../shared/data/ptb-sample
[[ -d $P ]] || { echo "precision_checks: $P not found" >&2; exit 1; }
mkdir -p "$out"
ptb() { seq -f "$P/wsj_%04g.mrg" "$1" "$2"; }
test_conllu=$out/wsj-0180-0199.conllu
: > "$test_conllu"
for f in $(ptb 180 199); do
  "$cli" convert "$f" --to conllu --strip-traces --strip-function-tags >> "$test_conllu"
done
python3 bench/compare_models.py "$cli" "$model" "$model" "$test_conllu" --precision "$precision"
for p in fp32 "$precision"; do
  "$cli" eval-induction --model "$model" --precision "$p" --gold $(ptb 180 199) --json |
    python3 -c "import json,sys; r=json.load(sys.stdin); print(json.dumps({'eval_induction': '$p', 'report': r}))"
done
for seed in $seeds; do
  for p in fp32 "$precision"; do
    "$cli" probe --task "$tasks" --model "$model" --precision "$p" --threads 1 --seed "$seed" \
      --train $(ptb 1 159) --dev $(ptb 160 179) --test $(ptb 180 199) --layers all --json \
      -o "$out/probe-$p-seed$seed.json" 2> "$out/probe-$p-seed$seed.log"
  done
done
python3 bench/probe_noise.py "$precision" "$out" $seeds
