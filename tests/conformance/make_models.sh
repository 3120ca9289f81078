#!/usr/bin/env bash
# The conformance matrix's fixture models (docs/conformance.md): one model per
# family from each reference fixture in ../shared/fixtures, made with
# import-checkpoint exactly as a user would. Without ../shared nothing is made
# and the matrix lines that need these models skip with a message.
#   make_models.sh TREELENS_CLI SHARED_DIR OUT_DIR
set -euo pipefail
cli=$1 shared=$2 out=$3
fx=$shared/fixtures
mkdir -p "$out"
if [[ ! -d $fx ]]; then
  echo "make_models: SKIPPED: $fx not found; the fixture models are not made" >&2
  exit 0
fi
imp() { # NAME ARGS...: import-checkpoint into OUT/NAME.safetensors
  local name=$1; shift
  "$cli" import-checkpoint "$@" -o "$out/$name.safetensors.tmp" && mv "$out/$name.safetensors.tmp" "$out/$name.safetensors"
}
imp fixture-tree-transformer --family tree-transformer "$fx/tree-transformer-official/model.pth" \
    --vocab "$fx/tree-transformer-official/dictionary.json" --heads 4
imp fixture-dependency-transformer --family dependency-transformer "$fx/dependency-transformer-reference/state_dict.pt" \
    --config "$fx/dependency-transformer-reference/config.json"
for sub in ggsa iggsa; do
  imp fixture-$sub --family ggsa --submodel $sub "$fx/ggsa-reference/state_dict.pt" --config "$fx/ggsa-reference/config.json"
done
imp fixture-tree-aggregation-transformer --family tree-aggregation-transformer \
    "$fx/tree-aggregation-transformer-reference/state_dict.pt" --config "$fx/tree-aggregation-transformer-reference/config.json"
for sub in ctt dtt dtte treelstm.cs treelstm.bin; do
  imp fixture-rec-$sub --family recursive-tree-transformer --submodel $sub \
      "$fx/recursive-tree-transformer-reference/state_dict.pt" --config "$fx/recursive-tree-transformer-reference/config.json"
done
ls "$out"
