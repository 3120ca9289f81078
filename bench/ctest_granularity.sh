#!/usr/bin/env bash
# The test suite's wall clock with one ctest test per GoogleTest case
# (TREELENS_TEST_SHARDS=0, the default) and with N shards per test executable (the
# ci presets: 2), side by side on the same binaries, machine and parallelism.
# Configures build/PRESET-shards0 and build/PRESET-shardsN (ccache gives them the
# preset's objects when it was built, so mostly linking runs), then runs each suite
# REPS times, alternating which goes first. Prints one JSON object.
#   bench/ctest_granularity.sh [PRESET=ci] [REPS=1] [N=2]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-ci}
build=build/$preset
reps=${2:-1}
shards=${3:-2}
jobs=$(nproc)
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
for n in 0 "$shards"; do
  cmake --preset "$preset" -B "$build-shards$n" -DTREELENS_TEST_SHARDS="$n" >/dev/null
  cmake --build "$build-shards$n" -j "$jobs" >/dev/null || { echo "ctest_granularity: the build of $build-shards$n failed" >&2; exit 1; }
done
declare -A total
for ((r = 0; r < reps; r++)); do
  order=("$shards" 0)
  ((r % 2)) && order=(0 "$shards")
  for n in "${order[@]}"; do
    t0=$(date +%s.%N)
    ctest --test-dir "$build-shards$n" -j "$jobs" --timeout 1500 -E package_contents >/dev/null
    total[$n]=$(echo "${total[$n]:-0} + $(date +%s.%N) - $t0" | bc)
  done
done
percase=$(echo "scale=1; ${total[0]} / $reps" | bc)
sharded=$(echo "scale=1; ${total[$shards]} / $reps" | bc)
cases=$(ctest --test-dir "$build-shards0" -N -E package_contents | sed -n 's/^Total Tests: //p')
printf '{"bench":"ctest_granularity","jobs":%d,"reps":%d,"shards":%d,"per_case_tests":%d,"per_case_s":%s,"sharded_s":%s,"ratio":%s}\n' \
  "$jobs" "$reps" "$shards" "$cases" "$percase" "$sharded" "$(echo "scale=2; $percase / $sharded" | bc)"
