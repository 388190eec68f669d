#!/usr/bin/env python3
"""Runs (or completes) every library setting of settings.py into results/validation/jgroups/raw/."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_library  # noqa: E402
import settings  # noqa: E402

raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "validation", "jgroups", "raw")
os.makedirs(raw, exist_ok=True)
cp = run_library.build(tempfile.mkdtemp(prefix="jgroups-classes-"))
for s in settings.all_settings():
    t = time.time()
    run_library.run_setting(cp, s, s["trials"], os.path.join(raw, s["name"] + ".jsonl"))
    print("%s: %.0f s, load %s" % (s["name"], time.time() - t, open("/proc/loadavg").read().split()[:3]),
          flush=True)
