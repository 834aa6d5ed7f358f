#!/usr/bin/env bash
#===-- utils/slurm-cluster.sh - A one-node Slurm cluster on loopback ------===#
#
# Usage: utils/slurm-cluster.sh up|down|status [STATE_DIR]
#
# Brings up a real Slurm cluster of one node on 127.0.0.1 from Debian's
# slurm-wlm and munge packages, for the tests, CI and trying the Slurm
# executor on one machine (docs/Slurm.md). Needs root; needs no systemd.
#
# Everything lives under STATE_DIR (default /tmp/clang-maxcode-slurm): the
# generated slurm.conf, a munge key and socket of its own (a system munge,
# if any, is left alone), the controller's state, the node's spool, logs, pid
# files and the job completion record that `sacct --completion` reads. The
# daemons listen on ports of their own (17817 and 17818, or
# MAXCODE_SLURM_CTLD_PORT and MAXCODE_SLURM_NODE_PORT), so a real Slurm on
# the machine is not disturbed.
#
#   up      Starts munged, slurmctld and slurmd (those not already running),
#           waits until the node is idle (MAXCODE_SLURM_TIMEOUT seconds,
#           default 60), writes STATE_DIR/env.sh and prints its one line,
#           `export SLURM_CONF=STATE_DIR/slurm.conf`, on stdout; progress goes
#           to stderr. Running it twice is fine.
#   down    Cancels the cluster's jobs and stops, by pid, every process it
#           started. Leaves STATE_DIR (logs, state) in place.
#   status  Says whether the controller answers (exit 0) or not (exit 1).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

PROG="slurm-cluster"
CTLD_PORT="${MAXCODE_SLURM_CTLD_PORT:-17817}"
NODE_PORT="${MAXCODE_SLURM_NODE_PORT:-17818}"
TIMEOUT="${MAXCODE_SLURM_TIMEOUT:-60}"
# Slurm and munge name their daemons' sockets under these folders; a Unix
# socket path is limited to 108 bytes, so STATE_DIR must stay short.
MAX_STATE_DIR_LEN=60

note() { echo "$PROG: $*" >&2; }
die() {
  echo "$PROG: error: $*" >&2
  exit 1
}

usage() {
  echo "usage: $0 up|down|status [STATE_DIR]" >&2
  exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
ACTION="$1"
STATE="${2:-${TMPDIR:-/tmp}/clang-maxcode-slurm}"
case "$ACTION" in
up | down | status) ;;
*) usage ;;
esac

if [ ! -d "$STATE" ]; then
  case "$ACTION" in
  up) mkdir -p "$STATE" ;;
  down) exit 0 ;;
  status)
    echo "controller: not answering (no $STATE)"
    exit 1
    ;;
  esac
fi
STATE="$(cd "$STATE" && pwd -P)"
[ ${#STATE} -le $MAX_STATE_DIR_LEN ] ||
  die "STATE_DIR '$STATE' is longer than $MAX_STATE_DIR_LEN characters" \
    "(Unix socket paths under it would be too long); choose a shorter one"

CONF="$STATE/slurm.conf"
MUNGE_DIR="$STATE/munge"
MUNGE_KEY="$MUNGE_DIR/munge.key"
MUNGE_SOCKET="$MUNGE_DIR/munge.socket"
RUN_DIR="$STATE/run"
LOG_DIR="$STATE/log"
NODE_NAME="localhost"
export SLURM_CONF="$CONF"

# pidOf NAME: the pid recorded for daemon NAME, if that process is still the
# daemon this script started: named NAME, with STATE_DIR on its command line,
# so a pid reused by an unrelated process is never taken for ours.
pidOf() {
  local File="$RUN_DIR/$1.pid" Pid
  [ -s "$File" ] || return 1
  Pid="$(tr -dc '0-9' <"$File")"
  [ -n "$Pid" ] && [ "$(cat "/proc/$Pid/comm" 2>/dev/null)" = "$1" ] ||
    return 1
  tr '\0' ' ' <"/proc/$Pid/cmdline" | grep -qF -- "$STATE/" || return 1
  echo "$Pid"
}

# stepdPids: slurmstepd processes of this cluster's node. slurmd forks them
# and they outlive it; each holds the node's log file open, which is what
# tells them from the slurmstepd processes of another Slurm.
stepdPids() {
  local P Fd
  for P in $(pgrep -x slurmstepd || true); do
    for Fd in /proc/"$P"/fd/*; do
      if [ "$(readlink "$Fd" 2>/dev/null)" = "$LOG_DIR/slurmd.log" ]; then
        echo "$P"
        break
      fi
    done
  done
}

# descendants PID: every process below PID (the tasks of a job step).
descendants() {
  local Child
  for Child in $(pgrep -P "$1" || true); do
    descendants "$Child"
    echo "$Child"
  done
}

# alive PID: the process runs (an exited daemon can stay a zombie for a while
# when its parent, often a container's init, is slow to reap it).
alive() {
  local Stat
  Stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  Stat="${Stat##*) }"
  [ "${Stat%% *}" != Z ]
}

# stopPids PID...: SIGTERM, then SIGKILL whatever is left after 10 seconds.
stopPids() {
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local P Alive
  for _ in $(seq 100); do
    Alive=()
    for P in "$@"; do
      alive "$P" && Alive+=("$P")
    done
    [ ${#Alive[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  note "killing ${Alive[*]} (still running 10 s after SIGTERM)"
  kill -KILL "${Alive[@]}" 2>/dev/null || true
}

stopDaemon() {
  local Pid
  if Pid="$(pidOf "$1")"; then
    note "stopping $1 (pid $Pid)"
    stopPids "$Pid"
  fi
  rm -f "$RUN_DIR/$1.pid"
}

controllerAnswers() {
  timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'
}

# portInUse PORT: something already listens on 127.0.0.1:PORT.
portInUse() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

showLogTail() {
  local F
  for F in "$LOG_DIR"/*.log "$MUNGE_DIR"/munged.log; do
    [ -s "$F" ] || continue
    echo "--- last lines of $F:" >&2
    tail -n 15 "$F" >&2
  done
}

# writeConfig: the node's CPUs and memory as slurmd itself detects them (so
# the node never drains for a mismatch), falling back to nproc and free.
writeConfig() {
  local Hw Field Node=""
  Hw="$(slurmd -C 2>/dev/null | head -n 1 || true)"
  for Field in CPUs Boards SocketsPerBoard CoresPerSocket ThreadsPerCore \
    RealMemory; do
    local Val
    Val="$(sed -n "s/.*\b$Field=\([0-9]*\).*/\1/p" <<<"$Hw")"
    [ -n "$Val" ] && Node+=" $Field=$Val"
  done
  if [[ "$Node" != *CPUs=* ]] || [[ "$Node" != *RealMemory=* ]]; then
    Node=" CPUs=$(nproc) RealMemory=$(free -m | awk '/^Mem:/ { print $2 }')"
  fi

  # GPUs, when the machine has NVIDIA devices, so --gres=gpu:N works here as
  # on a real GPU cluster.
  local Gpus=(/dev/nvidia[0-9]*) GresLine="" GresType=""
  rm -f "$STATE/gres.conf.new"
  if [ -e "${Gpus[0]}" ]; then
    GresType="GresTypes=gpu"
    GresLine=" Gres=gpu:${#Gpus[@]}"
    for Field in "${Gpus[@]}"; do
      echo "NodeName=$NODE_NAME Name=gpu File=$Field" >>"$STATE/gres.conf.new"
    done
  fi

  cat >"$CONF.new" <<EOF
# Generated by utils/slurm-cluster.sh: a one-node cluster on loopback.
ClusterName=maxcode
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$NODE_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$RUN_DIR/slurmctld.pid
SlurmdPidFile=$RUN_DIR/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes are tracked through /proc.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# No slurmdbd: each finished job is a line in the completion record, read by
# \`sacct --completion\` (and kept MinJobAge seconds by \`scontrol show job\`).
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/jobcomp.txt
MinJobAge=600
KillWait=2
InactiveLimit=0
ReturnToService=2
# A job whose node went away (slurmd stopped or killed) ends NODE_FAIL rather
# than running again when the cluster next comes up.
JobRequeue=0
$GresType
NodeName=$NODE_NAME NodeAddr=127.0.0.1$Node$GresLine State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  # Rewritten only when it changes, so `up` on a running cluster is a no-op.
  if cmp -s "$CONF.new" "$CONF"; then
    rm -f "$CONF.new"
  else
    mv "$CONF.new" "$CONF"
  fi
  if [ -e "$STATE/gres.conf.new" ]; then
    mv "$STATE/gres.conf.new" "$STATE/gres.conf"
  else
    rm -f "$STATE/gres.conf"
  fi
}

startMunge() {
  if pidOf munged >/dev/null; then
    return 0
  fi
  if [ ! -s "$MUNGE_KEY" ]; then
    note "creating munge key $MUNGE_KEY"
    (umask 077 && dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 \
      status=none)
  fi
  chmod 0600 "$MUNGE_KEY"
  rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
  note "starting munged"
  munged --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
    --pid-file="$RUN_DIR/munged.pid" --log-file="$MUNGE_DIR/munged.log" \
    --seed-file="$MUNGE_DIR/munged.seed" 9>&- </dev/null >/dev/null ||
    die "munged did not start (see $MUNGE_DIR/munged.log)"
  pidOf munged >/dev/null || die "munged wrote no pid file"
}

startSlurmctld() {
  pidOf slurmctld >/dev/null && return 0
  portInUse "$CTLD_PORT" &&
    die "port $CTLD_PORT is taken by another program;" \
      "set MAXCODE_SLURM_CTLD_PORT"
  note "starting slurmctld on port $CTLD_PORT"
  slurmctld -f "$CONF" 9>&- </dev/null >/dev/null ||
    die "slurmctld did not start (see $LOG_DIR/slurmctld.log)"
}

startSlurmd() {
  pidOf slurmd >/dev/null && return 0
  portInUse "$NODE_PORT" &&
    die "port $NODE_PORT is taken by another program;" \
      "set MAXCODE_SLURM_NODE_PORT"
  note "starting slurmd on port $NODE_PORT"
  slurmd -f "$CONF" -N "$NODE_NAME" 9>&- </dev/null >/dev/null ||
    die "slurmd did not start (see $LOG_DIR/slurmd.log)"
}

# waitFor SECONDS WHAT COMMAND...: polls COMMAND until it succeeds. COMMAND
# may leave a word on what it saw in WAIT_DETAIL.
WAIT_DETAIL=""
waitFor() {
  local Seconds="$1" Deadline=$((SECONDS + $1)) What="$2"
  shift 2
  WAIT_DETAIL=""
  until "$@"; do
    if [ $SECONDS -ge $Deadline ]; then
      showLogTail
      die "$What within $Seconds seconds${WAIT_DETAIL:+ ($WAIT_DETAIL)};" \
        "logs above, all in $STATE"
    fi
    sleep 0.2
  done
}

# nodeIdle: the node takes jobs. NODE_STATE is what sinfo last said.
NODE_STATE=""
nodeIdle() {
  NODE_STATE="$(timeout 10 sinfo -h -N -n "$NODE_NAME" -o '%T' 2>/dev/null)" ||
    return 1
  WAIT_DETAIL="sinfo says it is '$NODE_STATE'"
  case "$NODE_STATE" in
  idle | mixed | allocated) return 0 ;;
  esac
  return 1
}

up() {
  [ "$(id -u)" -eq 0 ] ||
    die "must run as root (slurmd starts jobs as any user)"
  local Tool
  for Tool in munged slurmctld slurmd sinfo scontrol; do
    command -v "$Tool" >/dev/null ||
      die "'$Tool' not found; install Debian's slurm-wlm and munge" \
        "(bash utils/setup.sh)"
  done
  local Start=$EPOCHREALTIME
  # Every user must reach slurm.conf and the munge socket (munged refuses a
  # socket whose folders others cannot search), so STATE_DIR is opened to
  # all, as `mktemp -d` does not. Its parents are the caller's to open.
  chmod go+rx "$STATE"
  local Dir="$STATE"
  while [ "$Dir" != / ]; do
    Dir="$(dirname "$Dir")"
    [ "$(($(stat -c '0%a' "$Dir") & 1))" -eq 1 ] ||
      die "folder '$Dir' is not searchable by all users (chmod o+x), which" \
        "munge requires of its socket's path; choose another STATE_DIR"
  done
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$STATE/ctld" "$STATE/spool"
  # munged also wants no folder on the way to its key writable by others
  # (sticky /tmp is fine).
  mkdir -p "$MUNGE_DIR"
  chmod 0755 "$MUNGE_DIR"
  writeConfig

  # If up fails half way, stop what it started; a cluster that was already
  # up is left running.
  local WasUp=0
  pidOf slurmctld >/dev/null && pidOf slurmd >/dev/null && WasUp=1
  # shellcheck disable=SC2154 # Status is set in the trap
  [ $WasUp -eq 1 ] ||
    trap 'Status=$?; [ $Status -eq 0 ] || down; exit $Status' EXIT

  startMunge
  waitFor "$TIMEOUT" "munged did not open $MUNGE_SOCKET" test -S "$MUNGE_SOCKET"
  startSlurmctld
  waitFor "$TIMEOUT" "slurmctld did not answer on port $CTLD_PORT" \
    controllerAnswers
  startSlurmd
  waitFor "$TIMEOUT" "node $NODE_NAME did not become idle" nodeIdle
  trap - EXIT

  echo "export SLURM_CONF=$CONF" >"$STATE/env.sh"
  if [ $WasUp -eq 1 ]; then
    note "cluster already up: node $NODE_NAME $NODE_STATE"
  else
    local Took
    Took="$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $Start }")"
    note "cluster up in $Took s: node $NODE_NAME $NODE_STATE"
  fi
  note "munged $(pidOf munged), slurmctld $(pidOf slurmctld), slurmd" \
    "$(pidOf slurmd); logs in $LOG_DIR"
  cat "$STATE/env.sh"
}

down() {
  local Pids=() P
  if pidOf slurmctld >/dev/null && controllerAnswers; then
    # Cancel the jobs first so that slurmstepd ends them cleanly.
    local Jobs
    Jobs="$(timeout 10 squeue -h -o '%A' 2>/dev/null || true)"
    if [ -n "$Jobs" ]; then
      note "cancelling jobs" "$(tr '\n' ' ' <<<"$Jobs")"
      # shellcheck disable=SC2086 # one job id a word
      timeout 10 scancel $Jobs 2>/dev/null || true
      for _ in $(seq 50); do
        [ -z "$(stepdPids)" ] && break
        sleep 0.2
      done
    fi
  fi
  stopDaemon slurmd
  # Steps that outlived slurmd (the controller was not there to cancel
  # them): their tasks first, then slurmstepd itself, which ignores SIGTERM.
  local Steps
  mapfile -t Steps < <(stepdPids)
  if [ ${#Steps[@]} -gt 0 ]; then
    for P in "${Steps[@]}"; do
      mapfile -t -O ${#Pids[@]} Pids < <(descendants "$P")
    done
    note "stopping leftover job steps ${Steps[*]} and their tasks ${Pids[*]}"
    stopPids "${Pids[@]}"
    kill -KILL "${Steps[@]}" 2>/dev/null || true
  fi
  stopDaemon slurmctld
  stopDaemon munged
  note "cluster down (state and logs kept in $STATE)"
}

status() {
  local Name Pid
  for Name in munged slurmctld slurmd; do
    if Pid="$(pidOf "$Name")"; then
      echo "$Name: running (pid $Pid)"
    else
      echo "$Name: not running"
    fi
  done
  if [ -s "$CONF" ] && controllerAnswers; then
    echo "controller: answers (SLURM_CONF=$CONF)"
    timeout 10 sinfo -N -o '%N %T %c %m %G' 2>/dev/null || true
    return 0
  fi
  echo "controller: not answering"
  return 1
}

# One of up and down at a time on a STATE_DIR. The daemons are started with
# this descriptor closed, or they would hold the lock.
if [ "$ACTION" != status ]; then
  exec 9>"$STATE/lock"
  flock 9
fi
"$ACTION"
