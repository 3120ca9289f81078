#!/usr/bin/env bash
# Installs the dependencies, builds TreeLens and launches the desktop app on the
# shipped default model. Extra arguments go to `treelens` (e.g. --sentence "...").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
cmake --preset dev >/dev/null
cmake --build --preset dev --target treelens treelens-cli treelens_python
# The Python module into the user's site-packages (docs/python.md): python3 -c "import treelens".
cmake --install build/dev --component python >/dev/null
exec build/dev/app/treelens "$@"
