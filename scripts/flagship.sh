#!/usr/bin/env bash
# The flagship study, fdsim's main job: is any fixed timeout as good as the adaptive Hou-Shin
# timeout, and how much does it matter which one you pick? (scenarios/sweeps/flagship.json:
# Hou-Shin load sharing on 16 nodes under random crashes; 2 repair times x 4 load regimes,
# stationary and changing uneven load; arms none, fixed 2..60 s, the periodic heartbeat,
# hou_shin at three alphas, hou_shin_extra, oracle, oracle_extra on common random numbers;
# 8 replications: the first 8 of the full study scenarios/studies/fixed-vs-adaptive-sweep.json,
# which scripts/regenerate_results.sh runs with 40.)
#
# Runs the sweep from scratch with $FDSIM_BUILD/fdsim (default build/fdsim) in a work directory
# ($FDSIM_WORK/flagship, default out/flagship: the run files, resumable), then writes into
# $FDSIM_RESULTS (default out/flagship-results, outside the tracked tree, so the main job
# leaves the checkout unmodified; scripts/regenerate_results.sh sets it to results/flagship):
#   aggregate.csv, sweep.json     the sweep's aggregate and plan (the plan's git revision is
#                                 the only field that depends on the checkout)
#   fixed_vs_adaptive.png, .svg   per regime: every fixed timeout's P(dynamic failure) minus
#                                 the oracle's (paired) with the other arms as bands
#   fixed_vs_adaptive_levels.*    the same with each arm's own level
#   headline.md                   best fixed timeout in hindsight, adaptive arms, oracle, gap
#                                 shares per regime (also printed to stdout)
#   comparisons.md, .csv          every arm against hou_shin_extra, raw and Holm-adjusted p
# and then the reduced regime map (scenarios/sweeps/regime-map-small.json: 5 of the full map's
# 18 regimes, 16 arms, half-length horizons, 6 replications; about 1 min on 2 cores) into
# $FDSIM_RESULTS/regime-map/ (regime_map.md, printed, with .csv, .png, .svg, frontiers.png,
# families.md, mechanism.md): per regime, the adaptive scheme against the best fixed scheme at
# equal message cost. The full map is results/fixed-vs-adaptive/ (scripts/regenerate_results.sh
# fixed-vs-adaptive).
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
  --reference-arm oracle ${FDSIM_QUIET:+--quiet}

cp "$work/aggregate.csv" "$work/sweep.json" "$res/"
FDSIM_PYTHON="$py" scripts/fdsim-analysis study fixed-vs-adaptive --sweep "$work" --out "$res" \
  --format png,svg
echo "flagship: wrote $res/headline.md, comparisons.md, fixed_vs_adaptive.png and .svg" >&2

# The reduced regime map. Its run files live in $work-regime-map (resumable like the above).
map_work=$work-regime-map
[ "${FDSIM_KEEP_WORK:-0}" = 1 ] || rm -rf "$map_work"
mkdir -p "$map_work" "$res/regime-map"
echo "flagship: running scenarios/sweeps/regime-map-small.json (-j $jobs) into $map_work" >&2
"$fdsim" sweep scenarios/sweeps/regime-map-small.json --out "$map_work" -j "$jobs" \
  --reference-arm oracle ${FDSIM_QUIET:+--quiet}
echo >&2
echo "Reduced regime map (5 regimes, 6 replications: a preview; the full map with 18 regimes" \
     "and 12 replications is results/fixed-vs-adaptive/README.md):"
FDSIM_PYTHON="$py" scripts/fdsim-analysis study regime-map --sweep "$map_work" \
  --out "$res/regime-map" --format png,svg
echo "flagship: wrote $res/regime-map/regime_map.md, .csv, .png, frontiers.png, mechanism.md" >&2
