# shellcheck shell=bash disable=SC2034  # treelens_cli, treelens_export: for the sourcing script
# Which treelens-cli the Slurm scripts run: sourced (not run) by submit.sh and every job
# script of scripts/slurm/, the one place that reads TREELENS and TREELENS_CLI.
#   TREELENS       one variable for what a cluster user has (docs/cluster.md): the folder of
#                  an extracted bundle (scripts/bundle.sh; runs TREELENS/bin/treelens-cli), or
#                  an Apptainer image, a file ending in .sif (runs `apptainer exec TREELENS
#                  treelens-cli`; `singularity` when there is no `apptainer`)
#   TREELENS_CLI   the treelens-cli to run, when TREELENS is not set (or is empty)
#   neither        treelens-cli on PATH
# treelens_cli_resolve: checks the variables and makes their paths absolute (the jobs may
# start in another directory); sets treelens_cli (an array: the command and its first
# arguments) and treelens_export (the sbatch --export entries that hand the choice to the
# jobs: TREELENS=... and TREELENS_CLI= emptied, or the other way round). Returns 1, saying
# why on stderr, when TREELENS is neither a bundle nor a .sif, or a path does not exist.
# Apptainer binds $HOME, /tmp and the working directory into the container by default;
# corpora elsewhere need APPTAINER_BIND=/scratch,... (Apptainer's own variable; sbatch
# hands the submitting shell's environment to the jobs).
# This file is sourced by bash scripts that `set -euo pipefail`; it sets no options itself.

treelens_cli_resolve() {
  local t=${TREELENS:-} runner
  treelens_cli=()
  treelens_export=()
  if [[ -n $t ]]; then
    if [[ -d $t ]]; then
      t=$(cd "$t" && pwd)
      if [[ ! -x $t/bin/treelens-cli ]]; then
        echo "TREELENS=$TREELENS is a folder without bin/treelens-cli: point it at an extracted bundle (treelens-VERSION-linux-x86_64/) or an Apptainer .sif image" >&2
        return 1
      fi
      treelens_cli=("$t/bin/treelens-cli")
    elif [[ $t == *.sif ]]; then
      if [[ ! -f $t ]]; then
        echo "TREELENS=$TREELENS: no such image" >&2
        return 1
      fi
      t=$(cd "$(dirname "$t")" && pwd)/$(basename "$t")
      runner=apptainer
      if ! command -v apptainer >/dev/null && command -v singularity >/dev/null; then runner=singularity; fi
      treelens_cli=("$runner" exec "$t" treelens-cli)
    else
      echo "TREELENS=$TREELENS is neither a bundle folder nor an Apptainer image (*.sif)" >&2
      return 1
    fi
    treelens_export=("TREELENS=$t" "TREELENS_CLI=")
    return 0
  fi
  local cli=${TREELENS_CLI:-treelens-cli}
  if [[ $cli == */* ]]; then
    if [[ ! -e $cli ]]; then
      echo "TREELENS_CLI=$cli: no such file" >&2
      return 1
    fi
    cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
  fi
  treelens_cli=("$cli")
  treelens_export=("TREELENS=" "TREELENS_CLI=$cli")
}
