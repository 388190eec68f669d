#!/usr/bin/python3
"""CTest: fdsim's slow members against the real memberlist library, two regimes.

Runs slowness.py's quick plan (n = 8 members, one slowed, 20-s window, SWIM and Lifeguard) on
the real library: a long whole-process stall (SIGSTOP) and an inbound delay; then fdsim on the
same configurations (stall / inbound_delay modes of network.starved, REPS runs each). Fails
(exit 1) when, in a regime, fdsim's share of dead declarations made by the slowed member, or its
Lifeguard / SWIM ratio of dead declarations, falls outside the library runs' 95 % bootstrap
interval. Exit 77 (skipped) without `go` or the memberlist source.

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fdsim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    # A fresh library sample every time (slowness.py would reuse cached runs).
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    rc = subprocess.run([sys.executable, os.path.join(HERE, "slowness.py"), "--out", a.work,
                         "--plan", "quick", "--runs", str(a.runs), "--parallel", "4"]).returncode
    if rc == 77:
        return 77
    if rc != 0:
        print("compare_slowness: slowness.py failed")
        return 1
    lib = sm.load_library(os.path.join(a.work, "raw"))
    fd = sm.run_fdsim_map(a.fdsim, lib, os.path.join(a.work, "fdsim"), REPS, variants=("after",),
                          log=lambda s: None)
    rows = sm.summary_rows(lib, fd)
    ratios_lib = sm.lifeguard_ratios(rows, "lib")
    ratios_fd = sm.lifeguard_ratios(rows, "after")
    failures = []
    for r in rows:
        c = r["config"]
        share_lib, share_fd = r["lib_slow_share"], r["after_slow_share"]
        print(f"{r['id']}: library FP {sm._fmt(r['lib_declared'])} slow share "
              f"{sm._fmt_iv(*share_lib)}; fdsim FP {sm._fmt(r['after_declared'])} slow share "
              f"{sm._fmt_iv(*share_fd)}")
        if share_lib[0] is None:
            if r["after_declared"]["mean"] and r["after_declared"]["mean"] > 1:
                failures.append(f"{r['id']}: the library declared nobody, fdsim "
                                f"{r['after_declared']['mean']:.1f} per run")
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
