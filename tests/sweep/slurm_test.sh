#!/usr/bin/env bash
# A real single-node Slurm cluster runs a small sweep through scripts/slurm/sweep-array.sh
# (3 array tasks + the merge job); the merged aggregate must be byte-identical to the one of a
# plain local `fdsim sweep`.
#
#   tests/sweep/slurm_test.sh FDSIM_BINARY [SOURCE_DIR]
#
# Exit codes: 0 pass, 1 fail, 77 skipped with the reason printed (not root; slurm-wlm or munge
# not installed; the daemons cannot start). Register with CTest's SKIP_RETURN_CODE 77.
# Everything it starts (its own munged with a private key and socket, slurmctld, slurmd on
# private ports) lives in a scratch directory and is stopped by pid on exit; nothing under
# /etc is touched; the single-node configuration is written below. Cluster use: docs/sweeps.md.
set -uo pipefail

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

bin=${1:-}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then skip "no fdsim binary given or built ('$bin')"; fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ "$(id -u)" = 0 ] || skip "needs root to run munged and slurmd"
for c in munged munge slurmctld slurmd sbatch sinfo squeue; do
  command -v "$c" >/dev/null || skip "$c not found (apt-get install -y slurm-wlm munge)"
done

scratch=$(mktemp -d /tmp/fdsim-slurm-test.XXXXXX)
chmod 755 "$scratch"
pids_files=()
cleanup() {
  for f in "${pids_files[@]}"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  rm -rf "$scratch"
}
trap cleanup EXIT

# munge: a private daemon (key, socket, pid, log, seed inside the scratch directory).
m="$scratch/munge"
mkdir -p "$m" && chmod 711 "$m"
dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 status=none && chmod 400 "$m/munge.key"
munged --force --key-file="$m/munge.key" --socket="$m/munge.sock" --pid-file="$m/munged.pid" \
  --log-file="$m/munged.log" --seed-file="$m/munged.seed" ||
  skip "munged cannot start: $(tail -n 3 "$m/munged.log" 2>/dev/null)"
pids_files+=("$m/munged.pid")
munge -n -S "$m/munge.sock" | unmunge -S "$m/munge.sock" >/dev/null ||
  skip "munge does not work: $(tail -n 3 "$m/munged.log")"

# slurm: controller and one node (this host, all its CPUs), private ports.
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$scratch/state" "$scratch/spool"
export SLURM_CONF="$scratch/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=fdsimtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$m/munge.sock
CredType=cred/munge
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/slurmctld.log
SlurmdLogFile=$scratch/slurmd.log
SlurmctldPort=16917
SlurmdPort=16918
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=fdsimtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld || skip "slurmctld cannot start: $(tail -n 3 "$scratch/slurmctld.log" 2>/dev/null)"
pids_files+=("$scratch/slurmctld.pid")
slurmd || skip "slurmd cannot start: $(tail -n 3 "$scratch/slurmd.log" 2>/dev/null)"
pids_files+=("$scratch/slurmd.pid")
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "${state:-}" = idle ] || skip "the Slurm node did not become idle (state '${state:-}'): $(tail -n 3 "$scratch/slurmctld.log")"

# The sweep: 2 points x 3 replications of the heartbeat study, 60 simulated seconds each.
cat >"$scratch/sweep.json" <<JSON
{"name": "slurm-test",
 "base": "$src/scenarios/examples/heartbeat-study.json",
 "axes": [{"path": "\$.horizon_s", "values": [60]},
          {"path": "\$.detectors.arms[0].detector.timeout_ms", "values": [2000, 4000]}],
 "replications": 3}
JSON

cd "$scratch" || fail "cannot enter $scratch"
FDSIM="$bin" WAIT=1 timeout 300 "$src/scripts/slurm/sweep-array.sh" "$scratch/sweep.json" \
  "$scratch/cluster" 3 || {
  tail -n 20 "$scratch"/cluster/logs/*.out 2>/dev/null
  fail "the Slurm sweep failed"
}
"$bin" sweep "$scratch/sweep.json" --out "$scratch/local" -j 2 --quiet ||
  fail "the local sweep failed"

for f in aggregate.csv aggregate.jsonl sweep.json; do
  cmp -s "$scratch/cluster/$f" "$scratch/local/$f" || fail "$f differs between Slurm and local"
done
for k in 0 1 2; do
  [ -f "$scratch/cluster/shard-$k/sweep.json" ] || fail "array task $k left no output"
done
runs=$(find "$scratch/cluster/runs" -name '????????????????.json' | wc -l)
[ "$runs" = 6 ] || fail "expected 6 merged runs, found $runs"
echo "PASS: 3 Slurm array tasks + merge gave the same aggregate as a local sweep ($runs runs)"
