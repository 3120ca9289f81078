#!/usr/bin/env bash
# A private single-node Slurm cluster on this machine, for testing the job scripts
# of scripts/slurm (tests/slurm/test_slurm.sh starts one). Everything it needs and
# writes lives under DIR: the MUNGE key, socket and log, slurm.conf, the daemons'
# state, spool, pid and log files, and jobcomp.txt (one line per finished job, with
# its state and exit code: there is no accounting database).
#   scripts/slurm/local-cluster.sh start DIR    prints `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm/local-cluster.sh status DIR   the daemons and `sinfo`; exit 0 when all run
#   scripts/slurm/local-cluster.sh stop DIR     cancels every job, stops the daemons
# `eval "$(scripts/slurm/local-cluster.sh start DIR)"` points sbatch, squeue, scontrol
# and scancel at it. `stop` removes nothing: DIR keeps the logs.
# Needs root (SlurmUser=root) and Debian's slurm-wlm 22.05 and munge (scripts/setup.sh).
# The ports are free ones picked at start (SLURM_LOCAL_PORT to choose: the
# controller gets it, slurmd the next). One node: this machine's short host name,
# with nproc CPUs and a little less memory than `free -m` reports; partition `debug`.
# When the cluster cannot start (not root, a daemon missing or failing, the node
# never idle within SLURM_LOCAL_TIMEOUT seconds, default 60), `start` stops what it
# started, prints one line saying why (with the last lines of the log concerned)
# and exits 77, the code CTest reads as "skipped".
set -euo pipefail

usage() {
  echo "usage: scripts/slurm/local-cluster.sh start|stop|status DIR" >&2
  exit 2
}
(($# == 2)) || usage
action=$1
[[ $action == start || $action == stop || $action == status ]] || usage
if [[ ! -d $2 ]]; then
  [[ $action == start ]] || { echo "local-cluster: no cluster in $2" >&2; [[ $action == stop ]]; exit; }
  mkdir -p "$2"
fi
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf
node=$(hostname -s)

say() { echo "local-cluster: $*" >&2; }
pid_of() { # FILE: the pid in FILE when that process is alive
  local pid
  [[ -f $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}
log_tail() { # FILE: its last lines, on one line
  [[ -f $1 ]] || { echo "(no $1)"; return; }
  tail -n 3 "$1" | tr '\n' ' ' | tr -s ' '
}
stop_daemon() { # NAME PIDFILE: SIGTERM, then SIGKILL after 15 s
  local pid i
  pid=$(pid_of "$2") || return 0
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || { say "$1 stopped"; return 0; }
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
  say "$1 killed (did not stop on SIGTERM)"
}
stop_all() {
  if pid_of "$dir/slurmctld.pid" >/dev/null; then
    local jobs i
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ') || true
    if [[ -n ${jobs// /} ]]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for ((i = 0; i < 30; i++)); do
        [[ -z $(squeue -h -o %A 2>/dev/null) ]] && break
        sleep 0.5
      done
      say "cancelled jobs $jobs"
    fi
  fi
  stop_daemon slurmd "$dir/slurmd.pid"
  stop_daemon slurmctld "$dir/slurmctld.pid"
  stop_daemon munged "$dir/munged.pid"
}
skip() { # WHY: stop what was started, one line, exit 77
  stop_all >/dev/null 2>&1 || true
  echo "local-cluster: cannot start: $*" >&2
  exit 77
}
port_in_use() { # PORT: something listens on it (TCP, IPv4 or IPv6)
  local hex
  hex=$(printf ':%04X ' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" {print $2 " "}' | grep -qF "$hex"
}
pick_ports() { # sets ctld_port, slurmd_port: two consecutive free ports
  local p tries
  if [[ -n ${SLURM_LOCAL_PORT:-} ]]; then
    ctld_port=$SLURM_LOCAL_PORT slurmd_port=$((SLURM_LOCAL_PORT + 1))
    return
  fi
  for ((tries = 0; tries < 50; tries++)); do
    p=$((17000 + RANDOM % 10000 * 2))
    if ! port_in_use "$p" && ! port_in_use $((p + 1)); then
      ctld_port=$p slurmd_port=$((p + 1))
      return
    fi
  done
  skip "no two free ports found in 17000-37000"
}

status() {
  local ok=0 name pid
  for name in munged slurmctld slurmd; do
    if pid=$(pid_of "$dir/$name.pid"); then
      echo "$name: running (pid $pid)"
    else
      echo "$name: not running"
      ok=1
    fi
  done
  if ((ok == 0)); then
    sinfo -N -o '%N %T %c %m %P' 2>&1 || ok=1
    squeue 2>&1 || true
  fi
  return $ok
}

start() {
  local cmd cpus mem i state
  if status >/dev/null 2>&1; then
    say "already running in $dir"
    echo "export SLURM_CONF=$conf"
    return 0
  fi
  stop_all >/dev/null 2>&1 || true
  [[ $(id -u) -eq 0 ]] || skip "needs root (SlurmUser=root, slurmd starts jobs as their user)"
  for cmd in munged munge unmunge slurmctld slurmd sinfo sbatch squeue scontrol scancel; do
    command -v "$cmd" >/dev/null || skip "$cmd not installed (scripts/setup.sh installs slurm-wlm and munge)"
  done
  chmod 0700 "$dir"
  mkdir -p "$dir/state" "$dir/spool"

  # MUNGE: a key of our own, the daemon on a socket in DIR.
  if [[ ! -s $dir/munge.key ]]; then
    rm -f "$dir/munge.key"
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  fi
  chmod 0400 "$dir/munge.key"
  munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" --force >>"$dir/munged.out" 2>&1 ||
    skip "munged failed: $(log_tail "$dir/munged.out") $(log_tail "$dir/munged.log")"
  for ((i = 0; i < 20; i++)); do
    [[ -S $dir/munge.socket ]] && break
    sleep 0.25
  done
  munge --socket="$dir/munge.socket" -n 2>>"$dir/munged.out" | unmunge --socket="$dir/munge.socket" >/dev/null 2>>"$dir/munged.out" ||
    skip "munge credentials do not round-trip: $(log_tail "$dir/munged.out") $(log_tail "$dir/munged.log")"

  cpus=$(nproc)
  mem=$(free -m | awk '/^Mem:/ {print $2}')
  mem=$((mem > 1024 ? mem - 512 : mem / 2))
  pick_ports
  cat >"$conf" <<EOF
# Written by scripts/slurm/local-cluster.sh: a private single-node cluster in $dir.
ClusterName=treelens-local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  slurmctld -f "$conf" >>"$dir/slurmctld.out" 2>&1 ||
    skip "slurmctld failed: $(log_tail "$dir/slurmctld.out") $(log_tail "$dir/slurmctld.log")"
  slurmd -f "$conf" -N "$node" >>"$dir/slurmd.out" 2>&1 ||
    skip "slurmd failed: $(log_tail "$dir/slurmd.out") $(log_tail "$dir/slurmd.log")"

  local timeout=${SLURM_LOCAL_TIMEOUT:-60}
  for ((i = 0; i < timeout * 2; i++)); do
    state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null | head -1) || state=
    [[ $state == idle ]] && break
    pid_of "$dir/slurmctld.pid" >/dev/null || skip "slurmctld exited: $(log_tail "$dir/slurmctld.log")"
    pid_of "$dir/slurmd.pid" >/dev/null || skip "slurmd exited: $(log_tail "$dir/slurmd.log")"
    sleep 0.5
  done
  [[ $state == idle ]] ||
    skip "node $node not idle after ${timeout} s (state '${state:-none}'): $(log_tail "$dir/slurmd.log") $(log_tail "$dir/slurmctld.log")"
  say "running in $dir: node $node, $cpus CPUs, ${mem} MB, ports $ctld_port/$slurmd_port"
  echo "export SLURM_CONF=$conf"
}

case $action in
  start) start ;;
  stop) stop_all ;;
  status) status ;;
esac
