#!/usr/bin/env bash
# The flagship study: fixed versus adaptive timeouts in Hou-Shin load sharing
# (scenarios/sweeps/flagship.json: 16 nodes under random crashes, 3 loads x 6 replications,
# arms none / fixed_5s / hou_shin_extra / oracle on common random numbers).
#
# Runs the sweep from scratch with $FDSIM_BUILD/fdsim (default build/fdsim) in a work directory
# ($FDSIM_WORK/flagship, default out/flagship: the run files, resumable), then writes into
# $FDSIM_RESULTS (default out/flagship-results, outside the tracked tree, so the main job
# leaves the checkout unmodified; scripts/regenerate_results.sh sets it to results/flagship):
#   aggregate.csv, sweep.json     the sweep's aggregate and plan (the plan's git revision is
#                                 the only field that depends on the checkout)
#   summary.md                    the summary table, also printed to stdout
#   dynamic_failure.png, .svg     P(dynamic failure) against load, one line per arm, with a
#                                 panel of paired differences against hou_shin_extra
# Environment: FDSIM_BUILD (build directory, default build), JOBS (parallel runs, default
# nproc), FDSIM_WORK (work directory root, default out), FDSIM_KEEP_WORK=1 to resume from the
# runs already in the work directory instead of starting afresh (only safe with the same binary).
# Exit codes: 0 ok, 2 no fdsim binary or bad input, other: the failing command's code.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${FDSIM_BUILD:-build}
fdsim=$build/fdsim
jobs=${JOBS:-$(nproc)}
work=${FDSIM_WORK:-out}/flagship
res=${FDSIM_RESULTS:-${FDSIM_WORK:-out}/flagship-results}
py=/usr/bin/python3
[ -x "$py" ] || py=python3

if [ ! -x "$fdsim" ]; then
  echo "flagship: $fdsim not found: build it first (./quickstart.sh run, or" \
       "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C $build fdsim)" >&2
  exit 2
fi

[ "${FDSIM_KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
mkdir -p "$work" "$res"
echo "flagship: running scenarios/sweeps/flagship.json with $fdsim (-j $jobs) into $work" >&2
"$fdsim" sweep scenarios/sweeps/flagship.json --out "$work" -j "$jobs" \
  --reference-arm hou_shin_extra --quiet

cp "$work/aggregate.csv" "$work/sweep.json" "$res/"
FDSIM_PYTHON="$py" scripts/fdsim-analysis figure loadsharing --sweep "$res" --diff --size double \
  --x-label "Load: per-node arrival rate" \
  --out "$res" --name dynamic_failure --format png,svg >/dev/null
FDSIM_PYTHON="$py" scripts/fdsim-analysis summary "$res" --metric dynamic_failure_probability \
  >"$res/summary.md"
cat "$res/summary.md"
echo "flagship: wrote $res/summary.md, $res/dynamic_failure.png and .svg" >&2
