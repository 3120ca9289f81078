#!/usr/bin/env bash
# Installs every build, test and run-time dependency of TreeLens from Debian's
# archive. Idempotent: packages already present are not touched, and apt is only
# called when something is missing. Nothing else is downloaded.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-svg-dev libxkbcommon-dev libgl-dev
  libqcustomplot-dev libgraphviz-dev
  libtorch-dev libopenblas0-pthread
  liblink-grammar-dev link-grammar-dictionaries-en
  nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev iwyu universal-ctags
  wordnet-base
  xvfb xauth imagemagick poppler-utils
  libzip-dev zlib1g-dev unzip libpugixml-dev libicu-dev
  dpkg-dev file graphviz appstream desktop-file-utils librsvg2-bin
  slurm-wlm munge parallel
  patchelf strace
  python3-dev pybind11-dev python3-numpy python3-pytest jupyter-nbconvert python3-ipykernel python3-nbformat
  python3-torch
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
