#!/usr/bin/env bash
# Outputs a refactor must keep byte for byte (issue 31): every shipped model's
# `analyze --json` on UD EWT dev (single-sentence encoders) or `analyze --pairs --json`
# and `score-pairs` on WikiQA test (or RTE-3 test for the RTE models), one file each
# in OUTDIR, and OUTDIR/identity.tsv with their SHA-256. Run it before and after a
# change and compare the two tables (`diff`); a differing file names the model and
# command to look at (`diff` the outputs). Needs ../shared (the corpora).
#   scripts/identity.sh BUILD_DIR OUTDIR [SENTENCES]
# SENTENCES (default: all) keeps the first N sentences of UD EWT dev. Threads are 1,
# so the figures do not depend on the machine's core count.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/identity.sh BUILD_DIR OUTDIR [SENTENCES]}
out=${2:?usage: scripts/identity.sh BUILD_DIR OUTDIR [SENTENCES]}
limit=${3:-0}
cli=$build/app/treelens-cli
shared=../shared/data
[[ -x $cli ]] || { echo "identity.sh: $cli not built" >&2; exit 1; }
[[ -d $shared ]] || { echo "identity.sh: $shared not found (the corpora)" >&2; exit 1; }
mkdir -p "$out"
dev=$shared/ud-english-ewt/en_ewt-ud-dev.conllu
if [[ $limit != 0 ]]; then
  awk -v n="$limit" 'BEGIN{RS=""; ORS="\n\n"} NR<=n' "$dev" >"$out/dev.conllu"
  dev=$out/dev.conllu
fi
wikiqa=$shared/wikiqa/test
rte=$shared/rte/rte3_test.xml
run() { # NAME COMMAND...: the output of one command, timed
  local name=$1 t0
  shift
  t0=$(date +%s)
  "$@" -o "$out/$name" 2>"$out/$name.log" || { echo "identity.sh: $name failed (see $out/$name.log)" >&2; return 1; }
  echo "$name $(($(date +%s) - t0)) s" >&2
}
for model in resources/models/*.safetensors; do
  name=$(basename "$model" .safetensors)
  case $name in parser-*) continue ;; esac
  # pairInput is in the model's header metadata (a pair model reads sentence pairs).
  if "$cli" analyze --model "$model" "a b" >/dev/null 2>"$out/probe.err"; then
    run "$name.analyze.jsonl" "$cli" analyze --model "$model" --input "$dev" --json --threads 1
  elif grep -q -- "--pairs" "$out/probe.err"; then
    pairs=$wikiqa
    case $name in *rte*) pairs=$rte ;; esac
    run "$name.pairs.jsonl" "$cli" analyze --model "$model" --pairs "$pairs" --json --threads 1
    run "$name.scores.tsv" "$cli" score-pairs --model "$model" --input "$pairs"
  else
    echo "identity.sh: $name: $(tail -n 1 "$out/probe.err")" >&2
    exit 1
  fi
done
rm -f "$out/probe.err"
rm -f "$out/identity.tsv"
# The table goes to a temporary name first: created by the redirection while the glob
# expands, identity.tsv itself would otherwise be hashed now and then.
(cd "$out" && sha256sum -- *.jsonl *.tsv | awk '{print $2 "\t" $1}' | sort >identity.tsv.part && mv identity.tsv.part identity.tsv)
echo "identity.sh: $(wc -l <"$out/identity.tsv") outputs, table in $out/identity.tsv" >&2
