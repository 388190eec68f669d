#!/usr/bin/env bash
# Runs the heartbeat-ring benchmark (shared/bench/README.md) three ways on this machine, now:
# the bare binary-heap floor, SimGrid 3.32 (if libsimgrid-dev is installed) and fdsim's
# ring_bench, and prints events per wall second, the ratios, and fdsim's bytes per node.
# Usage: bench/compare.sh [BUILD_DIR]   (default build; run ./quickstart.sh run first)
# Only ratios from one invocation mean anything: these machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shared=${FDSIM_SHARED:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

g++ -O2 -std=c++17 "$shared/bench/limit_ring.cpp" -o "$tmp/limit_ring"
have_simgrid=0
if g++ -O2 -std=c++17 "$shared/bench/simgrid_ring.cpp" -o "$tmp/simgrid_ring" -lsimgrid 2>/dev/null; then
  have_simgrid=1
fi

wall() {  # wall seconds of a command, best of 3
  local best=""
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    best=$(echo "$s $e $best" | awk '{d=$2-$1; if ($3=="" || d<$3) print d; else print $3}')
  done
  echo "$best"
}

fdsim_best() {  # best events/s of 3 ring_bench runs; prints "events ev_per_s bytes_per_node"
  local out best=0 line=""
  for _ in 1 2 3; do
    out=$("$build/bench/ring_bench" "$@")
    local eps
    eps=$(echo "$out" | sed -E 's/.*"events_per_wall_s":([0-9.e+]+).*/\1/')
    if awk "BEGIN{exit !($eps > $best)}"; then best=$eps; line=$out; fi
  done
  echo "$line"
}

for size in 1k 100k; do
  if [ $size = 1k ]; then n=1000; h=600; else n=100000; h=60; fi
  t_floor=$(wall "$tmp/limit_ring" $n $h)
  events=$("$tmp/limit_ring" $n $h | sed -E 's/.*"events":([0-9]+).*/\1/')
  floor_eps=$(awk "BEGIN{print $events / $t_floor}")
  f=$(fdsim_best "scenarios/bench/ring-$size.json")
  f_eps=$(echo "$f" | sed -E 's/.*"events_per_wall_s":([0-9.e+]+).*/\1/')
  f_bpn=$(echo "$f" | sed -E 's/.*"bytes_per_node":([0-9.e+]+).*/\1/')
  echo "ring-$size: floor $(printf %.3g "$floor_eps") ev/s; fdsim $(printf %.3g "$f_eps") ev/s" \
       "= $(awk "BEGIN{printf \"%.2f\", $f_eps / $floor_eps}") x floor; fdsim $(printf %.0f "$f_bpn") bytes/node"
  if [ $have_simgrid = 1 ] && [ $size = 1k ]; then
    sh "$shared/bench/platform.sh" $n > "$tmp/p.xml"
    t_sg=$(wall "$tmp/simgrid_ring" "$tmp/p.xml" $n $h --log=root.thres:critical \
           --cfg=contexts/stack-size:16 --cfg=contexts/guard-size:0)
    sg_eps=$(awk "BEGIN{print $events / $t_sg}")
    echo "ring-$size: SimGrid $(printf %.3g "$sg_eps") ev/s; fdsim = $(awk "BEGIN{printf \"%.1f\", $f_eps / $sg_eps}") x SimGrid"
  fi
done
