#!/usr/bin/env bash
# Run an fdsim sweep as a Slurm job array, then merge the shards.
#
#   scripts/slurm/sweep-array.sh SWEEP OUT [TASKS]
#
# Run it on a login node of a cluster whose nodes share a file system with it (SWEEP, OUT and
# the fdsim binary must be visible from every node). It submits
#   1. an array of TASKS jobs (default 4); task K runs
#        fdsim sweep SWEEP --shard K/TASKS --out OUT/shard-K -j CPUS_PER_TASK --quiet
#   2. one merge job, started when every task has ended (afterany: a task with failed runs
#      exits 3 but its finished runs still count), which runs
#        fdsim merge OUT/shard-0 ... OUT/shard-(TASKS-1) --out OUT
# Results: OUT/aggregate.csv, OUT/aggregate.jsonl, OUT/sweep.json, OUT/runs/; job logs in
# OUT/logs/. Resubmitting the same command resumes: each shard skips the runs it finished.
#
# Environment:
#   FDSIM          the fdsim binary (default: fdsim on PATH, else ./build/fdsim)
#   CPUS_PER_TASK  CPUs (and worker threads) per array task (default 1)
#   SBATCH_ARGS    extra sbatch options for both jobs, e.g. "--partition=short --time=4:00:00"
#   SWEEP_ARGS     extra options for fdsim sweep / merge, e.g. "--reference-arm fixed"
#   WAIT=1         block until the merge job has ended and exit with its exit code
#
# The same file is the batch script of both jobs: FDSIM_SWEEP_STAGE=shard|merge selects the
# stage (set by the submission; do not set it yourself).
set -euo pipefail

die() { echo "sweep-array: $*" >&2; exit 2; }

stage=${FDSIM_SWEEP_STAGE:-submit}
case "$stage" in
  shard)
    k=${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}
    # shellcheck disable=SC2086
    exec "$FDSIM_SWEEP_BIN" sweep "$FDSIM_SWEEP_FILE" --shard "$k/$FDSIM_SWEEP_TASKS" \
      --out "$FDSIM_SWEEP_OUT/shard-$k" -j "${SLURM_CPUS_PER_TASK:-1}" --quiet \
      ${FDSIM_SWEEP_EXTRA:-}
    ;;
  merge)
    shards=()
    for ((k = 0; k < FDSIM_SWEEP_TASKS; k++)); do shards+=("$FDSIM_SWEEP_OUT/shard-$k"); done
    # shellcheck disable=SC2086
    exec "$FDSIM_SWEEP_BIN" merge "${shards[@]}" --out "$FDSIM_SWEEP_OUT" ${FDSIM_SWEEP_EXTRA:-}
    ;;
  submit) ;;
  *) die "unknown FDSIM_SWEEP_STAGE '$stage'" ;;
esac

if [ $# -lt 2 ] || [ $# -gt 3 ]; then die "usage: $0 SWEEP OUT [TASKS]"; fi
sweep=$1
out=$2
tasks=${3:-4}
[[ "$tasks" =~ ^[1-9][0-9]*$ ]] || die "TASKS must be a positive integer, got '$tasks'"
[ -f "$sweep" ] || die "no sweep file $sweep"
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm login node?"

bin=${FDSIM:-}
if [ -z "$bin" ]; then
  if command -v fdsim >/dev/null; then bin=$(command -v fdsim)
  elif [ -x ./build/fdsim ]; then bin=./build/fdsim
  else die "no fdsim binary: set FDSIM=/path/to/fdsim"; fi
fi
[ -x "$bin" ] || die "FDSIM=$bin is not executable"
cpus=${CPUS_PER_TASK:-1}

# Absolute paths: the jobs start in other directories, possibly on other nodes.
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
sweep=$(abs "$sweep")
bin=$(abs "$bin")
mkdir -p "$out/logs"
out=$(cd "$out" && pwd -P)

# Catch a bad sweep file here rather than in TASKS failed jobs.
"$bin" validate "$sweep" >&2 || die "$sweep is not valid (see above)"

export FDSIM_SWEEP_BIN="$bin" FDSIM_SWEEP_FILE="$sweep" FDSIM_SWEEP_OUT="$out"
export FDSIM_SWEEP_TASKS="$tasks" FDSIM_SWEEP_EXTRA="${SWEEP_ARGS:-}"
self=$(abs "$0")

# shellcheck disable=SC2086
array_id=$(FDSIM_SWEEP_STAGE=shard sbatch --parsable --export=ALL --job-name=fdsim-sweep \
  --array="0-$((tasks - 1))" --cpus-per-task="$cpus" --output="$out/logs/shard-%a.out" \
  ${SBATCH_ARGS:-} "$self")
array_id=${array_id%%;*}
echo "sweep-array: submitted array job $array_id ($tasks tasks, $cpus CPUs each)"

wait_flag=()
[ "${WAIT:-0}" = 1 ] && wait_flag=(--wait)
# shellcheck disable=SC2086
merge_out=$(FDSIM_SWEEP_STAGE=merge sbatch --parsable --export=ALL --job-name=fdsim-merge \
  --dependency="afterany:$array_id" --output="$out/logs/merge.out" "${wait_flag[@]}" \
  ${SBATCH_ARGS:-} "$self") && rc=0 || rc=$?
merge_id=${merge_out%%;*}
if [ "${WAIT:-0}" = 1 ]; then
  echo "sweep-array: merge job $merge_id ended with exit code $rc; results in $out"
  exit "$rc"
fi
echo "sweep-array: submitted merge job $merge_id (after $array_id); results will be in $out"
echo "sweep-array: watch with: squeue -j $array_id,$merge_id"
