#!/usr/bin/python3
"""Who declares whom dead under whole-process stalls, and when: the real memberlist library
beside fdsim, traced declaration by declaration.

Runs slowness.py's stall mechanism (members 1..K SIGSTOPped for U(0.5, 1.5) x L, continued for
U(0.5, 1.5) x R, 30-s window) on the real library, keeping every member's event lines and the
instants each slowed member was stopped and continued; then fdsim on the same configuration
(slowness_map.fdsim_scenario, variant "after", with --trace). For each dead declaration of a live
member it records the declarer's and victim's roles (slowed / healthy) and, when the declarer is
a slowed member, how long after its last resume it declared (a declaration within 50 ms of the
resume is one made by a timer that expired during the stall and ran before the packets waiting
in the socket, the model's "timers first" rule).

  slow_declarers.py --out DIR [--n 8] [--k 2] [--length 6] [--run 0.667] [--arm swim] [--runs 8]
                    [--fdsim build/fdsim --fdsim-reps 30]

Writes DIR/raw/<config>-run<r>.json (one library run: counts, signals, events, the machine's
1-min load) and DIR/table.md (fdsim's traces go to a temporary directory). Library runs already in DIR/raw are
reused; delete them to rerun. Exit 77 without go or the memberlist source.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "analysis"))

import slowness  # noqa: E402
from fdsim_analysis import slowness_map as sm  # noqa: E402

AT_RESUME_S = 0.05


def config(a, arm):
    return dict(n=a.n, k=a.k, window_s=30.0, settle_s=2.0, tcp=True, burners=0, mech="stall",
                length_s=a.length, run_s=a.run if a.run is not None else round(a.length / 9, 3),
                arm=arm)


def run_library(a, arm, raw):
    c = config(a, arm)
    cid = slowness.config_id(c)
    todo = [r for r in range(a.runs) if not os.path.exists(os.path.join(raw, f"{cid}-run{r}.json"))]
    if not todo:
        return 0
    work = tempfile.mkdtemp(prefix="slow-declarers-")
    exe = slowness.build(work)
    if exe is None:
        return 77
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                r = todo.pop(0)
            trace = {}
            counts = slowness.run_cluster(exe, c, 4242 + r, tempfile.mkdtemp(dir=work), trace)
            with open(os.path.join(raw, f"{cid}-run{r}.json"), "w") as f:
                json.dump({"config": c, "run": r, "counts": counts, "load1": os.getloadavg()[0],
                           "window": trace["window"], "signals": trace["signals"],
                           "events": trace["events"]}, f)
            print(f"slow_declarers: {cid} run {r}: {counts['dead']}", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(a.parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0


def library_declarations(raw, c):
    """[(run, declarer role + victim role, s after the declarer's last resume or None)]"""
    out, loads = [], []
    cid = slowness.config_id(c)
    for path in sorted(glob.glob(os.path.join(raw, f"{cid}-run*.json"))):
        r = json.load(open(path))
        loads.append(r["load1"])
        t0, t1 = r["window"]
        slow = set(range(1, c["k"] + 1))
        sig = {int(i): v for i, v in r["signals"].items()}
        for i, evs in r["events"].items():
            i = int(i)
            for t, kind, arg in evs:
                if kind != "dead" or arg < 0 or not (t0 <= t < t1):
                    continue
                role = ("s" if i in slow else "h") + ("s" if arg in slow else "h")
                after = None
                if i in slow:
                    # The coordinator's clock reading and the member's own line race by up to
                    # a few ms (runs before the reading was moved ahead of the signal have the
                    # reading after it): a resume up to AT_RESUME_S after the line counts.
                    resumes = [s for s, what in sig.get(i, []) if what == "off"
                               and s <= t + AT_RESUME_S]
                    after = max(0.0, t - max(resumes)) if resumes else None
                out.append((r["run"], role, after))
    return out, loads


def fdsim_declarations(fdsim, c, reps, work):
    out = []
    for rep in range(reps):
        doc = sm.fdsim_scenario(c, 9000 + rep, "after", [c["arm"]], name=f"{c['arm']}-r{rep}")
        d = os.path.join(work, doc["name"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "scenario.json"), "w") as f:
            json.dump(doc, f)
        subprocess.run([fdsim, "run", os.path.join(d, "scenario.json"), "--out", d, "--quiet",
                        "--trace"], check=True)
        slow = set(range(1, c["k"] + 1))
        t_lo = sm.WARMUP_S * 1e9
        trace = glob.glob(os.path.join(d, "*.trace.jsonl"))[0]
        recs = [json.loads(line) for line in open(trace)]
        # A stall's end and the timers it releases share one instant; the trace may list the
        # timer's record first, so resumes are collected before the declarations are read.
        resumes = {}
        for x in recs:
            if x["kind"] == "starve_end":
                resumes.setdefault(x["node"], []).append(x["t_ns"])
        for x in recs:
            if x["kind"] != "swim_suspicion_timeout" or x["t_ns"] < t_lo:
                continue
            a, b = x["node"], x["target"]
            role = ("s" if a in slow else "h") + ("s" if b in slow else "h")
            after = None
            if a in slow:
                prior = [t for t in resumes.get(a, []) if t <= x["t_ns"]]
                after = (x["t_ns"] - max(prior)) / 1e9 if prior else None
            out.append((rep, role, after))
    return out


def summary(decls, runs):
    slow_part = [sum(1 for r, role, _ in decls if r == i and role[0] == "s") for i in range(runs)]
    total = [sum(1 for r, _, _ in decls if r == i) for i in range(runs)]
    share = sm.share_interval_wide(slow_part, total)
    by_role = {k: sum(1 for _, role, _ in decls if role == k) / runs for k in ("hh", "hs", "sh", "ss")}
    slow_d = [after for _, role, after in decls if role[0] == "s"]
    at_resume = sum(1 for x in slow_d if x is not None and x <= AT_RESUME_S)
    return by_role, share, at_resume, len(slow_d)


def fmt_share(s):
    p, lo, hi = s
    return "-" if p is None else f"{p:.3f} [{lo:.3f}, {hi:.3f}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--length", type=float, default=6.0, help="stall length L (s)")
    ap.add_argument("--run", type=float, default=None, help="running time R (s; default L / 9)")
    ap.add_argument("--arm", action="append", default=None)
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--fdsim")
    ap.add_argument("--fdsim-reps", type=int, default=30)
    a = ap.parse_args()
    arms = a.arm or ["swim"]
    raw = os.path.join(a.out, "raw")
    os.makedirs(raw, exist_ok=True)
    for arm in arms:
        if run_library(a, arm, raw) == 77:
            print("slow_declarers: go or the memberlist source missing; skipped")
            return 77
    run_s = config(a, arms[0])["run_s"]
    L = [f"Dead declarations of live members under whole-process stalls (SIGSTOP U(0.5, 1.5) × "
         f"{a.length:g} s, running U(0.5, 1.5) × {run_s:g} s), n = {a.n}, K = {a.k} "
         "stalled, 30-s window; per run: by declarer and victim role (h healthy, s stalled); slow "
         "share = declarations by stalled members / all, with the wider of the run bootstrap and "
         "the pooled Wilson 95 % interval; at resume = declarations by a stalled member within "
         f"{AT_RESUME_S * 1000:.0f} ms after it was continued (a timer that expired during the "
         "stall). Library: `validation/memberlist/slow_declarers.py`; fdsim: the same "
         "configuration, stall mode, traced.", "",
         "| source | arm | runs | machine load (1 min) | hs / run | ss / run | sh / run "
         "| slow share | stalled declarers' declarations at resume |",
         "|---|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        c = config(a, arm)
        decls, loads = library_declarations(raw, c)
        runs = len(loads)
        if runs:
            by, share, at_r, ns = summary(decls, runs)
            L.append(f"| library | {arm} | {runs} | {min(loads):.1f}-{max(loads):.1f} | "
                     f"{by['hs']:.2f} | {by['ss']:.2f} | {by['sh']:.2f} | {fmt_share(share)} | "
                     f"{at_r} of {ns} |")
        if a.fdsim:
            work = tempfile.mkdtemp(prefix="slow-declarers-fdsim-")
            fd = fdsim_declarations(a.fdsim, c, a.fdsim_reps, work)
            by, share, at_r, ns = summary(fd, a.fdsim_reps)
            L.append(f"| fdsim | {arm} | {a.fdsim_reps} | - | {by['hs']:.2f} | {by['ss']:.2f} | "
                     f"{by['sh']:.2f} | {fmt_share(share)} | {at_r} of {ns} |")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
