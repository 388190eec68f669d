#!/usr/bin/env python3
"""Compare fdsim's JGroups model (models/jgroups/) with real JGroups 2.12.2 members.

Runs the library harness (run_library.py: real members on 127.0.0.1, faults by signals and
DISCARD) for a number of trials and fdsim on the equivalent scenario for many replications,
then compares the distributions of the detection times (two-sample KS test, medians with
bootstrap intervals) and the false-suspicion rates under loss.

  compare.py --fdsim build/fdsim --out results/validation/jgroups       full comparison
  compare.py --quick --fdsim build/fdsim --work DIR                     CTest version (~30 s)

The library's trials are cached in <out>/raw/<setting>.jsonl (delete a file to rerun it);
run_all_library.py fills them without fdsim. Exit 77 (skip) only when the JDK or Debian's
jgroups.jar is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run_library  # noqa: E402
import settings as settings_mod  # noqa: E402


def _memberlist_stats():
    # The KS test and the bootstrap median of the memberlist comparison, reused as they are.
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "memberlist_compare", os.path.join(REPO, "validation", "memberlist", "compare.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.ks_2samp, mod.median_ci


ks_2samp, median_ci = _memberlist_stats()

LATENCY_MS = 0.1  # loopback one-way delay in fdsim
# t = 0 is the view of N (the victim's join); the harness faults settle_s + U(0, phase_s) later.
# fdsim runs the replications in FAULT_BATCHES batches with the fault at the batch's midpoint.
FAULT_BATCHES = 10
METRICS = [("first_suspicion_s", "detection_first_suspicion_s", "first suspicion"),
           ("first_verified_s", "detection_first_verified_s", "verified suspicion"),
           ("first_removal_s", "detection_first_removal_s", "first view without it"),
           ("all_removed_s", "detection_removal_all_s", "view without it everywhere")]


def jgroups_section(s):
    p = s["params"]
    return {"FD": {"timeout_ms": p["fd_timeout"], "max_tries": p["fd_max_tries"]},
            "FD_ALL": {"interval_ms": p["fd_all_interval"], "timeout_ms": p["fd_all_timeout"]},
            "VERIFY_SUSPECT": {"timeout_ms": p["verify_timeout"]},
            "GMS": {"max_bundling_time_ms": p["max_bundling_time"],
                    "view_ack_collection_timeout_ms": p["view_ack_collection_timeout"]},
            "arms": [{"name": "arm", "detector": s["detector"].upper()}]}


def fdsim_scenario(s, reps, fault_at_s, seed):
    n = s["n"]
    sec = jgroups_section(s)
    # FD's watcher restarted its monitor when the victim joined (t = 0); FD_ALL's tasks run
    # since the first two-member view, at a phase unrelated to t = 0.
    sec["start_phases"] = "view" if s["detector"] == "fd" else "random"
    doc = {"name": "jgroups-" + s["name"], "seed": seed, "replications": reps,
           "nodes": {"count": n},
           "network": {"latency": {"model": "constant", "ms": LATENCY_MS}},
           "faults": [], "jgroups": sec}
    if s["fault"] == "loss":
        # The library's DISCARD drops received messages only inside the window (loss_after_s
        # after the last join, for duration_s): a loss burst over the same window, not a
        # network loss from t = 0 (which let runs of lost heartbeats start before the window).
        doc.update({"warmup_s": s["params"]["loss_after_s"],
                    "horizon_s": s["params"]["loss_after_s"] + s["params"]["duration_s"]})
        doc["faults"].append({"kind": "loss_burst", "at_s": s["params"]["loss_after_s"],
                              "duration_s": s["params"]["duration_s"], "loss": s["loss"]})
    else:
        doc.update({"warmup_s": fault_at_s - 0.01, "horizon_s": fault_at_s + s["params"]["wait_s"]})
        if s["fault"] == "kill":
            doc["faults"].append({"kind": "crash", "at_s": fault_at_s, "nodes": [n - 1]})
        else:
            doc["faults"].append({"kind": "pause", "at_s": fault_at_s,
                                  "duration_ms": 1000.0 * (s["params"]["wait_s"] + 5.0),
                                  "nodes": [n - 1]})
    return doc


def run_fdsim(fdsim, s, work, reps):
    rows = []
    batches = 1 if s["fault"] == "loss" else FAULT_BATCHES
    p = s["params"]
    for b in range(batches):
        d = os.path.join(work, "fdsim-%s-%d" % (s["name"], b))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        scen = os.path.join(d, "scenario.json")
        fault_at = p["settle_s"] + p["phase_s"] * (b + 0.5) / batches
        with open(scen, "w") as f:
            json.dump(fdsim_scenario(s, max(1, reps // batches), fault_at, seed=1 + b), f, indent=1)
        subprocess.run([fdsim, "run", scen, "--out", d, "--quiet"], check=True)
        for name in sorted(os.listdir(d)):
            if name.endswith(".json") and name != "scenario.json" and "-rep" in name:
                with open(os.path.join(d, name)) as f:
                    rows.append(json.load(f)["metrics"]["arm"])
    return rows


def sim_values(rows, key):
    return [float(r[key]["p50"]) for r in rows if r[key]["p50"] is not None]


def lib_values(trials, key):
    out = []
    for t in trials:
        if t.get("ok"):
            v = run_library.fault_metrics(t)[key]
            if v is not None:
                out.append(v)
    return out


def compare_fault(s, trials, rows):
    res = {"setting": s["name"], "detector": s["detector"], "n": s["n"], "fault": s["fault"],
           "library_trials": sum(1 for t in trials if t.get("ok")), "fdsim_replications": len(rows),
           "library_undetected": sum(1 for t in trials if t.get("ok") and
                                     run_library.fault_metrics(t)["all_removed_s"] is None),
           "fdsim_undetected": sum(r["faults_undetected_count"] for r in rows), "metrics": {}}
    for lib_key, sim_key, _ in METRICS:
        a, b = lib_values(trials, lib_key), sim_values(rows, sim_key)
        d, p = ks_2samp(a, b) if a and b else (float("nan"), float("nan"))
        res["metrics"][lib_key] = {"library": median_ci(a), "fdsim": median_ci(b), "ks_d": d,
                                   "ks_p": p, "library_samples": a, "fdsim_samples": b}
    return res


def compare_loss(s, trials, rows):
    n = s["n"]
    lm = [run_library.loss_metrics(t, n) for t in trials if t.get("ok")]
    hours_lib = sum(m["member_hours"] for m in lm)
    hours_sim = sum(r["members_count"] * r["measured_s"] / 3600.0 for r in rows)

    def both(lib_key, sim_key):
        cl = sum(m[lib_key] for m in lm)
        cs = sum(r[sim_key] for r in rows)
        return {"library": cl / hours_lib if hours_lib else None, "library_count": cl,
                "fdsim": cs / hours_sim if hours_sim else None, "fdsim_count": cs}

    # A false removal splits the group, and the member left alone then suspects everyone at
    # every check: counts after the first removal are a cascade. The share of trials with at
    # least one false suspicion, and the time to the first one, are not.
    lib_first = [first_false_suspicion_s(t) for t in trials if t.get("ok")]
    any_lib = sum(1 for v in lib_first if v is not None)
    any_sim = sum(1 for r in rows if r["false_detector_suspicions_count"] > 0)
    analytic = None
    if s["detector"] == "fd_all":
        link, window, links = fd_all_first_suspicion_probability(s)
        analytic = {"per_link": link, "window": window, "links": links}
    return {"setting": s["name"], "detector": s["detector"], "n": n, "loss": s["loss"],
            "trials_with_false_suspicion": {"library": any_lib, "library_of": len(lm),
                                            "fdsim": any_sim, "fdsim_of": len(rows),
                                            "library_wilson95": wilson(any_lib, len(lm)),
                                            "fdsim_wilson95": wilson(any_sim, len(rows)),
                                            "analytic": analytic},
            "library_first_false_suspicion_s": lib_first,
            "library_trials": len(lm), "fdsim_replications": len(rows),
            "detector_suspicions_per_member_hour": both("detector_suspicions",
                                                        "false_detector_suspicions_count"),
            "verified_suspicions_per_member_hour": both("verified_suspicions",
                                                        "false_verified_suspicions_count"),
            "members_removed_per_member_hour": both("members_removed", "false_removals_count")}


def p_run_of_losses(n, p, r):
    """Probability of at least one run of >= r consecutive losses among n independent
    messages each lost with probability p (exact, by the run-length Markov chain)."""
    st = [1.0] + [0.0] * r
    for _ in range(n):
        nx = [0.0] * (r + 1)
        for k in range(r):
            nx[0] += st[k] * (1 - p)
            nx[k + 1] += st[k] * p
        nx[r] += st[r]
        st = nx
    return st[r]


def fd_all_first_suspicion_probability(s):
    """FD_ALL's rule (FD_ALL.java:351-375, suspect() 297-325) under independent loss p of each
    received heartbeat, for one window: the TimeoutChecker suspects a member when now - last
    heartbeat > timeout, i.e. after k = ceil(timeout / interval) consecutive lost heartbeats
    (k = 4 at 500 / 2000 ms). Only the first member of (view - suspected) passes SUSPECT up:
    the coordinator, for any of its N - 1 senders, and m1 for the coordinator once m1 has
    suspected it (one more link); further members need two or more suspicions first
    (negligible). A window of duration_s holds duration_s / interval heartbeats per link, the
    last of which cannot be followed by its check inside it: n = duration_s / interval - 1.
    Returns (per-link probability, window probability, links)."""
    p = s["params"]
    k = -(-int(p["fd_all_timeout"]) // int(p["fd_all_interval"]))
    n = int(round(1000.0 * p["duration_s"] / p["fd_all_interval"])) - 1
    links = s["n"]  # N - 1 at the coordinator, + 1 at m1
    link = p_run_of_losses(n, s["loss"], k)
    return link, 1.0 - (1.0 - link) ** links, links


def wilson(k, n, z=1.96):
    if n == 0:
        return (float("nan"), float("nan"))
    ph = k / n
    d = 1 + z * z / n
    c = (ph + z * z / (2 * n)) / d
    h = z * ((ph * (1 - ph) / n + z * z / (4 * n * n)) ** 0.5) / d
    return (c - h, c + h)


def first_false_suspicion_s(t):
    ts = [e["t_ns"] for e in t["events"] if e.get("ev") == "suspect" and e.get("layer") == "detector"
          and t["loss_on_t_ns"] <= e["t_ns"] <= t["end_t_ns"]]
    return (min(ts) - t["loss_on_t_ns"]) * 1e-9 if ts else None


def fmt_ci(x):
    m, lo, hi = x
    if m != m:
        return "–"
    return f"{m:.3f} [{lo:.3f}, {hi:.3f}]"


def tables(fault_res, loss_res):
    lines = ["| setting | N | metric | library median [95% CI] (s) | fdsim median [95% CI] (s) | KS D | KS p |",
             "|---|---|---|---|---|---|---|"]
    for r in fault_res:
        for lib_key, _, label in METRICS:
            x = r["metrics"][lib_key]
            ks = "–" if x["ks_d"] != x["ks_d"] else f"{x['ks_d']:.2f} | {x['ks_p']:.3g}"
            if ks == "–":
                ks = "– | –"
            lines.append(f"| {r['setting']} ({r['library_trials']} / {r['fdsim_replications']}) | {r['n']} | "
                         f"{label} | {fmt_ci(x['library'])} | {fmt_ci(x['fdsim'])} | {ks} |")
    det = "\n".join(lines)
    lines = ["| setting | loss | library trials | fdsim reps | detector suspicions /member-h (lib / fdsim) | "
             "verified /member-h (lib / fdsim) | members removed /member-h (lib / fdsim) | "
             "trials with a false suspicion (lib / fdsim) | share [Wilson 95%] lib / fdsim / FD_ALL's rule |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in loss_res:
        cells = []
        for k in ("detector_suspicions_per_member_hour", "verified_suspicions_per_member_hour",
                  "members_removed_per_member_hour"):
            x = r[k]
            cells.append(f"{x['library']:.0f} ({x['library_count']}) / {x['fdsim']:.0f} ({x['fdsim_count']})")
        w = r["trials_with_false_suspicion"]
        cells.append(f"{w['library']}/{w['library_of']} / {w['fdsim']}/{w['fdsim_of']}")
        lw, fw = w["library_wilson95"], w["fdsim_wilson95"]
        rule = f"{w['analytic']['window']:.3f}" if w["analytic"] else "–"
        cells.append(f"{w['library'] / w['library_of']:.2f} [{lw[0]:.2f}, {lw[1]:.2f}] / "
                     f"{w['fdsim'] / w['fdsim_of']:.2f} [{fw[0]:.2f}, {fw[1]:.2f}] / {rule}")
        lines.append(f"| {r['setting']} | {r['loss']:.2f} | {r['library_trials']} | {r['fdsim_replications']} | "
                     + " | ".join(cells) + " |")
    return det, "\n".join(lines)


def plot(fault_res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [r for r in fault_res if r["metrics"]["all_removed_s"]["library_samples"]
             and not r["setting"].endswith("repeat")]
    dets = ["fd", "fd_all", "fd_sock"]
    fig, axes = plt.subplots(2, 3, figsize=(14, 8), squeeze=False)
    colours = {4: "tab:blue", 8: "tab:orange", 16: "tab:green"}
    for col, det in enumerate(dets):
        for row, (key, label) in enumerate((("first_suspicion_s", "first suspicion"),
                                            ("all_removed_s", "view without it everywhere"))):
            ax = axes[row][col]
            for r in shown:
                if r["detector"] != det:
                    continue
                ls_fault = {"kill": "", "hang": " hang"}[r["fault"]]
                for side, style in (("library_samples", "-"), ("fdsim_samples", "--")):
                    v = np.sort(r["metrics"][key][side])
                    if len(v) == 0:
                        continue
                    y = np.arange(1, len(v) + 1) / len(v)
                    lw = 1.6 if r["fault"] == "kill" else 0.9
                    ax.step(v, y, where="post", linestyle=style, color=colours[r["n"]], linewidth=lw,
                            alpha=0.9 if r["fault"] == "kill" else 0.6,
                            label=f"N={r['n']}{ls_fault} {'lib' if side.startswith('lib') else 'fdsim'}")
            ax.set_title(f"{det.upper()}: {label}")
            ax.set_xlabel("seconds after the fault")
            ax.set_ylabel("ECDF")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6, ncol=2)
    fig.suptitle("JGroups 2.12.2 on 127.0.0.1 (solid) vs fdsim's JGroups model (dashed); "
                 "thick: kill, thin: hang")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fdsim", default=os.path.join(REPO, "build", "fdsim"))
    ap.add_argument("--out", default=os.path.join(REPO, "results", "validation", "jgroups"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    if not run_library.have_jdk():
        print("compare: skipped: needs java and javac (default-jdk-headless) and "
              + run_library.JAR + " (libjgroups-java)")
        sys.exit(77)
    work = args.work or tempfile.mkdtemp(prefix="fdsim-jgroups-")
    os.makedirs(work, exist_ok=True)
    cp = run_library.build(os.path.join(work, "classes"))
    if args.quick:
        s = settings_mod.quick_settings()[0]
        raw = os.path.join(work, "quick.jsonl")
        if os.path.exists(raw):
            os.remove(raw)
        trials = run_library.run_setting(cp, s, s["trials"], raw)
        rows = run_fdsim(args.fdsim, s, work, 60)
        r = compare_fault(s, trials, rows)
        lib = r["metrics"]["all_removed_s"]["library"][0]
        sim = r["metrics"]["all_removed_s"]["fdsim"][0]
        sus_l = r["metrics"]["first_suspicion_s"]["library"][0]
        sus_s = r["metrics"]["first_suspicion_s"]["fdsim"][0]
        print(f"compare: quick: {r['library_trials']} library trials, {len(rows)} fdsim replications")
        print(f"compare: quick: first suspicion, median library {sus_l:.3f} s, fdsim {sus_s:.3f} s")
        print(f"compare: quick: view without it everywhere, median library {lib:.3f} s, fdsim {sim:.3f} s")
        bad = []
        if r["library_trials"] < 2:
            bad.append("fewer than 2 library trials ran")
        if r["library_undetected"] or r["fdsim_undetected"]:
            bad.append("a kill was never removed from every view")
        if not (lib == lib and sim == sim) or abs(lib - sim) > 0.15 * sim:
            bad.append("medians of the time to the view without the member differ by more than 15 %")
        if bad:
            print("compare: quick: FAILED: " + "; ".join(bad))
            sys.exit(1)
        print("compare: quick: ok")
        return
    raw_dir = os.path.join(args.out, "raw")
    os.makedirs(raw_dir, exist_ok=True)
    fault_res, loss_res = [], []
    for s in settings_mod.all_settings():
        trials = run_library.run_setting(cp, s, s["trials"], os.path.join(raw_dir, s["name"] + ".jsonl"))
        reps = 300 if s["fault"] == "loss" else args.reps  # loss: a share, so many replications
        if s["fault"] == "hang" and s["detector"] == "fd_sock":
            reps = 20
        rows = run_fdsim(args.fdsim, s, work, reps)
        if s["fault"] == "loss":
            loss_res.append(compare_loss(s, trials, rows))
        else:
            fault_res.append(compare_fault(s, trials, rows))
        print("compare: " + s["name"] + " done", flush=True)
    det, loss = tables(fault_res, loss_res)
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write("## Detection (times from the fault; setting (library trials / fdsim replications))\n\n"
                + det + "\n\n## False suspicions under loss\n\n" + loss + "\n")
    with open(os.path.join(args.out, "comparison.json"), "w") as f:
        json.dump({"faults": fault_res, "loss": loss_res, "latency_ms": LATENCY_MS}, f, indent=1)
    plot(fault_res, os.path.join(args.out, "detection_ecdf.png"))
    print(det)
    print(loss)


if __name__ == "__main__":
    main()
