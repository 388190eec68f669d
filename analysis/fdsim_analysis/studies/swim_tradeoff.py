"""SWIM with and without Lifeguard against the Geode ring: false removals against removal time.

  python3 -m fdsim_analysis.studies.swim_tradeoff [--fdsim build/fdsim] [--reps 40] [--work DIR]
      [--out results/swim] [--tables-only]

--tables-only remakes the tables and the figure from the run files an earlier run of the study
left in --work (no simulation).

Three families of runs (10 members, lognormal delays min 1 ms / median 2 ms / sigma 0.5, as the
Geode GC-pause study), each a curve over one protocol knob: SWIM's `suspicion_mult` (2..8, arms
`swim` = no Lifeguard part and `lifeguard` = all parts, LAN defaults otherwise) and the Geode
ring's member timeout M (1000..8000 ms, `current` profile, start phases in [0, M/2)):
  - crash: member 3 crashes at 30 s; removal time = until every survivor has removed it
    (`detection_removal_all_s` / `detection_all_survivors_s`);
  - pause L s (L = 1..8): member 3 pauses once at 30 s; P(false removal) = runs with at least one
    false removal;
  - loss p (1, 2, 5, 10 %): no crash, 300 s; false removals per member-hour.
SWIM runs twice: with memberlist's TCP fallback ping (lossless, so UDP loss alone hardly ever
fails a probe) and without it (`tcp_fallback: false`, "no TCP ping").
Writes table.md, table.csv and tradeoff.png into --out (results/swim). Deterministic (fixed seeds).

Intervals (95%, analysis/fdsim_analysis/intervals.py): the median removal time gets the
distribution-free order-statistic interval of a median (40 runs: the 14th and 27th removal
times); P(false removal) the Wilson score interval of k runs with a false removal out of n;
false removals per member-hour the exact Poisson (Garwood) interval of the total count over the
total member-hours of the loss runs (members x measured_s); false suspicions per member-hour
the Student-t interval of the per-run rates (runs are independent; the suspicions within a run
are not, so they are not treated as Poisson counts).
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from ..intervals import median_interval, poisson_exact, wilson
from ..stats import summarize
from .layout import REPO_ROOT

LAT = {"model": "lognormal", "min_ms": 1, "median_ms": 2, "sigma": 0.5}
MULTS = [2, 3, 4, 5, 6, 8]
MS = [1000, 2000, 3000, 5000, 8000]
PAUSES = [1, 2, 3, 4, 5, 6, 7, 8]
LOSSES = [0.01, 0.02, 0.05, 0.10]


def base(name, horizon, reps):
    return {"name": name, "seed": 18, "replications": reps, "horizon_s": horizon,
            "warmup_s": 10, "nodes": {"count": 10}, "network": {"latency": dict(LAT)},
            "faults": []}


def model_sections(proto, knob):
    if proto in ("swim", "swim-udp"):
        return {"swim": {"suspicion_mult": knob, "tcp_fallback": proto == "swim",
                         "arms": [{"name": "swim", "lifeguard": False}, {"name": "lifeguard"}]}}
    return {"membership": {"profile": "current", "member_timeout_ms": knob,
                           "start_offset_max_ms": knob / 2}}


TABLES_ONLY = False


def run(fdsim, work, doc):
    d = os.path.join(work, doc["name"])
    path = os.path.join(d, "scenario.json")
    if TABLES_ONLY:
        with open(path) as f:
            if json.load(f) != doc:
                sys.exit(f"study: --tables-only: {path} is not this study's scenario: rerun without it")
    else:
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        with open(path, "w") as f:
            json.dump(doc, f)
        subprocess.run([fdsim, "run", path, "--out", d, "--quiet"], check=True)
    per_arm = {}
    for p in sorted(glob.glob(os.path.join(d, "*-rep*.json"))):
        for arm, m in json.load(open(p))["metrics"].items():
            per_arm.setdefault(arm, []).append(m)
    return per_arm


def removal(m):
    x = m.get("detection_removal_all_s") or m.get("detection_all_survivors_s")
    return x["p50"]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m fdsim_analysis.studies.swim_tradeoff")
    ap.add_argument("--fdsim", default=os.path.join(REPO_ROOT, "build", "fdsim"))
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "results", "swim"))
    ap.add_argument("--tables-only", action="store_true")
    args = ap.parse_args(argv)
    if args.tables_only and not args.work:
        sys.exit("study: --tables-only: needs --work (the directory of an earlier run)")
    regenerate(args.fdsim, args.work or tempfile.mkdtemp(prefix="fdsim-swim-study-"), args.out,
               reps=args.reps, tables_only=args.tables_only)


def regenerate(fdsim, work, out, reps=40, tables_only=False, protocols=None, knobs=None):
    """Runs the study (or, tables_only, reads the run files an earlier run left in `work`) and
    writes table.csv, table.md and tradeoff.png into `out`. `protocols` and `knobs` (None: all)
    restrict the rows, for a reduced check; the figure is then not written."""
    global TABLES_ONLY
    TABLES_ONLY = tables_only
    os.makedirs(out, exist_ok=True)
    rows = []
    for proto, proto_knobs in (("swim", MULTS), ("swim-udp", MULTS), ("geode", MS)):
        if protocols is not None and proto not in protocols:
            continue
        for k in proto_knobs:
            if knobs is not None and k not in knobs:
                continue
            tag = f"{proto}-{k}"
            doc = base(f"crash-{tag}", 90, reps)
            doc["faults"] = [{"kind": "crash", "at_s": 30, "nodes": [3]}]
            doc.update(model_sections(proto, k))
            crash = run(fdsim, work, doc)
            pause = {}
            for L in PAUSES:
                doc = base(f"pause{L}-{tag}", 30 + L + 60, reps)
                doc["faults"] = [{"kind": "pause", "at_s": 30, "duration_s": L, "nodes": [3]}]
                doc.update(model_sections(proto, k))
                pause[L] = run(fdsim, work, doc)
            loss = {}
            for p in LOSSES:
                doc = base(f"loss{int(p * 100)}-{tag}", 310, max(4, reps // 2))
                doc["network"]["loss"] = p
                doc.update(model_sections(proto, k))
                loss[p] = run(fdsim, work, doc)
            for arm in crash:
                rem = [removal(m) for m in crash[arm] if removal(m) is not None]
                name = {"swim": arm, "swim-udp": arm + " (no TCP ping)", "geode": "geode"}[proto]
                row = {"protocol": name,
                       "knob": ("member_timeout_ms" if proto == "geode" else "suspicion_mult"),
                       "value": k, "removal_median_s": float(np.median(rem)),
                       "removal_mean_s": float(np.mean(rem)),
                       "undetected": sum(1 for m in crash[arm] if removal(m) is None)}
                for L in PAUSES:
                    runs = pause[L][arm]
                    row[f"p_false_removal_pause{L}s"] = float(np.mean([m["false_removals_count"] > 0 for m in runs]))
                for p in LOSSES:
                    runs = loss[p][arm]
                    row[f"false_removals_per_member_hour_loss{int(p * 100)}"] = float(np.mean(
                        [m["false_removals_per_member_hour"] for m in runs]))
                for p in LOSSES:
                    runs = loss[p][arm]
                    row[f"false_suspicions_per_member_hour_loss{int(p * 100)}"] = float(np.mean(
                        [m["false_suspicions_per_member_hour"] for m in runs]))
                # The 95% intervals (module docstring), appended after the point values.
                row["removal_median_ci95_lo_s"], row["removal_median_ci95_hi_s"] = median_interval(rem)
                for L in PAUSES:
                    runs = pause[L][arm]
                    k_fr = sum(1 for m in runs if m["false_removals_count"] > 0)
                    row[f"false_removal_runs_pause{L}s"] = k_fr
                    row[f"runs_pause{L}s"] = len(runs)
                    lo, hi = wilson(k_fr, len(runs))
                    row[f"p_false_removal_pause{L}s_ci95_lo"] = lo
                    row[f"p_false_removal_pause{L}s_ci95_hi"] = hi
                # The figure's y: P averaged over the pause lengths, a mean of independent
                # proportions, with its normal 95% half-width.
                ps = [row[f"p_false_removal_pause{L}s"] for L in PAUSES]
                row["p_false_removal_mean_over_pauses"] = float(np.mean(ps))
                row["p_false_removal_mean_over_pauses_ci95_half_width"] = 1.959964 * float(np.sqrt(sum(
                    q * (1 - q) / row[f"runs_pause{L}s"] for q, L in zip(ps, PAUSES)))) / len(PAUSES)
                for p in LOSSES:
                    runs = loss[p][arm]
                    count = sum(m["false_removals_count"] for m in runs)
                    hours = sum(member_hours(m) for m in runs)
                    lo, hi = poisson_exact(count, hours)
                    row[f"false_removals_loss{int(p * 100)}_count"] = count
                    row[f"member_hours_loss{int(p * 100)}"] = hours
                    row[f"false_removals_per_member_hour_loss{int(p * 100)}_ci95_lo"] = lo
                    row[f"false_removals_per_member_hour_loss{int(p * 100)}_ci95_hi"] = hi
                for p in LOSSES:
                    sm = summarize([m["false_suspicions_per_member_hour"] for m in loss[p][arm]])
                    row[f"false_suspicions_per_member_hour_loss{int(p * 100)}_ci95_half_width"] = sm.ci95_half_width
                rows.append(row)
                print("swim_tradeoff:", row["protocol"], k, round(row["removal_median_s"], 2), flush=True)
    keys = list(rows[0].keys())
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(table_markdown(rows))
    if protocols is None and knobs is None:
        plot(rows, out)


def member_hours(m):
    """Member-hours observed by one run (the denominator of its per-member-hour rates)."""
    members = m.get("members_count", m.get("members_initial_count"))
    return members * m["measured_s"] / 3600.0


def _p(x):
    """A proportion of runs: up to three decimals, trailing zeros dropped (0.825, 0.65, 0)."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def _g(x, sig):
    """`sig` significant digits, no exponent for the magnitudes of these tables (0 stays 0)."""
    return "0" if x == 0 else f"{float(f'{x:.{sig}g}'):g}"


def table_markdown(rows):
    """Three tables (crash, pause, loss), every value with its 95% interval."""
    out = ["## Crash: time until every survivor has removed the crashed member",
           "",
           "Median over the crash runs, 95% distribution-free interval of the median "
           "(order statistics).",
           "",
           "| protocol | knob | median removal (s) | 95% interval (s) | mean removal (s) | undetected |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['protocol']} | {r['knob']} = {r['value']} | {r['removal_median_s']:.2f} | "
                   f"[{r['removal_median_ci95_lo_s']:.2f}, {r['removal_median_ci95_hi_s']:.2f}] | "
                   f"{r['removal_mean_s']:.2f} | {r['undetected']} |")
    n = rows[0][f"runs_pause{PAUSES[0]}s"]
    out += ["", f"## One pause of L s: P(false removal), {n} runs per cell", "",
            "Share of the runs with a false removal, 95% Wilson score interval; last column: the "
            "mean over the pause lengths (the figure's y axis) ± its normal 95% half-width.", "",
            "| protocol | knob | " + " | ".join(f"L = {L} s" for L in PAUSES) + " | mean over L |",
            "|---|---|" + "---|" * (len(PAUSES) + 1)]
    for r in rows:
        out.append(f"| {r['protocol']} | {r['knob']} = {r['value']} | " + " | ".join(
            f"{_p(r[f'p_false_removal_pause{L}s'])} [{r[f'p_false_removal_pause{L}s_ci95_lo']:.2f}, "
            f"{r[f'p_false_removal_pause{L}s_ci95_hi']:.2f}]" for L in PAUSES) +
            f" | {r['p_false_removal_mean_over_pauses']:.3f} ± "
            f"{r['p_false_removal_mean_over_pauses_ci95_half_width']:.3f} |")
    hours = rows[0][f"member_hours_loss{int(LOSSES[0] * 100)}"]
    out += ["", f"## Loss: false removals (FR) and false suspicions (FS) per member-hour "
            f"({hours:.1f} member-hours per cell)", "",
            "FR: total count / member-hours with the exact Poisson 95% interval; FS: mean of the "
            "per-run rates ± Student-t 95% half-width.", "",
            "| protocol | knob | " + " | ".join(f"FR {int(p * 100)}%" for p in LOSSES) + " | " +
            " | ".join(f"FS {int(p * 100)}%" for p in LOSSES) + " |",
            "|---|---|" + "---|" * (2 * len(LOSSES))]
    for r in rows:
        fr = []
        for p in LOSSES:
            t = int(p * 100)
            fr.append(f"{_g(r[f'false_removals_per_member_hour_loss{t}'], 2)} "
                      f"[{_g(r[f'false_removals_per_member_hour_loss{t}_ci95_lo'], 2)}, "
                      f"{_g(r[f'false_removals_per_member_hour_loss{t}_ci95_hi'], 2)}]")
        fs = []
        for p in LOSSES:
            t = int(p * 100)
            hw = r[f"false_suspicions_per_member_hour_loss{t}_ci95_half_width"]
            fs.append(f"{_g(r[f'false_suspicions_per_member_hour_loss{t}'], 3)} ± {_g(hw, 2)}")
        out.append(f"| {r['protocol']} | {r['knob']} = {r['value']} | " + " | ".join(fr + fs) + " |")
    return "\n".join(out) + "\n"


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    colors = {"swim": "tab:blue", "lifeguard": "tab:green", "geode": "tab:red",
              "swim (no TCP ping)": "tab:cyan", "lifeguard (no TCP ping)": "tab:olive"}
    for proto in colors:
        rs = [r for r in rows if r["protocol"] == proto]
        x = [r["removal_median_s"] for r in rs]
        y = [np.mean([r[f"p_false_removal_pause{L}s"] for L in PAUSES]) for r in rs]
        axes[0].plot(x, y, "o-", color=colors[proto], label=proto)
        for r, xi, yi in zip(rs, x, y):
            axes[0].annotate(str(r["value"]), (xi, yi), fontsize=7, xytext=(3, 3),
                             textcoords="offset points")
        y2 = [r["false_suspicions_per_member_hour_loss10"] for r in rs]
        axes[1].plot(x, y2, "o-", color=colors[proto], label=proto)
        for r, xi, yi in zip(rs, x, y2):
            axes[1].annotate(str(r["value"]), (xi, yi), fontsize=7, xytext=(3, 3),
                             textcoords="offset points")
    axes[0].set_title("one pause of 1-8 s (uniform): P(false removal)")
    axes[1].set_title("10% loss: false suspicions per member-hour (false removals: table)")
    for ax in axes:
        ax.set_xlabel("median time to remove a crashed member from every view (s)")
        ax.grid(alpha=0.3)
        ax.legend()
    axes[0].set_ylabel("P(false removal | pause)")
    axes[1].set_ylabel("false suspicions / member-hour")
    fig.suptitle("10 members: SWIM (suspicion_mult labels), Lifeguard, Geode ring (M in ms)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tradeoff.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
