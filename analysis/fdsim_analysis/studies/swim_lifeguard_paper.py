"""The Lifeguard paper's main experiment in fdsim: K slowed members among 100, slowed the ways
the real memberlist library showed to matter (results/validation/memberlist/slowness-map/).

n = 100 memberlist members (LAN defaults, TCP fallback on, 0.1 ms constant links, no loss),
members 1 .. K slowed from the warm-up end (20 s) to the end of the run (200 s). Regimes
(REGIMES):
- `stall-L`: a descheduled process (network.starved[].mode "stall"): stalled for
  U(0.5, 1.5) x L, running for U(0.5, 1.5) x L / 9 (90 % stalled), repeatedly, drawn as the
  real-library harness draws them (slowness_map.stall_windows); on resume the due timers run
  first, then the held packets drain at 0.05 ms each (socket buffer of 4000 packets).
- `lag-L`: a processing lag (mode "inbound_delay", delay_order "fifo"): every packet is handed
  to the member U(0.5, 1.5) x L after it arrives, never before an earlier one; timers and sends
  on time.
- `per-item-60ms`: the model this study used before, kept as a labelled comparison: normal for
  Exp(10 s), starved for Exp(3 s); while starved every work item (packet, timer callback,
  handed-off update) costs an Exp(60 ms) service, timers waiting with the packets.
Arms: SWIM (no Lifeguard part), each component alone (LHA-Probe = awareness + nacks,
LHA-Suspicion = dynamic suspicion, Buddy System) and all of Lifeguard; alpha =
swim.suspicion_mult (Lifeguard's confirmations keep memberlist's rule, alpha - 2), beta =
suspicion_max_timeout_mult 6 (memberlist's default). Two healthy members (98, 99) crash at 60 s
and 120 s for the detection latency. CELLS = every regime at K in {1, 4, 16} and alpha in
{2, 4, 6}, plus the paper's alpha = 5 at stall-12s and lag-10s (PAPER_CELLS); `reps` runs per
cell, each run its own seed and windows, every arm of a run on common random numbers.

Counts per 180-s measured run (fdsim's `starved` metrics): D = dead declarations of live
members (a member's own suspicion timer declared a live member dead; the real library's "Marking
X as failed"), split by declarer (slowed / healthy) and victim; FP = (observer, member) removal
events of live members, FP- = those at healthy observers.

Writes table.csv, table.md, paper.md and fp.png into `out`. Deterministic (seeds from the cell).
regenerate(..., cells=[...]) runs only those cells (the reduced check: their rows of table.csv
must equal the committed ones) and writes table.csv only.

Intervals: Student-t 95 % half-widths of per-run means over the runs (stats.summarize; 3 runs:
t = 4.30, wide); Lifeguard / SWIM and LHA-Suspicion / SWIM as ratios of means.
"""
import argparse
import csv
import os
import tempfile

import numpy as np

from .. import slowness_map as sm
from ..stats import summarize
from .layout import REPO_ROOT

N = 100
WARMUP_S = 20.0
HORIZON_S = 200.0
KS = [1, 4, 16]
ALPHAS = [2, 4, 6]
# (name, mechanism, length L in s, running time R in s): the mechanisms of slowness_map.
REGIMES = [
    ("stall-3s", "stall", 3.0, round(3.0 / 9, 3)),
    ("stall-12s", "stall", 12.0, round(12.0 / 9, 3)),
    ("lag-2s", "delay_fifo", 2.0, 0.0),
    ("lag-5s", "delay_fifo", 5.0, 0.0),
    ("lag-10s", "delay_fifo", 10.0, 0.0),
    ("lag-20s", "delay_fifo", 20.0, 0.0),
    ("per-item-60ms", "per_item", 0.0, 0.0),
]
PAPER_ALPHA = 5
PAPER_CELLS = [("stall-12s", k, PAPER_ALPHA) for k in KS] + [("lag-10s", k, PAPER_ALPHA) for k in KS]
CELLS = [(r[0], k, a) for r in REGIMES for k in KS for a in ALPHAS] + PAPER_CELLS
ARMS = [
    {"name": "swim", "lifeguard": False},
    {"name": "lha-probe", "lifeguard": False, "awareness": True, "nack": True},
    {"name": "lha-suspicion", "lifeguard": False, "dynamic_suspicion": True},
    {"name": "buddy", "lifeguard": False, "buddy": True},
    {"name": "lifeguard"},
]
# The paper's table (FP events, FP- events = declared by healthy members), alpha 5, beta 6
# (Dadgar, Phillips, Currey 2018, as quoted in the project's issue on Lifeguard).
PAPER_TABLE = sm.PAPER_TABLE


def regime(name):
    for r in REGIMES:
        if r[0] == name:
            return r
    raise KeyError(name)


def seed_of(regime_name, k, rep):
    """One seed per (regime, K, run): the same windows and draws for every alpha."""
    return 27000 + 1000 * [r[0] for r in REGIMES].index(regime_name) + 100 * KS.index(k) + rep


def scenario(regime_name, k, alpha, rep):
    name, mech, length_s, run_s = regime(regime_name)
    seed = seed_of(regime_name, k, rep)
    window_s = HORIZON_S - WARMUP_S
    if mech == "per_item":
        starved = [{"nodes": list(range(1, k + 1)), "start_s": WARMUP_S, "mean_normal_s": 10,
                    "mean_starved_s": 3,
                    "service": {"model": "exponential", "min_ms": 0, "mean_ms": 60}}]
    else:
        c = {"mech": mech, "n": N, "k": k, "length_s": length_s, "run_s": run_s,
             "window_s": window_s, "tcp": True}
        starved = sm.fdsim_scenario(c, seed, "after")["network"]["starved"]
        for e in starved:  # slowness_map's windows start at its own 10-s warm-up
            e["at_s"] = round(e["at_s"] - sm.WARMUP_S + WARMUP_S, 6)
    return {
        "name": f"lifeguard-paper-{name}-K{k}-a{alpha}-r{rep}",
        "seed": seed, "replications": 1,
        "horizon_s": HORIZON_S, "warmup_s": WARMUP_S, "nodes": {"count": N},
        "network": {"latency": {"model": "constant", "ms": 0.1}, "starved": starved},
        "faults": [{"kind": "crash", "at_s": 60, "nodes": [98]},
                   {"kind": "crash", "at_s": 120, "nodes": [99]}],
        "swim": {"suspicion_mult": alpha, "suspicion_max_timeout_mult": 6, "tcp_fallback": True,
                 "arms": ARMS},
    }


def run_cell(fdsim, work, regime_name, k, alpha, reps):
    """{arm: [metrics of each run]}"""
    per_arm = {}
    for rep in range(reps):
        res = sm.run_fdsim(fdsim, scenario(regime_name, k, alpha, rep), work)
        for a in ARMS:
            per_arm.setdefault(a["name"], []).append(res[a["name"]])
    return per_arm


def _mean_hw(values):
    s = summarize([float(v) for v in values])
    return s.mean, s.ci95_half_width


def summarise(regime_name, k, alpha, arm, runs):
    d = [sm.fdsim_run_metrics(m) for m in runs]
    st = [m["starved"] for m in runs]
    det = [m["detection_first_removal_s"]["mean"] for m in runs
           if m["detection_first_removal_s"]["mean"] is not None]
    row = {"regime": regime_name, "K": k, "alpha": alpha, "arm": arm, "runs": len(runs)}
    for key, vals in (
            ("D", [x["declared"] for x in d]),
            ("D_by_slow", [x["declared_by_slow"] for x in d]),
            ("D_of_healthy", [x["declared_of_healthy"] for x in d]),
            ("D_slow_of_healthy", [x["declared_slow_of_healthy"] for x in d]),
            ("FP", [s["false_removal_events_count"] for s in st]),
            ("FP_minus", [s["false_removal_events_by_healthy_count"] for s in st])):
        row[key], row[key + "_hw"] = _mean_hw(vals)
    row["detection_s"], row["detection_s_hw"] = _mean_hw(det) if det else (float("nan"), None)
    row["undetected_crashes"] = int(sum(m["crashes_undetected_count"] for m in runs))
    row["handoff_dropped_per_run"] = float(np.mean([s["handoff_dropped_count"] for s in st]))
    return row


def _pm(mean, hw, digits=1):
    if mean is None or (isinstance(mean, float) and np.isnan(mean)):
        return "-"
    return f"{mean:.{digits}f}" if hw is None else f"{mean:.{digits}f} ± {hw:.{digits}f}"


def _share(part, total, digits=2):
    return "-" if total == 0 else f"{part / total:.{digits}f}"


def _ratio(a, b, digits=2):
    return "-" if b == 0 else f"{a / b:.{digits}f}"


def write_csv(rows, path):
    keys = list(rows[0].keys())
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else f"{v:.4g}" if isinstance(v, float) else v)
                        for k, v in r.items()})


def _by(rows):
    return {(r["regime"], r["K"], r["alpha"], r["arm"]): r for r in rows}


def write_table(rows, reps, path):
    by = _by(rows)
    L = [f"fdsim, n = 100, K members slowed (1 .. K) from 20 s to 200 s; per 180-s run, mean ± "
         f"Student-t 95 % half-width over {reps} runs. D = dead declarations of live members "
         "(a member's own suspicion timeout); slow share = D by slowed members / D; D of healthy = "
         "declarations of a healthy member (by anyone), slow share of it = by slowed members; "
         "FP = (observer, member) removal events of live members, FP− = those at healthy "
         "observers; detection = crash to first removal of members 98 and 99. Regimes: "
         "`stall-L` 90 % stalled for U(0.5, 1.5) × L at a time; `lag-L` processing lag "
         "U(0.5, 1.5) × L in arrival order, timers on time; `per-item-60ms` the old model "
         "(comparison): Exp(60 ms) per work item while starved, timers waiting.", "",
         "| regime | K | alpha | arm | D / run | slow share of D | D of healthy / run "
         "| slow share of it | FP / run | FP− / run | detection s |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r['regime']} | {r['K']} | {r['alpha']} | {r['arm']} | "
                 f"{_pm(r['D'], r['D_hw'])} | {_share(r['D_by_slow'], r['D'])} | "
                 f"{_pm(r['D_of_healthy'], r['D_of_healthy_hw'])} | "
                 f"{_share(r['D_slow_of_healthy'], r['D_of_healthy'], 3)} | "
                 f"{_pm(r['FP'], r['FP_hw'], 0)} | {_pm(r['FP_minus'], r['FP_minus_hw'], 0)} | "
                 f"{_pm(r['detection_s'], r['detection_s_hw'], 2)} |")
    L += ["", "### Each component / SWIM (ratio of the per-run means)", "",
          "D: all declarations; D of healthy: declarations of healthy members. `-` where SWIM "
          "has none.", "",
          "| regime | K | alpha | SWIM D | LHA-Probe | LHA-Suspicion | Buddy | Lifeguard "
          "| SWIM D of healthy | LHA-Probe | LHA-Suspicion | Buddy | Lifeguard |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    seen = []
    for r in rows:
        cell = (r["regime"], r["K"], r["alpha"])
        if cell in seen:
            continue
        seen.append(cell)
        sw = by[cell + ("swim",)]
        parts = [f"{sw['D']:.1f}"]
        parts += [_ratio(by[cell + (a,)]["D"], sw["D"]) for a in ("lha-probe", "lha-suspicion",
                                                                   "buddy", "lifeguard")]
        parts += [f"{sw['D_of_healthy']:.1f}"]
        parts += [_ratio(by[cell + (a,)]["D_of_healthy"], sw["D_of_healthy"], 3)
                  for a in ("lha-probe", "lha-suspicion", "buddy", "lifeguard")]
        L.append(f"| {cell[0]} | {cell[1]} | {cell[2]} | " + " | ".join(parts) + " |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def write_paper(rows, reps, path):
    """The paper's alpha = 5 cells beside the paper's table (its counts are sums over all its
    runs, so the comparison is of shape: each arm over SWIM, and the share declared by healthy
    members)."""
    by = _by(rows)
    sw_p, swm_p = PAPER_TABLE["swim"]
    L = [f"The paper's setting (alpha = {PAPER_ALPHA}, beta = 6) in fdsim, n = 100, {reps} runs "
         "per cell, beside the paper's table (Dadgar, Phillips, Currey 2018: FP events summed "
         "over its runs, FP− = declared by healthy members). fdsim: D = dead declarations of "
         "live members per 180-s run, healthy share = declared by healthy members / D; "
         "D of healthy = declarations of healthy members.", "",
         "| arm | paper FP / SWIM | paper healthy share | regime | K | D / run | D / SWIM "
         "| healthy share of D | D of healthy / run | D of healthy / SWIM "
         "| healthy share of D of healthy |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for reg in ("lag-10s", "stall-12s"):
        for k in KS:
            cell = (reg, k, PAPER_ALPHA)
            sw = by[cell + ("swim",)]
            for a in ARMS:
                r = by[cell + (a["name"],)]
                pfp, pfm = PAPER_TABLE[a["name"]]
                L.append(f"| {a['name']} | {pfp / sw_p:.3f} | {pfm / pfp:.4f} | {reg} | {k} | "
                         f"{_pm(r['D'], r['D_hw'])} | {_ratio(r['D'], sw['D'], 3)} | "
                         f"{_share(r['D'] - r['D_by_slow'], r['D'], 3)} | "
                         f"{_pm(r['D_of_healthy'], r['D_of_healthy_hw'])} | "
                         f"{_ratio(r['D_of_healthy'], sw['D_of_healthy'], 4)} | "
                         f"{_share(r['D_of_healthy'] - r['D_slow_of_healthy'], r['D_of_healthy'], 3)} |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def plot(rows, path, k=16):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by = _by(rows)
    colors = {"swim": "C3", "lha-probe": "C1", "lha-suspicion": "C2", "buddy": "C4",
              "lifeguard": "C0"}
    fig, axes = plt.subplots(2, 3, figsize=(15, 7.6), sharex=True)
    lags = [r for r in REGIMES if r[1] == "delay_fifo"]
    x = [r[2] for r in lags]
    for j, alpha in enumerate(ALPHAS):
        for i, (key, title) in enumerate((("D", "all dead declarations of live members"),
                                          ("D_of_healthy", "declarations of healthy members"))):
            ax = axes[i][j]
            for a in ARMS:
                y = [by[(r[0], k, alpha, a["name"])][key] for r in lags]
                e = [by[(r[0], k, alpha, a["name"])][key + "_hw"] or 0 for r in lags]
                # SWIM wide and underneath: the buddy system's line lies on it.
                wide = a["name"] == "swim"
                ax.errorbar(x, y, yerr=e, color=colors[a["name"]], marker="o", ms=4, capsize=2,
                            lw=4 if wide else 1.5, alpha=0.45 if wide else 1.0,
                            ls="--" if a["name"] == "buddy" else "-", label=f"{a['name']} (lag)")
                ys = by[("stall-12s", k, alpha, a["name"])][key]
                ax.plot([12], [ys], color=colors[a["name"]], marker="s", ms=7, ls="none",
                        mfc="none", label=f"{a['name']} (stall 12 s)")
            ax.axvline(alpha * 2, color="grey", ls=":", lw=1)
            ax.set_xscale("log")
            ax.set_xticks([2, 5, 10, 12, 20])
            ax.set_xticklabels(["2", "5", "10", "12", "20"])
            ax.set_title(f"alpha = {alpha}: {title}", fontsize=9)
            ax.grid(alpha=0.3)
            if i == 1:
                ax.set_xlabel("processing lag L (s); squares: stalls of 12 s (90 % stalled)")
            if j == 0:
                ax.set_ylabel("per 180-s run")
    axes[0][0].legend(fontsize=6, ncol=2)
    fig.suptitle(f"fdsim, n = 100, K = {k} slowed: mean and 95 % interval over runs; dotted: "
                 "SWIM's minimum suspicion timeout alpha × log10(100) s", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def regenerate(fdsim, work, out, reps=3, cells=None):
    """Runs the cells (all by default) in `work` and writes into `out`: table.csv, and with all
    cells also table.md, paper.md and fp.png."""
    os.makedirs(out, exist_ok=True)
    todo = CELLS if cells is None else [tuple(c) for c in cells]
    rows = []
    for reg, k, alpha in todo:
        per_arm = run_cell(fdsim, work, reg, k, alpha, reps)
        for a in ARMS:
            rows.append(summarise(reg, k, alpha, a["name"], per_arm[a["name"]]))
        sw = rows[-len(ARMS)]
        print("swim_lifeguard_paper:", reg, k, alpha, "SWIM D", sw["D"], "Lifeguard D",
              rows[-1]["D"], flush=True)
    write_csv(rows, os.path.join(out, "table.csv"))
    if cells is not None:
        return rows
    write_table(rows, reps, os.path.join(out, "table.md"))
    write_paper(rows, reps, os.path.join(out, "paper.md"))
    plot(rows, os.path.join(out, "fp.png"))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m fdsim_analysis.studies.swim_lifeguard_paper")
    ap.add_argument("--fdsim", default=os.path.join(REPO_ROOT, "build", "fdsim"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "results", "swim", "lifeguard-paper"))
    ap.add_argument("--cell", action="append", default=None,
                    help="REGIME,K,ALPHA: run only these cells (writes table.csv only)")
    args = ap.parse_args(argv)
    cells = None
    if args.cell:
        cells = [(c.split(",")[0], int(c.split(",")[1]), int(c.split(",")[2])) for c in args.cell]
    regenerate(args.fdsim, args.work or tempfile.mkdtemp(prefix="fdsim-lifeguard-paper-"),
               args.out, reps=args.reps, cells=cells)


if __name__ == "__main__":
    main()
