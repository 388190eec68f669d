#!/usr/bin/env python3
"""Runs (or completes) the library trials of the shipped stacks (settings.shipped_settings())
into results/validation/jgroups/raw/<setting>.jsonl.

  run_shipped_library.py [--only NAME,NAME] [--raw DIR]
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_library  # noqa: E402
import settings  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--only", default="")
ap.add_argument("--raw", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                              "results", "validation", "jgroups", "raw"))
args = ap.parse_args()
os.makedirs(args.raw, exist_ok=True)
cp = run_library.build(tempfile.mkdtemp(prefix="jgroups-classes-"))
only = set(x for x in args.only.split(",") if x)
for s in settings.shipped_settings():
    if only and s["name"] not in only:
        continue
    t = time.time()
    run_library.run_setting(cp, s, s["trials"], os.path.join(args.raw, s["name"] + ".jsonl"))
    print("%s: %.0f s, load %s" % (s["name"], time.time() - t, open("/proc/loadavg").read().split()[:3]),
          flush=True)
