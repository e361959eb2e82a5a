#!/usr/bin/env bash
# A single-node Slurm cluster on this Debian machine, for trying and testing `mlparse sweep --launcher slurm`.
#
#   sudo scripts/slurm-single-node.sh            # install slurm-wlm and munge if needed, write slurm.conf, start
#   sudo scripts/slurm-single-node.sh --gpu      # the same, the node announcing one GPU (gres gpu:1, no device)
#   sudo scripts/slurm-single-node.sh --stop     # stop slurmctld, slurmd and munged started by this script
#
# One node (this machine, all its CPUs), one partition `debug` (the default), no accounting (the sweep must
# work without sacct), state and logs under /var/lib/slurm and /var/log/slurm.  The daemons run in the
# background as root; no systemd is needed (containers).  Starting again while `sinfo` answers does nothing,
# except that a changed --gpu choice restarts the daemons with the new configuration.
# The configuration goes to /etc/slurm/slurm.conf; a slurm.conf this script did not write is never replaced.
set -euo pipefail

CONF_DIR=/etc/slurm
CONF="$CONF_DIR/slurm.conf"
MARK="# written by mlparse scripts/slurm-single-node.sh"
LOG_DIR=/var/log/slurm
STATE_DIR=/var/lib/slurm
GPU=0
ACTION=start
for arg in "$@"; do
  case "$arg" in
    --gpu) GPU=1 ;;
    --stop) ACTION=stop ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "error: unknown option $arg (use --gpu, --stop or --help)" >&2; exit 2 ;;
  esac
done

say() { echo "slurm-single-node: $*"; }
die() { echo "error: $*" >&2; exit 1; }

stop_pidfile() {  # stop the daemon whose pid file this script asked for
  local file=$1
  if [[ -f $file ]]; then
    local pid
    pid=$(cat "$file")
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$file"
  fi
}

stop_all() {
  stop_pidfile /run/slurmd.pid
  stop_pidfile /run/slurmctld.pid
}

if [[ $ACTION == stop ]]; then
  stop_all
  if [[ -S /run/munge/munge.socket.2 ]]; then munged --stop >/dev/null 2>&1 || true; fi
  say "stopped"
  exit 0
fi

[[ $(id -u) == 0 ]] || die "run as root (it installs packages, writes $CONF and starts daemons)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  [[ -f /etc/debian_version ]] || die "slurmctld or munged is missing and this is not Debian: install Slurm and munge"
  say "installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
fi

NODE=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
GRES_LINES=""
NODE_GRES=""
if [[ $GPU == 1 ]]; then
  GRES_LINES="GresTypes=gpu"
  NODE_GRES=" Gres=gpu:1"
fi

if [[ -f $CONF ]] && ! grep -qF "$MARK" "$CONF"; then
  die "$CONF exists and was not written by this script: not replacing it"
fi
WANTED=$(cat <<EOF
$MARK (gpu=$GPU)
ClusterName=mlparse-test
SlurmctldHost=$NODE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE_DIR/slurmctld
SlurmdSpoolDir=$STATE_DIR/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MinJobAge=300
$GRES_LINES
NodeName=$NODE CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN$NODE_GRES
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
)
CHANGED=0
if [[ ! -f $CONF ]] || [[ "$(cat "$CONF")" != "$WANTED" ]]; then
  mkdir -p "$CONF_DIR"
  printf '%s\n' "$WANTED" > "$CONF.tmp" && mv "$CONF.tmp" "$CONF"
  if [[ $GPU == 1 ]]; then
    printf '%s\n' "$MARK" "NodeName=$NODE Name=gpu File=/dev/null Count=1" > "$CONF_DIR/gres.conf"
  else
    rm -f "$CONF_DIR/gres.conf"
  fi
  CHANGED=1
fi

if [[ $CHANGED == 0 ]] && timeout 5 sinfo -h >/dev/null 2>&1; then
  say "already running: $(sinfo -h -o '%P %D node(s) %t' | tr '\n' ' ')"
  exit 0
fi
stop_all
mkdir -p "$LOG_DIR" "$STATE_DIR/slurmctld" "$STATE_DIR/slurmd" /run/munge
chown munge:munge /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  [[ -s /etc/munge/munge.key ]] || { mungekey --create 2>/dev/null || create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
  runuser -u munge -- munged
fi
slurmctld
slurmd
RESUMED=0
for _ in $(seq 60); do
  STATE=$(timeout 5 sinfo -h -o '%t' 2>/dev/null | head -1 || true)
  if [[ $RESUMED == 0 && $STATE =~ ^(drain|drng|down|inval) ]]; then
    # drained under an earlier configuration (state is saved across restarts): this one may suit it
    scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true
    RESUMED=1
  fi
  if [[ $STATE =~ ^(idle|mix|alloc) ]]; then
    say "running: node $NODE ($CPUS CPUs, ${MEM_MB} MB$([[ $GPU == 1 ]] && echo ', gres gpu:1')), partition debug; no accounting"
    exit 0
  fi
  sleep 0.5
done
die "the node did not become idle in 30 s; see $LOG_DIR/slurmctld.log and $LOG_DIR/slurmd.log (sinfo: $(sinfo -h 2>&1 | head -1))"
