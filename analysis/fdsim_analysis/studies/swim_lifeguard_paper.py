"""The Lifeguard paper's main experiment in fdsim: K starved members among 100.

n = 100 memberlist members (LAN defaults), K of them starved (members 0 .. K-1, a process per
member: normal for Exp(10 s), then starved for Exp(3 s); while starved every work item costs an
exponential service time of mean 60 ms, on memberlist's receive path and handoff lists,
models/swim/handoff_queue.h). Arms: SWIM (no Lifeguard part), each component alone (LHA-Probe =
awareness + nacks, LHA-Suspicion = dynamic suspicion, Buddy System) and all of Lifeguard.
alpha = swim.suspicion_mult; Lifeguard's confirmations keep memberlist's rule (alpha - 2).
Two healthy members (98, 99) crash at 60 s and 120 s for the detection latency. 200 s, warmup
20 s, constant 0.5 ms links, no loss; `--reps` replications per point (common random numbers
across arms).

Writes table.csv, table.md and fp.png into --out (results/swim/lifeguard-paper). Deterministic
(seed 27).
`--timers on_time` runs the variant in which a starved member's timers run when due and only
its message handling is slow (network.starved[].timers, docs/models/network-stressors.md) and
writes the same files into --out's timers-on-time/.

Intervals: each per-run mean carries its Student-t 95% half-width over the replications
(analysis/fdsim_analysis/stats.summarize; with 3 replications t = 4.30, so they are wide), and
a second table gives Lifeguard minus SWIM in false-positive events, paired per replication
(the arms of a replication share its random numbers), with its t interval.
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from ..stats import paired_differences, summarize
from .layout import REPO_ROOT

KS = [1, 4, 10]
ALPHAS = [2, 4, 6]
ARMS = [
    {"name": "swim", "lifeguard": False},
    {"name": "lha-probe", "lifeguard": False, "awareness": True, "nack": True},
    {"name": "lha-suspicion", "lifeguard": False, "dynamic_suspicion": True},
    {"name": "buddy", "lifeguard": False, "buddy": True},
    {"name": "lifeguard"},
]


def scenario(k, alpha, reps, timers="wait"):
    starved = {"nodes": list(range(k)), "mean_normal_s": 10, "mean_starved_s": 3,
               "service": {"model": "exponential", "min_ms": 0, "mean_ms": 60}}
    if timers != "wait":
        starved["timers"] = timers
    return {
        "name": f"lifeguard-paper-K{k}-a{alpha}" + ("" if timers == "wait" else f"-{timers}"),
        "seed": 27, "replications": reps,
        "horizon_s": 200, "warmup_s": 20, "nodes": {"count": 100},
        "network": {
            "latency": {"model": "constant", "ms": 0.5},
            "starved": [starved],
        },
        "faults": [{"kind": "crash", "at_s": 60, "nodes": [98]},
                   {"kind": "crash", "at_s": 120, "nodes": [99]}],
        "swim": {"suspicion_mult": alpha, "arms": ARMS},
    }


def run(fdsim, work, doc):
    d = os.path.join(work, doc["name"])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, "scenario.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([fdsim, "run", path, "--out", d, "--quiet"], check=True)
    per_arm = {}
    for p in sorted(glob.glob(os.path.join(d, "*-rep*.json"))):
        for arm, m in json.load(open(p))["metrics"].items():
            per_arm.setdefault(arm, []).append(m)
    return per_arm


def _hw(values):
    """Student-t 95% half-width of the mean of the per-run values (None for one run)."""
    return summarize(values).ci95_half_width


def summarise(k, alpha, arm, runs):
    st = [m["starved"] for m in runs]
    det = [m["detection_first_removal_s"]["mean"] for m in runs
           if m["detection_first_removal_s"]["mean"] is not None]
    row = {
        "K": k, "alpha": alpha, "arm": arm, "runs": len(runs),
        "fp_events_per_run": float(np.mean([s["false_removal_events_count"] for s in st])),
        "fp_minus_per_run": float(np.mean([s["false_removal_events_by_healthy_count"] for s in st])),
        "fp_by_starved_per_run": float(np.mean([s["false_removal_events_by_starved_count"] for s in st])),
        "fp_episodes_per_run": float(np.mean([m["false_removals_count"] for m in runs])),
        "detection_first_removal_s": float(np.mean(det)) if det else float("nan"),
        "undetected_crashes": int(sum(m["crashes_undetected_count"] for m in runs)),
        "handoff_dropped_per_run": float(np.mean([s["handoff_dropped_count"] for s in st])),
        "messages_per_member_per_s": float(np.mean([m["messages_per_member_per_s"]["total"] for m in runs])),
    }
    # Appended after the point values: their 95% half-widths over the replications.
    row["fp_events_per_run_ci95_half_width"] = _hw([s["false_removal_events_count"] for s in st])
    row["fp_minus_per_run_ci95_half_width"] = _hw([s["false_removal_events_by_healthy_count"] for s in st])
    row["detection_first_removal_s_ci95_half_width"] = _hw(det)
    return row


def pm(mean, hw, digits):
    return f"{mean:.{digits}f}" if hw is None else f"{mean:.{digits}f} ± {hw:.{digits}f}"


def lifeguard_vs_swim(k, alpha, per_arm):
    """Lifeguard - SWIM in false-positive events per run, paired per replication."""
    fp = {a: [m["starved"]["false_removal_events_count"] for m in per_arm[a]] for a in ("swim", "lifeguard")}
    d = summarize(paired_differences(fp["lifeguard"], fp["swim"]))
    sw, lg = float(np.mean(fp["swim"])), float(np.mean(fp["lifeguard"]))
    return {"K": k, "alpha": alpha, "swim_fp_events_per_run": sw, "lifeguard_fp_events_per_run": lg,
            "ratio": lg / sw if sw > 0 else None, "diff_mean": d.mean, "diff_ci95_half_width": d.ci95_half_width}


def plot(rows, out_dir, timers):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    arms = [a["name"] for a in ARMS]
    for arm in arms:
        r = [x for x in rows if x["arm"] == arm and x["K"] == max(KS)]
        axes[0].plot([x["alpha"] for x in r], [x["fp_events_per_run"] for x in r], "o-", label=arm)
        axes[1].plot([x["alpha"] for x in r], [x["fp_minus_per_run"] for x in r], "o-", label=arm)
        axes[2].plot([x["alpha"] for x in r], [x["detection_first_removal_s"] for x in r], "o-", label=arm)
    axes[0].set_title(f"false positives (any member), K = {max(KS)}")
    axes[1].set_title(f"FP- (declared by healthy members), K = {max(KS)}")
    axes[2].set_title("detection: crash to first removal")
    axes[0].set_ylabel("events per 180 s run")
    axes[1].set_ylabel("events per 180 s run")
    axes[2].set_ylabel("s")
    for a in axes:
        a.set_xlabel("alpha (suspicion_mult)")
        a.set_xticks(ALPHAS)
        a.grid(alpha=0.3)
    axes[2].legend(fontsize=8)
    what = "timers wait too" if timers == "wait" else "timers on time, message handling slow"
    fig.suptitle(f"fdsim, n = 100 memberlist members, K starved (60 ms mean service while starved; {what})")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "fp.png"), dpi=110, metadata={"Software": None})


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m fdsim_analysis.studies.swim_lifeguard_paper")
    ap.add_argument("--fdsim", default=os.path.join(REPO_ROOT, "build", "fdsim"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "results", "swim", "lifeguard-paper"))
    ap.add_argument("--timers", choices=["wait", "on_time"], default="wait",
                    help="a starved member's timers wait for its CPU (default) or run on time")
    args = ap.parse_args(argv)
    regenerate(args.fdsim, args.work or tempfile.mkdtemp(prefix="fdsim-lifeguard-paper-"),
               args.out, reps=args.reps, timers=args.timers)


def regenerate(fdsim, work, out, reps=3, timers="wait"):
    """Runs the experiment in `work` and writes table.csv, table.md and fp.png into `out`
    (timers "wait"), or into out/timers-on-time (timers "on_time")."""
    out_dir = out if timers == "wait" else os.path.join(out, "timers-on-time")
    os.makedirs(out_dir, exist_ok=True)
    rows, pairs = [], []
    for k in KS:
        for alpha in ALPHAS:
            per_arm = run(fdsim, work, scenario(k, alpha, reps, timers))
            pairs.append(lifeguard_vs_swim(k, alpha, per_arm))
            for a in ARMS:
                rows.append(summarise(k, alpha, a["name"], per_arm[a["name"]]))
                print("swim_lifeguard_paper:", k, alpha, a["name"], rows[-1]["fp_events_per_run"],
                      rows[-1]["fp_minus_per_run"], flush=True)
    keys = list(rows[0].keys())
    with open(os.path.join(out_dir, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    lines = [f"Mean over the {reps} replications ± Student-t 95% half-width.", "",
             "| K | alpha | arm | FP events / run | FP- (by healthy) / run | FP by starved / run | "
             "detection (s) | handoff drops / run |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['K']} | {r['alpha']} | {r['arm']} | "
                     f"{pm(r['fp_events_per_run'], r['fp_events_per_run_ci95_half_width'], 1)} | "
                     f"{pm(r['fp_minus_per_run'], r['fp_minus_per_run_ci95_half_width'], 1)} | "
                     f"{r['fp_by_starved_per_run']:.1f} | "
                     f"{pm(r['detection_first_removal_s'], r['detection_first_removal_s_ci95_half_width'], 2)} | "
                     f"{r['handoff_dropped_per_run']:.0f} |")
    lines += ["", "Lifeguard against SWIM, false-positive events per run: the ratio of the means, and "
              "the paired difference Lifeguard − SWIM ± Student-t 95% half-width over the replications.", "",
              "| K | alpha | SWIM | Lifeguard | ratio | Lifeguard − SWIM |", "|---|---|---|---|---|---|"]
    for q in pairs:
        ratio = "n/a (SWIM 0)" if q["ratio"] is None else f"{q['ratio']:.2f}x"
        lines.append(f"| {q['K']} | {q['alpha']} | {q['swim_fp_events_per_run']:.1f} | "
                     f"{q['lifeguard_fp_events_per_run']:.1f} | {ratio} | "
                     f"{pm(q['diff_mean'], q['diff_ci95_half_width'], 1)} |")
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plot(rows, out_dir, timers)


if __name__ == "__main__":
    main()
