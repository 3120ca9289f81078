#!/usr/bin/env bash
# Decoder-only language models in Hugging Face folders of other sizes and options than the
# seven public fixtures (../shared/fixtures/hf-decoders-reference, README there: "A
# verify-fixture run ... must exit 0 on these seven folders and on any other folder of this
# layout"). The expected numbers come from bench/hf_eager.py, an eager PyTorch forward
# written from the README and the library's modeling code (Debian's python3-torch; a test
# dependency only, never used by TreeLens at run time).
#
#   tests/decoders/test_decoder_layouts.sh --reference SHARED_DIR
#       the reference alone (no treelens-cli): hf_eager.py recomputes every tensor of the
#       seven fixtures from their input_ids (largest |diff| per tensor within tolerance_abs),
#       and is consistent with itself: the same weights under both config spellings, one
#       file or two shards, give a byte-identical expected.json; F32 holding BF16-rounded
#       values and BF16 storage give a byte-identical expected.json
#   tests/decoders/test_decoder_layouts.sh CLI_PATH SHARED_DIR
#       the self-consistency checks above (not the fixture comparison: ctest
#       decoder_eager_reference runs it), then generates the random folders below (bench/hf_random_folder.py) into a temporary
#       directory and runs `treelens-cli verify-fixture` on each and on the seven fixtures
#       (every run must exit 0); BF16 storage: `analyze --json` of the F32 (BF16-rounded)
#       folder and of the BF16 folder must be identical; `analyze --precision bf16` within
#       1e-2 of an eager forward of the same scheme (bench/decoder_precision_check.py reference)
#
# Sentences: each fixture's five (its ids, tokens and offsets), plus four more when the npm
# `tokenizers` package is installed in bench/node_modules (scripts/setup-bench.sh); the
# test says which. Exit 77 (CTest: skipped) with "SKIPPED: why" without python3-torch or
# ../shared. Set KEEP_DECODER_TEST=1 to keep the temporary directory; TREELENS_TORCH_PYTHON
# names the interpreter (default: the first of /usr/bin/python3, python3 that imports torch).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: tests/decoders/test_decoder_layouts.sh CLI_PATH SHARED_DIR | --reference SHARED_DIR"
mode=full
if [[ ${1:-} == --reference ]]; then
  mode=reference
  (($# == 2)) || { echo "$usage" >&2; exit 2; }
  shared=$2
else
  (($# == 2)) || { echo "$usage" >&2; exit 2; }
  cli=$(realpath "$1")
  shared=$2
fi
fixtures=$shared/fixtures/hf-decoders-reference
skip() { echo "SKIPPED: $*"; exit 77; }
t_all=$(date +%s)

[[ -f $fixtures/README.md ]] || skip "no decoder fixtures at $fixtures (../shared is not next to this checkout)"
py=
for cand in ${TREELENS_TORCH_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch, numpy" >/dev/null 2>&1; then
    py=$cand
    break
  fi
done
[[ -n $py ]] || skip "no Python with torch and numpy (Debian: apt-get install python3-torch; scripts/setup.sh installs it)"
if [[ $mode == full && ! -x $cli ]]; then
  echo "FAILED: $cli is not an executable" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/treelens-decoders.XXXXXX")
if [[ -n ${KEEP_DECODER_TEST:-} ]]; then
  echo "keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
eager=$root/bench/hf_eager.py
gen() { # NAME ARGS...: one random folder with its expected.json
  local name=$1
  shift
  "$py" "$root/bench/hf_random_folder.py" "$tmp/$name" --fixtures "$fixtures" "$@"
}
failures=()
fail() { echo "FAILED: $*" >&2; failures+=("$*"); }
same() { # A B WHAT: byte-identical files
  if cmp -s "$1" "$2"; then echo "ok: $3"; else fail "$3: $1 and $2 differ"; fi
}
if [[ -e $root/bench/node_modules/tokenizers ]] && command -v node >/dev/null 2>&1; then
  echo "sentences: the fixtures' five + four through the npm tokenizers package (bench/node_modules)"
else
  echo "sentences: the fixtures' five (npm tokenizers not in bench/node_modules: scripts/setup-bench.sh adds four more)"
fi

# ---- the reference itself -----------------------------------------------------------------
reference_checks() {
  local d
  if [[ $mode == reference ]]; then # (the full mode runs verify-fixture on them instead)
    echo "== hf_eager.py against the seven fixtures (largest |diff| per tensor, tolerance_abs 1e-5)"
    for d in "$fixtures"/*/; do
      if ! "$py" "$eager" compare "$d"; then fail "hf_eager.py compare $(basename "$d")"; fi
    done
  fi
  echo "== hf_eager.py consistent with itself"
  # The same seed gives the same weights: only the config spelling and the file layout differ.
  gen spell-v5 --arch llama --heads 8 --kv-heads 2 --hidden 64 --head-dim 16 --theta 500000 \
      --rope-scaling llama3 --spelling v5 --seed 11 --ablations 0:1,1:6,1:*
  gen spell-v4-sharded --arch llama --heads 8 --kv-heads 2 --hidden 64 --head-dim 16 --theta 500000 \
      --rope-scaling llama3 --spelling v4 --shards 2 --seed 11 --ablations 0:1,1:6,1:*
  same "$tmp/spell-v5/expected.json" "$tmp/spell-v4-sharded/expected.json" \
      "llama3 rope scaling: v5 rope_parameters, one file = v4 rope_scaling, two shards"
  gen neox-v5 --arch gpt_neox --rotary-fraction 0.5 --theta 25000 --spelling v5 --seed 12 --ablations 0:1,1:2,0:*
  gen neox-v4-sharded --arch gpt_neox --rotary-fraction 0.5 --theta 25000 --spelling v4 --shards 2 --seed 12 \
      --ablations 0:1,1:2,0:*
  same "$tmp/neox-v5/expected.json" "$tmp/neox-v4-sharded/expected.json" \
      "GPT-NeoX: v5 rope_parameters (partial_rotary_factor) = v4 rotary_pct/rotary_emb_base, two shards"
  gen bf16-as-f32 --arch qwen2 --heads 8 --kv-heads 2 --hidden 64 --storage F32 --round-bf16 --seed 13
  gen bf16 --arch qwen2 --heads 8 --kv-heads 2 --hidden 64 --storage BF16 --seed 13
  # The config says float32 in one and bfloat16 in the other; the numbers must not care.
  same "$tmp/bf16-as-f32/expected.json" "$tmp/bf16/expected.json" "BF16 storage = F32 holding the BF16-rounded values"
}

# ---- the folders TreeLens must reproduce ----------------------------------------------------
# name | options (bench/hf_random_folder.py); together: every architecture, both spellings,
# GQA 8/2 and 4/1 and MQA, head_dim != hidden/heads, rotary fraction 0.5, theta, tied and
# untied, parallel residual off, Qwen2 biases, attention_bias (with o_proj bias, so a whole-
# layer ablation leaves a bias), two shards + index, F32/F16/BF16 storage, llama3
# rope scaling (factor 8, low 1, high 4, original 8192), padded vocabularies.
layouts=(
  "gpt2-3x8-untied-v4|--arch gpt2 --layers 3 --hidden 64 --heads 8 --inter 96 --positions 100 --untied --spelling v4 --seed 21"
  "neox-partial-serial-f16|--arch gpt_neox --layers 3 --hidden 64 --heads 4 --rotary-fraction 0.5 --theta 25000 --no-parallel-residual --pad-vocab 128 --storage F16 --spelling v5 --seed 22"
  "neox-nobias-tied-bf16-v4|--arch gpt_neox --hidden 96 --heads 6 --attention-bias off --tied --storage BF16 --spelling v4 --seed 23"
  "llama31-gqa8x2-shards-v4|--arch llama --layers 3 --hidden 64 --heads 8 --kv-heads 2 --head-dim 16 --theta 500000 --rope-scaling llama3 --attention-bias on --shards 2 --spelling v4 --seed 24"
  "llama31-mqa-tied-v5|--arch llama --hidden 64 --heads 4 --kv-heads 1 --theta 500000 --rope-scaling llama3 --tied --spelling v5 --seed 25"
  "llama2-tokenizer-v4|--arch llama --tokenizer-from llama2-tiny-random --hidden 48 --heads 6 --kv-heads 3 --pad-vocab 64 --spelling v4 --seed 26"
  "mistral-gqa-untied-v5|--arch mistral --layers 3 --hidden 64 --heads 4 --kv-heads 2 --spelling v5 --seed 27"
  "qwen2-gqa8x2-untied-bf16-shards|--arch qwen2 --layers 3 --hidden 64 --heads 8 --kv-heads 2 --untied --storage BF16 --shards 2 --spelling v5 --seed 28"
  "qwen3-hd32-bias-untied-v4|--arch qwen3 --hidden 48 --heads 6 --kv-heads 3 --head-dim 32 --attention-bias on --untied --theta 20000 --spelling v4 --seed 29"
  "gemma-gqa8x1-hd8-f16-v5|--arch gemma --layers 3 --hidden 48 --heads 8 --kv-heads 1 --head-dim 8 --pad-vocab 64 --storage F16 --spelling v5 --seed 30"
  "gemma-hidden-activation-v4|--arch gemma --hidden 64 --heads 4 --kv-heads 2 --head-dim 32 --attention-bias on --spelling v4 --seed 31"
)

reference_checks
if [[ $mode == reference ]]; then
  echo "reference checks: $((${#failures[@]})) failures, $(($(date +%s) - t_all)) s"
  ((${#failures[@]} == 0)) || exit 1
  exit 0
fi

echo "== generating ${#layouts[@]} folders"
dirs=()
for entry in "${layouts[@]}"; do
  name=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  gen "$name" "${args[@]}"
  dirs+=("$tmp/$name")
done
# The reference checks' folders too (both spellings, one file and two shards, BF16).
for name in spell-v5 spell-v4-sharded neox-v5 neox-v4-sharded bf16-as-f32 bf16; do dirs+=("$tmp/$name"); done
for d in "$fixtures"/*/; do dirs+=("${d%/}"); done

echo "== treelens-cli verify-fixture on ${#dirs[@]} folders"
for d in "${dirs[@]}"; do
  echo "-- $(basename "$d"): $(tr -d '\n ' <"$d/config.json" | head -c 400)"
  if "$cli" verify-fixture "$d"; then echo "ok: verify-fixture $(basename "$d")"; else fail "verify-fixture $(basename "$d") (exit $?)"; fi
done

echo "== BF16 storage: analyze --json of the F32 (BF16-rounded) and the BF16 folder"
text="The keys to the cabinet are on the table."
for v in bf16-as-f32 bf16; do
  # The folders' paths differ; whatever names the model is made the same before comparing.
  if "$cli" analyze "$text" --model "$tmp/$v" --json --threads 1 -o "$tmp/$v.analysis.json"; then
    sed "s#$tmp/$v#MODEL#g" "$tmp/$v.analysis.json" >"$tmp/$v.analysis.norm.json"
  else
    fail "analyze --model $v"
  fi
done
if [[ -f $tmp/bf16.analysis.norm.json && -f $tmp/bf16-as-f32.analysis.norm.json ]]; then
  same "$tmp/bf16-as-f32.analysis.norm.json" "$tmp/bf16.analysis.norm.json" "analyze --json: BF16 storage = F32 BF16-rounded"
fi

echo "== --precision bf16 against an eager forward of the same scheme (bench/decoder_precision_check.py)"
# TreeLens's bf16 path on the seven fixtures and two generated folders (BF16 storage, GPT-2's
# Conv1D) over UD EWT dev sentences of at most 25 words: every piece attention probability and
# surprisal within 1e-2 of hf_eager.py's Decoder(projections="bf16"), and the mean differences at
# most a tenth of what bf16 changes against fp32 (so that a path which stayed fp32 fails).
ewt=$shared/data/ud-english-ewt/en_ewt-ud-dev.conllu
if [[ -f $ewt ]]; then
  for d in "$fixtures"/*/ "$tmp/bf16" "$tmp/gpt2-3x8-untied-v4"; do
    d=${d%/}
    if out=$("$py" "$root/bench/decoder_precision_check.py" reference --cli "$cli" --folder "$d" --conllu "$ewt" \
               --sentences 12 --max-words 25 --tolerance 1e-2); then
      echo "ok: bf16 $(basename "$d"): $out"
    else
      fail "bf16 $(basename "$d"): $out"
    fi
  done
else
  echo "note: $ewt not found: the bf16 reference check is left out"
fi

echo "decoder layouts: ${#dirs[@]} folders, ${#failures[@]} failures, $(($(date +%s) - t_all)) s"
if ((${#failures[@]})); then
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
