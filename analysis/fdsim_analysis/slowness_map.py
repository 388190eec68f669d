"""The slowness map: the real memberlist library with K of n members slowed
(validation/memberlist/slowness.py, one JSON line per run) beside fdsim on the same
configurations, before (per-item service cost) and after (descheduled stall / inbound delay)
the starved-host modes of sim/net/starvation.h.

Contract:
- load_library(raw_dir): {config id: [run, ...]}, each run {"config": {...}, "counts": {...}}
  as slowness.py writes it. counts["dead"] / ["removal"] / ["suspect"] are 2x2 cells keyed
  "<declarer or observer role><victim role>", role "s" (slowed) or "h" (healthy); refutations by
  role under counts["refute"].
- run_metrics(counts) and fdsim_run_metrics(metrics) give the same flat per-run record:
  declared (dead declarations of live members, all), declared_by_slow, declared_by_healthy (the
  Lifeguard paper's FP- when FP counts declarations), removals (observer, member) of live
  members, removals_by_healthy, removals_by_slow, removals_of_slow.
- fdsim_scenario(config, seed, variant): one fdsim scenario (every arm of ARM_KEYS) equivalent to
  one library run: n members, members 1..K slowed from the warm-up end for window_s, LAN
  defaults, 0.1 ms constant links (loopback). Stall windows are drawn exactly as slowness.py
  draws them (first at U(0, L + R), lengths U(0.5, 1.5) x L, gaps U(0.5, 1.5) x R), from
  random.Random(seed). variant "after": stall -> mode "stall" (0.05 ms per held message, a
  socket buffer of SOCKET_BUFFER_PACKETS), delay -> mode "inbound_delay" U(0.5, 1.5) x L;
  delay_fifo -> the same with delay_order "fifo"; variant "before": the starved model of before
  this change on the same windows (per-item Exp(60 ms) service, timers waiting: the
  lifeguard-paper study's model), delay and delay_fifo -> per-item service U(0.5, 1.5) x L with
  timers on time (the old way to inject a receive-path delay).
- summarize_runs(values): mean and Student-t 95 % interval over runs; ratio_interval(a, b):
  mean(a) / mean(b) with a percentile-bootstrap 95 % interval over runs (seeded, 2000
  resamples); share_interval(part, total): sum(part) / sum(total) likewise.
"""

import json
import os
import random
import subprocess
from typing import Dict, List

import numpy as np

from .intervals import wilson
from .stats import summarize

ARMS = ("swim", "lha_probe", "lha_suspicion", "lifeguard")
# fdsim arms equal to the library's (validation/memberlist/slowness.py ARMS). memberlist 0.2.2
# has no switch for the buddy system (state.go:324-358) nor for nacks (net.go handleIndirectPing
# sends them to every nack-capable prober): both stay on in every arm; with
# AwarenessMaxMultiplier 1 the nacks change nothing.
ARM_KEYS = {
    "swim": {"name": "swim", "lifeguard": False, "buddy": True, "nack": True},
    "lha_probe": {"name": "lha_probe", "lifeguard": False, "buddy": True, "nack": True,
                  "awareness": True},
    "lha_suspicion": {"name": "lha_suspicion", "lifeguard": False, "buddy": True, "nack": True,
                      "dynamic_suspicion": True},
    "lifeguard": {"name": "lifeguard"},
}
SOCKET_BUFFER_PACKETS = 4000  # 4 MiB (2 MiB asked, doubled by Linux) / ~1 kB per datagram
DRAIN_MS = 0.05               # per held message after a stall (a running process)
WARMUP_S = 10.0


def load_library(raw_dir: str) -> Dict[str, List[dict]]:
    out: Dict[str, List[dict]] = {}
    for name in sorted(os.listdir(raw_dir)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(raw_dir, name)) as f:
            for line in f:
                line = line.strip()
                if line:
                    r = json.loads(line)
                    out.setdefault(r["id"], []).append(r)
    return out


def run_metrics(counts: dict) -> dict:
    d, r = counts["dead"], counts["removal"]
    return {
        "declared": d["hh"] + d["hs"] + d["sh"] + d["ss"],
        "declared_by_slow": d["sh"] + d["ss"],
        "declared_by_healthy": d["hh"] + d["hs"],
        "declared_slow_of_healthy": d["sh"],
        "declared_of_healthy": d["sh"] + d["hh"],
        "removals": r["hh"] + r["hs"] + r["sh"] + r["ss"],
        "removals_by_healthy": r["hh"] + r["hs"],
        "removals_by_slow": r["sh"] + r["ss"],
        "removals_of_slow": r["hs"] + r["ss"],
        "refutations": counts["refute"]["s"] + counts["refute"]["h"],
    }


def fdsim_run_metrics(m: dict) -> dict:
    s = m["starved"]

    def c(kind, by, of):
        return s[f"false_{kind}_by_{by}_of_{of}_count"]

    dec = {a + b: c("dead_declarations", ra, rb)
           for a, ra in (("h", "healthy"), ("s", "starved"))
           for b, rb in (("h", "healthy"), ("s", "starved"))}
    rem = {a + b: c("removal_events", ra, rb)
           for a, ra in (("h", "healthy"), ("s", "starved"))
           for b, rb in (("h", "healthy"), ("s", "starved"))}
    return run_metrics({"dead": dec, "removal": rem,
                        "refute": {"s": 0, "h": m["refutations_count"]}})


def stall_windows(rng: random.Random, length_s: float, run_s: float, window_s: float):
    """(start, length) pairs relative to the window start, drawn as slowness.py's cycle()."""
    out = []
    t = rng.uniform(0, length_s + run_s)
    while t < window_s:
        ln = min(window_s - t, length_s * rng.uniform(0.5, 1.5))
        out.append((t, ln))
        t = t + ln + run_s * rng.uniform(0.5, 1.5)
    return out


def fdsim_scenario(c: dict, seed: int, variant: str, arms=ARMS, name: str = "") -> dict:
    n, k, L, R, W = c["n"], c["k"], c["length_s"], c["run_s"], c["window_s"]
    slow = list(range(1, k + 1))
    rng = random.Random(seed)
    starved = []
    if c["mech"] == "stall":
        for node in slow:
            for t, ln in stall_windows(random.Random(rng.random()), L, R, W):
                e = {"nodes": [node], "at_s": round(WARMUP_S + t, 6), "duration_s": round(ln, 6)}
                if variant == "after":
                    e.update(mode="stall", socket_buffer_packets=SOCKET_BUFFER_PACKETS,
                             service={"model": "constant", "ms": DRAIN_MS})
                else:
                    e.update(service={"model": "exponential", "min_ms": 0, "mean_ms": 60})
                starved.append(e)
    elif c["mech"] in ("delay", "delay_fifo"):
        draw = {"model": "uniform", "min_ms": 500 * L, "max_ms": 1500 * L}
        for node in slow:
            e = {"nodes": [node], "at_s": WARMUP_S, "duration_s": W, "service": draw}
            if variant == "after":
                e["mode"] = "inbound_delay"
                if c["mech"] == "delay_fifo":
                    e["delay_order"] = "fifo"
            else:
                e["timers"] = "on_time"
            starved.append(e)
    if not starved:  # the control: a window that never opens names the slow members
        starved.append({"nodes": slow, "at_s": WARMUP_S + W + 1, "duration_s": 1,
                        "service": {"model": "constant", "ms": 1}})
    return {
        "name": name or f"slowness-{variant}-{seed}",
        "seed": seed, "replications": 1,
        "horizon_s": WARMUP_S + W, "warmup_s": WARMUP_S, "nodes": {"count": n},
        "network": {"latency": {"model": "constant", "ms": 0.1}, "starved": starved},
        "swim": {"tcp_fallback": bool(c["tcp"]), "arms": [ARM_KEYS[a] for a in arms]},
    }


def run_fdsim(fdsim: str, doc: dict, work: str, extra_args=()) -> Dict[str, dict]:
    """Runs one scenario (`fdsim run` with extra_args); {arm: metrics}."""
    d = os.path.join(work, doc["name"])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "scenario.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([fdsim, "run", path, "--out", d, "--quiet"] + list(extra_args), check=True)
    out = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".json") and "-rep" in name:
            with open(os.path.join(d, name)) as f:
                for arm, m in json.load(f)["metrics"].items():
                    out[arm] = m
    return out


def summarize_runs(values) -> dict:
    s = summarize(list(values))
    return {"n": s.n, "mean": s.mean, "hw": s.ci95_half_width}


def _boot(values_a, values_b, stat, reps=2000, seed=1):
    a = np.asarray(values_a, float)
    b = np.asarray(values_b, float)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        ia = rng.integers(0, len(a), len(a))
        ib = rng.integers(0, len(b), len(b)) if b is not a else ia
        v = stat(a[ia], b[ib])
        if v is not None and np.isfinite(v):
            out.append(v)
    if not out:
        return None, None
    return float(np.percentile(out, 2.5)), float(np.percentile(out, 97.5))


def ratio_interval(a, b):
    """mean(a) / mean(b): (point, lo, hi); None where mean(b) is 0."""
    if len(a) == 0 or len(b) == 0 or np.mean(b) == 0:
        return None, None, None
    lo, hi = _boot(a, b, lambda x, y: (np.mean(x) / np.mean(y)) if np.mean(y) > 0 else None)
    return float(np.mean(a) / np.mean(b)), lo, hi


def share_interval_wide(part, total):
    """The share with the wider of the run bootstrap and the Wilson interval of the pooled counts
    (with few runs the bootstrap alone is too narrow: three runs of 0, 1, 1 give [0, 0.06])."""
    p, lo, hi = share_interval(part, total)
    if p is None:
        return p, lo, hi
    w = wilson(int(round(sum(part))), int(round(sum(total))))
    return p, min(lo, w[0]), max(hi, w[1])


def share_interval(part, total):
    """sum(part) / sum(total) over paired runs: (point, lo, hi); None where the total is 0."""
    part = np.asarray(part, float)
    total = np.asarray(total, float)
    if len(total) == 0 or total.sum() == 0:
        return None, None, None
    rng = np.random.default_rng(1)
    out = []
    for _ in range(2000):
        i = rng.integers(0, len(total), len(total))
        if total[i].sum() > 0:
            out.append(part[i].sum() / total[i].sum())
    return float(part.sum() / total.sum()), float(np.percentile(out, 2.5)), float(np.percentile(out, 97.5))


# ---------------------------------------------------------------------------------------------
# The study: fdsim on every library configuration, the table and the figure.

def _cid(c):
    s = f"{c['mech']}-n{c['n']}-k{c['k']}-L{c['length_s']:g}-R{c['run_s']:g}-{c['arm']}"
    s += "-tcp" if c["tcp"] else "-notcp"
    if c["mech"] == "cpu":
        s += f"-b{c['burners']}"
    return s + f"-w{c['window_s']:g}"


def group_key(c):
    """A library configuration without its arm (fdsim runs all arms in one scenario)."""
    return (c["mech"], c["n"], c["k"], c["length_s"], c["run_s"], c["tcp"], c["window_s"])


def run_fdsim_map(fdsim, lib, work, reps, variants=("before", "after"), log=print):
    """{variant: {library config id: [per-run record, ...]}} for every library configuration
    (cpu configurations have no fdsim counterpart and are skipped)."""
    groups = {}
    for cid, runs in lib.items():
        c = runs[0]["config"]
        if c["mech"] == "cpu":
            continue
        groups.setdefault(group_key(c), []).append(c)
    out = {v: {} for v in variants}
    for gi, (g, cs) in enumerate(sorted(groups.items())):
        arms = sorted({c["arm"] for c in cs}, key=ARMS.index)
        for v in variants:
            for r in range(reps):
                seed = 1000 * gi + r + 1
                doc = fdsim_scenario(cs[0], seed, v, arms, name=f"g{gi}-{v}-r{r}")
                res = run_fdsim(fdsim, doc, work)
                for c in cs:
                    out[v].setdefault(_cid(c), []).append(fdsim_run_metrics(res[c["arm"]]))
        log(f"fdsim: {g} done")
    return out


def _fmt(s, digits=1):
    if s["mean"] is None:
        return "-"
    if s["hw"] is None:
        return f"{s['mean']:.{digits}f}"
    return f"{s['mean']:.{digits}f} ± {s['hw']:.{digits}f}"


def _fmt_iv(p, lo, hi, digits=2):
    if p is None:
        return "-"
    if lo is None:
        return f"{p:.{digits}f}"
    return f"{p:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def summary_rows(lib, fd):
    """One row per library configuration: library and fdsim (before / after) summaries."""
    rows = []
    for cid, runs in sorted(lib.items()):
        c = runs[0]["config"]
        recs = [run_metrics(r["counts"]) for r in runs]
        row = {"id": cid, "config": c, "runs": len(recs), "load1_mean":
               float(np.mean([r.get("load1", float("nan")) for r in runs]))}
        for key in ("declared", "declared_by_healthy", "declared_by_slow", "removals",
                    "removals_by_healthy", "refutations", "declared_of_healthy"):
            row["lib_" + key] = summarize_runs([x[key] for x in recs])
        row["lib_slow_share"] = share_interval([x["declared_by_slow"] for x in recs],
                                               [x["declared"] for x in recs])
        row["lib_values"] = recs
        for v, per in fd.items():
            if cid not in per:
                continue
            fr = per[cid]
            for key in ("declared", "declared_by_healthy", "declared_by_slow", "removals",
                        "removals_by_healthy", "declared_of_healthy"):
                row[f"{v}_{key}"] = summarize_runs([x[key] for x in fr])
            row[f"{v}_slow_share"] = share_interval([x["declared_by_slow"] for x in fr],
                                                    [x["declared"] for x in fr])
            row[f"{v}_values"] = fr
        rows.append(row)
    return rows


def lifeguard_ratios(rows, source, key="declared"):
    """Per configuration group: key(arm) / key(swim) means, with bootstrap intervals."""
    by = {}
    for r in rows:
        if f"{source}_values" not in r and source != "lib":
            continue
        vals = [x[key] for x in r[f"{source}_values"]]
        by.setdefault(group_key(r["config"]), {})[r["config"]["arm"]] = vals
    out = {}
    for g, arms in by.items():
        if "swim" not in arms:
            continue
        out[g] = {a: ratio_interval(arms[a], arms["swim"]) for a in arms if a != "swim"}
    return out


SECTIONS = (
    ("stall, 50 % duty (run = stall)", lambda c: c["mech"] == "stall" and c["run_s"] == c["length_s"]),
    ("stall, 90 % duty (run = stall / 9)", lambda c: c["mech"] == "stall" and c["run_s"] < c["length_s"]),
    ("inbound delay, independent draws, whole window", lambda c: c["mech"] == "delay"),
    ("inbound delay in arrival order (a processing lag), whole window",
     lambda c: c["mech"] == "delay_fifo"),
    ("control (nothing slowed) and CPU contention", lambda c: c["mech"] in ("none", "cpu")),
)


def _slice(c):
    return f"n{c['n']} K{c['k']}" + ("" if c["tcp"] else " no-TCP")


def write_table(rows, ratios_lib, ratios_after, path, ratios_lib_h=None, ratios_after_h=None):
    windows = sorted({r["config"]["window_s"] for r in rows})
    L = [f"Dead declarations of live members per {'/'.join(f'{w:g}' for w in windows)}-s run (FP; "
         "declared by the declarer's own "
         "suspicion timeout), mean ± Student-t 95 % half-width over runs; FP− = those declared by "
         "healthy members; slow share = declarations by slowed members / all, with a bootstrap "
         "95 % interval; FP of healthy = declarations of healthy members (by anyone); removals = (observer, member) removals of live members. `lib` = the "
         "real library, `before` = fdsim's per-item Exp(60 ms) starved model, `after` = fdsim's "
         "stall / inbound-delay modes.", ""]
    for title, pred in SECTIONS:
        sel = [r for r in rows if pred(r["config"])]
        if not sel:
            continue
        L += [f"### {title}", "",
              "| slice | length s | arm | runs | lib FP | lib FP− | lib slow share | lib FP of healthy "
              "| lib removals | before FP | after FP | after FP− | after slow share "
              "| after FP of healthy | after removals |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        sel.sort(key=lambda r: (_slice(r["config"]), r["config"]["length_s"],
                                ARMS.index(r["config"]["arm"])))
        for r in sel:
            c = r["config"]
            length = f"{c['length_s']:g}" if c["mech"] != "cpu" else f"{c['burners']} burners"
            if c["mech"] == "none":
                length = "control"
            L.append("| " + " | ".join([
                _slice(c), length, c["arm"], str(r["runs"]),
                _fmt(r["lib_declared"]), _fmt(r["lib_declared_by_healthy"]),
                _fmt_iv(*r["lib_slow_share"]), _fmt(r["lib_declared_of_healthy"]),
                _fmt(r["lib_removals"]),
                _fmt(r["before_declared"]) if "before_declared" in r else "-",
                _fmt(r["after_declared"]) if "after_declared" in r else "-",
                _fmt(r["after_declared_by_healthy"]) if "after_declared" in r else "-",
                _fmt_iv(*r["after_slow_share"]) if "after_declared" in r else "-",
                _fmt(r["after_declared_of_healthy"]) if "after_declared" in r else "-",
                _fmt(r["after_removals"]) if "after_declared" in r else "-"]) + " |")
        L.append("")
    L += ["### Lifeguard component / SWIM (ratio of means, bootstrap 95 %)", "",
          "FP = all dead declarations of live members; FP of healthy = declarations of healthy "
          "members only. Configurations where SWIM declared nobody are left out.", "",
          "| mechanism | slice | length s | run s | arm | library FP | fdsim after FP "
          "| library FP of healthy | fdsim after FP of healthy |", "|---|---|---|---|---|---|---|---|---|"]
    for g in sorted(ratios_lib, key=str):
        for arm, iv in sorted(ratios_lib[g].items()):
            if iv[0] is None:
                continue
            fa = ratios_after.get(g, {}).get(arm, (None, None, None))
            lh = (ratios_lib_h or {}).get(g, {}).get(arm, (None, None, None))
            fh = (ratios_after_h or {}).get(g, {}).get(arm, (None, None, None))
            L.append(f"| {g[0]} | n{g[1]} K{g[2]}{'' if g[5] else ' no-TCP'} | {g[3]:g} | {g[4]:g} | "
                     f"{arm} | {_fmt_iv(*iv)} | {_fmt_iv(*fa)} | {_fmt_iv(*lh)} | {_fmt_iv(*fh)} |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def plot(rows, path, sources=("lib", "after")):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mechs = SECTIONS[:4]
    fig, axes = plt.subplots(len(sources), 4, figsize=(18, 3.9 * len(sources)), squeeze=False,
                             sharey=True)
    short = ["stall, 50 % stalled", "stall, 90 % stalled", "inbound delay, independent",
             "inbound delay, FIFO (a lag)"]
    colors = {"swim": "C3", "lha_probe": "C1", "lha_suspicion": "C2", "lifeguard": "C0"}
    names = {"lib": "real memberlist", "after": "fdsim after (stall / inbound_delay)",
             "before": "fdsim before (per-item cost)"}
    for i, src in enumerate(sources):
        for j, (title, pred) in enumerate(mechs):
            ax = axes[i][j]
            for arm in ARMS:
                sel = sorted([r for r in rows if pred(r["config"]) and r["config"]["arm"] == arm
                              and r["config"]["n"] == 16 and r["config"]["k"] == 2
                              and r["config"]["tcp"] and f"{src}_declared" in r],
                             key=lambda r: r["config"]["length_s"])
                if not sel:
                    continue
                x = [r["config"]["length_s"] for r in sel]
                for key, ls, lab in (("declared", "-", "FP"), ("declared_by_healthy", "--", "FP−")):
                    y = [r[f"{src}_{key}"]["mean"] for r in sel]
                    e = [r[f"{src}_{key}"]["hw"] or 0 for r in sel]
                    ax.errorbar(x, y, yerr=e, color=colors[arm], ls=ls, marker="o" if ls == "-" else "x",
                                ms=4, capsize=2, label=f"{arm} {lab}")
            ax.set_xscale("log")
            ax.set_ylim(bottom=-3)  # two-run t intervals reach below zero; counts do not
            ax.set_title(f"{names[src]}: {short[j]}", fontsize=9)
            ax.set_xlabel("stall / delay length (s)")
            if j == 0:
                ax.set_ylabel("dead declarations of live members per 30-s run")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=2)
    fig.suptitle("n = 16, K = 2 slowed, TCP fallback on: FP (solid) and FP− (declared by healthy "
                 "members, dashed), mean and 95 % interval over runs", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_lag_table(lib, path):
    """The healthy library members' scheduling lag per configuration (slowness.py runs with
    lag_probe): how late a 100-ms timer woke, worst of each member-second, over the window."""
    L = ["The real library's healthy members' own timer lateness (slownode -lag_probe: the worst "
         "lateness of a 100-ms sleep in each second, per member; over every healthy member-second "
         "of the window), and the machine's 1-min load when the run ended; failed probes and "
         "dead declarations of a healthy member by a healthy member, summed over the runs (what "
         "a machine too slow for its members would cause).", "",
         "| configuration | runs | member-seconds | median ms | 99th percentile ms | max ms "
         "| share over 100 ms | load (1 min) | healthy-of-healthy failed probes "
         "| healthy-of-healthy declarations |", "|---|---|---|---|---|---|---|---|---|---|"]
    for cid, runs in sorted(lib.items()):
        lags = [r["counts"].get("healthy_lag_ms") for r in runs]
        lags = [x for x in lags if x]
        if not lags:
            continue
        loads = [r.get("load1", float("nan")) for r in runs]
        L.append(f"| {cid} | {len(lags)} | {sum(x['member_seconds'] for x in lags)} | "
                 f"{min(x['median'] for x in lags):.2f}-{max(x['median'] for x in lags):.2f} | "
                 f"{min(x['p99'] for x in lags):.1f}-{max(x['p99'] for x in lags):.1f} | "
                 f"{max(x['max'] for x in lags):.1f} | "
                 f"{max(x['share_over_100'] for x in lags):.4f} | "
                 f"{min(loads):.1f}-{max(loads):.1f} | "
                 f"{sum(r['counts']['suspect']['hh'] for r in runs)} | "
                 f"{sum(r['counts']['dead']['hh'] for r in runs)} |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main(argv=None):
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="slowness.py output directory (with raw/)")
    ap.add_argument("--fdsim", help="fdsim binary (without: the records in <out>/fdsim_runs.json "
                                    "if present, else library only)")
    ap.add_argument("--reps", type=int, default=10, help="fdsim runs per configuration")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work")
    ap.add_argument("--paper", action="store_true",
                    help="also run the paper placement (n = 100, needs --fdsim): <out>/paper-n100.md")
    ap.add_argument("--paper-reps", type=int, default=2)
    ap.add_argument("--no-figure", action="store_true",
                    help="no fp.png (its panels are the n = 16, K = 2 core grid)")
    a = ap.parse_args(argv)
    lib = load_library(os.path.join(a.lib, "raw"))
    fd = {}
    cache = os.path.join(a.out, "fdsim_runs.json")
    if a.fdsim:
        work = a.work or tempfile.mkdtemp(prefix="fdsim-slowness-")
        fd = run_fdsim_map(a.fdsim, lib, work, a.reps)
        os.makedirs(a.out, exist_ok=True)
        with open(cache, "w") as f:
            json.dump(fd, f)
    elif os.path.exists(cache):  # fdsim's per-run records of an earlier --fdsim run
        with open(cache) as f:
            fd = json.load(f)
    rows = summary_rows(lib, fd)
    os.makedirs(a.out, exist_ok=True)
    rl = lifeguard_ratios(rows, "lib")
    ra = lifeguard_ratios(rows, "after") if fd else {}
    rlh = lifeguard_ratios(rows, "lib", "declared_of_healthy")
    rah = lifeguard_ratios(rows, "after", "declared_of_healthy") if fd else {}
    write_table(rows, rl, ra, os.path.join(a.out, "table.md"), rlh, rah)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"rows": [{k: v for k, v in r.items() if not k.endswith("_values")} for r in rows],
                   "ratios_lib": {str(k): v for k, v in rl.items()},
                   "ratios_after": {str(k): v for k, v in ra.items()}}, f, indent=1, default=str)
    if not a.no_figure:
        plot(rows, os.path.join(a.out, "fp.png"), ("lib", "before", "after") if fd else ("lib",))
    if any(r.get("counts", {}).get("healthy_lag_ms") for runs in lib.values() for r in runs):
        write_lag_table(lib, os.path.join(a.out, "scheduling-lag.md"))
    if a.paper and a.fdsim:
        res = paper_placement(a.fdsim, os.path.join(work, "paper"), a.paper_reps)
        write_paper_table(res, os.path.join(a.out, "paper-n100.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# ---------------------------------------------------------------------------------------------
# The Lifeguard paper placed on the map: n = 100, alpha = 5 (suspicion_mult), beta = 6.

PAPER_ARMS = [
    {"name": "swim", "lifeguard": False},
    {"name": "lha-probe", "lifeguard": False, "awareness": True, "nack": True},
    {"name": "lha-suspicion", "lifeguard": False, "dynamic_suspicion": True},
    {"name": "buddy", "lifeguard": False, "buddy": True},
    {"name": "lifeguard"},
]
# The paper's table (FP events, FP- events), alpha = 5, beta = 6 (issue text; Dadgar, Phillips,
# Currey 2018).
PAPER_TABLE = {"swim": (339002, 1326), "lha-probe": (229574, 436), "lha-suspicion": (10174, 89),
               "buddy": (318935, 591), "lifeguard": (5193, 25)}


def paper_scenario(mech, length_s, run_s, k, seed, window_s=120.0, n=100):
    c = {"mech": mech, "n": n, "k": k, "length_s": length_s, "run_s": run_s,
         "window_s": window_s, "tcp": True}
    doc = fdsim_scenario(c, seed, "after", name=f"paper-{mech}-L{length_s:g}-R{run_s:g}-k{k}-s{seed}")
    doc["swim"] = {"suspicion_mult": 5, "suspicion_max_timeout_mult": 6, "arms": PAPER_ARMS}
    return doc


def paper_placement(fdsim, work, reps=2, log=print):
    """fdsim at n = 100 over the regimes; {(mech, L, R, k): {arm: [metrics per run]}}."""
    regimes = []
    for L in (0.5, 1, 2, 5, 10, 20):
        regimes.append(("delay", L, 0.0))
        regimes.append(("delay_fifo", L, 0.0))
    for L in (1, 5, 12):
        regimes.append(("stall", L, round(L / 9, 3)))
    out = {}
    for mech, L, R in regimes:
        for k in (1, 4, 16):
            key = (mech, L, R, k)
            for r in range(reps):
                res = run_fdsim(fdsim, paper_scenario(mech, L, R, k, 100 + r), work)
                for arm, m in res.items():
                    out.setdefault(key, {}).setdefault(arm, []).append(m)
            log(f"paper: {key} done")
    return out


def write_paper_table(res, path):
    L = ["fdsim at n = 100 (alpha = 5, beta = 6, LAN defaults, TCP fallback on, 120-s window), "
         "K members slowed by the regime; per run: FP = removal events (observer, member) of live "
         "members, FP− = those at healthy observers, D = dead declarations (own suspicion "
         "timeout) and the share of D by slowed members; D of healthy = declarations of a healthy "
         "member (by anyone) and the slowed declarers' share of them. Paper = Dadgar et al.'s table "
         "(alpha 5, beta 6; summed over all its runs, so compare the shape: arm / SWIM).", "",
         "| regime | K | arm | FP/run | FP−/run | D/run | slow share of D | D of healthy /run | slow share of it | FP / SWIM | D / SWIM | D of healthy / SWIM | paper FP / SWIM | paper FP− / FP |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(res, key=lambda k: (k[0], k[1], k[3])):
        mech, Ls, R, k = key
        arms = res[key]
        sw = np.mean([m["starved"]["false_removal_events_count"] for m in arms.get("swim", [])]) \
            if "swim" in arms else 0
        swd = np.mean([fdsim_run_metrics(m)["declared"] for m in arms.get("swim", [])]) \
            if "swim" in arms else 0
        swh = np.mean([fdsim_run_metrics(m)["declared_of_healthy"] for m in arms.get("swim", [])]) \
            if "swim" in arms else 0
        for a in PAPER_ARMS:
            ms = arms.get(a["name"], [])
            if not ms:
                continue
            fp = np.mean([m["starved"]["false_removal_events_count"] for m in ms])
            fpm = np.mean([m["starved"]["false_removal_events_by_healthy_count"] for m in ms])
            d = [fdsim_run_metrics(m) for m in ms]
            dd = np.mean([x["declared"] for x in d])
            share = share_interval([x["declared_by_slow"] for x in d], [x["declared"] for x in d])
            dh = np.mean([x["declared_of_healthy"] for x in d])
            hshare = share_interval([x["declared_slow_of_healthy"] for x in d],
                                    [x["declared_of_healthy"] for x in d])
            pfp, pfm = PAPER_TABLE[a["name"]]
            L.append(f"| {mech} {Ls:g} s" + (f" / run {R:g} s" if mech == "stall" else "") +
                     f" | {k} | {a['name']} | {fp:.0f} | {fpm:.0f} | {dd:.1f} | "
                     f"{'-' if share[0] is None else f'{share[0]:.2f}'} | "
                     f"{dh:.1f} | {'-' if hshare[0] is None else f'{hshare[0]:.3f}'} | "
                     f"{'-' if sw == 0 else f'{fp / sw:.3f}'} | {'-' if swd == 0 else f'{dd / swd:.3f}'} | "
                     f"{'-' if swh == 0 else f'{dh / swh:.4f}'} | "
                     f"{pfp / PAPER_TABLE['swim'][0]:.3f} | "
                     f"{pfm / pfp:.4f} |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
