#!/usr/bin/python3
"""Reproduce the flagship summary table (results/flagship/summary.md) from `fdsim export`.

The table: P(dynamic failure) [metric dynamic_failure_ratio] per load and arm, mean and 95%
Student-t confidence interval over the replications, and the paired difference of each arm
against the reference arm hou_shin_extra (differences taken per replication: the arms of one
replication share their random numbers).

    fdsim sweep scenarios/sweeps/flagship.json --out out/flagship --reference-arm hou_shin_extra
    fdsim export out/flagship --format csv                # -> out/flagship/tidy.csv
    python3 analysis/examples/tidy_export.py out/flagship/tidy.csv \
        --compare results/flagship/summary.md

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


def summary_rows(tidy, metric, reference, param):
    """Markdown rows: point, parameter, arm, mean, 95% CI, n, paired difference."""
    m = tidy[(tidy["metric"] == metric) & tidy["value"].notna()]
    arms = list(dict.fromkeys(m["arm"]))  # the export's arm order
    # One column per arm, one row per (point, replication): the paired layout.
    wide = m.pivot_table(index=["point", param, "replication"], columns="arm", values="value")
    rows = []
    for (point, x), block in wide.groupby(level=["point", param], sort=True):
        for arm in arms:
            v = block[arm].dropna()
            mean, h = v.mean(), half_width(v)
            ci = "n/a" if h is None else f"[{fmt(mean - h)}, {fmt(mean + h)}]"
            if arm == reference:
                diff = "(reference)"
            else:
                d = (block[arm] - block[reference]).dropna()
                dh = half_width(d)
                diff = fmt(d.mean()) + ("" if dh is None else f" ± {fmt(dh)}")
            rows.append(f"| {point} | {x:g} | {arm} | {fmt(mean)} | {ci} | {len(v)} | {diff} |")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tidy_csv", help="the CSV written by fdsim export")
    ap.add_argument("--metric", default="dynamic_failure_ratio")
    ap.add_argument("--reference-arm", default="hou_shin_extra")
    ap.add_argument("--param", default="arrival_rate_per_s",
                    help="the swept parameter column (default arrival_rate_per_s)")
    ap.add_argument("--compare", metavar="SUMMARY_MD",
                    help="a published summary.md: report whether its rows are reproduced")
    a = ap.parse_args(argv)
    tidy = pd.read_csv(a.tidy_csv)
    for col in ("point", a.param, "replication", "arm", "metric", "value"):
        if col not in tidy.columns:
            sys.exit(f"{a.tidy_csv}: no column {col!r} (columns: {', '.join(tidy.columns)})")
    rows = summary_rows(tidy, a.metric, a.reference_arm, a.param)
    print(f"| point | {a.param} | arm | mean | 95% CI | n | \u0394 vs {a.reference_arm} (95% CI) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if a.compare:
        with open(a.compare, encoding="utf-8") as f:
            published = [line.rstrip("\n") for line in f if line.startswith("| ") and
                         line[2:3].isdigit()]
        same = sum(1 for r, p in zip(rows, published) if r == p)
        print(f"\n{a.compare}: {same} of {len(published)} rows reproduced exactly"
              + ("" if len(rows) == len(published) else f" (we have {len(rows)} rows)"))
        return 0 if same == len(published) == len(rows) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
