#!/usr/bin/env bash
# Scores every parser backend on the same test sets with the same scorers
# (the tables of docs/parsers.md). Needs ../shared/data (UD English EWT, the PTB
# sample); prints one JSON object per line and keeps the predicted files in OUT.
# Sentences a backend cannot parse (Link Grammar: timeouts, no linkage) are
# scored with a flat tree (parse --keep-going; eval-raw scores them without heads).
#   scripts/eval_parsers.sh [BUILD_DIR=build/dev] [OUT=build/eval-parsers] [BACKENDS="neural link-grammar"]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
out=${2:-build/eval-parsers}
backends=${3:-"neural link-grammar"}
cli="$build/app/treelens-cli"
data=${TREELENS_SHARED_DATA:-../shared/data}
ewt="$data/ud-english-ewt/en_ewt-ud-test.conllu"
if [[ ! -f "$ewt" || ! -d "$data/ptb-sample" ]]; then
  echo "eval_parsers: $data (UD EWT + PTB sample) not found; nothing to score" >&2
  exit 0
fi
mkdir -p "$out"
# WSJ 0180-0199, traces and function tags stripped: the constituency test set.
cat "$data"/ptb-sample/wsj_01{80..99}.mrg > "$out/wsj-test.mrg"
"$cli" convert "$out/wsj-test.mrg" --to ptb --strip-traces --strip-function-tags -o "$out/wsj-test.gold.ptb"
for b in $backends; do
  t0=$(date +%s%N)
  "$cli" parse --keep-going --input "$ewt" --parser "$b" -o "$out/ewt-test.$b.conllu"
  t1=$(date +%s%N)
  echo "{\"backend\":\"$b\",\"set\":\"ewt-test gold tokens\",\"milliseconds\":$(( (t1 - t0) / 1000000 )),\"scores\":$("$cli" eval-parse --gold "$ewt" --pred "$out/ewt-test.$b.conllu" --json)}"
  echo "{\"backend\":\"$b\",\"set\":\"ewt-test raw text\",\"scores\":$("$cli" eval-raw --gold "$ewt" --parser "$b" --json -o "$out/ewt-test-raw.$b.conllu")}"
  "$cli" parse --keep-going --input "$out/wsj-test.gold.ptb" --parser "$b" --format ptb -o "$out/wsj-test.$b.ptb"
  echo "{\"backend\":\"$b\",\"set\":\"wsj 0180-0199\",\"scores\":$("$cli" eval-parse --gold "$out/wsj-test.gold.ptb" --pred "$out/wsj-test.$b.ptb" --json)}"
done
