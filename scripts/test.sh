#!/usr/bin/env bash
# Installs the dependencies, builds everything and runs every test. CI runs this.
#   1. setup (scripts/setup.sh)
#   2. include check: every header includes the standard headers it uses (IWYU)
#   3. ci preset (GUI, core, CLI, tests, benchmarks; -O2, no debug info, no precompiled
#      header, so ccache caches every unit; each test executable runs as two GoogleTest
#      shards, TREELENS_TEST_SHARDS): build, ctest with native bf16 reported present
#      (TREELENS_CPU_BF16=native); the Python module installed into the user's site-packages
#   4. ci-headless preset (TREELENS_BUILD_GUI=OFF): build (ccache reuses the ci objects),
#      ctest with native bf16 reported absent (TREELENS_CPU_BF16=none): both branches of
#      --precision auto on any CPU
#   5. libFuzzer targets, 20 s each, two at a time (FUZZ_SECONDS to change, 0 to skip)
# Each stage's wall-clock time is printed at the end and kept in build/ci-times.tsv
# (docs/building.md, "The CI command end to end").
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$jobs}
# ccache: the headless build reuses the dev build's objects (same flags, other
# directory), and a fresh clone elsewhere reuses an earlier checkout's.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1

declare -a stage_names stage_secs
start_all=$(date +%s)
stage() { # NAME COMMAND...: runs and times one stage
  local name=$1 t0 rc
  shift
  echo "== test.sh: $name" >&2
  t0=$(date +%s)
  "$@" || rc=$?
  stage_names+=("$name")
  stage_secs+=($(($(date +%s) - t0)))
  if [[ ${rc:-0} != 0 ]]; then
    report
    echo "test.sh: stage '$name' failed (exit $rc)" >&2
    exit "$rc"
  fi
}
report() {
  mkdir -p build
  {
    printf 'stage\tseconds\n'
    for i in "${!stage_names[@]}"; do printf '%s\t%s\n' "${stage_names[$i]}" "${stage_secs[$i]}"; done
    printf 'total\t%s\n' $(($(date +%s) - start_all))
  } | tee build/ci-times.tsv >&2
}

stage setup scripts/setup.sh
stage include-check python3 scripts/check_includes.py --jobs "$jobs"
stage ci-configure cmake --preset ci
stage ci-build cmake --build --preset ci -j "$jobs"
stage ci-test env TREELENS_CPU_BF16=native ctest --test-dir build/ci --output-on-failure --timeout 1500
# The Python module into the user's site-packages (docs/python.md): python3 -c "import treelens"
# works after this script, and the notebook (docs/notebooks, run by ctest) imports it so.
stage python-install cmake --install build/ci --component python
stage headless-configure cmake --preset ci-headless
stage headless-build cmake --build --preset ci-headless -j "$jobs"
stage headless-test env TREELENS_CPU_BF16=none ctest --test-dir build/ci-headless --output-on-failure --timeout 1500 -E package_contents
if [[ ${FUZZ_SECONDS:-20} != 0 ]]; then
  stage fuzz scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
fi
report
echo "test.sh: all green"
