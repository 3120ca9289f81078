#!/usr/bin/env bash
# Submits a sharded run to Slurm: a job array of N tasks (TASK-array.sbatch, shards
# 1/N .. N/N) and the merge job (merge.sbatch), which starts when every task has
# succeeded (--dependency=afterok:ARRAYJOBID) and is cancelled when one fails.
#   scripts/slurm/submit.sh TASK N INPUT OUTDIR [CLI OPTION...]
# TASK: analyze, score-pairs or probe. INPUT: the corpus (score-pairs: the pair
# corpus). CLI OPTIONs go to every shard's command (--model M, ...; the TASK-array.sbatch
# header lists what each adds). Writes OUTDIR/TASK.shardI-of-N.EXT, the merged
# OUTDIR/TASK.EXT, and the jobs' logs in OUTDIR/logs. Prints two lines on stdout:
#   array ARRAYJOBID
#   merge MERGEJOBID
# Environment:
#   TREELENS_CLI            the treelens-cli the jobs run (default: treelens-cli on PATH)
#   TREELENS_SBATCH         more sbatch options for both jobs (--partition=P --time=T ...)
#   TREELENS_ARRAY_SBATCH   more sbatch options for the array only (--gres=gpu:1 ...)
#   TREELENS_MAX_RUNNING    at most this many tasks at once (--array=1-N%K)
# sbatch's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...) apply
# too. Running it again with the same arguments redoes only the shards without a
# complete output (--skip-done) and merges again.
set -euo pipefail
usage="usage: scripts/slurm/submit.sh analyze|score-pairs|probe N INPUT OUTDIR [CLI OPTION...]"
(($# >= 4)) || { echo "$usage" >&2; exit 2; }
task=$1 n=$2 input=$3 outdir=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
case $task in
  analyze | score-pairs) ;;
  probe)
    # probe-array.sbatch is written for `probe --shard` (feature extraction in shards), which
    # treelens-cli does not have yet: every task would fail (docs/cluster.md).
    if ! "${TREELENS_CLI:-treelens-cli}" probe --help 2>/dev/null | grep -q -- --shard; then
      echo "submit: this treelens-cli has no 'probe --shard' yet (docs/cluster.md); run probe as one job" >&2
      exit 2
    fi ;;
  *) echo "submit: unknown TASK '$task'; $usage" >&2; exit 2 ;;
esac
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit: N must be a positive number, not '$n'" >&2; exit 2; }
[[ -e $input ]] || { echo "submit: $input not found" >&2; exit 1; }
command -v sbatch >/dev/null || { echo "submit: sbatch not found (no Slurm here)" >&2; exit 1; }
# Absolute paths: the jobs may start in another directory.
input=$(realpath "$input")
mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd)
cli=${TREELENS_CLI:-treelens-cli}
if [[ $cli == */* ]]; then cli=$(realpath "$cli"); fi
array_range=1-$n
if [[ -n ${TREELENS_MAX_RUNNING:-} ]]; then array_range+=%$TREELENS_MAX_RUNNING; fi
# shellcheck disable=SC2206  # word splitting wanted: lists of options
common=(${TREELENS_SBATCH:-})
# shellcheck disable=SC2206
array_extra=(${TREELENS_ARRAY_SBATCH:-})

array=$(sbatch --parsable --array="$array_range" --job-name="treelens-$task" \
  --export="ALL,TREELENS_SHARDS=$n,TREELENS_CLI=$cli" --output="$outdir/logs/$task.%A_%a.out" \
  "${common[@]}" "${array_extra[@]}" "$here/$task-array.sbatch" "$input" "$outdir" "$@")
array=${array%%;*}
echo "array $array"
# Without its merge job the array is cancelled, not left running unseen.
if ! merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name="treelens-merge-$task" \
  --export="ALL,TREELENS_CLI=$cli" --output="$outdir/logs/merge-$task.%j.out" \
  "${common[@]}" "$here/merge.sbatch" "$outdir" "$task" "$n"); then
  echo "submit: the merge job could not be submitted; cancelling array job $array" >&2
  scancel "$array" || true
  exit 1
fi
merge=${merge%%;*}
echo "merge $merge"
echo "submit: $task in $n shards of $input: array job $array, merge job $merge (logs in $outdir/logs)" >&2
