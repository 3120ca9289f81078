#!/usr/bin/env bash
# Optional: what bench_speed needs to run the official Tree Transformer code beside
# TreeLens (docs/performance.md): Debian's PyTorch for Python (the same 1.13 and the same
# OpenBLAS as TreeLens's LibTorch), NLTK (the official parse.py imports it) and GNU time (speed_runs.sh). TreeLens
# itself, its tests and CI need neither. The official sources are not installed here:
# they are the public repository yaushian/Tree-Transformer, checked out by the user
# (never committed to this repository) and given to bench_speed with --official DIR.
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
