#!/usr/bin/python3
"""Compare fdsim's SWIM model with the real hashicorp/memberlist library.

For every setting (N, configuration, fault) it runs the Go harness (validation/memberlist/harness:
real memberlist nodes on 127.0.0.1) for a number of trials and fdsim on the equivalent scenario for
many replications, then compares the distributions of the crash-detection times (two-sample KS
test, medians with bootstrap CIs) and the false-suspicion / false-removal rates and message rates.

  compare.py --fdsim build/fdsim --out results/validation/memberlist     full comparison
  compare.py --quick --fdsim build/fdsim --work DIR                      CTest version (< 3 min)

Harness outputs are cached in <out>/raw/ (delete them to rerun the library). Exit 77 when `go`
or the memberlist source is missing (the test is then skipped), 1 when the quick check fails.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GOPATH_SYSTEM = "/usr/share/gocode"
MEMBERLIST = GOPATH_SYSTEM + "/src/github.com/hashicorp/memberlist"

# memberlist LAN defaults, and every timer divided by 5 ("scaled").
PROFILES = {
    "lan": {},
    "scaled": {"probe_interval_ms": 200, "probe_timeout_ms": 100, "gossip_interval_ms": 40,
               "push_pull_interval_ms": 6000, "gossip_to_the_dead_ms": 6000},
}
SETTLE_S = {"lan": 3.0, "scaled": 1.0}
LATENCY_MS = 0.1  # loopback one-way delay in fdsim


def ks_2samp(a, b):
    """Two-sample Kolmogorov-Smirnov statistic D and its asymptotic p-value (Stephens' correction,
    as Numerical Recipes' kstwo)."""
    a = np.sort(np.asarray(a, float))
    b = np.sort(np.asarray(b, float))
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return float("nan"), float("nan")
    allv = np.concatenate([a, b])
    fa = np.searchsorted(a, allv, side="right") / n
    fb = np.searchsorted(b, allv, side="right") / m
    d = float(np.max(np.abs(fa - fb)))
    en = math.sqrt(n * m / (n + m))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 1e-3:
        return d, 1.0
    p = 0.0
    for j in range(1, 101):
        term = 2.0 * (-1) ** (j - 1) * math.exp(-2.0 * j * j * lam * lam)
        p += term
        if abs(term) < 1e-12:
            break
    return d, float(min(1.0, max(0.0, p)))


def median_ci(x, reps=2000, seed=1):
    """Median and a 95% percentile-bootstrap interval."""
    x = np.asarray(x, float)
    if len(x) == 0:
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(x, size=(reps, len(x)), replace=True), axis=1)
    return float(np.median(x)), float(np.percentile(meds, 2.5)), float(np.percentile(meds, 97.5))


def settings(quick):
    if quick:
        return [dict(id="quick-scaled-n8-crash", n=8, profile="scaled", fault="crash", trials=4,
                     reps=60, window=5.0)]
    out = []
    for n in (8, 16, 32):
        out.append(dict(id=f"lan-n{n}-crash", n=n, profile="lan", fault="crash", trials=8,
                        reps=200, window=20.0))
    for n in (8, 16, 32):
        out.append(dict(id=f"scaled-n{n}-crash", n=n, profile="scaled", fault="crash", trials=25,
                        reps=300, window=5.0))
    out.append(dict(id="scaled-n16-crash-repeat", n=16, profile="scaled", fault="crash",
                    trials=25, reps=0, window=5.0, repeat_of="scaled-n16-crash"))
    out.append(dict(id="lan-n16-loss5", n=16, profile="lan", fault="loss", trials=3, reps=30,
                    window=60.0))
    for n in (8, 16, 32):
        out.append(dict(id=f"scaled-n{n}-loss5", n=n, profile="scaled", fault="loss", trials=5,
                        reps=30, window=20.0))
    out.append(dict(id="lan-n8-slow400", n=8, profile="lan", fault="slow", trials=3, reps=30,
                    window=40.0, slow_ms=400.0))
    out.append(dict(id="scaled-n16-slow80", n=16, profile="scaled", fault="slow", trials=5,
                    reps=30, window=20.0, slow_ms=80.0))
    # Slow enough that the slow node's round trips (and its TCP pings) miss the probe deadline.
    out.append(dict(id="lan-n8-slow600", n=8, profile="lan", fault="slow", trials=3, reps=30,
                    window=40.0, slow_ms=600.0))
    out.append(dict(id="scaled-n16-slow120", n=16, profile="scaled", fault="slow", trials=5,
                    reps=30, window=20.0, slow_ms=120.0))
    return out


def crash_at(s):
    return 2.0 if s["profile"] == "lan" else 1.0


def harness_args(s):
    a = ["-n", str(s["n"]), "-trials", str(s["trials"]), "-profile", s["profile"],
         "-settle_s", str(SETTLE_S[s["profile"]]), "-window_s", str(s["window"])]
    if s["fault"] == "crash":
        a += ["-crash_at_s", str(crash_at(s)), "-crash_node", "1"]
    elif s["fault"] == "loss":
        a += ["-loss", "0.05"]
    elif s["fault"] == "slow":
        a += ["-slow_node", "1", "-slow_ms", str(s["slow_ms"])]
    return a


def probe_interval_s(s):
    return PROFILES[s["profile"]].get("probe_interval_ms", 1000) / 1000.0


def fdsim_scenario(s):
    # The harness creates node i after i random gaps of U(0, probe interval), joins, waits for
    # convergence (about 0.2 s) and settles: the members are on average this old at t0, which
    # matters for push-pull (its first exchange comes 1 to 2 intervals after a member starts).
    warm = SETTLE_S[s["profile"]] + 0.2 + s["n"] * probe_interval_s(s) / 2.0
    doc = {"name": "memberlist-" + s["id"], "seed": 1, "replications": s["reps"],
           "horizon_s": warm + s["window"], "warmup_s": warm, "nodes": {"count": s["n"]},
           "network": {"latency": {"model": "constant", "ms": LATENCY_MS}},
           "faults": [], "swim": dict(PROFILES[s["profile"]])}
    if s["fault"] == "crash":
        doc["faults"].append({"kind": "crash", "at_s": warm + crash_at(s), "nodes": [1]})
    elif s["fault"] == "loss":
        doc["network"]["loss"] = 0.05
    elif s["fault"] == "slow":
        for key in ("from", "to"):
            doc["faults"].append({"kind": "delay_spike", "at_s": warm, "duration_s": s["window"],
                                  key: [1], "extra_ms": s["slow_ms"]})
    return doc


def build_harness(work):
    go = shutil.which("go")
    if go is None or not os.path.isdir(MEMBERLIST):
        print("compare: skipped: needs `go` (golang-go) and " + MEMBERLIST +
              " (golang-github-hashicorp-memberlist-dev)")
        sys.exit(77)
    exe = os.path.join(work, "memberlist-harness")
    env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH_SYSTEM, GOFLAGS="",
               GOCACHE=os.path.join(work, "gocache"), GOPROXY="off", CGO_ENABLED="0")
    subprocess.run([go, "build", "-o", exe, "."], cwd=os.path.join(HERE, "harness"), env=env,
                   check=True)
    return exe


def run_harness(exe, s, raw_dir, seed, cache=True):
    path = os.path.join(raw_dir, f"harness-{s['id']}.jsonl")
    if os.path.exists(path) and cache:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        if len(rows) >= s["trials"]:
            return [r["metrics"] for r in rows]
    out = subprocess.run([exe] + harness_args(s) + ["-seed", str(seed)], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    with open(path, "w") as f:
        f.write(out)
    return [json.loads(line)["metrics"] for line in out.splitlines() if line.strip()]


def run_fdsim(fdsim, s, work):
    d = os.path.join(work, "fdsim-" + s["id"])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    scen = os.path.join(d, "scenario.json")
    with open(scen, "w") as f:
        json.dump(fdsim_scenario(s), f, indent=1)
    subprocess.run([fdsim, "run", scen, "--out", d, "--quiet"], check=True)
    rows = []
    for name in sorted(os.listdir(d)):
        if name.endswith(".json") and name != "scenario.json" and "-rep" in name:
            with open(os.path.join(d, name)) as f:
                rows.append(json.load(f)["metrics"]["lifeguard"])
    return rows


def values(rows, key):
    out = []
    for r in rows:
        v = r[key]["p50"] if isinstance(r[key], dict) else r[key]
        if v is not None:
            out.append(float(v))
    return out


def rate_per_member_hour(rows, key):
    count = sum(r[key] for r in rows)
    member_h = sum(r["members_count"] * r["measured_s"] for r in rows) / 3600.0
    return count / member_h if member_h > 0 else float("nan"), count


def compare(s, lib, sim):
    res = {"setting": s["id"], "n": s["n"], "profile": s["profile"], "fault": s["fault"],
           "library_trials": len(lib), "fdsim_replications": len(sim)}
    for key in ("detection_first_suspicion_s", "detection_first_removal_s",
                "detection_removal_all_s"):
        a, b = values(lib, key), values(sim, key)
        if s["fault"] != "crash" or not a:
            continue
        d, p = ks_2samp(a, b)
        res[key] = {"library": median_ci(a), "fdsim": median_ci(b), "ks_d": d, "ks_p": p,
                    "library_samples": a}
    for key in ("false_suspicions_count", "false_removals_count", "refutations_count"):
        res[key.replace("_count", "_per_member_hour")] = {
            "library": rate_per_member_hour(lib, key)[0], "fdsim": rate_per_member_hour(sim, key)[0],
            "library_count": rate_per_member_hour(lib, key)[1],
            "fdsim_count": rate_per_member_hour(sim, key)[1]}
    for k in ("ping", "ack", "indirect_ping", "nack", "gossip", "tcp_ping", "push_pull", "total"):
        res["messages_" + k] = {
            "library": float(np.mean([r["messages_per_member_per_s"][k] for r in lib])) if lib else None,
            "fdsim": float(np.mean([r["messages_per_member_per_s"][k] for r in sim])) if sim else None}
    return res


def fmt_ci(t):
    m, lo, hi = t
    return f"{m:.3f} [{lo:.3f}, {hi:.3f}]"


def write_report(out, results, noise, figure):
    lines = []
    lines.append("| setting | N | metric | library median [95% CI] (s) | fdsim median [95% CI] (s) | KS D | KS p |")
    lines.append("|---|---|---|---|---|---|---|")
    for r in results:
        for key, label in (("detection_first_suspicion_s", "first suspicion"),
                           ("detection_first_removal_s", "first removal"),
                           ("detection_removal_all_s", "removal from every view")):
            if key in r:
                x = r[key]
                lines.append(f"| {r['setting']} | {r['n']} | {label} | {fmt_ci(x['library'])} | "
                             f"{fmt_ci(x['fdsim'])} | {x['ks_d']:.2f} | {x['ks_p']:.3g} |")
    table_det = "\n".join(lines)
    lines = ["| setting | library trials | fdsim reps | false suspicions /member-h (lib / fdsim) | "
             "false removals /member-h (lib / fdsim) | refutations /member-h (lib / fdsim) | "
             "packets /member/s (lib / fdsim) |", "|---|---|---|---|---|---|---|"]
    for r in results:
        fs, fr, rf = (r["false_suspicions_per_member_hour"], r["false_removals_per_member_hour"],
                      r["refutations_per_member_hour"])
        mt = r["messages_total"]
        lines.append(
            f"| {r['setting']} | {r['library_trials']} | {r['fdsim_replications']} | "
            f"{fs['library']:.1f} ({fs['library_count']}) / {fs['fdsim']:.1f} ({fs['fdsim_count']}) | "
            f"{fr['library']:.2f} ({fr['library_count']}) / {fr['fdsim']:.2f} ({fr['fdsim_count']}) | "
            f"{rf['library']:.1f} / {rf['fdsim']:.1f} | {mt['library']:.2f} / {mt['fdsim']:.2f} |")
    table_rates = "\n".join(lines)
    lines = ["| setting | ping | ack | indirect_ping | nack | gossip | tcp_ping | push_pull |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        cells = []
        for k in ("ping", "ack", "indirect_ping", "nack", "gossip", "tcp_ping", "push_pull"):
            m = r["messages_" + k]
            cells.append(f"{m['library']:.3f} / {m['fdsim']:.3f}")
        lines.append(f"| {r['setting']} | " + " | ".join(cells) + " |")
    table_msgs = "\n".join(lines)
    return table_det, table_rates, table_msgs


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    crash = [r for r in results if "detection_removal_all_s" in r]
    if not crash:
        return
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), squeeze=False)
    for ax, r in zip(axes.flat, crash[:6]):
        for key, color in (("detection_first_suspicion_s", "tab:blue"),
                           ("detection_removal_all_s", "tab:red")):
            x = r[key]
            lib = np.sort(x["library_samples"])
            ax.step(lib, np.arange(1, len(lib) + 1) / len(lib), where="post", color=color,
                    label=f"{key.split('_', 1)[1][:-2].replace('_', ' ')}: library")
            sim = np.sort(r[key]["fdsim_samples"])
            ax.step(sim, np.arange(1, len(sim) + 1) / len(sim), where="post", color=color,
                    linestyle="--", label="fdsim")
        ax.set_title(f"{r['setting']} (KS p removal-all {r['detection_removal_all_s']['ks_p']:.2g})",
                     fontsize=9)
        ax.set_xlabel("seconds after the crash")
        ax.set_ylabel("ECDF")
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    for ax in list(axes.flat)[len(crash):]:
        ax.axis("off")
    fig.suptitle("Crash detection: real memberlist (solid) vs fdsim SWIM model (dashed)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fdsim", default=os.path.join(REPO, "build", "fdsim"))
    ap.add_argument("--out", default=os.path.join(REPO, "results", "validation", "memberlist"))
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None, help="comma-separated setting ids")
    ap.add_argument("--harness-only", action="store_true", help="run (cache) the library only")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="fdsim-memberlist-")
    os.makedirs(work, exist_ok=True)
    exe = build_harness(work)
    raw_dir = os.path.join(work if args.quick else args.out, "raw")
    os.makedirs(raw_dir, exist_ok=True)
    todo = settings(args.quick)
    if args.only:
        keep = set(args.only.split(","))
        todo = [s for s in todo if s["id"] in keep]
    lib_rows = {}
    for i, s in enumerate(todo):
        lib_rows[s["id"]] = run_harness(exe, s, raw_dir, seed=11 + i, cache=not args.quick)
        print(f"compare: library {s['id']}: {len(lib_rows[s['id']])} trials", flush=True)
    if args.harness_only:
        return 0
    results, noise = [], []
    for s in todo:
        if s.get("repeat_of"):
            continue
        sim = run_fdsim(args.fdsim, s, work)
        r = compare(s, lib_rows[s["id"]], sim)
        for key in ("detection_first_suspicion_s", "detection_first_removal_s",
                    "detection_removal_all_s"):
            if key in r:
                r[key]["fdsim_samples"] = values(sim, key)
        results.append(r)
    for s in todo:
        if s.get("repeat_of") and s["repeat_of"] in lib_rows:
            a, b = lib_rows[s["repeat_of"]], lib_rows[s["id"]]
            for key in ("detection_first_suspicion_s", "detection_removal_all_s"):
                d, p = ks_2samp(values(a, key), values(b, key))
                noise.append({"setting": s["repeat_of"], "metric": key, "run1": median_ci(values(a, key)),
                              "run2": median_ci(values(b, key)), "ks_d": d, "ks_p": p})
    if args.quick:
        r = results[0]
        lib = r["detection_removal_all_s"]["library"][0]
        sim = r["detection_removal_all_s"]["fdsim"][0]
        print(f"compare: quick: removal from every view, median library {lib:.3f} s, fdsim {sim:.3f} s")
        ok = (len(values(lib_rows[todo[0]["id"]], "detection_removal_all_s")) == todo[0]["trials"]
              and abs(sim / lib - 1.0) < 0.5)
        return 0 if ok else 1
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "comparison.json"), "w") as f:
        json.dump({"results": results, "noise": noise}, f, indent=1, sort_keys=True)
    plot(results, os.path.join(args.out, "detection_ecdf.png"))
    det, rates, msgs = write_report(args.out, results, noise, None)
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write("## Crash detection\n\n" + det + "\n\n## Rates\n\n" + rates +
                "\n\n## Packets per member per second (library / fdsim)\n\n" + msgs + "\n\n")
        f.write("## Noise: the library against itself\n\n| setting | metric | run 1 median [CI] | run 2 median [CI] | KS D | KS p |\n|---|---|---|---|---|---|\n")
        for z in noise:
            f.write(f"| {z['setting']} | {z['metric']} | {fmt_ci(z['run1'])} | {fmt_ci(z['run2'])} | {z['ks_d']:.2f} | {z['ks_p']:.3g} |\n")
    print("compare: wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
