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
# is a tenth of a second), and the same with CPU time (run_stats.simulations[].cpu_time_s, the
# thread CPU time of each simulation: it does not count waiting for a core on a busy machine).
# Usage: bench/tout_bench.sh [BUILD_DIR] [REPLICATIONS] [REPEATS]   (defaults: build, 3, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-3}
repeats=${3:-10}
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
print("best of %d invocations per simulation (wall; CPU = the simulation thread's CPU time)" %
      repeats)
print("%-26s %-16s %8s %8s %10s %12s %9s %12s %9s" % (
    "run", "arm", "wall_s", "cpu_s", "events", "events/wall", "vs fixed", "events/cpu",
    "vs fixed"))
worst_arm = {}  # arm -> worst wall ratio to fixed over the runs
totals = {}     # arm -> [events, best wall, best cpu] summed over the runs
diag = {}
for f in sorted(glob.glob(tmp + "/out0/*.json")):
    best = {}  # arm -> {"wall": (events/s, wall_s), "cpu": (events/s, cpu_s), "events": n}
    for i in range(repeats):
        r = json.load(open(os.path.join(tmp, "out%d" % i, os.path.basename(f))))
        for a in r["manifest"]["resolved_config"]["load_sharing"]["arms"]:
            diag[a["name"]] = a["diagnosis"]
        for s in r["run_stats"]["simulations"]:
            b = best.setdefault(s["arms"][0], {"wall": (0.0, 0.0), "cpu": (0.0, 0.0),
                                                "events": s["events_dispatched_count"]})
            if s["events_per_wall_s"] > b["wall"][0]:
                b["wall"] = (s["events_per_wall_s"], s["wall_time_s"])
            if s.get("events_per_cpu_s", 0.0) > b["cpu"][0]:
                b["cpu"] = (s["events_per_cpu_s"], s["cpu_time_s"])
    fixed = [a for a in best if diag.get(a) == "fixed"]
    ref = best[fixed[0]] if fixed else None
    name = os.path.basename(f)[:-5]
    for arm, b in best.items():
        t = totals.setdefault(arm, [0, 0.0, 0.0])
        t[0] += b["events"]
        t[1] += b["wall"][1]
        t[2] += b["cpu"][1]
        rw = rc = ""
        if ref:
            q = b["wall"][0] / ref["wall"][0]
            rw = "%.2f" % q
            worst_arm[arm] = min(worst_arm.get(arm, q), q)
            if ref["cpu"][0] > 0:
                rc = "%.2f" % (b["cpu"][0] / ref["cpu"][0])
        print("%-26s %-16s %8.3f %8.3f %10d %12.0f %9s %12.0f %9s" % (
            name, arm, b["wall"][1], b["cpu"][1], b["events"], b["wall"][0], rw, b["cpu"][0], rc))
fixed_arms = [a for a in totals if diag.get(a) == "fixed"]
if fixed_arms:
    f0 = totals[fixed_arms[0]]
    print("all runs, events / summed wall, ratio to fixed: " +
          ", ".join("%s %.2f" % (a, (t[0] / t[1]) / (f0[0] / f0[1])) for a, t in totals.items()))
    if f0[2] > 0:
        print("all runs, events / summed CPU, ratio to fixed: " +
              ", ".join("%s %.2f" % (a, (t[0] / t[2]) / (f0[0] / f0[2]))
                        for a, t in totals.items()))
print("worst ratio to fixed per arm (wall): " +
      ", ".join("%s %.2f" % (a, q) for a, q in worst_arm.items()))
hs = [q for a, q in worst_arm.items() if diag.get(a, "").startswith("hou_shin")]
print("worst hou_shin*/fixed ratio (wall): %s (target >= 0.5)" %
      ("%.2f" % min(hs) if hs else "n/a"))
PY
