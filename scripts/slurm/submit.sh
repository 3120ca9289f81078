#!/usr/bin/env bash
# Submits a sharded run to Slurm: a job array of N tasks (TASK-array.sbatch, shards
# 1/N .. N/N) and the merge job (merge.sbatch), which starts when every task has
# succeeded (--dependency=afterok:ARRAYJOBID) and is cancelled when one fails; for
# probe also the training job (probe-train.sbatch), which starts when the merge has
# succeeded (--dependency=afterok:MERGEJOBID) and is cancelled when it fails.
#   scripts/slurm/submit.sh TASK N INPUT OUTDIR [CLI OPTION...]
# TASK: analyze, score-pairs or probe. INPUT: the corpus (score-pairs: the pair
# corpus). CLI OPTIONs go to every shard's command (--model M, ...; the TASK-array.sbatch
# header lists what each adds) and, for probe, to the training job too (probe-array.sbatch
# leaves out the training's own, --json and -o FILE; the CLI leaves the attention tasks
# to the training job). Writes
# OUTDIR/TASK.shardI-of-N.EXT, the merged OUTDIR/TASK.EXT, and the jobs' logs in
# OUTDIR/logs. probe: the shards hold the encoder's features
# (OUTDIR/probe.shardI-of-N.features), merged into OUTDIR/probe.features, on which the
# training job trains the probes: OUTDIR/probe.report.json (the report of an unsharded
# `probe --json`). Prints on stdout:
#   array ARRAYJOBID
#   merge MERGEJOBID
#   train TRAINJOBID        (probe only)
# Environment:
#   TREELENS                what the jobs run: an extracted bundle's folder (scripts/bundle.sh;
#                           TREELENS/bin/treelens-cli) or an Apptainer image (*.sif; apptainer
#                           exec TREELENS treelens-cli); docs/cluster.md, first section
#   TREELENS_CLI            the treelens-cli the jobs run when TREELENS is not set (default:
#                           treelens-cli on PATH). scripts/slurm/cli.sh reads both.
#   TREELENS_SBATCH         more sbatch options for every job (--partition=P --time=T ...)
#   TREELENS_ARRAY_SBATCH   more sbatch options for the array only (--gres=gpu:1 ...)
#   TREELENS_TRAIN_SBATCH   more sbatch options for probe's training job only (--gres=gpu:1,
#                           --cpus-per-task=C ...)
#   TREELENS_MAX_RUNNING    at most this many tasks at once (--array=1-N%K)
# sbatch's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...) apply
# too. Running it again with the same arguments redoes only the shards without a
# complete output (--skip-done) and merges (and, for probe, trains) again.
set -euo pipefail
usage="usage: scripts/slurm/submit.sh analyze|score-pairs|probe N INPUT OUTDIR [CLI OPTION...]"
(($# >= 4)) || { echo "$usage" >&2; exit 2; }
task=$1 n=$2 input=$3 outdir=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
case $task in
  analyze | score-pairs | probe) ;;
  *) echo "submit: unknown TASK '$task'; $usage" >&2; exit 2 ;;
esac
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit: N must be a positive number, not '$n'" >&2; exit 2; }
[[ -e $input ]] || { echo "submit: $input not found" >&2; exit 1; }
command -v sbatch >/dev/null || { echo "submit: sbatch not found (no Slurm here)" >&2; exit 1; }
# Absolute paths: the jobs may start in another directory.
input=$(realpath "$input")
mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd)
# The CLI (TREELENS or TREELENS_CLI), handed to the jobs with the folder of cli.sh.
# shellcheck source=cli.sh
source "$here/cli.sh"
treelens_cli_resolve || exit 1
export_cli="TREELENS_SLURM_DIR=$here,${treelens_export[0]},${treelens_export[1]}"
array_range=1-$n
if [[ -n ${TREELENS_MAX_RUNNING:-} ]]; then array_range+=%$TREELENS_MAX_RUNNING; fi
# shellcheck disable=SC2206  # word splitting wanted: lists of options
common=(${TREELENS_SBATCH:-})
# shellcheck disable=SC2206
array_extra=(${TREELENS_ARRAY_SBATCH:-})
# shellcheck disable=SC2206
train_extra=(${TREELENS_TRAIN_SBATCH:-})

array=$(sbatch --parsable --array="$array_range" --job-name="treelens-$task" \
  --export="ALL,TREELENS_SHARDS=$n,$export_cli" --output="$outdir/logs/$task.%A_%a.out" \
  "${common[@]}" "${array_extra[@]}" "$here/$task-array.sbatch" "$input" "$outdir" "$@")
array=${array%%;*}
echo "array $array"
# Without its merge job the array is cancelled, not left running unseen.
if ! merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name="treelens-merge-$task" \
  --export="ALL,$export_cli" --output="$outdir/logs/merge-$task.%j.out" \
  "${common[@]}" "$here/merge.sbatch" "$outdir" "$task" "$n"); then
  echo "submit: the merge job could not be submitted; cancelling array job $array" >&2
  scancel "$array" || true
  exit 1
fi
merge=${merge%%;*}
echo "merge $merge"
if [[ $task != probe ]]; then
  echo "submit: $task in $n shards of $input: array job $array, merge job $merge (logs in $outdir/logs)" >&2
  exit 0
fi
# probe: the probes train on the merged features. Without this job the array and the
# merge are cancelled too.
if ! train=$(sbatch --parsable --dependency="afterok:$merge" --kill-on-invalid-dep=yes --job-name="treelens-probe-train" \
  --export="ALL,$export_cli" --output="$outdir/logs/probe-train.%j.out" \
  "${common[@]}" "${train_extra[@]}" "$here/probe-train.sbatch" "$outdir" "$input" "$@"); then
  echo "submit: the training job could not be submitted; cancelling array job $array and merge job $merge" >&2
  scancel "$array" "$merge" || true
  exit 1
fi
train=${train%%;*}
echo "train $train"
echo "submit: probe in $n shards of $input: array job $array (features), merge job $merge, training job $train (report $outdir/probe.report.json, logs in $outdir/logs)" >&2
