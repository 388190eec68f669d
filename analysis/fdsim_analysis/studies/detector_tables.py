"""The heartbeat detector QoS trade-off study's tables (results/detectors): every point of every
detector's curve (curves.md/.csv), and the mistake rate at a matched detection time, Chen's mean
T_D and the Kaplan-Meier median (matched_detection_time*.md/.csv), also filled into the README.
"""
import math
import os

from .tables_common import fill, g, load, md_table, pm, write, write_csv

DET_KNOBS = {  # arm -> (axis path, knob label)
    "fixed": ("$.detectors.arms[0].detector.timeout_ms", "timeout_ms"),
    "nfd_s": ("$.detectors.arms[1].detector.delta_ms", "delta_ms"),
    "nfd_e": ("$.detectors.arms[2].detector.alpha_ms", "alpha_ms"),
    "phi_accrual": ("$.detectors.arms[3].detector.threshold", "threshold"),
    "exponential_accrual": ("$.detectors.arms[4].detector.threshold", "threshold"),
    "bertier": ("$.detectors.arms[5].detector.phi", "phi"),
    "quantile": ("$.detectors.arms[6].detector.alpha", "alpha"),
}
TARGETS_S = (1.0, 1.5, 2.0, 3.0)
# The detection-time axis of the curves: Chen's mean T_D (0 s for a crash q already suspected,
# undetected crashes left out) and the unbiased Kaplan-Meier median (models/metrics/qos_metrics.md).
DET_X = {"chen": "detection_time_mean_s", "km": "detection_time_km_median_s"}

def detectors(res):
    rows, arms, points = load(res)
    curve_md, curve_csv = [], []
    curves = {k: {} for k in DET_X}
    def total(p, arm, metric):
        r = rows.get((p, arm, metric))
        return r["mean"] * r["n"] if r and r["mean"] is not None else None
    for arm in arms:
        path, label = DET_KNOBS[arm]
        pts = {k: [] for k in DET_X}
        for p in sorted(points):
            y = rows[(p, arm, "mistake_rate_per_s")]
            k = rows[(p, arm, "mistakes_count")]
            o = rows[(p, arm, "observed_time_s")]
            qa = rows[(p, arm, "query_accuracy_ratio")]
            mistakes = k["mean"] * k["n"]
            observed = o["mean"] * o["n"]
            for key, metric in DET_X.items():
                x = rows.get((p, arm, metric))
                if x is None or x["mean"] is None:
                    continue
                pts[key].append((x["mean"], x["ci95_half_width"], y["mean"], y["ci95_half_width"],
                                 points[p][path], mistakes, observed, qa["mean"]))
            x = rows[(p, arm, DET_X["chen"])]
            xk = rows.get((p, arm, DET_X["km"])) or {"mean": None, "ci95_half_width": None}
            already = total(p, arm, "already_suspected_at_crash_count")
            samples = total(p, arm, "detection_km_samples_count")
            censored = total(p, arm, "detection_km_censored_count")
            crashes_at = (already or 0) + (samples or 0)
            already_pct = 100 * already / crashes_at if already is not None and crashes_at else None
            censored_pct = 100 * censored / samples if censored is not None and samples else None
            curve_md.append([arm, f"{label} = {g(points[p][path], 3)}", pm(x["mean"], x["ci95_half_width"]),
                             pm(xk["mean"], xk["ci95_half_width"]),
                             "n/a" if already_pct is None else f"{g(already_pct, 2)}%",
                             "n/a" if censored_pct is None else f"{g(censored_pct, 2)}%",
                             pm(y["mean"], y["ci95_half_width"]), str(round(mistakes)),
                             g(qa["mean"], 6)])
            curve_csv.append([arm, label, points[p][path], x["mean"], x["ci95_half_width"], y["mean"],
                              y["ci95_half_width"], round(mistakes), observed, qa["mean"],
                              xk["mean"], xk["ci95_half_width"],
                              None if already is None else round(already),
                              None if samples is None else round(samples),
                              None if censored is None else round(censored)])
        for key in DET_X:
            curves[key][arm] = sorted(pts[key])
    curve_header = ["detector", "knob", "mean detection time, Chen (s)",
                    "KM median detection time (s)", "already suspected at crash",
                    "censored", "mistake rate (1/s)", "mistakes", "query accuracy"]
    write(os.path.join(res, "curves.md"),
          "# detector-tradeoff: every point of every curve (generated)\n\n"
          "Mean over the replications ± 95% half-width; mistakes = total over the replications. "
          "Chen's mean T_D counts a crash q already suspected as detected in 0 s and leaves "
          "undetected crashes out; the Kaplan-Meier (KM) median leaves the first out (their share "
          "of the crashes: 'already suspected at crash') and censors the second at p's repair, "
          "q's crash or the horizon (their share of the KM samples: 'censored'); "
          "models/metrics/qos_metrics.md.\n\n" +
          md_table(curve_header, curve_md))
    write_csv(os.path.join(res, "curves.csv"),
              ["detector", "knob", "knob_value", "detection_time_mean_s", "detection_time_ci95_s",
               "mistake_rate_per_s", "mistake_rate_ci95_per_s", "mistakes_total",
               "observed_time_total_s", "query_accuracy_ratio", "detection_time_km_median_s",
               "detection_time_km_median_ci95_s", "already_suspected_at_crash_total",
               "detection_km_samples_total", "detection_km_censored_total"], curve_csv)

    def at(curve, t):
        """log-linear interpolation of the mistake rate at mean detection time t between the two
        neighbouring points of the curve; a point with no mistake stands for its rule-of-three
        95% upper bound 3 / observed time (the result is then an upper bound, '<=')."""
        for a, b in zip(curve, curve[1:]):
            if a[0] <= t <= b[0]:
                w = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
                bound = False
                def val(pt, off):
                    nonlocal bound
                    y = pt[2] + off * (pt[3] or 0.0)
                    if pt[5] == 0:
                        bound = True
                        return 3.0 / pt[6]
                    return y
                def interp(ya, yb):
                    if ya <= 0 or yb <= 0:
                        return None
                    return 10 ** ((1 - w) * math.log10(ya) + w * math.log10(yb))
                mid = interp(val(a, 0), val(b, 0))
                lo = interp(val(a, -1), val(b, -1))
                hi = interp(val(a, +1), val(b, +1))
                return mid, lo, hi, bound, (a[4], b[4])
        return None

    def matched_table(curves_x, x_name):
        header = ["detector"] + [f"T_D = {t:g} s" for t in TARGETS_S]
        body, csvr = [], []
        for arm in arms:
            cells = [arm]
            for t in TARGETS_S:
                r = at(curves_x[arm], t) if curves_x[arm] else None
                if r is None:
                    if curves_x[arm]:
                        lo_x, hi_x = curves_x[arm][0][0], curves_x[arm][-1][0]
                        cells.append(f"out of range ({g(lo_x)}..{g(hi_x)} s)")
                    else:
                        cells.append("n/a")
                    csvr.append([arm, t, None, None, None, "", "out_of_range"])
                    continue
                mid, lo, hi, bound, (ka, kb) = r
                ci = f" [{g(lo) if lo else '0'}, {g(hi)}]" if not bound else ""
                cells.append(("≤ " if bound else "") + g(mid) + ci + f"<br>({DET_KNOBS[arm][1]} {g(ka)}..{g(kb)})")
                csvr.append([arm, t, mid, lo, hi, "upper_bound" if bound else "", f"{ka}..{kb}"])
            body.append(cells)
        return md_table(header, body), csvr

    matched, csvr = matched_table(curves["chen"], DET_X["chen"])
    write(os.path.join(res, "matched_detection_time.md"),
          "# detector-tradeoff: mistake rate (1/s) at a matched mean detection time (generated)\n\n" + matched)
    write_csv(os.path.join(res, "matched_detection_time.csv"),
              ["detector", "detection_time_mean_s", "mistake_rate_per_s", "mistake_rate_low_per_s",
               "mistake_rate_high_per_s", "kind", "knob_interval"], csvr)
    matched_km, csvr_km = matched_table(curves["km"], DET_X["km"])
    write(os.path.join(res, "matched_detection_time_km.md"),
          "# detector-tradeoff: mistake rate (1/s) at a matched Kaplan-Meier median detection "
          "time (generated)\n\n" + matched_km)
    write_csv(os.path.join(res, "matched_detection_time_km.csv"),
              ["detector", "detection_time_km_median_s", "mistake_rate_per_s", "mistake_rate_low_per_s",
               "mistake_rate_high_per_s", "kind", "knob_interval"], csvr_km)
    fill(os.path.join(res, "README.md"), "matched", matched)
    fill(os.path.join(res, "README.md"), "matched-km", matched_km)
    fill(os.path.join(res, "README.md"), "curves", md_table(curve_header, curve_md))

