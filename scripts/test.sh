#!/usr/bin/env bash
# Installs the dependencies, builds everything and runs every test. CI runs this.
#   1. dev preset (GUI, core, CLI, tests, benchmarks): ctest
#   2. headless preset (TREELENS_BUILD_GUI=OFF): core + CLI + core tests stay green
#   3. libFuzzer targets, 30 s each (FUZZ_SECONDS to change, 0 to skip)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$jobs}
# Let the headless build reuse the dev build's objects (same flags, other directory).
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1

cmake --preset dev
cmake --build --preset dev -j "$jobs"
(cd build/dev && ctest --output-on-failure --timeout 1500)

cmake --preset headless >/dev/null
cmake --build --preset headless -j "$jobs"
(cd build/headless && ctest --output-on-failure --timeout 1500 -E package_contents)

if [[ ${FUZZ_SECONDS:-30} != 0 ]]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
fi
echo "test.sh: all green"
