"""Tables and figure of the calibrated regime map, from its rows alone (calibrated_map.py).

Contract of write_outputs(design, rows, calibration_rows, out_dir):
- regime_map.csv: one line per regime (design order): class, replications and crashes of
  each block, the budget (the adaptive arm's mean cost), the baseline pick, its cost and cost
  error, the largest |cost error| of the calibrated arms, the mean metric (points of %) of the
  adaptive arm, the pick, none and oracle, the value of detection and the margin, the discovery
  interval and verdict, the held-out interval, verdict and confirmation.
- regime_map.md: the same as a table, with a line of verdict counts and a line of counts by
  class; families.md: per regime, every calibrated arm (solved parameter, timeout, cost and its
  error, metric, Delta against the adaptive arm with the interval at the verdicts' confidence).
- regime_map.png: calibrated_map's verdict intervals (regime_verdicts.figure_verdicts): the
  discovery and held-out intervals drawn are the very intervals of the table.
- calibration_csv(calibration) -> the text of calibration.csv (regime, arm, leaf, solved value,
  linked leaves, pilot arm mean, pilot target mean, relative error, evaluations).
- excluded_csv(excluded) -> the text of excluded.csv (regime, arm, fdsim's refusal of the arm's
  calibration): the arms left out of a regime's baseline pool because their cost cannot reach
  the budget (calibrated_map.py, if_unreachable); the tables show them apart.
Intervals are the Student-t intervals at the Sidak confidence of regime_verdicts.
"""

import csv
import io
import os
from collections import Counter

from . import calibrated_map as cm
from .inference import VERDICTS, interval, simultaneous_confidence
from .regime_verdicts import figure_verdicts, regime_verdicts

CAL_COLUMNS = ("regime", "arm", "leaf", "solved", "linked", "pilot_arm_mean",
               "pilot_target_mean", "pilot_relative_error", "evaluations")


def calibration_csv(design, calibration):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CAL_COLUMNS)
    arms = {a["path"]: a for a in design["calibrated"]}
    for key in [g["key"] for g in design["regimes"]]:
        if key not in calibration:
            continue
        rec, leaves = calibration[key]["record"], calibration[key]["leaves"]
        axes = rec["points"][0]["axes"]
        for ax in axes:
            a = arms[ax["path"]]
            linked = ";".join(f"{l['path']}={cm._cell(float(leaves[l['path']]))}"
                              for l in a.get("linked", []))
            w.writerow([key, a["arm"], ax["path"], cm._cell(float(ax["solved"])), linked,
                        repr(ax["achieved_mean"]), repr(ax["target_mean"]),
                        repr(ax["relative_error"]), len(ax["evaluations"])])
    return buf.getvalue()


def failures_csv(failures):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("regime", "failure"))
    for k in sorted(failures):
        w.writerow((k, failures[k]))
    return buf.getvalue()


def excluded_csv(excluded):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("regime", "arm", "refusal"))
    for k in sorted(excluded):
        for arm in sorted(excluded[k]):
            w.writerow((k, arm, excluded[k][arm]))
    return buf.getvalue()


def read_excluded_csv(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["regime"], {})[r["arm"]] = r["refusal"]
    return out


def read_failures_csv(path):
    if not os.path.exists(path):
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {r["regime"]: r["failure"] for r in csv.DictReader(f)}


def read_calibration_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def analyse(design, rows, excluded=None):
    """(results, verdicts by key): every regime's RegimeResult, and the RegimeVerdict of each
    regime with a margin; `excluded`: {regime: {arm: refusal}} (excluded_csv)."""
    excluded = excluded or {}
    results = [cm.summarise_regime(design, g["key"], rows, excluded.get(g["key"]))
               for g in design["regimes"]
               if any(r["regime"] == g["key"] for r in rows)]
    with_margin = [r for r in results if r.margin is not None]
    verdicts = regime_verdicts([cm.comparison(r) for r in with_margin],
                               design["replication"]["level"], len(design["regimes"]))
    return results, {v.name: v for v in verdicts}


def _f(x, d=3):
    return "" if x is None else f"{x:.{d}f}"


def _pm(mean, low, high, d=3):
    if mean is None or low is None:
        return ""
    return f"{mean:+.{d}f} [{low:+.{d}f}, {high:+.{d}f}]"


MAP_COLUMNS = ("regime", "class", "label", "n", "crashes", "holdout_n", "holdout_crashes",
               "budget", "pick", "pick_cost", "pick_cost_error_rel", "max_abs_cost_error_rel",
               "adaptive_metric_pct", "pick_metric_pct", "none_metric_pct", "oracle_metric_pct",
               "value_of_detection_pct", "margin_pct", "confidence", "delta_pct", "low_pct",
               "high_pct", "verdict", "holdout_confidence", "holdout_delta_pct",
               "holdout_low_pct", "holdout_high_pct", "holdout_verdict", "confirmed")


def _map_row(design, res, v):
    arms = res.arms
    errs = [abs(arms[a].cost_error_rel) for a in cm.fixed_arms(design)
            if a in arms and a not in res.excluded and arms[a].cost_error_rel is not None]
    none_m, orc_m = arms[design["none_arm"]].metric_mean, arms[design["oracle_arm"]].metric_mean
    pick = arms.get(res.pick)
    return {"regime": res.key, "class": res.cls, "label": res.label, "n": res.n,
            "crashes": res.crashes, "holdout_n": res.holdout_n,
            "holdout_crashes": res.holdout_crashes if res.holdout_n else None,
            "budget": res.budget, "pick": res.pick or "",
            "pick_cost": pick.cost_mean if pick else None,
            "pick_cost_error_rel": pick.cost_error_rel if pick else None,
            "max_abs_cost_error_rel": max(errs) if errs else None,
            "adaptive_metric_pct": arms[design["adaptive_arm"]].metric_mean,
            "pick_metric_pct": pick.metric_mean if pick else None,
            "none_metric_pct": none_m, "oracle_metric_pct": orc_m,
            "value_of_detection_pct": none_m - orc_m, "margin_pct": res.margin,
            "confidence": v.confidence if v else None, "delta_pct": v.mean if v else None,
            "low_pct": v.low if v else None, "high_pct": v.high if v else None,
            "verdict": v.verdict if v else "no margin (no value of detection)",
            "holdout_confidence": v.holdout_confidence if v else None,
            "holdout_delta_pct": v.holdout_mean if v else None,
            "holdout_low_pct": v.holdout_low if v else None,
            "holdout_high_pct": v.holdout_high if v else None,
            "holdout_verdict": (v.holdout_verdict or "") if v else "",
            "confirmed": {None: "not needed", True: "yes", False: "no"}[v.confirmed] if v else ""}


def map_rows(design, results, verdicts):
    return [_map_row(design, r, verdicts.get(r.key)) for r in results]


def map_csv(rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(MAP_COLUMNS)
    for r in rows:
        w.writerow([cm._cell(r[c]) if not isinstance(r[c], str) else r[c] for c in MAP_COLUMNS])
    return buf.getvalue()


def counts_line(rows):
    c = Counter(r["verdict"] for r in rows)
    order = [v for v in VERDICTS if c.get(v)] + [v for v in c if v not in VERDICTS]
    confirmed = sum(1 for r in rows if r["confirmed"] == "yes")
    to_confirm = sum(1 for r in rows if r["confirmed"] in ("yes", "no"))
    return ("Verdicts (the adaptive arm against the baseline pick): "
            + ", ".join(f"{v} {c[v]}" for v in order)
            + f"; confirmed on the held-out block: {confirmed} of {to_confirm}.")


def map_table(design, rows, failures=None):
    out = ["| regime | n (crashes) | budget msg/node/s | baseline pick (cost error) | "
           "P(df) % adaptive / pick / none / oracle | margin (points) | Δ points, discovery | "
           "verdict | held-out n | Δ points, held-out | held-out verdict | confirmed |",
           "|" + "---|" * 12]
    for r in rows:
        out.append(
            f"| {r['label']} | {r['n']} ({cm._cell(r['crashes'])}) | {_f(r['budget'], 3)} | "
            f"{r['pick']} ({100 * r['pick_cost_error_rel']:+.2f} %) | "
            f"{_f(r['adaptive_metric_pct'])} / {_f(r['pick_metric_pct'])} / "
            f"{_f(r['none_metric_pct'])} / {_f(r['oracle_metric_pct'])} | "
            f"{_f(r['margin_pct'], 4)} | {_pm(r['delta_pct'], r['low_pct'], r['high_pct'])} | "
            f"**{r['verdict']}** | {r['holdout_n'] or ''} | "
            f"{_pm(r['holdout_delta_pct'], r['holdout_low_pct'], r['holdout_high_pct'])} | "
            f"{r['holdout_verdict']} | {r['confirmed']} |")
    conf = next((r["confidence"] for r in rows if r["confidence"] is not None), None)
    by_class = Counter(r["class"] for r in rows)
    out += ["", counts_line(rows),
            "Regimes: " + ", ".join(f"{by_class[c]} {c}" for c in cm.CLASSES) + "; the largest "
            "|cost error| of any calibrated arm in any regime: "
            f"{100 * max(r['max_abs_cost_error_rel'] for r in rows):.2f} % of the budget.",
            "",
            "Budget: the adaptive arm's (`" + design["adaptive_arm"] + "`) mean cost in "
            "messages per node per s (`" + design["cost_metric"] + "`) over the discovery "
            "replications; every fixed arm is calibrated to it (cost error = its mean cost / "
            "budget − 1, same replications). Δ = P(df) of the baseline pick − P(df) of the "
            "adaptive arm, paired, in points of %: positive, the adaptive arm fails fewer "
            "tasks. Margin = " + f"{design['replication']['margin_share']:g}" + " × (P(df) of "
            "none − P(df) of the oracle). Intervals: two-sided Student t at "
            + (f"{conf:.5f}" if conf else "?") + f" per regime (Šidák over the "
            f"{len(design['regimes'])} independent regimes of the design, family 0.95); held-out intervals at the Šidák confidence over "
            "the verdicts confirmed; these are the intervals of the figure."]
    for k in sorted(failures or {}):
        out += ["", f"Not measured: regime {k}: {failures[k]}"]
    return "\n".join(out) + "\n"


def _refusal_core(line):
    """fdsim's refusal from its finding on (the point's regime values, already in the table's
    regime column, left out); the whole line is in excluded.csv."""
    for start in ("the target is not bracketed: ", "arm mean of "):
        i = line.find(start)
        if i >= 0:
            return line[i:]
    return line


def excluded_table(design, results):
    """The arms left out of some regime's pool, with the cost they reach (families.md)."""
    out = []
    for res in results:
        for a in sorted(res.excluded):
            s = res.arms.get(a)
            why = _refusal_core(res.excluded[a])
            out.append(f"| {res.label} | {a} | "
                       f"{100 * s.cost_error_rel:+.2f} % | {_f(s.metric_mean)} | {why} |"
                       if s else f"| {res.label} | {a} | | | {why} |")
    if not out:
        return ""
    return ("\n".join(["", "Left out of the baseline pool (their cost cannot be brought down to "
                       "the budget: fdsim refused the calibration; the arm ran at its "
                       "`if_unreachable` value, whose cost error and P(df) are shown):", "",
                       "| regime | arm | cost error | P(df) % | fdsim's refusal |",
                       "|---|---|---|---|---|"] + out) + "\n")


def families_table(design, results, calibration_rows, confidence):
    leaf = {(c["regime"], c["arm"]): c for c in calibration_rows}
    out = ["| regime | arm | solved (ms) | linked | cost error | P(df) % | Δ points vs adaptive |",
           "|---|---|---|---|---|---|---|"]
    for res in results:
        ad = res.arms[design["adaptive_arm"]]
        out.append(f"| {res.label} | {design['adaptive_arm']} (budget "
                   f"{_f(res.budget, 3)} msg/node/s) | | | | {_f(ad.metric_mean)} | |")
        for a in cm.fixed_arms(design):
            if a not in res.arms:
                continue
            s = res.arms[a]
            c = leaf.get((res.key, a), {})
            iv = interval(res.family_diffs.get(a, []), confidence)
            linked = c.get("linked", "").split("=")[-1] if c.get("linked") else ""
            solved = f"{float(c['solved']):.0f}" if c else ""
            linked = f"{float(linked):.0f}" if linked else ""
            tag = " (pick)" if a == res.pick else " (left out)" if a in res.excluded else ""
            out.append(f"| | {a}{tag} | {solved} | {linked} | "
                       f"{100 * s.cost_error_rel:+.2f} % | {_f(s.metric_mean)} | "
                       f"{_pm(*iv) if iv else ''} |")
    out += ["", "Solved: the calibrated period P; "
            "linked: the timeout that follows it (P + 1 s for the short arms, 2.5 P for the "
            "long ones). Δ = P(df) of the arm − P(df) of the adaptive arm over the discovery "
            "replications, interval at the verdicts' confidence (no verdict: only the pick is "
            "tested)."]
    return "\n".join(out) + "\n" + excluded_table(design, results)


def write_outputs(design, rows, calibration_rows, out_dir, formats=("png",), failures=None,
                  excluded=None):
    from .plotting import save_figure
    results, verdicts = analyse(design, rows, excluded)
    mrows = map_rows(design, results, verdicts)
    conf = simultaneous_confidence(design["replication"]["level"], len(design["regimes"]))
    os.makedirs(out_dir, exist_ok=True)
    for name, text in (("regime_map.csv", map_csv(mrows)),
                       ("regime_map.md", map_table(design, mrows, failures)),
                       ("families.md", families_table(design, results, calibration_rows, conf))):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(text)
    vs = [verdicts[r.key] for r in results if r.key in verdicts]
    for v in vs:
        v.name = next(r.label for r in results if r.key == v.name).split(" (")[0]
    fig = figure_verdicts(vs, x_label="Δ P(df), points: pick − adaptive (> 0: adaptive better)")
    save_figure(fig, out_dir, "regime_map", formats)
    return mrows
