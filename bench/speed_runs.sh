#!/usr/bin/env bash
# Every speed figure of docs/performance.md, side by side in one run per table, on
# this machine: TreeLens's Tree Transformer analysis against the official operation
# sequence in LibTorch and the official Python code itself.
#   bench/speed_runs.sh OFFICIAL_DIR [BUILD_DIR] [OUT_DIR] [CORPUS_REPS]
# OFFICIAL_DIR: a checkout of the public yaushian/Tree-Transformer (models.py, attention.py,
# modules.py, parse.py; never committed here). Needs scripts/setup-bench.sh (Debian's
# python3-torch) and ../shared/data (UD EWT). Run it on a quiet machine: about 45 minutes
# on 2 cores. Writes OUT_DIR/*.json (bench_speed and bench_gui reports) and prints the
# readable summaries.
set -euo pipefail
cd "$(dirname "$0")/.."
official=$(realpath "$1")
build=${2:-build/dev}
out=${3:-build/speed}
corpus_reps=${4:-3}
E=../shared/data/ud-english-ewt
mkdir -p "$out"
bs="$build/bench/bench_speed"
# The official-size model (10 layers, d_model 512, 8 heads, d_ff 2048, vocabulary 16k) with
# random weights, written by the official code (Solver._make_model's initialisation) and
# imported as a user would; its dictionary holds the most frequent UD EWT training words.
if [[ ! -f $out/official-size.safetensors ]]; then
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/official_worker.py --official "$official" --make-checkpoint "$out/official-checkpoint" \
    --words-from $E/en_ewt-ud-train.conllu
  "$build/app/treelens-cli" import-checkpoint --family tree-transformer "$out/official-checkpoint/model.pth" \
    --vocab "$out/official-checkpoint/dictionary.json" --name official-size-random -o "$out/official-size.safetensors"
fi
shipped=resources/models/tree-transformer-en-small.safetensors
run() { # name, bench_speed flags...
  local name=$1; shift
  echo "== $name" >&2
  "$bs" "$@" --official "$official" > "$out/$name.json" 2> >(grep -v '^bench_speed: round' >&2)
}
run sentence-official --model "$out/official-size.safetensors" --words 40 --batch 1 --threads 1,2 \
  --sides fp32,int8,auto,official-ops --reps 15
run sentence-shipped --model "$shipped" --words 40 --batch 1 --threads 1,2 --sides fp32,int8,official-ops --reps 15
run corpus-official --model "$out/official-size.safetensors" --task corpus --corpus $E/en_ewt-ud-dev.conllu \
  --corpus-batch 64 --threads 1,2 --sides fp32,int8,official-ops --reps "$corpus_reps"
run corpus-shipped --model "$shipped" --task corpus --corpus $E/en_ewt-ud-dev.conllu --corpus-batch 64 --threads 1,2 \
  --sides fp32,int8,official-ops --reps "$corpus_reps"
# End to end with the JSON written: treelens-cli analyze on UD EWT dev with the shipped model
# (start-up, model loading, every layer's attention, prior and links serialised; ~0.7 GB
# of JSON Lines thrown away), one thread.
echo "== analyze-shipped-ewt-dev" >&2
/usr/bin/time -o "$out/analyze-shipped.time" -f '{"wall_s": %e, "user_s": %U, "sys_s": %S, "peak_kib": %M}' \
  "$build/app/treelens-cli" analyze --input $E/en_ewt-ud-dev.conllu --json --threads 1 --batch 64 -o /dev/null
cat "$out/analyze-shipped.time" >&2
# The GUI with the imported official-size model: a typed 40-word sentence to painted views.
for p in fp32 int8; do
  echo "== gui-official-$p" >&2
  "$build/bench/bench_gui" --runs 5 --model "$out/official-size.safetensors" --precision "$p" > "$out/gui-official-$p.json"
done
echo "== gui-shipped-fp32" >&2
"$build/bench/bench_gui" --runs 5 > "$out/gui-shipped-fp32.json"
echo "speed_runs: reports in $out" >&2
