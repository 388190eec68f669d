"""Per-crash removal times of a geode-current-* sweep (the Geode source-rules study,
results/geode/source-rules/).

Usage: python3 -m fdsim_analysis.studies.geode_source_rules_extract SWEEP_OUT_DIR CASE OUT.csv

Reads SWEEP_OUT_DIR/sweep.json and SWEEP_OUT_DIR/runs/<id>.json and writes one row per crash:
case, member_timeout_ms, replication, crash, removal_s (empty if the crash was not removed by
the horizon). A run of the two-crash case has two crashes: its detection_removal_s summary has
count 2, and min/max are the two removal times (crash 1 = the faster removal, not necessarily
the first crash). A run of the restart case has one crash (the old identity).
"""
import csv
import json
import os
import sys


def extract(out_dir, case, out_csv):
    """Writes out_csv from the sweep output directory out_dir (plan and run files)."""
    plan = json.load(open(os.path.join(out_dir, "sweep.json")))
    rows = []
    for point in plan["points"]:
        m = point["params"]["$.membership.member_timeout_ms"]
        for rep, run_id in enumerate(point["run_ids"]):
            run = json.load(open(os.path.join(out_dir, "runs", run_id + ".json")))
            metrics = run["metrics"]["fixed"]
            crashes = metrics["crashes_count"]
            summary = metrics["detection_removal_s"]
            n = summary["count"]
            if n == 0:
                values = []
            elif n == 1:
                values = [summary["mean"]]
            elif n == 2:
                values = [summary["min"], summary["max"]]
            else:
                raise SystemExit(f"{run_id}: {n} removals, expected at most 2")
            for i in range(crashes):
                v = values[i] if i < len(values) else ""
                rows.append([case, m, rep, i + 1, "" if v == "" else f"{v:.6f}"])
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["case", "member_timeout_ms", "replication", "crash", "removal_s"])
        w.writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    extract(*sys.argv[1:4])
