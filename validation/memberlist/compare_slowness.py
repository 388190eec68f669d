#!/usr/bin/python3
"""CTest: fdsim's slow members against the real memberlist library, two regimes.

Runs slowness.py's quick plan (two members slowed, 30-s window, SWIM and Lifeguard) on the
real library: a long whole-process stall at n = 16 (SIGSTOP U(3, 9) s, running U(0.33, 1) s)
and a short processing lag at n = 8 (inbound delay in arrival order, draws U(1.5, 4.5) s); then
fdsim on the same configurations (stall / inbound_delay modes of network.starved, REPS runs
each). Fails
(exit 1) when, in a regime, fdsim's share of dead declarations made by the slowed member, or its
Lifeguard / SWIM ratio of dead declarations, falls outside the library runs' 95 % interval (the
share: the wider of the run bootstrap and the Wilson interval of the pooled counts; the ratio:
a Student-t interval of the log ratio over the runs (delta method, df = runs - 1): a bootstrap
over three runs understates the spread, and made the check fail on library noise alone), or when fdsim declares (almost) nobody where the library declares 5 or more
per run. Exit 77 (skipped) without `go` or the memberlist source.

  compare_slowness.py --fdsim build/fdsim --work DIR [--runs 3]
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "analysis"))

from fdsim_analysis import slowness_map as sm  # noqa: E402

REPS = 30
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306}


def log_ratio_t_interval(arm_runs, swim_runs):
    """mean(arm) / mean(swim) with a Student-t 95 % interval of its logarithm (delta method)."""
    import math
    import statistics
    if len(arm_runs) < 2 or len(swim_runs) < 2:
        return (None, None, None)
    my, mx = statistics.fmean(arm_runs), statistics.fmean(swim_runs)
    if my <= 0 or mx <= 0:
        return (None, None, None)
    se = math.sqrt(statistics.variance(arm_runs) / (len(arm_runs) * my * my) +
                   statistics.variance(swim_runs) / (len(swim_runs) * mx * mx))
    t = T_975.get(min(len(arm_runs), len(swim_runs)) - 1, 2.0)
    r = my / mx
    return (r, r * math.exp(-t * se), r * math.exp(t * se))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fdsim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reuse", action="store_true",
                    help="compare the library runs already in --work (no new library runs)")
    ap.add_argument("--variant", default="after", choices=["after", "before"],
                    help="fdsim's starved model: the stall / inbound-delay modes (after) or the "
                         "per-item Exp(60 ms) service of before them (to see the test fail)")
    a = ap.parse_args()
    rc = 0
    if not a.reuse:
        # A fresh library sample every time (slowness.py would reuse cached runs).
        shutil.rmtree(a.work, ignore_errors=True)
        os.makedirs(a.work)
        rc = subprocess.run([sys.executable, os.path.join(HERE, "slowness.py"), "--out", a.work,
                             "--plan", "quick", "--runs", str(a.runs), "--parallel", "4"]).returncode
    shutil.rmtree(os.path.join(a.work, "fdsim"), ignore_errors=True)
    if rc == 77:
        return 77
    if rc != 0:
        print("compare_slowness: slowness.py failed")
        return 1
    lib = sm.load_library(os.path.join(a.work, "raw"))
    fd = sm.run_fdsim_map(a.fdsim, lib, os.path.join(a.work, "fdsim"), REPS,
                          variants=(a.variant,), log=lambda s: None)
    fd = {"after": fd[a.variant]}
    rows = sm.summary_rows(lib, fd)
    ratios_lib = {}
    runs_by = {}
    for r in rows:
        runs_by.setdefault(sm.group_key(r["config"]), {})[r["config"]["arm"]] = \
            [x["declared"] for x in r["lib_values"]]
    for g, arms in runs_by.items():
        if "swim" in arms:
            ratios_lib[g] = {a: log_ratio_t_interval(v, arms["swim"])
                             for a, v in arms.items() if a != "swim"}
    ratios_fd = sm.lifeguard_ratios(rows, "after")
    failures = []
    for r in rows:
        c = r["config"]
        recs = r["lib_values"]
        share_lib = sm.share_interval_wide([x["declared_by_slow"] for x in recs],
                                           [x["declared"] for x in recs])
        share_fd = r["after_slow_share"]
        print(f"{r['id']}: library FP {sm._fmt(r['lib_declared'])} slow share "
              f"{sm._fmt_iv(*share_lib)}; fdsim FP {sm._fmt(r['after_declared'])} slow share "
              f"{sm._fmt_iv(*share_fd)}")
        lib_mean, fd_mean = r["lib_declared"]["mean"], r["after_declared"]["mean"] or 0.0
        if share_lib[0] is None:
            if fd_mean > 1:
                failures.append(f"{r['id']}: the library declared nobody, fdsim {fd_mean:.1f} per run")
            continue
        if lib_mean >= 5 and fd_mean < 1:
            failures.append(f"{r['id']}: the library declared {lib_mean:.1f} per run, fdsim {fd_mean:.1f}")
            continue
        if share_fd[0] is None or not (share_lib[1] <= share_fd[0] <= share_lib[2]):
            failures.append(f"{r['id']}: fdsim's slow-declarer share {sm._fmt_iv(*share_fd)} "
                            f"outside the library's {sm._fmt_iv(*share_lib)}")
    for g, arms in ratios_lib.items():
        for arm, iv in arms.items():
            fdv = ratios_fd.get(g, {}).get(arm, (None, None, None))
            print(f"{g[0]} L{g[3]:g}: {arm}/swim library {sm._fmt_iv(*iv)}, fdsim {sm._fmt_iv(*fdv)}")
            if iv[0] is None or iv[1] is None:
                continue
            if fdv[0] is None or not (iv[1] <= fdv[0] <= iv[2]):
                failures.append(f"{g[0]} L{g[3]:g}: fdsim's {arm}/swim ratio "
                                f"{sm._fmt_iv(*fdv)} outside the library's {sm._fmt_iv(*iv)}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
