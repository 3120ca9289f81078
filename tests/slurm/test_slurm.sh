#!/usr/bin/env bash
# Sharded runs on Slurm end to end (docs/cluster.md), on a private single-node
# cluster started for the test (scripts/slurm/local-cluster.sh) and stopped at its end.
#   tests/slurm/test_slurm.sh CLI_PATH DATA_DIR   treelens-cli analyze of DATA_DIR/probing/tiny.conllu
#                                                 repeated to 1,560 sentences (4 shards of whole
#                                                 blocks of 512) unsharded, then as a 4-task array
#                                                 + merge job (scripts/slurm/submit.sh): the merged
#                                                 file must equal the unsharded output byte for
#                                                 byte; a resubmission redoes nothing (--skip-done);
#                                                 merge refuses a missing shard. Then probe
#                                                 (sentlen, structural-depth) of that corpus as a
#                                                 3-task array + merge + training job: the merged
#                                                 features must equal probe --extract-features
#                                                 byte for byte, the training's JSON report the
#                                                 unsharded probe --json report (bar "timing"
#                                                 and "command")
#   tests/slurm/test_slurm.sh --selftest [DATA_DIR]   the harness without treelens-cli: a 4-task
#                                                 array and a dependent job that joins its files,
#                                                 then submit.sh, the array and merge scripts
#                                                 with a stand-in CLI (a failed shard cancels the
#                                                 merge; the resubmission redoes that shard only),
#                                                 and TREELENS (scripts/slurm/cli.sh) naming a
#                                                 bundle folder, a .sif (a stand-in apptainer)
#                                                 and a folder that is neither
# Exit 77 (CTest: skipped) with "SKIPPED: why" when the cluster cannot start (not
# root, Slurm or MUNGE missing: scripts/setup.sh installs them) or treelens-cli has no
# --shard. Set KEEP_SLURM_TEST=1 to keep the temporary directory (logs, outputs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
slurm=$root/scripts/slurm
usage="usage: tests/slurm/test_slurm.sh CLI_PATH DATA_DIR | --selftest [DATA_DIR]"
mode=real
if [[ ${1:-} == --selftest ]]; then
  mode=selftest
  data=${2:-$root/tests/data}
else
  (($# == 2)) || { echo "$usage" >&2; exit 2; }
  cli=$(realpath "$1")
  data=$2
fi
t_all=$(date +%s.%N)

skip() { echo "SKIPPED: $*"; exit 77; }
on_fail=
fail() {
  echo "FAILED: $*" >&2
  if [[ -n $on_fail ]]; then $on_fail; fi
  exit 1
}
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }
declare -a timing_names timing_secs
timed() { # NAME START: one line of the timing table
  timing_names+=("$1")
  timing_secs+=("$(secs "$2")")
}
report() {
  local i
  echo "timings (s):"
  for i in "${!timing_names[@]}"; do printf '  %-34s %6s\n' "${timing_names[$i]}" "${timing_secs[$i]}"; done
  printf '  %-34s %6s\n' total "$(secs "$t_all")"
}

if [[ $mode == real ]]; then
  [[ -x $cli ]] || fail "$cli is not an executable"
  help=$("$cli" analyze --help 2>/dev/null) || true
  [[ $help == *--shard* ]] || skip "treelens-cli has no --shard yet"
  "$cli" merge --help >/dev/null 2>&1 || skip "treelens-cli has no merge yet"
  tiny=$data/probing/tiny.conllu
  [[ -f $tiny ]] || fail "$tiny not found"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/treelens-slurm.XXXXXX")
cluster=$tmp/cluster
cleanup() {
  local rc=$?
  "$slurm/local-cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
  if [[ -n ${KEEP_SLURM_TEST:-} ]]; then
    echo "kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s.%N)
rc=0
env_line=$("$slurm/local-cluster.sh" start "$cluster" 2>"$tmp/cluster-start.err") || rc=$?
if ((rc == 77)); then skip "$(tail -n 1 "$tmp/cluster-start.err")"; fi
((rc == 0)) || fail "local-cluster.sh start exited $rc: $(cat "$tmp/cluster-start.err")"
eval "$env_line"
[[ -f ${SLURM_CONF:-} ]] || fail "local-cluster.sh start printed no SLURM_CONF: $env_line"
timed "cluster start" "$t0"

wait_jobs() { # TIMEOUT ID...: until squeue lists none of the jobs
  local limit=$1 ids
  shift
  ids=$(IFS=,; echo "$*")
  local t=$SECONDS
  while [[ -n $(squeue -h -j "$ids" -o %i 2>/dev/null) ]]; do
    ((SECONDS - t < limit)) || { squeue -j "$ids" >&2; fail "jobs $ids still queued after $limit s"; }
    sleep 0.5
  done
}
job_states() { # ID: "STATE EXITCODE" per job (each task of an array), from scontrol
  scontrol show job -o "$1" 2>/dev/null | sed -n 's/.* JobState=\([^ ]*\) .* ExitCode=\([^ ]*\) .*/\1 \2/p'
}
expect_jobs() { # ID COUNT STATE: COUNT records, each STATE (and exit 0:0 for COMPLETED)
  local id=$1 count=$2 state=$3 lines
  lines=$(job_states "$id")
  if [[ $(grep -c . <<<"$lines") != "$count" ]] || grep -qv "^$state " <<<"$lines" ||
    { [[ $state == COMPLETED ]] && grep -qv " 0:0$" <<<"$lines"; }; then
    echo "job $id: expected $count x $state, got:" >&2
    echo "$lines" >&2
    scontrol show job "$id" >&2 || true
    tail -n 20 "$cluster/slurmctld.log" >&2 || true
    fail "job $id"
  fi
}
submit() { # ARGS...: runs submit.sh; sets array_id, merge_id
  local out
  out=$("$slurm/submit.sh" "$@") || fail "submit.sh $* exited $?"
  array_id=$(awk '$1 == "array" {print $2}' <<<"$out")
  merge_id=$(awk '$1 == "merge" {print $2}' <<<"$out")
  [[ $array_id =~ ^[0-9]+$ && $merge_id =~ ^[0-9]+$ ]] || fail "submit.sh printed no job ids: $out"
}
mtimes() { stat -c '%n %y' "$@"; }

if [[ $mode == selftest ]]; then
  # 1. Plain Slurm: a 4-task array, a job that starts after it and joins its files.
  t0=$(date +%s.%N)
  mkdir -p "$tmp/plain"
  # shellcheck disable=SC2016  # expanded by the job
  a=$(sbatch --parsable --array=1-4 -o "$tmp/plain/%A_%a.log" --chdir="$tmp/plain" \
    --wrap 'echo "$SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT" >task.$SLURM_ARRAY_TASK_ID')
  a=${a%%;*}
  j=$(sbatch --parsable --dependency="afterok:$a" -o "$tmp/plain/join.log" --chdir="$tmp/plain" \
    --wrap 'cat task.1 task.2 task.3 task.4 >joined')
  j=${j%%;*}
  wait_jobs 120 "$a" "$j"
  expect_jobs "$a" 4 COMPLETED
  expect_jobs "$j" 1 COMPLETED
  printf '%s of 4\n' 1 2 3 4 | cmp - "$tmp/plain/joined" || fail "joined file differs"
  timed "plain array + dependent job" "$t0"

  # 2. The scripts with a stand-in treelens-cli: `analyze --shard I/N -o OUT` writes
  # lines ⌊(I−1)L/N⌋+1 .. ⌊IL/N⌋ of the input between a header and an end line, and
  # the arguments it got to OUT.args; `merge` checks shards 1..N are there once each
  # and complete, and joins them. FAKE_FAIL_SHARD=I makes shard I fail.
  cli=$tmp/fake-treelens-cli
  cat >"$cli" <<'FAKE'
#!/usr/bin/env bash
set -euo pipefail
cmd=$1
shift
case $cmd in
  analyze)
    [[ ${1:-} == --help ]] && { echo "  --shard I/N"; exit 0; }
    input= shard= out= skip=0
    all=("$@")
    while (($#)); do
      case $1 in
        --input) input=$2; shift ;;
        --shard) shard=$2; shift ;;
        -o) out=$2; shift ;;
        --skip-done) skip=1 ;;
      esac
      shift
    done
    i=${shard%/*} n=${shard#*/}
    if ((skip)) && [[ -f $out ]] && tail -n 1 "$out" | grep -qx "#end $shard"; then
      echo "analyze: $out is complete: skipped" >&2
      exit 0
    fi
    [[ ${FAKE_FAIL_SHARD:-} == "$i" ]] && { echo "analyze: shard $i fails (FAKE_FAIL_SHARD)" >&2; exit 1; }
    l=$(wc -l <"$input")
    { echo "#shard $shard"; sed -n "$(((i - 1) * l / n + 1)),$((i * l / n))p" "$input"; echo "#end $shard"; } >"$out.tmp"
    printf '%s\n' "${all[@]}" "cli $0" "runner ${FAKE_RUNNER:-none}" >"$out.args"
    mv "$out.tmp" "$out" ;;
  merge)
    files=() out=
    while (($#)); do
      if [[ $1 == -o ]]; then out=$2; shift; else files+=("$1"); fi
      shift
    done
    n=$(head -n 1 "${files[0]}" | sed 's|.*/||')
    ((${#files[@]} == n)) || { echo "merge: ${#files[@]} files for $n shards" >&2; exit 1; }
    : >"$out.tmp"
    for ((i = 1; i <= n; i++)); do
      f=$(grep -lx "#shard $i/$n" "${files[@]}") || { echo "merge: shard $i/$n missing" >&2; exit 1; }
      tail -n 1 "$f" | grep -qx "#end $i/$n" || { echo "merge: $f incomplete" >&2; exit 1; }
      sed '1d;$d' "$f" >>"$out.tmp"
    done
    mv "$out.tmp" "$out" ;;
  *) echo "fake-treelens-cli: no command $cmd" >&2; exit 2 ;;
esac
FAKE
  chmod +x "$cli"
  corpus=$tmp/corpus.txt
  if [[ -f $data/probing/tiny.conllu ]]; then
    grep -v '^#' "$data/probing/tiny.conllu" | grep . >"$corpus"
  else
    seq 1 100 >"$corpus"
  fi
  out=$tmp/out
  export TREELENS_CLI=$cli

  # 2a. Shard 3 fails: the array fails, the merge job is cancelled (never runs).
  t0=$(date +%s.%N)
  FAKE_FAIL_SHARD=3 submit analyze 4 "$corpus" "$out" --model some.safetensors
  wait_jobs 120 "$array_id" "$merge_id"
  [[ $(job_states "$array_id" | grep -c '^FAILED 1:0$') == 1 ]] || { job_states "$array_id" >&2; fail "shard 3 should have failed"; }
  expect_jobs "$merge_id" 1 CANCELLED
  [[ ! -e $out/analyze.jsonl && ! -e $out/analyze.shard3-of-4.jsonl ]] || fail "a merged file or shard 3 despite the failure"
  for i in 1 2 4; do [[ -f $out/analyze.shard$i-of-4.jsonl ]] || fail "shard $i missing"; done
  # Every shard got --device cpu (no CUDA_VISIBLE_DEVICES), --threads 1 and the options.
  tr '\n' ' ' <"$out/analyze.shard1-of-4.jsonl.args" |
    grep -q -- "--input $corpus --json --no-attention --shard 1/4 --skip-done -o $out/analyze.shard1-of-4.jsonl --device cpu --threads 1 --model some.safetensors" ||
    fail "shard 1's command line: $(tr '\n' ' ' <"$out/analyze.shard1-of-4.jsonl.args")"
  timed "stand-in: array with a failed shard" "$t0"

  # 2b. The same submission again: shards 1, 2 and 4 are skipped, 3 runs, the merge runs.
  t0=$(date +%s.%N)
  before=$(mtimes "$out"/analyze.shard[124]-of-4.jsonl)
  submit analyze 4 "$corpus" "$out" --model some.safetensors
  wait_jobs 120 "$array_id" "$merge_id"
  expect_jobs "$array_id" 4 COMPLETED
  expect_jobs "$merge_id" 1 COMPLETED
  [[ $(mtimes "$out"/analyze.shard[124]-of-4.jsonl) == "$before" ]] || fail "--skip-done: a complete shard was written again"
  [[ $(grep -l 'skipped' "$out"/logs/analyze."$array_id"_*.out | wc -l) == 3 ]] || fail "three shards should say skipped"
  cmp "$corpus" "$out/analyze.jsonl" || fail "merged file differs from the input"
  timed "stand-in: resubmission + merge" "$t0"

  # 3. TREELENS, the one variable for a bundle or a container (scripts/slurm/cli.sh): an
  # extracted bundle's folder runs its bin/treelens-cli; a .sif image runs `apptainer exec
  # IMAGE treelens-cli` (a stand-in apptainer on PATH); TREELENS wins over TREELENS_CLI.
  t0=$(date +%s.%N)
  bundle=$tmp/bundle
  mkdir -p "$bundle/bin" "$tmp/fakebin"
  cp "$cli" "$bundle/bin/treelens-cli"
  cat >"$tmp/fakebin/apptainer" <<FAKE
#!/usr/bin/env bash
[[ \$1 == exec && \$3 == treelens-cli ]] || { echo "apptainer stand-in: unexpected \$*" >&2; exit 2; }
img=\$2
shift 3
FAKE_RUNNER="apptainer exec \$img" exec "$cli" "\$@"
FAKE
  chmod +x "$tmp/fakebin/apptainer"
  : >"$tmp/treelens.sif"
  expect_run() { # OUTDIR CLI RUNNER: the merged file is the input, shard 1 ran CLI under RUNNER
    cmp -s "$corpus" "$1/analyze.jsonl" || fail "$1: merged file missing or differs from the input"
    grep -qx "cli $2" "$1/analyze.shard1-of-2.jsonl.args" || fail "$1: shard 1 ran $(grep '^cli ' "$1/analyze.shard1-of-2.jsonl.args"), not $2"
    grep -qx "runner $3" "$1/analyze.shard1-of-2.jsonl.args" || fail "$1: shard 1 ran under $(grep '^runner ' "$1/analyze.shard1-of-2.jsonl.args"), not $3"
  }
  TREELENS=$bundle submit analyze 2 "$corpus" "$tmp/out-bundle"
  bundle_ids=("$array_id" "$merge_id")
  PATH=$tmp/fakebin:$PATH TREELENS=$tmp/treelens.sif submit analyze 2 "$corpus" "$tmp/out-sif"
  sif_ids=("$array_id" "$merge_id")
  # sbatch on a job script directly: no submit.sh, so no TREELENS_SLURM_DIR; the script finds
  # cli.sh where Slurm recorded it (scontrol's Command=).
  direct=$(TREELENS=$bundle sbatch --parsable --array=1-2 --output="$tmp/direct.%A_%a.out" \
    "$slurm/analyze-array.sbatch" "$corpus" "$tmp/out-direct") || fail "sbatch analyze-array.sbatch exited $?"
  direct=${direct%%;*}
  wait_jobs 120 "${bundle_ids[@]}" "${sif_ids[@]}" "$direct"
  expect_jobs "${bundle_ids[0]}" 2 COMPLETED
  expect_jobs "${bundle_ids[1]}" 1 COMPLETED
  expect_jobs "${sif_ids[0]}" 2 COMPLETED
  expect_jobs "${sif_ids[1]}" 1 COMPLETED
  expect_jobs "$direct" 2 COMPLETED
  expect_run "$tmp/out-bundle" "$bundle/bin/treelens-cli" none
  expect_run "$tmp/out-sif" "$cli" "apptainer exec $tmp/treelens.sif"
  grep -qx "cli $bundle/bin/treelens-cli" "$tmp/out-direct/analyze.shard2-of-2.jsonl.args" ||
    fail "sbatch analyze-array.sbatch with TREELENS: shard 2 did not run the bundle's CLI"
  # A TREELENS that is neither is refused before anything is submitted.
  if TREELENS=$tmp/fakebin "$slurm/submit.sh" analyze 2 "$corpus" "$tmp/out-bad" >/dev/null 2>"$tmp/bad.err"; then
    fail "submit.sh accepted TREELENS=$tmp/fakebin (no bin/treelens-cli)"
  fi
  grep -q "without bin/treelens-cli" "$tmp/bad.err" || fail "TREELENS=folder without bin/: $(cat "$tmp/bad.err")"
  [[ ! -e $tmp/out-bad/analyze.jsonl ]] || fail "a refused TREELENS submitted jobs"
  timed "TREELENS: bundle, .sif, direct" "$t0"
  echo "selftest: passed"
  report
  exit 0
fi

# The real CLI: unsharded, then 4 shards on Slurm and the merge. Shards are whole
# blocks of B sentences (analyze --help says B; 512): tiny.conllu (30 sentences)
# repeated to 3 blocks and a part of one, so each shard holds one block.
block=512
if [[ $help =~ blocks\ of\ ([0-9]+)\ sentences ]]; then block=${BASH_REMATCH[1]}; fi
sentences=$(grep -c '^$' "$tiny")
corpus=$tmp/corpus.conllu
for ((k = 0; k * sentences < 3 * block + 10; k++)); do cat "$tiny"; done >"$corpus"
opts=(--device cpu --threads 1)
t0=$(date +%s.%N)
"$cli" analyze --input "$corpus" --json --no-attention "${opts[@]}" -o "$tmp/unsharded.jsonl" 2>"$tmp/unsharded.err" ||
  fail "unsharded analyze: $(cat "$tmp/unsharded.err")"
timed "analyze unsharded" "$t0"

out=$tmp/out
t0=$(date +%s.%N)
TREELENS_CLI=$cli submit analyze 4 "$corpus" "$out" "${opts[@]}"
wait_jobs 300 "$array_id" "$merge_id"
show_logs() { tail -n 20 "$out"/logs/* >&2 || true; }
on_fail=show_logs
expect_jobs "$array_id" 4 COMPLETED
expect_jobs "$merge_id" 1 COMPLETED
timed "4-task array + merge on Slurm" "$t0"
cmp "$tmp/unsharded.jsonl" "$out/analyze.jsonl" || fail "merged output differs from the unsharded one"
for i in 1 2 3 4; do
  records=$(tail -n 1 "$out/analyze.shard$i-of-4.jsonl" | sed -n 's/^#treelens-shard-end {"records": *\([0-9]*\)}$/\1/p')
  [[ ${records:-0} -gt 0 ]] || fail "shard $i holds no records (its last line: $(tail -n 1 "$out/analyze.shard$i-of-4.jsonl"))"
done

# Resubmitted: every shard is complete (--skip-done), the merge gives the same file.
t0=$(date +%s.%N)
before=$(mtimes "$out"/analyze.shard*-of-4.jsonl)
TREELENS_CLI=$cli submit analyze 4 "$corpus" "$out" "${opts[@]}"
wait_jobs 300 "$array_id" "$merge_id"
expect_jobs "$array_id" 4 COMPLETED
expect_jobs "$merge_id" 1 COMPLETED
[[ $(mtimes "$out"/analyze.shard*-of-4.jsonl) == "$before" ]] || fail "--skip-done: a complete shard was written again"
cmp "$tmp/unsharded.jsonl" "$out/analyze.jsonl" || fail "merged output differs after the resubmission"
timed "resubmission (--skip-done) + merge" "$t0"

# merge refuses a missing shard.
if "$cli" merge "$out"/analyze.shard[124]-of-4.jsonl -o "$tmp/three.jsonl" 2>"$tmp/three.err"; then
  fail "merge accepted shards 1, 2, 4 of 4"
fi
echo "merge without shard 3: $(head -n 1 "$tmp/three.err")"
echo "slurm: merged output of 4 shards = unsharded output ($(wc -l <"$tmp/unsharded.jsonl") sentences, blocks of $block)"

# probe: the same corpus's features in 3 shards (blocks 1, 2, 3-4), merged, and the
# probes trained on them in a third job; against the unsharded extraction and run. The
# features and the report name the corpus by the path given: submit.sh's absolute one.
abs_corpus=$(realpath "$corpus")
probe_opts=(--task "sentlen,structural-depth" --epochs 2 --layers "embeddings,2" "${opts[@]}")
t0=$(date +%s.%N)
"$cli" probe --train "$abs_corpus" "${probe_opts[@]}" --extract-features -o "$tmp/whole.features" 2>"$tmp/whole.err" ||
  fail "probe --extract-features: $(cat "$tmp/whole.err")"
"$cli" probe --train "$abs_corpus" "${probe_opts[@]}" --json -o "$tmp/unsharded-probe.json" 2>"$tmp/unsharded-probe.err" ||
  fail "unsharded probe: $(cat "$tmp/unsharded-probe.err")"
timed "probe unsharded (features + run)" "$t0"

out=$tmp/probe-out
t0=$(date +%s.%N)
sub=$(TREELENS_CLI=$cli "$slurm/submit.sh" probe 3 "$corpus" "$out" "${probe_opts[@]}") || fail "submit.sh probe exited $?"
array_id=$(awk '$1 == "array" {print $2}' <<<"$sub")
merge_id=$(awk '$1 == "merge" {print $2}' <<<"$sub")
train_id=$(awk '$1 == "train" {print $2}' <<<"$sub")
[[ $array_id =~ ^[0-9]+$ && $merge_id =~ ^[0-9]+$ && $train_id =~ ^[0-9]+$ ]] || fail "submit.sh probe printed no three job ids: $sub"
wait_jobs 300 "$array_id" "$merge_id" "$train_id"
expect_jobs "$array_id" 3 COMPLETED
expect_jobs "$merge_id" 1 COMPLETED
expect_jobs "$train_id" 1 COMPLETED
timed "probe: 3-task array + merge + train" "$t0"
for i in 1 2 3; do [[ -f $out/probe.shard$i-of-3.features ]] || fail "no $out/probe.shard$i-of-3.features"; done
cmp "$tmp/whole.features" "$out/probe.features" || fail "merged probe features differ from probe --extract-features"
python3 -c '
import json, sys
def report(path):
    with open(path) as f:
        r = json.load(f)
    for key in ("timing", "command"):
        r.pop(key, None)
    return r
sys.exit(0 if report(sys.argv[1]) == report(sys.argv[2]) else 1)
' "$tmp/unsharded-probe.json" "$out/probe.report.json" ||
  fail "the report trained on the merged features differs from the unsharded probe report (bar timing, command)"
echo "slurm: probe in 3 shards: merged features = whole extraction ($(wc -c <"$out/probe.features") bytes), report = unsharded report"
report
