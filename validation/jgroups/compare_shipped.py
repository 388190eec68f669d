#!/usr/bin/env python3
"""fdsim's JGroups model against real JGroups 2.12.2 running the stacks its jar ships
(tcp.xml: FD_SOCK + FD + VERIFY_SUSPECT; udp.xml: FD_SOCK + FD_ALL + VERIFY_SUSPECT), on
127.0.0.1 (validation/jgroups/README.md).

  compare_shipped.py --fdsim build/fdsim --out results/validation/jgroups     full comparison
  compare_shipped.py --quick --fdsim build/fdsim --work DIR                   the ctest check

The fdsim side: one scenario per replication batch, the fault at settle_s + U(0, phase_s) after
the view of N (as the harness does it), 4 replications per batch, and a per-message delay
measured from the harness (loopback_delay_ms.txt, below). Each row of the table is a two-sample
Kolmogorov-Smirnov test (alpha 0.05) with its power stated as the smallest shift of the whole
distribution the test detects 80 % of the time at the library's sample size.

The per-message delay (`calibrate`): in the model, an FD_SOCK crash is suspected at the
coordinator two one-way delays after the kill (the watcher's EOF, then its SUSPECT message).
Half of the library's kill-to-suspicion times in the calibration trials
(raw/tcp-n4-kill-calibration.jsonl, not used by any row) is one sample of the delay a message
meets in the JVM on this machine: the kernel, the transport's bundling (tcp.xml's
max_bundle_timeout 30 ms), thread hand-offs. fdsim draws every one-way delay from those samples
(latency model "empirical").

The per-call time of VERIFY_SUSPECT.verifySuspect() (`measure_verify_send`, --measure-verify-send):
when one detector loop passes several suspects up (FD_ALL's check, FD's SUSPECT message), each
verifySuspect() sends its ARE_YOU_DEAD down the stack (an OOB message the calling thread writes
to the socket itself) before the loop passes the next one up. The harness's "detector" probe,
directly below VERIFY_SUSPECT, logs each suspect as the loop passes it up, so the interval
between two consecutive probe records of one loop at one member, different suspects, the first
a new entry of the suspects table (verifySuspect() sent for it), is one sample of that time.
The only shipped-stack trials with such loops are the partitions (raw/tcp-n4-partition.jsonl,
raw/udp-n4-partition.jsonl); their samples are verify_send_ms.txt, which fdsim draws from
(the jgroups key `are_you_dead_send_time`, latency model "empirical"). The rows' metric (the
split time) is not this interval; it depends on it mostly through its being > 0 (the timer
thread has then already slept for the first suspect): --send-time-file reruns the fdsim side
with another file (or "none") to show how much, e.g. one measured the same way from trials no
row uses: --measure-verify-send --verify-send-from fd_all-n8-loss20 --one-loop-s 0.25
--verify-send-out /tmp/gaps.txt --send-time-file /tmp/gaps.txt --only tcp-n4-partition,udp-n4-partition
(FD_ALL with a 500 ms interval under 20 % loss: its loops are 0.5 s apart).

Exit 77 (skip) only when the JDK or Debian's jgroups.jar is missing.
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run_library  # noqa: E402
import settings as settings_mod  # noqa: E402
from compare import ks_2samp, median_ci  # noqa: E402

DELAY_FILE = os.path.join(HERE, "loopback_delay_ms.txt")
VERIFY_SEND_FILE = os.path.join(HERE, "verify_send_ms.txt")
VERIFY_SEND_SOURCES = ["tcp-n4-partition", "udp-n4-partition"]
# Two probe records of one loop: loops of one member are at least a check interval apart (FD's
# timeout and FD_ALL's interval, 3000 ms in both shipped stacks; the largest observed gap within
# a loop is 135 ms).
ONE_LOOP_S = 0.5
# One replication per fault time: replications that share a fault time share FD's phase, so
# they would not be independent samples.
BATCHES, REPS_PER_BATCH = 200, 1
ALPHA = 0.05
FAULT_METRICS = [("first_suspicion_s", "detection_first_suspicion_s", "first suspicion"),
                 ("first_verified_s", "detection_first_verified_s", "verified suspicion"),
                 ("all_removed_s", "detection_removal_all_s", "view without it everywhere")]


def calibrate(trials):
    """One-way delay samples (ms) from the calibration trials (see the module comment)."""
    out = []
    for t in trials:
        if t.get("ok"):
            v = run_library.fault_metrics(t)["first_suspicion_s"]
            if v is not None:
                out.append(500.0 * v)
    return out


def write_delay_file(samples, source):
    with open(DELAY_FILE, "w") as f:
        f.write("# One-way per-message delay on this machine's loopback JGroups stack, ms: half of each\n"
                "# kill-to-first-suspicion time of real JGroups 2.12.2 (tcp.xml, FD_SOCK) in %s\n"
                "# (validation/jgroups/compare_shipped.py, calibrate()).\n" % source)
        for v in sorted(samples):
            f.write("%.3f\n" % v)


def measure_verify_send(trials, one_loop_s=ONE_LOOP_S):
    """verifySuspect()'s per-call time samples (ms) from the library's probe records (see the
    module comment). The suspects table of each member is followed from the records: a suspect
    enters at its first "detector" record while it is not in the table and leaves at its
    "verified" record (an I_AM_NOT_DEAD would remove it silently, but across a partition none
    arrives, so the table is exact here)."""
    out = []
    for t in trials:
        if not t.get("ok"):
            continue
        table, last = set(), {}
        for e in sorted((e for e in t["events"] if e.get("ev") == "suspect"), key=lambda e: e["t_ns"]):
            node, target = e["node"], e["of"]
            if e["layer"] == "verified":
                table.discard((node, target))
                continue
            new = (node, target) not in table
            table.add((node, target))
            prev = last.get(node)
            if prev and prev[2] and prev[1] != target and e["t_ns"] - prev[0] < one_loop_s * 1e9:
                out.append((e["t_ns"] - prev[0]) * 1e-6)
            last[node] = (e["t_ns"], target, new)
    return out


def write_verify_send_file(samples, sources, path=VERIFY_SEND_FILE):
    with open(path, "w") as f:
        f.write("# Per-call time of JGroups 2.12.2's VERIFY_SUSPECT.verifySuspect() on this machine, ms: the\n"
                "# interval between two suspects one detector loop passed up at one member (the first a new\n"
                "# entry, so ARE_YOU_DEAD was sent for it), from the harness's probe records in\n"
                "# %s\n"
                "# (validation/jgroups/compare_shipped.py, measure_verify_send()).\n" % ", ".join(sources))
        for v in sorted(samples):
            f.write("%.3f\n" % v)


def jgroups_section(stack, p, send_file=None):
    sec = {"VERIFY_SUSPECT": {"timeout_ms": p["verify_timeout"]},
           "GMS": {"max_bundling_time_ms": p["max_bundling_time"],
                   "view_ack_collection_timeout_ms": p["view_ack_collection_timeout"]}}
    sec["MERGE2"] = {"min_interval_ms": p["merge_min_interval"], "max_interval_ms": p["merge_max_interval"]}
    # The harness runs tcp.xml's TCPPING (timeout 3000 ms, num_initial_members 3) under both.
    sec["TCPPING"] = {"timeout_ms": 3000, "num_initial_members": 3}
    if stack == "tcp":
        sec["FD"] = {"timeout_ms": p["fd_timeout"], "max_tries": p["fd_max_tries"]}
        sec["arms"] = [{"name": "arm", "detectors": ["FD_SOCK", "FD"], "merge2": True}]
        sec["start_phases"] = "view"  # FD's watcher restarted its monitor at the victim's join
    else:
        sec["FD_ALL"] = {"interval_ms": p["fd_all_interval"], "timeout_ms": p["fd_all_timeout"]}
        sec["arms"] = [{"name": "arm", "detectors": ["FD_SOCK", "FD_ALL"], "merge2": True}]
        sec["start_phases"] = "random"  # FD_ALL's tasks run since the first two-member view
    if send_file:
        sec["are_you_dead_send_time"] = {"model": "empirical", "file": send_file}
    return sec


def scenario(s, fault_at_s, seed, reps, delay_file, send_file=None):
    n, p = s["n"], s["params"]
    doc = {"name": "jgroups-" + s["name"], "seed": seed, "replications": reps, "nodes": {"count": n},
           "network": {"latency": {"model": "empirical", "file": delay_file}},
           "faults": [], "jgroups": jgroups_section(s["stack"], p, send_file)}
    if s["fault"] == "partition":
        half = list(range(n // 2))
        heal = fault_at_s + p["heal_s"]
        doc.update({"warmup_s": fault_at_s - 0.01, "horizon_s": heal + p["merge_wait_s"]})
        doc["faults"].append({"kind": "partition", "at_s": fault_at_s, "heal_at_s": heal, "a": half})
        return doc
    doc.update({"warmup_s": fault_at_s - 0.01, "horizon_s": fault_at_s + p["wait_s"] + 5.0})
    if s["fault"] == "kill":
        doc["faults"].append({"kind": "crash", "at_s": fault_at_s, "nodes": [n - 1]})
    else:
        doc["faults"].append({"kind": "pause", "at_s": fault_at_s,
                              "duration_ms": 1000.0 * (p["wait_s"] + 10.0), "nodes": [n - 1]})
    return doc


def partition_times(trace_path, fault_at_s, heal_at_s, n):
    """From a trace: seconds from the partition until every member installed a view of its own
    side only (split), and from the heal until every member installed a view of all n (merge)."""
    a = set(range(n // 2))
    b = set(range(n)) - a
    split, merged = {}, {}
    with open(trace_path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") != "jgroups_install_view":
                continue
            t = r["t_ns"] * 1e-9
            side = a if r["node"] in a else b
            if t < heal_at_s and set(r["members"]) == side:
                split.setdefault(r["node"], t)
            if t >= heal_at_s and len(r["members"]) == n:
                merged.setdefault(r["node"], t)
    return (max(split.values()) - fault_at_s if len(split) == n else None,
            max(merged.values()) - heal_at_s if len(merged) == n else None)


# The split's steps on the side without the coordinator (nodes n/2 .. n-1, m2 and m3 at N = 4),
# which sets the split time: when it first suspects a member of the other side, how long after
# that it suspects the last of them (FD: its monitor moves on to the next member and needs
# max_tries more periods; FD_ALL: usually the same check), and the rest of the split after that
# (VERIFY_SUSPECT's confirmations, GMS's views, more detector rounds). Keys of the samples.
STEPS = [("first_s", "side without the coordinator: first suspicion of the other side"),
         ("lag_s", "then the last member of the other side suspected"),
         ("rest_s", "then every member in a view of its side")]


def steps_from(suspicions, split_s, n):
    """suspicions: (t_s from the partition, observer index, target index) of the detector
    suspicions; returns {key: value or None}."""
    a, b = set(range(n // 2)), set(range(n // 2, n))
    first = {}
    for t, obs, target in sorted(suspicions):
        if t >= 0 and obs in b and target in a:
            first.setdefault(target, t)
    if len(first) < len(a):
        return {k: None for k, _ in STEPS}
    lo, hi = min(first.values()), max(first.values())
    return {"first_s": lo, "lag_s": hi - lo, "rest_s": None if split_s is None else split_s - hi}


def lib_steps(t):
    p = t["partition_t_ns"]
    sus = [((e["t_ns"] - p) * 1e-9, int(e["node"][1:]), int(e["of"][1:])) for e in t["events"]
           if e.get("ev") == "suspect" and e["layer"] == "detector"]
    n = len(t["a"]) + len(t["b"])
    return steps_from(sus, run_library.partition_metrics(t)["split_s"], n)


def sim_steps(trace_path, fault_at_s, split_s, n):
    sus = []
    with open(trace_path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "jgroups_detector_suspect":
                sus.append((r["t_ns"] * 1e-9 - fault_at_s, r["node"], r["target"]))
    return steps_from(sus, split_s, n)


def run_fdsim(fdsim, s, work, batches=BATCHES, reps=REPS_PER_BATCH, send_source=VERIFY_SEND_FILE):
    """Returns {metric: [values]} over batches x reps replications. send_source: the samples
    of are_you_dead_send_time (None: the key is left out)."""
    p = s["params"]
    rnd = random.Random(zlib.crc32(s["name"].encode()))  # str hash() is salted per process
    out = {k: [] for _, k, _ in FAULT_METRICS}
    out["split_s"], out["merge_s"], out["undetected"] = [], [], 0
    for k, _ in STEPS:
        out[k] = []
    for b in range(batches):
        d = os.path.join(work, "fdsim-%s-%d" % (s["name"], b))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        shutil.copy(DELAY_FILE, os.path.join(d, "delay_ms.txt"))
        if send_source:
            shutil.copy(send_source, os.path.join(d, "verify_send_ms.txt"))
        at = p["settle_s"] + rnd.uniform(0.0, p["phase_s"])
        scen = os.path.join(d, "scenario.json")
        with open(scen, "w") as f:
            json.dump(scenario(s, at, 1 + b, reps, "delay_ms.txt",
                               "verify_send_ms.txt" if send_source else None), f, indent=1)
        cmd = [fdsim, "run", scen, "--out", d, "--quiet"]
        if s["fault"] == "partition":
            cmd.append("--trace")
        subprocess.run(cmd, check=True)
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if s["fault"] == "partition" and name.endswith(".trace.jsonl"):
                sp, mg = partition_times(path, at, at + p["heal_s"], s["n"])
                if sp is not None:
                    out["split_s"].append(sp)
                if mg is not None:
                    out["merge_s"].append(mg)
                for k, v in sim_steps(path, at, sp, s["n"]).items():
                    if v is not None:
                        out[k].append(v)
            elif s["fault"] != "partition" and name.endswith(".json") and "-rep" in name:
                with open(path) as f:
                    m = json.load(f)["metrics"]["arm"]
                out["undetected"] += m["faults_undetected_count"]
                for _, k, _ in FAULT_METRICS:
                    if m[k]["p50"] is not None:
                        out[k].append(float(m[k]["p50"]))
    return out


def lib_values(s, trials):
    out = {k: [] for k, _, _ in FAULT_METRICS}
    out.update({"split_s": [], "merge_s": []})
    out.update({k: [] for k, _ in STEPS})
    for t in trials:
        if not t.get("ok"):
            continue
        m = run_library.partition_metrics(t) if s["fault"] == "partition" else run_library.fault_metrics(t)
        if s["fault"] == "partition":
            m.update(lib_steps(t))
        for k, v in m.items():
            if k in out and v is not None:
                out[k].append(v)
    return out


def detectable_shift(sim, n, alpha=ALPHA, power=0.8, draws=300, seed=7):
    """The smallest shift d (s, on a grid) such that a library sample of size n drawn from the
    fdsim distribution moved by d is rejected by the KS test against the fdsim sample in at
    least `power` of `draws` draws."""
    sim = np.asarray(sim, float)
    if n < 2 or len(sim) < 2:
        return float("nan")
    rng = np.random.default_rng(seed)
    scale = max(float(np.std(sim)), 1e-3)
    for d in np.concatenate([np.linspace(0.0, 3 * scale, 31)[1:], np.linspace(3 * scale, 20 * scale, 35)[1:]]):
        rej = 0
        for _ in range(draws):
            x = rng.choice(sim, n, replace=True) + d
            rej += ks_2samp(x, sim)[1] < alpha
        if rej >= power * draws:
            return float(d)
    return float("inf")


def shift_compatible(lib, sim, max_shift_s, alpha=ALPHA):
    """The largest KS p-value of (library, fdsim + d) over shifts d in [-max_shift_s, max_shift_s]
    (a grid of 81): the samples are compatible with the model up to a shift of at most
    max_shift_s when it is >= alpha (a test inverted into a confidence set for the shift)."""
    best, best_d = 0.0, 0.0
    sim = np.asarray(sim, float)
    for d in np.linspace(-max_shift_s, max_shift_s, 81):
        p = ks_2samp(lib, sim + d)[1]
        if p > best:
            best, best_d = p, float(d)
    return best, best_d


# Rows whose test rejects for a reason results/validation/jgroups/README.md explains (its
# "Differences" list, by letter); a rejecting row not listed here is reported as unexplained.
EXPLAINED = {
    ("tcp-n4-kill", "first suspicion"): "a", ("udp-n4-kill", "first suspicion"): "a",
    ("tcp-n4-kill", "view without it everywhere"): "b", ("udp-n4-kill", "view without it everywhere"): "b",
    ("tcp-n4-partition", "split: every member in a view of its side"): "c",
}


def compare_row(s, label, lib, sim):
    d, p = ks_2samp(lib, sim) if lib and sim else (float("nan"), float("nan"))
    ok = bool(p == p and p >= ALPHA)
    why = EXPLAINED.get((s["name"], label))
    verdict = "pass" if ok else ("differs: explained (%s)" % why if why else "**differs: unexplained**")
    return {"setting": s["name"], "metric": label, "library_n": len(lib), "fdsim_n": len(sim),
            "library": median_ci(lib), "fdsim": median_ci(sim), "ks_d": d, "ks_p": p,
            "pass": ok, "verdict": verdict, "shift80_s": detectable_shift(sim, len(lib)),
            "library_samples": lib, "fdsim_samples": sim}


def fmt_ci(x):
    m, lo, hi = x
    return "–" if m != m else f"{m:.3f} [{lo:.3f}, {hi:.3f}]"


def table(rows):
    lines = ["| setting | metric | library median [95% CI] (s) | fdsim median [95% CI] (s) | n lib / fdsim | "
             "KS D | KS p | shift detected with 80 % power (s) | result |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ks = "– | –" if r["ks_d"] != r["ks_d"] else f"{r['ks_d']:.2f} | {r['ks_p']:.3g}"
        res = r["verdict"]
        sh = "–" if r["shift80_s"] != r["shift80_s"] else f"{r['shift80_s']:.3f}"
        lines.append(f"| {r['setting']} | {r['metric']} | {fmt_ci(r['library'])} | {fmt_ci(r['fdsim'])} | "
                     f"{r['library_n']} / {r['fdsim_n']} | {ks} | {sh} | {res} |")
    return "\n".join(lines)


def send_time_source(args):
    return None if args.send_time_file == "none" else os.path.abspath(args.send_time_file)


def steps_table(rows):
    """The partition steps (STEPS): no verdict, they explain the split rows."""
    lines = ["| setting | step | library samples (s) | fdsim median [95% CI] (s) | fdsim 10 / 90 % (s) | "
             "n lib / fdsim | KS D | KS p |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sim = np.asarray(r["fdsim_samples"], float)
        q = "–" if len(sim) == 0 else f"{np.quantile(sim, 0.1):.3f} / {np.quantile(sim, 0.9):.3f}"
        ks = "– | –" if r["ks_d"] != r["ks_d"] else f"{r['ks_d']:.2f} | {r['ks_p']:.3g}"
        lib = " ".join(f"{v:.2f}" for v in sorted(r["library_samples"]))
        lines.append(f"| {r['setting']} | {r['metric']} | {lib} | {fmt_ci(r['fdsim'])} | {q} | "
                     f"{r['library_n']} / {r['fdsim_n']} | {ks} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fdsim", default=os.path.join(REPO, "build", "fdsim"))
    ap.add_argument("--out", default=os.path.join(REPO, "results", "validation", "jgroups"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--calibrate", action="store_true", help="rewrite loopback_delay_ms.txt first")
    ap.add_argument("--measure-verify-send", action="store_true",
                    help="rewrite verify_send_ms.txt from the partition trials first")
    ap.add_argument("--verify-send-from", default=",".join(VERIFY_SEND_SOURCES),
                    help="with --measure-verify-send: the raw settings to measure (comma-separated)")
    ap.add_argument("--one-loop-s", type=float, default=ONE_LOOP_S,
                    help="with --measure-verify-send: two probe records closer than this are one loop "
                         "(below the detectors' check interval)")
    ap.add_argument("--verify-send-out", default=VERIFY_SEND_FILE,
                    help="with --measure-verify-send: the file to write")
    ap.add_argument("--send-time-file", default=VERIFY_SEND_FILE,
                    help="samples (ms) of are_you_dead_send_time, or 'none' (a sensitivity check)")
    ap.add_argument("--only", default=None,
                    help="comma-separated settings (a partial run: prints the rows, writes no table)")
    args = ap.parse_args()
    send_source = send_time_source(args)
    if not run_library.have_jdk():
        print("compare_shipped: skipped: needs java and javac (default-jdk-headless) and "
              + run_library.JAR + " (libjgroups-java)")
        sys.exit(77)
    work = args.work or tempfile.mkdtemp(prefix="fdsim-jgroups-shipped-")
    os.makedirs(work, exist_ok=True)
    cp = run_library.build(os.path.join(work, "classes"))
    raw_dir = os.path.join(args.out, "raw")
    sets = {s["name"]: s for s in settings_mod.shipped_settings()}
    if args.calibrate:
        s = sets["tcp-n4-kill-calibration"]
        with open(os.path.join(raw_dir, s["name"] + ".jsonl")) as f:
            trials = [json.loads(l) for l in f if l.strip()]
        write_delay_file(calibrate(trials), "results/validation/jgroups/raw/tcp-n4-kill-calibration.jsonl")
    if args.measure_verify_send:
        samples, names = [], args.verify_send_from.split(",")
        for name in names:
            with open(os.path.join(raw_dir, name + ".jsonl")) as f:
                samples += measure_verify_send([json.loads(l) for l in f if l.strip()], args.one_loop_s)
        write_verify_send_file(samples, ["results/validation/jgroups/raw/%s.jsonl" % n for n in names],
                               args.verify_send_out)
    if args.quick:
        quick(args, cp, work, sets["tcp-n4-kill"])
        return
    rows, step_rows = [], []
    for name, s in sets.items():
        if name.endswith("calibration") or (args.only and name not in args.only.split(",")):
            continue
        with open(os.path.join(raw_dir, name + ".jsonl")) as f:
            trials = [json.loads(l) for l in f if l.strip()]
        lib = lib_values(s, trials)
        sim = run_fdsim(args.fdsim, s, work, send_source=send_source)
        if s["fault"] == "partition":
            rows.append(compare_row(s, "split: every member in a view of its side", lib["split_s"], sim["split_s"]))
            rows.append(compare_row(s, "merge: every member in one view after the heal (MERGE2)",
                                    lib["merge_s"], sim["merge_s"]))
            for k, label in STEPS:
                d, pv = ks_2samp(lib[k], sim[k]) if lib[k] and sim[k] else (float("nan"), float("nan"))
                step_rows.append({"setting": name, "metric": label, "library_n": len(lib[k]),
                                  "fdsim_n": len(sim[k]), "fdsim": median_ci(sim[k]), "ks_d": d, "ks_p": pv,
                                  "library_samples": lib[k], "fdsim_samples": sim[k]})
        elif s["fault"] == "hang" or s["fault"] == "kill":
            for lk, sk, label in FAULT_METRICS:
                rows.append(compare_row(s, label, lib[lk], sim[sk]))
        print("compare_shipped: " + name + " done", flush=True)
    t = table(rows)
    st = steps_table(step_rows)
    if args.only:
        print(t)
        print(st)
        return
    with open(os.path.join(args.out, "shipped_comparison.json"), "w") as f:
        json.dump({"rows": rows, "partition_steps": step_rows, "alpha": ALPHA, "batches": BATCHES,
                   "reps_per_batch": REPS_PER_BATCH}, f, indent=1)
    with open(os.path.join(args.out, "shipped_tables.md"), "w") as f:
        f.write(t + "\n\nThe partition's split, step by step (the side without the coordinator; no "
                "verdict: these explain the split rows):\n\n" + st + "\n")
    print(t)
    print(st)


# The quick check: MAX_SHIFT_S is the stated tolerance. It fails when no shift of the fdsim
# distribution within +-MAX_SHIFT_S makes the library's sample compatible with it (KS p >=
# alpha at every such shift fails), i.e. when the distributions differ by more than that.
# Its metric is the verified suspicion (FD_SOCK's suspicion confirmed by VERIFY_SUSPECT), a
# row the full comparison passes. The view-everywhere row differs in shape for a known,
# unmodelled reason (GMS's view cast goes through the transport's bundling in two modes, with
# and without a 50 ms wait: results/validation/jgroups/README.md, (b)); with 8 trials, which
# mode they fall in decided the verdict (3 of 4 runs failed on an idle machine, 7 December).
QUICK_TRIALS = 8
MAX_SHIFT_S = 0.100
QUICK_METRIC = ("first_verified_s", "detection_first_verified_s", "verified suspicion")


def quick(args, cp, work, s):
    raw = os.path.join(work, "quick.jsonl")
    if os.path.exists(raw):
        os.remove(raw)
    trials = run_library.run_setting(cp, s, QUICK_TRIALS, raw)
    lib_key, sim_key, label = QUICK_METRIC
    lib = lib_values(s, trials)[lib_key]
    sim = run_fdsim(args.fdsim, s, work, batches=100, reps=1, send_source=send_time_source(args))[sim_key]
    print(f"compare_shipped: quick: {len(lib)} library trials of {s['name']}, {len(sim)} fdsim replications")
    print(f"compare_shipped: quick: {label} after the kill, median library "
          f"{np.median(lib) if lib else float('nan'):.3f} s, fdsim {np.median(sim):.3f} s")
    print("compare_shipped: quick: library (s): " + " ".join(f"{v:.3f}" for v in sorted(lib)))
    print("compare_shipped: quick: fdsim quantiles 0/10/25/50/75/90/100 % (s): " +
          " ".join(f"{v:.3f}" for v in np.quantile(sim, [0, .1, .25, .5, .75, .9, 1])))
    if len(lib) < QUICK_TRIALS // 2:
        print("compare_shipped: quick: FAILED: fewer than %d library trials ran" % (QUICK_TRIALS // 2))
        sys.exit(1)
    p0 = ks_2samp(lib, sim)[1]
    best, at = shift_compatible(lib, sim, MAX_SHIFT_S)
    print(f"compare_shipped: quick: KS p (no shift) {p0:.3g}; largest KS p over shifts within "
          f"+-{MAX_SHIFT_S * 1000:.0f} ms {best:.3g} (at {at * 1000:+.0f} ms); shift detected with 80 % "
          f"power {detectable_shift(sim, len(lib)) * 1000:.0f} ms")
    if best < ALPHA:
        print("compare_shipped: quick: FAILED: the library's distribution differs from fdsim's by more "
              f"than a {MAX_SHIFT_S * 1000:.0f} ms shift (KS, alpha {ALPHA})")
        sys.exit(1)
    print("compare_shipped: quick: ok")


if __name__ == "__main__":
    main()
