#!/usr/bin/env bash
# Every probing run behind the tables of docs/probing.md, for the two shipped
# encoders, in two lanes side by side (one per model, one LibTorch thread each),
# then the three tables. Usage: scripts/probing_runs.sh [BUILD_DIR] [OUT_DIR]
# (needs ../shared/data; about 35 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
out=${2:-build/probe}
cli="$build/app/treelens-cli"
E=../shared/data/ud-english-ewt
P=../shared/data/ptb-sample
mkdir -p "$out"
ptb() { seq -f "$P/wsj_%04g.mrg" "$1" "$2"; }
lane() {
  local m=$1 model=resources/models/$1.safetensors
  local t0=$SECONDS
  "$cli" probe --task all --baselines --model "$model" --threads 1 \
    --train $E/en_ewt-ud-train.conllu --dev $E/en_ewt-ud-dev.conllu --test $E/en_ewt-ud-test.conllu \
    --layers all --json -o "$out/ewt-$m.json"
  echo "ewt $m all: $((SECONDS - t0)) s"; t0=$SECONDS
  "$cli" probe --task unsupervised-parsing --attention-on test --model "$model" --threads 1 \
    --train $E/en_ewt-ud-train.conllu --dev $E/en_ewt-ud-dev.conllu --test $E/en_ewt-ud-test.conllu \
    --json -o "$out/ewt-induction-$m.json"
  echo "ewt $m induction: $((SECONDS - t0)) s"; t0=$SECONDS
  "$cli" probe --task all --baselines --model "$model" --threads 1 \
    --train $(ptb 1 159) --dev $(ptb 160 179) --test $(ptb 180 199) --layers all --json -o "$out/ptb-$m.json"
  echo "ptb $m all: $((SECONDS - t0)) s"; t0=$SECONDS
  "$cli" probe --task unsupervised-parsing --attention-on test --model "$model" --threads 1 \
    --train $(ptb 1 159) --dev $(ptb 160 179) --test $(ptb 180 199) --json -o "$out/ptb-induction-$m.json"
  echo "ptb $m induction: $((SECONDS - t0)) s"; t0=$SECONDS
  "$cli" probe --task all --baselines --model "$model" --threads 1 \
    --train $E/en_ewt-ud-dev.conllu --layers all --json -o "$out/ewtdev-$m.json"
  echo "ewtdev $m all: $((SECONDS - t0)) s"
}
lane tree-transformer-en-small > "$out/lane-tree.log" 2>&1 &
lane transformer-en-small > "$out/lane-plain.log" 2>&1
wait
cat "$out/lane-tree.log" "$out/lane-plain.log" | grep -E '^(ewt|ptb|ewtdev) '
for set in ewt ptb; do
  "$cli" probe-tables \
    tree-transformer="$out/$set-tree-transformer-en-small.json+$out/$set-induction-tree-transformer-en-small.json" \
    transformer="$out/$set-transformer-en-small.json+$out/$set-induction-transformer-en-small.json" > "$out/tables-$set.md"
done
"$cli" probe-tables tree-transformer="$out/ewtdev-tree-transformer-en-small.json" \
  transformer="$out/ewtdev-transformer-en-small.json" > "$out/tables-ewtdev.md"
echo "tables: $out/tables-{ewt,ptb,ewtdev}.md"
