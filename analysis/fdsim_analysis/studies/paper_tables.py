"""The Hou-Shin reproduction study's tables (results/paper): per metric, mean ± 95% half-width
of every arm at every point with the paired difference against hou_shin_extra and its
Holm-adjusted p (tables.md/.csv), the equivalence and superiority tests (equivalence.md/.csv),
and the README's generated blocks (prefix "" for the main sweep, "drop-" for the variant that
drops unplaced tasks).
"""
import json
import os

from ..equivalence import family_verdicts, t_interval
from .tables_common import fill, fmt_p, g, holm_cells, load, md_table, pm, write, write_csv

def paper(res, readme, prefix, name=None):
    """Per metric: one table per value of every axis but the column axis (the load regime when
    the sweep has one, else the load), rows = arms; each cell the mean ± 95% half-width and
    the paired difference against the reference arm with its Holm-adjusted p-value (the Holm
    family: every difference of that metric in the study)."""
    name = name or os.path.basename(os.path.normpath(res))
    rows, arms, points = load(res)
    with open(os.path.join(res, "sweep.json")) as f:
        axes = json.load(f)["axes"]
    col_axis = "$.description" if "$.description" in axes else "$.workload.arrival_rate_per_s"
    group_axes = [a for a in axes if a not in (col_axis, "$.workload.arrival_rate_per_s",
                                               "$.workload.load_phases")]
    ref = "hou_shin_extra"
    metrics = [
        ("dynamic_failure_feasible_ratio", "P(dynamic failure) of the feasible tasks (what diagnosis can change)", 3),
        ("dynamic_failure_ratio", "P(dynamic failure) = (infeasible + missed + lost + aborted + dropped) / arrived", 3),
        ("false_suspicions_count", "False suspicions per run (trust -> suspect of a live buddy, all observer pairs)", 3),
        ("detection_time_km_median_s", "Median detection time of a crash (Kaplan-Meier over observer pairs, censored at repair; s)", 3),
        ("undetected_before_repair_count", "Crash-observer pairs not detected before the repair, per run", 3),
        ("dynamic_failure_lost_to_dead_ratio", "Tasks lost in transfers to dead nodes / arrived", 3),
        ("broadcast_messages_count", "Broadcast datagrams per run (region changes, recoveries, periodic and extra broadcasts)", 3),
    ]
    pts = sorted(points)
    cols = []
    for p in pts:
        if points[p][col_axis] not in cols:
            cols.append(points[p][col_axis])
    groups = []
    for p in pts:
        key = tuple(points[p].get(a) for a in group_axes)
        if key not in groups:
            groups.append(key)
    def group_title(key):
        parts = []
        for a, v in zip(group_axes, key):
            parts.append(f"repair mean {g(v, 3)} s" if a == "$.faults[0].mean_down_s" else f"{a} = {v}")
        return ", ".join(parts)
    def point_of(key, c):
        for p in pts:
            if tuple(points[p].get(a) for a in group_axes) == key and points[p][col_axis] == c:
                return p
        return None
    sections, csv_rows = [], []
    for metric, title, sig in metrics:
        if not any(rows.get((p, a, metric), {}).get("mean") for p in pts for a in arms):
            continue  # absent, or zero everywhere
        keys = [(p, a, metric) for p in pts for a in arms if a != ref]
        ph = holm_cells(rows, keys)
        md = [f"#### {title}\n",
              f"`{metric}`: mean ± 95% half-width over the replications; second line: paired "
              f"difference arm − {ref} ± 95% half-width, then its Holm-adjusted p-value (family: "
              f"the {sum(1 for k in keys if ph[k][0] is not None)} differences of this metric; "
              f"* = adjusted p < 0.05).\n"]
        for key in groups:
            if group_axes:
                md.append(f"**{group_title(key)}**\n")
            header = ["arm"] + [(f"load {g(c, 3)}" if not isinstance(c, str) else c) for c in cols]
            body = []
            for arm in arms:
                cells = [arm]
                for c in cols:
                    p = point_of(key, c)
                    r = rows.get((p, arm, metric)) if p is not None else None
                    if r is None or r["mean"] is None:
                        cells.append("n/a")
                        continue
                    cell = pm(r["mean"], r["ci95_half_width"], sig)
                    raw, adj = ph.get((p, arm, metric), (None, None))
                    if arm != ref and r.get("diff_mean") is not None:
                        m, hw = r["diff_mean"], r["diff_ci95_half_width"]
                        d = ("+" if m > 0 else "") + g(m, 2) + (f" ± {g(hw, 2)}" if hw is not None else "")
                        star = "*" if adj is not None and adj < 0.05 else ""
                        cell += f"<br>Δ {d}, p_Holm {fmt_p(adj)}{star}"
                    cells.append(cell)
                    csv_rows.append([*(points[p].get(a) for a in group_axes), c, arm, metric,
                                     r["n"], r["mean"], r["ci95_half_width"], r.get("diff_n"),
                                     r.get("diff_mean"), r.get("diff_ci95_half_width"), raw, adj])
                body.append(cells)
            md.append(md_table(header, body))
        sections.append((metric, "\n".join(md)))
    write(os.path.join(res, "tables.md"),
          f"# {name}: tables (generated by scripts/regenerate_results.sh)\n\n" +
          "\n".join(t for _, t in sections))
    write_csv(os.path.join(res, "tables.csv"),
              [a.rsplit(".", 1)[-1] for a in group_axes] + [col_axis.rsplit(".", 1)[-1], "arm", "metric", "n",
               "mean", "ci95_half_width", "diff_n", f"diff_mean_vs_{ref}", "diff_ci95_half_width",
               "diff_p", "diff_p_holm"], csv_rows)
    fill(readme, prefix + "dynamic-failure",
         "\n".join(t for m, t in sections if m == "dynamic_failure_feasible_ratio"))
    headline = os.path.join(res, "headline.md")
    if prefix == "" and os.path.exists(headline):
        with open(headline) as f:
            fill(readme, "headline", f.read())
    fill(readme, prefix + "diagnosis",
         "\n".join(t for m, t in sections if m in ("false_suspicions_count", "detection_time_km_median_s")))
    paper_equivalence(res, readme, prefix, rows, arms, points, col_axis, group_axes, ref, name)

# The equivalence margin of the paper study, in points of P(dynamic failure) of the feasible
# tasks: 0.02 points (2e-4), the size of the smallest effects this repository reports as
# findings (the adaptive scheme's advantage over the best fixed timeout at loads 0.8-0.95 in
# results/fixed-vs-adaptive, 0.02-0.04 points), so "equivalent" never hides an effect of the
# size the studies are about; about 8-16 feasible tasks per node-day at loads 0.5-0.95. 0.05
# points is shown as a sensitivity column.
PAPER_DELTA_POINTS = 0.02
PAPER_DELTA_LOOSE_POINTS = 0.05

def paper_equivalence(res, readme, prefix, rows, arms, points, col_axis, group_axes, ref, name):
    """Every arm against the reference on P(dynamic failure) of the feasible tasks: TOST at
    PAPER_DELTA_POINTS and one-sided superiority tests, each kind Holm-adjusted over every
    comparison of the table (analysis/fdsim_analysis/equivalence.py); equivalence.md/.csv and
    the README's per-arm summary."""
    metric = "dynamic_failure_feasible_ratio"
    keys = [(p, a) for p in sorted(points) for a in arms
            if a != ref and (p, a, metric) in rows]
    def comp(k):
        r = rows[(k[0], k[1], metric)]
        n = r.get("diff_n")
        return (r.get("diff_mean"), r.get("diff_sd"), None if n is None else int(n))
    comps = [comp(k) for k in keys]
    tight = family_verdicts(comps, PAPER_DELTA_POINTS / 100, positive_is_better=False)
    loose = family_verdicts(comps, PAPER_DELTA_LOOSE_POINTS / 100, positive_is_better=False)
    m = sum(1 for v in tight if v.p_tost is not None)
    def label(p):
        parts = [f"repair {points[p][a]:g} s" if a == "$.faults[0].mean_down_s" else f"{a} = {points[p][a]}"
                 for a in group_axes]
        c = points[p][col_axis]
        parts.append(c if isinstance(c, str) else f"load {c:g}")
        return ", ".join(parts)
    def pts(x):
        return "n/a" if x is None else f"{100 * x:+.3f}"
    header = ["point", "arm", "Δ (points)", "90% interval (points)", "p TOST (Holm)",
              "p better (Holm)", "p worse (Holm)", f"verdict, δ = {PAPER_DELTA_POINTS:g}",
              f"verdict, δ = {PAPER_DELTA_LOOSE_POINTS:g}"]
    body, csvr = [], []
    for k, v, w in zip(keys, tight, loose):
        ci = t_interval(v.diff_mean, v.diff_sd, v.n, 0.90)
        body.append([f"{k[0]}: {label(k[0])}", k[1], pts(v.diff_mean),
                     "n/a" if ci is None else f"[{pts(ci[0])}, {pts(ci[1])}]",
                     fmt_p(v.p_tost_adj), fmt_p(v.p_less_adj), fmt_p(v.p_greater_adj),
                     v.verdict, w.verdict])
        csvr.append([k[0], *(points[k[0]].get(a) for a in group_axes), points[k[0]][col_axis], k[1],
                     v.n, v.diff_mean, v.diff_sd, None if ci is None else ci[0],
                     None if ci is None else ci[1], v.p_tost, v.p_tost_adj, v.p_less, v.p_less_adj,
                     v.p_greater, v.p_greater_adj, v.verdict, w.p_tost_adj, w.verdict])
    intro = (f"Every arm against `{ref}` on P(dynamic failure) of the feasible tasks "
             f"(`{metric}`), paired over replications: Δ = arm − {ref} in percentage points, its "
             f"90% Student-t interval, and three tests, each Holm-adjusted over the {m} comparisons "
             f"of this table: TOST of |Δ| < δ (two one-sided paired t tests; at 0.05 the same as "
             f"the 90% interval inside (−δ, δ) before the adjustment), and the one-sided paired t "
             f"tests of Δ < 0 (the arm better) and Δ > 0 (the arm worse). Verdict at level 0.05: "
             f"`equivalent` if the adjusted TOST p < 0.05, else `better` / `worse` if that "
             f"adjusted one-sided p < 0.05, else `inconclusive`. δ = {PAPER_DELTA_POINTS:g} "
             f"points: the smallest effects this repository reports as findings (the adaptive "
             f"scheme's advantage over the best fixed timeout at loads 0.8-0.95 in "
             f"results/fixed-vs-adaptive is 0.02-0.04 points), so `equivalent` cannot hide an "
             f"effect of that size; {PAPER_DELTA_LOOSE_POINTS:g} points as a sensitivity column. "
             f"Generated by scripts/regenerate_results.sh "
             f"(analysis/fdsim_analysis/equivalence.py).\n")
    write(os.path.join(res, "equivalence.md"),
          f"# {name}: equivalence and superiority against {ref} "
          f"(generated)\n\n" + intro + "\n" + md_table(header, body))
    write_csv(os.path.join(res, "equivalence.csv"),
              ["point"] + [a.rsplit(".", 1)[-1] for a in group_axes] +
              [col_axis.rsplit(".", 1)[-1], "arm", "diff_n", f"diff_mean_vs_{ref}", "diff_sd",
               "diff_ci90_lo", "diff_ci90_hi", "p_tost", "p_tost_holm", "p_better", "p_better_holm",
               "p_worse", "p_worse_holm", "verdict", "p_tost_loose_holm", "verdict_loose"], csvr)
    # The README's summary: per arm, the verdicts over the points; then the best fixed timeout
    # in hindsight (the fixed_* arm with the lowest mean at each point) against the scheme.
    kinds = ("better", "equivalent", "worse", "inconclusive")
    sh = ["arm"] + [f"{x} (δ = {PAPER_DELTA_POINTS:g})" for x in kinds] + [f"equivalent (δ = {PAPER_DELTA_LOOSE_POINTS:g})"]
    sb = []
    for arm in arms:
        if arm == ref:
            continue
        vs = [(v, w) for k, v, w in zip(keys, tight, loose) if k[1] == arm]
        sb.append([arm] + [str(sum(1 for v, _ in vs if v.verdict == x)) for x in kinds] +
                  [str(sum(1 for _, w in vs if w.verdict == "equivalent"))])
    bh = ["point", "best fixed (hindsight)", "Δ (points)", "90% interval", f"verdict, δ = {PAPER_DELTA_POINTS:g}",
          f"verdict, δ = {PAPER_DELTA_LOOSE_POINTS:g}"]
    bb = []
    for p in sorted(points):
        fixed = [(rows[(p, a, metric)]["mean"], a) for a in arms
                 if a.startswith("fixed_") and not a.startswith("fixed_periodic") and (p, a, metric) in rows]
        if not fixed:
            continue
        best = min(fixed)[1]
        i = keys.index((p, best))
        v, w = tight[i], loose[i]
        ci = t_interval(v.diff_mean, v.diff_sd, v.n, 0.90)
        bb.append([f"{p}: {label(p)}", best, pts(v.diff_mean),
                   "n/a" if ci is None else f"[{pts(ci[0])}, {pts(ci[1])}]", v.verdict, w.verdict])
    summary = (f"Verdicts of every arm against `{ref}` over the points (`equivalence.md`: TOST at "
               f"δ = {PAPER_DELTA_POINTS:g} points and one-sided tests, each Holm-adjusted over "
               f"the {m} comparisons; why this δ: there):\n\n" + md_table(sh, sb) +
               "\nThe best fixed timeout in hindsight at each point against the scheme:\n\n" + md_table(bh, bb))
    fill(readme, prefix + "equivalence", summary)

