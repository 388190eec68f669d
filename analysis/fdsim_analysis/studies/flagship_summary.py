"""The main job's terminal summary: the flagship's answer in a few lines of at most 100 columns.

Reads the flagship's comparisons.csv (`fdsim-analysis study fixed-vs-adaptive`) and, when
present, the reduced calibrated regime map's regime_map.csv (calibrated_map_report.py); returns
plain text (no Markdown tables):
per point, the best fixed timeout in hindsight, hou_shin_extra and their paired difference with
its 95% half-width and Holm-adjusted p, which arm wins (the difference's 95% interval excludes
0) or "no difference shown"; then the regime map's verdicts; then where the full tables are.
The numbers are those of the tables (same rounding rules), so the summary never says more than
they do.
"""

import csv
import os

WIDTH = 100
ADAPTIVE = "hou_shin_extra"


def _num(s):
    return None if s in (None, "") else float(s)


def _pct(x):
    return f"{100 * x:.3f}"


def _point_label(row):
    repair = _num(row["$.faults[0].mean_down_s"])
    return f"repair {repair:g} s, {row['$.description'].replace('stationary, ', '')}"


def _winner(diff, p_holm):
    """Who is better on P(dynamic failure) (lower is better), given diff = fixed - adaptive and
    its Holm-adjusted p (the repository's written verdicts use adjusted p at level 0.05)."""
    if diff is None or p_holm is None:
        return "n/a"
    if p_holm >= 0.05:
        return "no difference shown"
    return "adaptive better" if diff > 0 else "fixed better"


def flagship_lines(comparisons_csv):
    """The per-point lines, the tally of the verdicts and the replication count."""
    with open(comparisons_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    points = []
    for r in rows:
        if r["point"] not in points:
            points.append(r["point"])
    head = (f"{'regime':<34} {'best fixed':>11} {'adaptive':>8} {'fixed - adaptive':>16} "
            f"{'p_Holm':>6} verdict")
    out = [head, "-" * WIDTH]
    counts, reps = {}, set()
    for p in points:
        prow = [r for r in rows if r["point"] == p]
        best = next((r for r in prow if r["best_fixed_in_hindsight"] == "true"), None)
        ada = next((r for r in prow if r["arm"] == ADAPTIVE), None)
        if best is None or ada is None:
            continue
        reps.add(ada["n"])
        # comparisons.csv gives each arm minus hou_shin_extra, paired over replications.
        diff = _num(best["diff_vs_hou_shin_extra_mean"])
        hw = _num(best["diff_vs_hou_shin_extra_ci95_half_width"])
        p_holm = _num(best["diff_vs_hou_shin_extra_p_holm"])
        verdict = _winner(diff, p_holm)
        counts[verdict] = counts.get(verdict, 0) + 1
        best_cell = f"{_num(best['timeout_s']):g} s: {_pct(_num(best['mean']))}"
        diff_cell = "n/a" if diff is None or hw is None else f"{100 * diff:+.3f} ± {100 * hw:.3f}"
        p_cell = "n/a" if p_holm is None else f"{p_holm:.2g}"
        out.append(f"{_point_label(best)[:34]:<34} {best_cell:>11} {_pct(_num(ada['mean'])):>8} "
                   f"{diff_cell:>16} {p_cell:>6} {verdict}")
    tally = ", ".join(f"{k} at {v}" for k, v in sorted(counts.items()))
    return out, tally, ",".join(sorted(reps))


def regime_lines(regime_map_csv):
    """The reduced regime map's lines (calibrated_map_report.py's regime_map.csv) and its
    replication counts: per regime the discovery difference with its interval, the verdict and,
    for a verdict that needs it, the held-out verdict."""
    with open(regime_map_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    out = [f"{'regime':<38} {'pick - adaptive [interval]':>27} {'verdict':<21} held-out",
           "-" * WIDTH]
    for r in rows:
        d, lo, hi = _num(r["delta_pct"]), _num(r["low_pct"]), _num(r["high_pct"])
        cell = "n/a" if d is None else f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        held = r["holdout_verdict"] + (" (confirmed)" if r["confirmed"] == "yes" else
                                       " (not confirmed)" if r["confirmed"] == "no" else "")
        name = r["label"].split(" (")[0]
        out.append(f"{name[:38]:<38} {cell:>27} {r['verdict'][:21]:<21} "
                   f"{held.strip() or '-'}"[:WIDTH])
    return out, len(rows), ",".join(sorted({r["n"] for r in rows}, key=int))


def summary(results_dir):
    """The summary text for the flagship results in `results_dir`."""
    table, tally, reps = flagship_lines(os.path.join(results_dir, "comparisons.csv"))
    lines = [
        "fdsim flagship: is a fixed timeout as good as the adaptive Hou-Shin timeout?",
        f"Load sharing on 16 nodes under random crashes, {reps} replications. P(dynamic failure)",
        "in % (lower is better): the best fixed timeout per regime, picked in hindsight, and the",
        f"adaptive {ADAPTIVE}; fixed - adaptive: their paired difference in points of %,",
        "± 95% half-width (positive: adaptive better), and its Holm-adjusted p (verdict at 0.05).",
        "",
    ] + table + ["", f"Verdicts: {tally}."]
    rm = os.path.join(results_dir, "regime-map", "regime_map.csv")
    if os.path.exists(rm):
        rm_lines, regimes, rm_reps = regime_lines(rm)
        lines += ["",
                  f"Reduced regime map ({regimes} regimes, {rm_reps} replications, the full map's "
                  "machinery; the full",
                  "map is results/fixed-vs-adaptive/README.md): hou_shin_extra against the best "
                  "fixed arm, every",
                  "fixed family calibrated to its message cost; pick - adaptive in points of %, "
                  "Sidak interval;",
                  "margin 10% of the value of detection; a verdict other than equivalent is "
                  "retested on held-out seeds.",
                  ""] + rm_lines
    lines += ["",
              "The fixed_* arms suspect a node after T of silence since its last state broadcast,",
              "not since a heartbeat: their 'false suspicions' count silences of the load-state",
              "protocol, not failure-detector mistakes (docs/metrics.md, false_suspicions_count).",
              "",
              "Full tables beside this summary (summary.txt): headline.md, comparisons.md (every",
              "arm), fixed_vs_adaptive.png; regime-map/: regime_map.md, families.md, "
              "calibration.csv."]
    return "\n".join(lines) + "\n"


def write_summary(results_dir):
    """Writes summary.txt into results_dir and returns its text."""
    text = summary(results_dir)
    with open(os.path.join(results_dir, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    return text
