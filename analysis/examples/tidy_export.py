#!/usr/bin/python3
"""Reproduce a published table of the flagship study from `fdsim export`: the per-arm columns
of results/flagship/comparisons.csv (mean and 95% half-width of P(dynamic failure) of the
feasible tasks per point and arm, and the paired differences against the oracle and against
hou_shin_extra with their 95% half-widths).

Differences are taken per replication: the arms of one replication share their random numbers.

    fdsim sweep scenarios/sweeps/flagship.json --out out/flagship --reference-arm oracle
    fdsim export out/flagship --format csv                # -> out/flagship/tidy.csv
    python3 analysis/examples/tidy_export.py out/flagship/tidy.csv \
        --compare results/flagship/comparisons.csv

Needs pandas (Debian: apt-get install python3-pandas). Only pandas and the standard library are
used: the t quantiles come from the table below, so the script also shows how little is
needed to redo a published table from the tidy export.
"""

import argparse
import math
import sys

try:
    import pandas as pd
except ImportError:
    sys.exit("tidy_export.py: needs pandas (Debian: apt-get install python3-pandas; "
             "elsewhere: pip install pandas)")

# 0.975 quantiles of Student's t for 1..30 degrees of freedom.
T975 = [12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
        2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
        2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
        2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272]


def t975(df):
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964  # Cornish-Fisher expansion, accurate to 1e-5 beyond 30 degrees of freedom
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def half_width(values):
    n = len(values)
    return None if n < 2 else t975(n - 1) * values.std(ddof=1) / math.sqrt(n)


def fmt(x):
    return "n/a" if x is None else f"{x:.4g}"


COLUMNS = ["mean", "ci95_half_width", "diff_vs_oracle_mean", "diff_vs_oracle_ci95_half_width",
           "diff_vs_hou_shin_extra_mean", "diff_vs_hou_shin_extra_ci95_half_width"]


def table(tidy, metric, references=("oracle", "hou_shin_extra")):
    """{(point, arm): {column: value}} for the COLUMNS, from the tidy rows of `metric`."""
    m = tidy[(tidy["metric"] == metric) & tidy["value"].notna()]
    arms = list(dict.fromkeys(m["arm"]))  # the export's arm order
    # One column per arm, one row per (point, replication): the paired layout.
    wide = m.pivot_table(index=["point", "replication"], columns="arm", values="value")
    out = {}
    for point, block in wide.groupby(level="point", sort=True):
        for arm in arms:
            v = block[arm].dropna()
            row = {"mean": v.mean(), "ci95_half_width": half_width(v)}
            for ref in references:
                if arm == ref:
                    row[f"diff_vs_{ref}_mean"] = row[f"diff_vs_{ref}_ci95_half_width"] = None
                    continue
                d = (block[arm] - block[ref]).dropna()
                row[f"diff_vs_{ref}_mean"], row[f"diff_vs_{ref}_ci95_half_width"] = \
                    d.mean(), half_width(d)
            out[(int(point), arm)] = row
    return out


def close(a, b):
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return (a is None) == (b is None or (isinstance(b, float) and math.isnan(b)))
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tidy_csv", help="the CSV written by fdsim export")
    ap.add_argument("--metric", default="dynamic_failure_feasible_ratio")
    ap.add_argument("--compare", metavar="COMPARISONS_CSV",
                    help="a published comparisons.csv: report whether its rows are reproduced")
    a = ap.parse_args(argv)
    tidy = pd.read_csv(a.tidy_csv)
    for col in ("point", "replication", "arm", "metric", "value"):
        if col not in tidy.columns:
            sys.exit(f"{a.tidy_csv}: no column {col!r} (columns: {', '.join(tidy.columns)})")
    rows = table(tidy, a.metric)
    print("| point | arm | mean (%) | ± | Δ vs oracle (points) | Δ vs hou_shin_extra (points) |")
    print("|---|---|---|---|---|---|")
    for (point, arm), r in rows.items():
        def pts(key):
            x = r[key + "_mean"]
            return "(reference)" if x is None else \
                f"{100 * x:+.3f} ± {100 * r[key + '_ci95_half_width']:.3f}"
        print(f"| {point} | {arm} | {100 * r['mean']:.3f} | {100 * r['ci95_half_width']:.3f} | "
              f"{pts('diff_vs_oracle')} | {pts('diff_vs_hou_shin_extra')} |")
    if a.compare:
        published = pd.read_csv(a.compare)
        same = 0
        for _, p in published.iterrows():
            r = rows.get((int(p["point"]), p["arm"]))
            if r is not None and all(close(r[c], None if pd.isna(p[c]) else float(p[c]))
                                     for c in COLUMNS):
                same += 1
        print(f"\n{a.compare}: {same} of {len(published)} rows reproduced (relative error "
              f"<= 1e-9 in {', '.join(COLUMNS)})")
        return 0 if same == len(published) == len(rows) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
