#!/usr/bin/env bash
# Optional: what bench_speed needs to run the official Tree Transformer code beside
# TreeLens (docs/performance.md): Debian's PyTorch for Python (the same 1.13 and the same
# OpenBLAS as TreeLens's LibTorch), NLTK (the official parse.py imports it) and GNU time (speed_runs.sh). TreeLens
# itself needs neither (python3-torch is also a test dependency: scripts/setup.sh installs it for
# the decoder reference ctests). The official sources are not installed here:
# they are the public repository yaushian/Tree-Transformer, checked out by the user
# (never committed to this repository) and given to bench_speed with --official DIR.
# The decoder benchmark (bench/hf_decoder_bench.py, docs/performance.md) also uses python3-torch,
# and the npm `tokenizers` package (the official Rust-backed tokenizer, 0.23.2, the version the
# decoder fixtures were made with) for the token ids both sides run: installed into
# bench/node_modules (git-ignored) when npm is present; bench/hf_tokenize.js calls it.
set -euo pipefail
PACKAGES=(python3-torch python3-nltk python3-numpy time)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
/usr/bin/python3 -c "import torch, nltk; print('setup-bench: python3', torch.__version__, 'nltk', nltk.__version__)"
if command -v npm >/dev/null 2>&1; then
  bench=$(cd "$(dirname "$0")/../bench" && pwd)
  [[ -e $bench/node_modules/tokenizers ]] ||
    npm install --no-save --no-package-lock --prefix "$bench" tokenizers@0.23.2
  echo "setup-bench: npm tokenizers in $bench/node_modules"
else
  echo "setup-bench: no npm; bench/hf_decoder_bench.py needs the npm tokenizers package (or --ids-from-treelens)" >&2
fi
