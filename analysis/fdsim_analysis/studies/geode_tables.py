"""The Geode ring studies' tables (results/geode): under GC pauses, false removals against the
mean removal time per member timeout and arm (gc-pauses/table.md/.csv, matched_removal_time.md);
and the removal time of one crash against its derived bounds, from the run files of the removal
sweep (removal/removal_times.csv, removal_summary.md). Both also fill the README's blocks.
"""
import json
import math
import os

from ..errors import AnalysisInputError
from .tables_common import diff_cell, fill, fmt_p, g, holm_cells, load, md_table, pm, write, write_csv

PAUSES_PER_RUN = 10 * (540 - 60) / 1600  # members x window / mean interval (geode-gc-pauses.json)

def geode_gc(res):
    rows, arms, points = load(res)
    m_axis = "$.membership.member_timeout_ms"
    header = ["M (ms)", "arm", "mean removal time (s)", "false removals per run",
              "Δ vs fixed (Holm-adjusted p)", "P(false removal | pause)", "false suspicions per run",
              "crashes per run"]
    body, csvr = [], []
    curves = {}
    # Holm family: every arm-vs-fixed difference of false removals in the table.
    ph = holm_cells(rows, [(p, a, "false_removals_count") for p in sorted(points) for a in arms
                           if a != "fixed"])
    for p in sorted(points):
        M = points[p][m_axis]
        for arm in arms:
            rt = rows[(p, arm, "detection_removal_s.mean")]
            fr = rows[(p, arm, "false_removals_count")]
            fs = rows[(p, arm, "false_suspicions_count")]
            cr = rows[(p, arm, "crashes_count")]
            body.append([str(M), arm, pm(rt["mean"], rt["ci95_half_width"]),
                         pm(fr["mean"], fr["ci95_half_width"]),
                         (diff_cell(fr) + f" (p {fmt_p(ph[(p, arm, 'false_removals_count')][1])})")
                         if arm != "fixed" else "(reference)",
                         g(fr["mean"] / PAUSES_PER_RUN, 2), pm(fs["mean"], fs["ci95_half_width"]),
                         g(cr["mean"], 3)])
            csvr.append([M, arm, rt["mean"], rt["ci95_half_width"], rt["n"], fr["mean"],
                         fr["ci95_half_width"], fr.get("diff_mean"), fr.get("diff_ci95_half_width"),
                         ph.get((p, arm, "false_removals_count"), (None, None))[1],
                         fr["mean"] / PAUSES_PER_RUN, fs["mean"], cr["mean"]])
            curves.setdefault(arm, []).append((rt["mean"], fr["mean"], M))
    table = md_table(header, body)
    write(os.path.join(res, "table.md"), "# geode-gc-pauses: per member timeout and arm (generated)\n\n" + table)
    write_csv(os.path.join(res, "table.csv"),
              ["member_timeout_ms", "arm", "removal_time_mean_s", "removal_time_ci95_s", "removal_time_n",
               "false_removals_per_run", "false_removals_ci95", "false_removals_diff_vs_fixed",
               "false_removals_diff_ci95", "false_removals_diff_p_holm", "false_removal_per_pause",
               "false_suspicions_per_run",
               "crashes_per_run"], csvr)
    targets = (2.0, 2.5, 3.0, 4.0)  # the range where the arms still remove live members
    mh = ["arm"] + [f"removal time {t:g} s" for t in targets]
    mb = []
    for arm in arms:
        c = sorted(v for v in curves[arm] if v[0] is not None)
        cells = [arm]
        for t in targets:
            val = None
            for a, b in zip(c, c[1:]):
                if a[0] <= t <= b[0]:
                    w = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
                    val = ((1 - w) * a[1] + w * b[1], a[2], b[2])
                    break
            cells.append("out of range" if val is None else f"{g(val[0], 2)} (M {val[1]}..{val[2]})")
        mb.append(cells)
    matched = md_table(mh, mb)
    write(os.path.join(res, "matched_removal_time.md"),
          "# geode-gc-pauses: false removals per run at a matched mean removal time (generated)\n\n" + matched)
    readme = os.path.join(os.path.dirname(res), "README.md")
    fill(readme, "gc-table", table)
    fill(readme, "gc-matched", matched)

def geode_removal(res, runs_dir):
    """Removal and first-suspicion times, one crash per run, from the run files of the sweep."""
    with open(os.path.join(res, "sweep.json")) as f:
        plan = json.load(f)
    per = {}
    csvr = []
    for pt in plan["points"]:
        prof = pt["params"]["$.membership.profile"]
        for rep, rid in enumerate(pt["run_ids"]):
            with open(os.path.join(runs_dir, rid + ".json")) as f:
                run = json.load(f)
            m = run["metrics"][run["manifest"]["arm_order"][0]]
            rm, su = m["detection_removal_s"], m["detection_first_suspicion_s"]
            if rm["count"] != 1:
                raise AnalysisInputError(
                    f"{runs_dir}: run {rid}: expected exactly one removal, got {rm['count']}")
            per.setdefault(prof, {"removal": [], "suspicion": [], "false_susp": 0, "false_rem": 0})
            d = per[prof]
            d["removal"].append(rm["mean"])
            d["suspicion"].append(su["mean"])
            d["false_susp"] += m["false_suspicions_count"]
            d["false_rem"] += m["false_removals_count"]
            csvr.append([prof, run["manifest"]["replication"], su["mean"], rm["mean"],
                         m["detection_all_survivors_s"]["mean"]])
    write_csv(os.path.join(res, "removal_times.csv"),
              ["profile", "replication", "first_suspicion_s", "removal_s", "all_survivors_s"], csvr)
    M, C, R, d = 5.0, 0.3, 0.1, 0.001
    bounds = {  # (acceptance case 16, models/geode/README.md derivation with F = M for M = 5000 ms)
        "current": ("[2M + 0.3 s, 3M + 0.3 s + delays] = [10.300, 15.3 + delays]",
                    (2 * M + C + 3 * d, 3 * M + C + 6 * d), (M + d, 2 * M + d)),
        "wiki": ("one tick (T = M/2) later than current",
                 (2.5 * M + C + 3 * d, 3.5 * M + C + 6 * d), (1.5 * M + d, 2.5 * M + d)),
    }
    def q(v, p):
        v = sorted(v)
        i = (len(v) - 1) * p
        lo = math.floor(i)
        return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)
    header = ["profile", "crashes", "removal min (s)", "median (s)", "max (s)", "mean (s)",
              "derived bounds (s)", "acceptance bounds (s)", "inside", "first suspicion min..max (s)",
              "suspicion bounds (s)", "false suspicions", "false removals"]
    body = []
    for prof in ("current", "wiki"):
        if prof not in per:
            continue
        d = per[prof]
        r, s = d["removal"], d["suspicion"]
        spec, (lo, hi), (slo, shi) = bounds[prof]
        inside = sum(1 for x in r if lo <= x <= hi)
        body.append([prof, str(len(r)), f"{min(r):.3f}", f"{q(r, 0.5):.3f}", f"{max(r):.3f}",
                     f"{sum(r) / len(r):.3f}", f"[{lo:.3f}, {hi:.3f}]", spec, f"{inside}/{len(r)}",
                     f"{min(s):.3f}..{max(s):.3f}", f"({slo:.3f}, {shi:.3f})",
                     str(d["false_susp"]), str(d["false_rem"])])
    table = md_table(header, body)
    write(os.path.join(res, "removal_summary.md"),
          "# geode-gc-pauses-removal: removal time of one host crash by the ring, 10 members, M = 5000 ms (generated)\n\n" + table)
    fill(os.path.join(os.path.dirname(res), "README.md"), "removal-table", table)

