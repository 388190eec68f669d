#!/usr/bin/env bash
# T_out speed (issue 13, item 7) on a fixed scenario, bench/inputs/tout-flagship.json (the
# flagship base of issue 13 at loads 0.6, 0.8 and 0.95, arms none, fixed_5s, hou_shin,
# hou_shin_extra, oracle). Every arm is its own simulation, so fdsim reports each arm's events
# per wall second (run_stats.simulations[].events_per_wall_s). Prints, per load point and arm:
# wall seconds, events, events per wall second and the ratio to the `fixed` arm of the same run;
# then every arm's worst ratio over the loads and the worst ratio of the hou_shin* arms.
# Issue 13's target: every hou_shin* arm >= 0.5 x fixed. A benchmark, not a test: it only
# prints (exit 0 unless a run fails); the figures depend on the machine and its load, and only
# ratios measured in one invocation are comparable. On a shared machine one simulation's wall
# time moves by tens of percent with the other processes, so the whole set is run REPEATS times
# and every (run, arm) keeps its best events per wall second (the usual best-of-N; the
# simulations are deterministic, so the repeats do the same work).
# Besides the per-run figures it prints, per arm, the events of all runs over their summed best
# wall times, as a ratio to the fixed arm's (steadier than the worst single run, whose wall time
# is a tenth of a second).
# Usage: bench/tout_bench.sh [BUILD_DIR] [REPLICATIONS] [REPEATS]   (defaults: build, 3, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-3}
repeats=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp" "$reps" <<'PY'
import copy, json, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
sweep = json.load(open("bench/inputs/tout-flagship.json"))
for ax in sweep["axes"]:
    assert ax["path"] == "$.workload.arrival_rate_per_s"
    for v in ax["values"]:
        d = copy.deepcopy(sweep["base"])
        d["name"] = "tout-bench-%g" % v
        d["replications"] = reps
        d["workload"]["arrival_rate_per_s"] = v
        json.dump(d, open("%s/load-%g.json" % (tmp, v), "w"), indent=1)
PY

for ((i = 0; i < repeats; ++i)); do
  "$build/fdsim" run "$tmp"/load-*.json --quiet --out "$tmp/out$i"
done

/usr/bin/python3 - "$tmp" "$repeats" <<'PY'
import glob, json, os, sys
tmp, repeats = sys.argv[1], int(sys.argv[2])
print("best of %d invocations per simulation" % repeats)
print("%-26s %-16s %10s %12s %14s %10s" % ("run", "arm", "wall_s", "events", "events/s", "vs fixed"))
worst_arm = {}  # arm -> worst ratio to fixed over the runs
total_events, total_wall = {}, {}  # arm -> sums over the runs (best wall of each run)
diag = {}
for f in sorted(glob.glob(tmp + "/out0/*.json")):
    eps, wall, events = {}, {}, {}
    for i in range(repeats):
        r = json.load(open(os.path.join(tmp, "out%d" % i, os.path.basename(f))))
        for a in r["manifest"]["resolved_config"]["load_sharing"]["arms"]:
            diag[a["name"]] = a["diagnosis"]
        for s in r["run_stats"]["simulations"]:
            arm = s["arms"][0]
            if arm not in eps or s["events_per_wall_s"] > eps[arm]:
                eps[arm] = s["events_per_wall_s"]
                wall[arm] = s["wall_time_s"]
                events[arm] = s["events_dispatched_count"]
    fixed = [a for a in eps if diag.get(a) == "fixed"]
    ref = eps[fixed[0]] if fixed else None
    name = os.path.basename(f)[:-5]
    for arm, e in eps.items():
        total_events[arm] = total_events.get(arm, 0) + events[arm]
        total_wall[arm] = total_wall.get(arm, 0.0) + wall[arm]
        ratio = ""
        if ref:
            q = e / ref
            ratio = "%.2f" % q
            worst_arm[arm] = min(worst_arm.get(arm, q), q)
        print("%-26s %-16s %10.3f %12d %14.0f %10s" % (name, arm, wall[arm], events[arm], e, ratio))
fixed_arms = [a for a in total_events if diag.get(a) == "fixed"]
if fixed_arms:
    ref = total_events[fixed_arms[0]] / total_wall[fixed_arms[0]]
    print("all runs, events / summed wall, ratio to fixed: " +
          ", ".join("%s %.2f" % (a, total_events[a] / total_wall[a] / ref) for a in total_events))
print("worst ratio to fixed per arm: " +
      ", ".join("%s %.2f" % (a, q) for a, q in worst_arm.items()))
hs = [q for a, q in worst_arm.items() if diag.get(a, "").startswith("hou_shin")]
print("worst hou_shin*/fixed ratio: %s (target >= 0.5)" % ("%.2f" % min(hs) if hs else "n/a"))
PY
