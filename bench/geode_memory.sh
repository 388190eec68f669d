#!/usr/bin/env bash
# bench/geode_memory.sh [FDSIM] [MEMBERS...]: peak memory of a short Geode run against the
# number of members (issue 16: the model's per-member state must be linear in the view size).
#
# For each size N (default 1000 10000 30000) it runs one 30-simulated-second Geode ring
# ("current" profile, one locator, member 5 crashes at 10 s, so one new view reaches every
# member) under /usr/bin/time -v, and prints the peak resident set size, the bytes per member
# (peak RSS / N), and the marginal bytes per member against the smallest size
# ((RSS(N) - RSS(N0)) / (N - N0)), which leaves out the fixed cost of the process. With
# linear state the marginal figure stays flat as N grows; with per-member copies of the view it
# grows with N. A memory figure, machine-dependent: never a test.
set -euo pipefail
fdsim=${1:-build/fdsim}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000 30000)
fdsim=$(realpath "$fdsim")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%8s %14s %16s %18s %10s\n' members peak_rss_bytes bytes_per_member marginal_per_member wall_s
first_n="" first_rss=""
for n in "${sizes[@]}"; do
  cat >"$work/geode-$n.json" <<JSON
{
  "name": "geode-memory-$n", "seed": 1, "horizon_s": 30, "warmup_s": 1,
  "nodes": {"count": $n, "locators": [0]},
  "network": {"latency": {"model": "constant", "ms": 1}},
  "faults": [{"kind": "crash", "at_s": 10, "nodes": [5]}],
  "membership": {"profile": "current", "member_timeout_ms": 5000}
}
JSON
  /usr/bin/time -v -o "$work/time-$n.txt" "$fdsim" run "$work/geode-$n.json" \
    --out "$work/out-$n" --quiet
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time-$n.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time-$n.txt")
  rss=$((kb * 1024))
  if [ -z "$first_n" ]; then
    first_n=$n first_rss=$rss marginal="-"
  else
    marginal=$(( (rss - first_rss) / (n - first_n) ))
  fi
  printf '%8d %14d %16d %18s %10s\n' "$n" "$rss" $((rss / n)) "$marginal" "$wall"
done
