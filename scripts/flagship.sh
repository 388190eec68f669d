#!/usr/bin/env bash
# The flagship study, fdsim's main job: is any fixed timeout as good as the adaptive Hou-Shin
# timeout, and how much does it matter which one you pick? (scenarios/sweeps/flagship.json:
# Hou-Shin load sharing on 16 nodes under random crashes; 2 repair times x 4 load regimes,
# stationary and changing uneven load; arms none, fixed 2..60 s, the periodic heartbeat,
# hou_shin at three alphas, hou_shin_extra, oracle, oracle_extra on common random numbers;
# 8 replications: the first 8 of the full study scenarios/studies/fixed-vs-adaptive-sweep.json,
# whose 40 replications are results/fixed-vs-adaptive/load-regimes/), followed by a reduced
# calibrated regime map (studies/calibrated-map/main-job-design.json: 3 regimes of the
# full map, made by the same machinery: every fixed family calibrated to the adaptive arm's
# message cost, a seed per regime, the value-of-detection margin, replications added in blocks
# until the interval is narrower than the margin or 12, held-out confirmation).
#
# Runs the declared study studies/flagship.json through the runner
# (`scripts/fdsim-analysis regenerate flagship`) with $FDSIM_BUILD/fdsim (default build/fdsim),
# its run files in $FDSIM_WORK/regenerate/flagship (default out/...), and writes into
# $FDSIM_RESULTS (default out/flagship-results, outside the tracked tree, so the main job
# leaves the checkout unmodified; `scripts/regenerate_results.sh flagship` writes
# results/flagship/ instead). Prints the short summary (summary.txt: per regime the best fixed
# timeout, the adaptive arm, their paired difference with its interval and verdict); the full
# tables are the files it names (headline.md, comparisons.md/.csv, fixed_vs_adaptive.png/.svg,
# regime-map/regime_map.md, families.md, calibration.csv, ...).
# Environment: FDSIM_BUILD (build directory, default build), JOBS (parallel runs, default
# nproc), FDSIM_WORK (work directory root, default out), FDSIM_KEEP_WORK=1 to resume from the
# runs already in the work directory instead of starting afresh (only safe with the same binary),
# FDSIM_QUIET=1 to hide the sweeps' progress lines.
# Exit codes: 0 ok, 2 no fdsim binary or bad input, other: the failing command's code.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${FDSIM_BUILD:-build}
res=${FDSIM_RESULTS:-${FDSIM_WORK:-out}/flagship-results}
opts=()
[ "${FDSIM_KEEP_WORK:-0}" = 1 ] && opts+=(--resume)
[ -n "${FDSIM_QUIET:-}" ] || opts+=(--progress)

if [ ! -x "$build/fdsim" ]; then
  echo "flagship: $build/fdsim not found: build it first (./quickstart.sh run, or" \
       "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C $build fdsim)" >&2
  exit 2
fi
mkdir -p "$res"
scripts/fdsim-analysis regenerate flagship --fdsim "$build/fdsim" --out "$res" "${opts[@]}"
echo
cat "$res/summary.txt"
echo "(this summary and the full tables: $res/)"
