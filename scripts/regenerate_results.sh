#!/usr/bin/env bash
# Regenerates the committed results/ from the declared studies (studies/*.json: each study's
# sweeps, analysis steps and output files), through the one runner
# `scripts/fdsim-analysis regenerate` (analysis/fdsim_analysis/studies/runner.py):
#
#   scripts/regenerate_results.sh                 every study (about 70 min of CPU for the
#                                                 simulations, 44 of them the regime map, plus
#                                                 memberlist's real time when its raw/ is empty)
#   scripts/regenerate_results.sh paper geode     only these studies (`swim` also runs
#                                                 swim-lifeguard-paper; `geode` also runs
#                                                 geode-connections and geode-source-rules)
#   scripts/regenerate_results.sh --check-small   the test suite's reduced check of every study:
#                                                 reruns part of each study and compares what it
#                                                 makes byte for byte with results/ (exit 1 if
#                                                 anything differs)
#
# The study names are the files of studies/; `scripts/fdsim-analysis regenerate --help` lists
# the runner's options (--check alone: the full check of one study). Environment: FDSIM_BUILD
# (build directory, default build), JOBS (parallel runs, default nproc), FDSIM_WORK (work root,
# default out: the run files stay in out/regenerate/<study>/).
set -euo pipefail
cd "$(dirname "$0")/.."

args=()
for a in "$@"; do
  case "$a" in
    --check-small) args+=(--check --small all) ;;
    swim) args+=(swim swim-lifeguard-paper) ;;
    geode) args+=(geode geode-connections geode-source-rules) ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    -*) echo "regenerate_results: unknown option '$a' (options: --check-small, --help)" >&2
        exit 2 ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} -gt 0 ] || args=(all)
exec scripts/fdsim-analysis regenerate "${args[@]}"
