#!/usr/bin/env bash
# bench/geode_startup.sh [BUILD_DIR] [SIMULATED_SECONDS] [MEMBERS...]: members vs wall time and
# peak memory of a Geode ring's start-up (issue 26 item 7), one geode_startup process per size
# (default sizes 1e3 1e4 1e5 3e5 1e6, one simulated second). A benchmark: the figures are
# machine-dependent and never asserted. Quadratic start-up shows as start_wall_s growing 100x
# per 10x members; linear (or n log n) start-up as about 10x.
set -euo pipefail
build=${1:-build}
shift || true
sim_s=${1:-1}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000 100000 300000 1000000)
for n in "${sizes[@]}"; do
  "$build/bench/geode_startup" "$n" "$sim_s"
done
