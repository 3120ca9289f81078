#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 30).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: conllu ptb text json safetensors pickle)
# Seeds come from tests/data; findings are written to build/fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(conllu ptb text json safetensors pickle)
cmake -S tests/fuzz -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build/fuzz
mkdir -p build/fuzz/findings
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  case $t in
    conllu) cp tests/data/golden/*.conllu "$corpus"/ 2>/dev/null || true ;;
    ptb) cp tests/data/golden/*.mrg "$corpus"/ 2>/dev/null || true ;;
    text) cp resources/samples/*.txt "$corpus"/ 2>/dev/null || true ;;
    safetensors)
      # A tiny valid file: one F32 tensor and metadata.
      printf '\x50\x00\x00\x00\x00\x00\x00\x00{"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} \x00\x00\x80\x3f' >"$corpus"/seed.safetensors ;;
    pickle)
      fixture=../shared/fixtures/tree-transformer-official/model.pth
      if [[ -f $fixture ]] && command -v unzip >/dev/null; then unzip -p "$fixture" model/data.pkl >"$corpus"/model.pkl; fi
      printf '\x80\x02}q\x00(X\x01\x00\x00\x00aK\x05u.' >"$corpus"/dict.pkl ;;
    json) printf '{"tokens":["a","b"],"heads":[0,1],"constituency":"(S (X a) (Y b))"}\n' >"$corpus"/seed.jsonl ;;
  esac
  echo "fuzz_$t: ${secs}s"
  build/fuzz/fuzz_$t -max_total_time="$secs" -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/findings/$t- "$corpus" 2>&1 | tail -n 12
done
