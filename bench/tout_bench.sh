#!/usr/bin/env bash
# T_out speed on the flagship scenario (scenarios/sweeps/flagship.json, its base at each load
# of the sweep, one replication): prints every arm's events per wall second as fdsim reports
# them (run_stats.simulations[].events_per_wall_s) and, for every hou_shin* arm, the ratio to
# the fixed arm of the same run. Issue 13 asks for a ratio >= 0.5. A hou_shin arm (no extra
# broadcasts) is added to the flagship's arms so that both Hou-Shin arms are measured.
# Usage: bench/tout_bench.sh [BUILD_DIR] [REPLICATIONS]   (default: build, 1)
# A benchmark, not a test: the figures depend on the machine and its load (ratios of one
# invocation are what to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp" "$reps" <<'PY'
import json, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
sweep = json.load(open("scenarios/sweeps/flagship.json"))
base = sweep["base"]
for ax in sweep["axes"]:
    assert ax["path"] == "$.workload.arrival_rate_per_s"
    for v in ax["values"]:
        d = json.loads(json.dumps(base))
        d["name"] = "tout-bench-%g" % v
        d["replications"] = reps
        d["workload"]["arrival_rate_per_s"] = v
        arms = d["load_sharing"]["arms"]
        if not any(a["diagnosis"] == "hou_shin" for a in arms):
            arms.insert(2, {"name": "hou_shin", "diagnosis": "hou_shin", "alpha": 0.05})
        json.dump(d, open("%s/load-%g.json" % (tmp, v), "w"), indent=1)
PY

"$build/fdsim" run "$tmp"/load-*.json --quiet --out "$tmp/out"

/usr/bin/python3 - "$tmp/out" <<'PY'
import glob, json, sys
worst = None
print("%-26s %-16s %10s %12s %14s %10s" % ("run", "arm", "wall_s", "events", "events/s", "vs fixed"))
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    r = json.load(open(f))
    sims = r["run_stats"]["simulations"]
    eps = {s["arms"][0]: s["events_per_wall_s"] for s in sims}
    wall = {s["arms"][0]: s["wall_time_s"] for s in sims}
    events = {s["arms"][0]: s["events_dispatched_count"] for s in sims}
    diag = {a["name"]: a["diagnosis"] for a in r["manifest"]["resolved_config"]["load_sharing"]["arms"]} \
        if "resolved_config" in r.get("manifest", {}) else {}
    fixed = [a for a in eps if diag.get(a, a).startswith("fixed")]
    ref = eps[fixed[0]] if fixed else None
    name = f.split("/")[-1][:-5]
    for arm, e in eps.items():
        ratio = ""
        if ref and diag.get(arm, arm).startswith("hou_shin"):
            q = e / ref
            ratio = "%.2f" % q
            worst = q if worst is None else min(worst, q)
        print("%-26s %-16s %10.3f %12d %14.0f %10s" % (name, arm, wall[arm], events[arm], e, ratio))
print("worst hou_shin*/fixed ratio: %s (target >= 0.5)" % ("%.2f" % worst if worst else "n/a"))
PY
