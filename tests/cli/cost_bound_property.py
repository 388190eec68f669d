#!/usr/bin/python3
"""The cost estimate is an upper bound: a property test through the real binary.

Random valid scenarios of every model and every stressor (each shipped example scenario,
resized at random: node count, horizon, seed, loss, and the stressors it already has), each small
enough to run in about a second, are run with `fdsim run --stdout`; for every simulation the
result's run_stats give what it really used (`simulations[].work_count`: events plus the work
charged inside events; `simulations[].peak_heap_bytes`: the heap it held at its peak) and what
validation estimated (`budget.estimated_events_count`, `budget.estimated_memory_bytes`). The property
(docs/scenario-format.md, "Cost estimate"):

    work_count      <= estimated_events_count
    peak_heap_bytes <= estimated_memory_bytes + MEMORY_CONSTANT_BYTES

It prints the distribution of actual / estimate (min, median, 90th percentile, max, per model)
and fails listing every case that breaks the property, with the scenario written to --keep.

A second round applies each Geode stressor (geode_stressor: crash processes, pauses, sick and
play-dead windows, loss bursts, delay spikes, starved members, lossy or slow networks, a detector
arm, crashes with recoveries, partitions) to --geode-cases resized Geode scenarios; their rows
are "geode:<stressor>", so each term of the Geode bound (models/geode/cost_bound.h) is seen.

A third round (large_geode) runs `current` rings of 1 000-3 000 members with a process crash,
ten crashes, a host crash and a partition of a tenth (rows "geode-large:<case>"), where the
terms that grow with n (a crashed process's connection holders, the partition's views) dominate.

Usage: cost_bound_property.py FDSIM [--cases 120] [--geode-cases 4] [--large-geode-cases 1]
                              [--seed 1] [--keep DIR]
"""
import argparse
import copy
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "fuzz"))
from edge_fuzz import absolutize_files  # noqa: E402  (data file paths made absolute)
# The documented constant of the memory bound: tables every simulation builds whatever its
# size (kind names, metric registries, the first blocks of the engine's pools).
MEMORY_CONSTANT_BYTES = 4 << 20


def shipped_scenarios():
    out = []
    for f in sorted(glob.glob(os.path.join(REPO, "scenarios", "examples", "**", "*.json"),
                              recursive=True)):
        with open(f) as fh:
            doc = json.load(fh)
        if isinstance(doc, dict) and "axes" not in doc and "base" not in doc:
            out.append(f)
    return out


def model_of(doc):
    for key in ("swim", "jgroups", "detectors", "load_sharing", "membership"):
        if key in doc:
            return key
    return "membership"


def nodes_referenced(doc):
    """The largest node id a scenario names explicitly (fault targets, pairs, starved nodes)."""
    top = -1
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("nodes", "node", "sender", "monitors", "spare_nodes", "members", "to", "from",
                     "locators", "target", "targets") and not (k == "nodes" and isinstance(v, dict)
                                                               and "count" in v):
                top = max(top, _ids(v))
            top = max(top, nodes_referenced(v))
    elif isinstance(doc, list):
        for v in doc:
            top = max(top, nodes_referenced(v))
    return top


def _ids(v):
    if isinstance(v, bool):
        return -1
    if isinstance(v, int):
        return v
    if isinstance(v, list):
        return max([_ids(x) for x in v] + [-1])
    if isinstance(v, dict):
        return max([_ids(x) for k, x in v.items() if k in ("from", "to")] + [-1])
    return -1


def mutate(doc, rng, stressed=True, max_nodes=48):
    """A resized copy of a shipped scenario (None when it cannot be resized safely)."""
    d = copy.deepcopy(doc)
    d.pop("$schema", None)
    d["replications"] = 1
    d["seed"] = rng.randrange(1, 1 << 31)
    n0 = d.get("nodes", {}).get("count", 8)
    floor = max(2, nodes_referenced(d) + 1)
    if floor <= n0:
        d.setdefault("nodes", {})["count"] = rng.randint(
            floor, max(floor, min(max(n0 * 2, max_nodes // 2), max_nodes)))
    h0 = float(d.get("horizon_s", 60))
    w0 = float(d.get("warmup_s", 0))
    horizon = min(h0, rng.choice([5, 10, 30, 60, 120]))
    if horizon <= w0:
        d["warmup_s"] = horizon / 2
    d["horizon_s"] = horizon
    net = d.setdefault("network", {})
    if "loss" in net and isinstance(net["loss"], (int, float)) and rng.random() < 0.5:
        net["loss"] = rng.choice([0.0, 0.01, 0.1, 0.3])
    d.setdefault("metrics", {})
    if stressed and rng.random() < 0.35:
        stress(d, rng)
    if isinstance(d.get("output"), dict):
        d["output"]["trace"] = False
    return d


def stress(d, rng):
    """One hostile stressor on top: a starved host (bounded or not), a large buddy set, batch
    arrivals, a Geode suspicion fan-out to the whole view with half the nodes partitioned or
    crashed, one of the Geode stressors (geode_stressor), the CET load index with a fast
    execution prior (large T_out chains, near-critical with an arrival prior near it), or a
    lossy, slow network."""
    n = d["nodes"]["count"]
    kinds = ["starved", "network"]  # every model
    if "load_sharing" in d:
        kinds += ["buddies", "batches"]
        if any(a.get("diagnosis", "").startswith("hou_shin")
               for a in d["load_sharing"].get("arms", [])):
            kinds.append("cet")
    if model_of(d) == "membership":
        kinds += ["fanout", "geode"]
    kind = rng.choice(kinds)
    net = d.setdefault("network", {})
    if kind == "starved":
        entry = {"nodes": [rng.randrange(n)], "at_s": 0, "duration_s": d["horizon_s"],
                 "service": {"model": "constant", "ms": rng.choice([1, 50, 1e6])}}
        if rng.random() < 0.5:
            entry["queue_limit"] = rng.choice([1, 16, 1000])
        net.setdefault("starved", []).append(entry)
    elif kind == "buddies" and "load_sharing" in d:
        d["load_sharing"]["buddy_size"] = rng.randint(1, n)
    elif kind == "batches" and "workload" in d:
        w = d["workload"]
        w.pop("load_phases", None)
        w.pop("arrival_rate_per_s", None)
        w["arrival_processes"] = [{"nodes": "all", "model": "batch_poisson",
                                   "batch_rate_per_s": rng.choice([0.05, 0.5]),
                                   "batch_size": {"distribution": "deterministic",
                                                  "value": rng.choice([2, 50, 500])}}]
    elif kind == "fanout":
        # Geode suspicion fan-out to the whole view, and half the nodes partitioned or crashed.
        m = d.setdefault("membership", {})
        m["profile"] = rng.choice(["wiki", "current"])
        m["max_suspect_recipients"] = rng.choice([64, 1000])
        m["small_view_size"] = rng.choice([0, 4, 1000])
        half = n // 2
        at = d["horizon_s"] / 3
        if rng.random() < 0.5 and n >= 4:
            d.setdefault("faults", []).append(
                {"kind": "partition", "at_s": at, "a": {"from": 0, "to": half - 1},
                 "b": {"from": half, "to": n - 1}})
        elif n >= 4:
            locs = d.get("nodes", {}).get("locators", [])
            victims = [i for i in range(half, n) if i not in locs]
            if victims:
                d.setdefault("faults", []).append({"kind": "crash", "at_s": at, "nodes": victims})
    elif kind == "geode":
        geode_stressor(d, rng)
    elif kind == "cet":
        ls = d["load_sharing"]
        ls["load_index"] = "cet"
        ls["th_u"] = rng.choice([0.5, 1.5])
        ls["th_f"] = rng.choice([2, 5])
        prior = rng.choice([1, 5, 10, 20, 200, 1000])
        ls["estimation"] = {"execution_prior_shape": prior, "execution_prior_exposure_s": 1}
        if rng.random() < 0.5:
            # An arrival prior near the execution prior: near-critical regions of up to a
            # thousand states, whose T_out takes the run span's fallback
            # (models/timeout/capped_quantile.h).
            ls["estimation"].update({"arrival_prior_shape": 0.99 * prior,
                                     "arrival_prior_exposure_s": 1})
    else:
        net["loss"] = rng.choice([0.05, 0.3])
        net["latency"] = {"model": "exponential", "min_ms": 1, "mean_ms": rng.choice([5, 200])}


GEODE_STRESSORS = ["crash_process", "pause_process", "pause", "sick", "play_dead", "loss_burst",
                   "delay_spike", "starved", "lossy", "slow", "detector", "crash_recover",
                   "partition"]


def geode_stressor(d, rng, kind=None):
    """One of the stressors the Geode cost bound counts (models/geode/cost_bound.h), strong
    enough that the suspicions it causes dominate the run's work: crash processes, pauses,
    sick or play-dead windows, loss bursts, delay spikes, starved members, lossy or slow
    networks, a detector arm, scheduled crashes and recoveries."""
    n = d["nodes"]["count"]
    h = d["horizon_s"]
    m = d.setdefault("membership", {})
    m["profile"] = rng.choice(["wiki", "current"])
    m["member_timeout_ms"] = rng.choice([500, 1000, 5000])
    if rng.random() < 0.3:
        m["max_suspect_recipients"] = rng.choice([64, 1000])
        m["small_view_size"] = rng.choice([0, 1000])
    locs = set(d.get("nodes", {}).get("locators", []))
    named = {f.get("kind") for f in d.get("faults", [])}
    free = [i for i in range(n) if i not in locs]
    many = {"from": n // 4, "to": n - 1}
    kind = kind or rng.choice(GEODE_STRESSORS)
    faults = d.setdefault("faults", [])
    if kind == "crash_process" and "churn" not in named:
        faults.append({"kind": "crash_process", "nodes": many, "mean_up_s": rng.choice([2, 10, 30]),
                       "mean_down_s": rng.choice([1, 5])})
    elif kind == "crash_recover" and "churn" not in named:
        victims = free[len(free) // 2:]
        for k in range(rng.randint(1, 4)):
            at = h * (k + 1) / 6
            faults.append({"kind": "crash", "at_s": at, "nodes": victims})
            faults.append({"kind": "recover", "at_s": at + h / 12, "nodes": victims})
    elif kind == "partition":
        # Healed, or lasting to the horizon (the bound counts those differently).
        p = {"kind": "partition", "at_s": h / 4, "a": {"from": 0, "to": n // 2 - 1},
             "one_way": rng.random() < 0.5}
        if rng.random() < 0.5:
            p["heal_at_s"] = h * 3 / 4
        faults.append(p)
    elif kind == "pause_process":
        faults.append({"kind": "pause_process", "nodes": "all",
                       "mean_interval_s": rng.choice([2, 5, 20]),
                       "duration_ms": rng.choice([300, 2000, 8000])})
    elif kind == "pause":
        faults.append({"kind": "pause", "at_s": h / 4, "duration_ms": h * 500, "nodes": many})
    elif kind in ("sick", "play_dead"):
        faults.append({"kind": kind, "at_s": h / 4, "duration_s": h / 2, "nodes": many})
    elif kind == "loss_burst":
        faults.append({"kind": "loss_burst", "at_s": h / 4, "duration_s": h / 2,
                       "loss": rng.choice([0.5, 0.9, 1.0])})
    elif kind == "delay_spike":
        faults.append({"kind": "delay_spike", "at_s": h / 4, "duration_s": h / 2,
                       "extra_ms": rng.choice([300, 3000, 8000])})
    elif kind == "starved":
        d.setdefault("network", {}).setdefault("starved", []).append(
            {"nodes": free[-max(1, n // 4):], "at_s": 0, "duration_s": h,
             "service": {"model": "constant", "ms": rng.choice([50, 2000, 1e6])},
             "queue_limit": 1000})
    elif kind == "lossy":
        net = d.setdefault("network", {})
        net.pop("loss_model", None)
        net["loss"] = rng.choice([0.1, 0.3, 0.6])
    elif kind == "slow":
        d.setdefault("network", {})["latency"] = {
            "model": "exponential", "min_ms": 1, "mean_ms": rng.choice([100, 1000, 3000])}
    else:  # detector
        m["neighbour_check"] = [{"name": "phi", "detector": {"kind": "phi_accrual"}}]
        d.setdefault("network", {})["loss"] = rng.choice([0.05, 0.3])
        d["network"].pop("loss_model", None)


LARGE_GEODE = ["process_crash", "crashes", "host_crash", "partition_tenth"]


def large_geode(rng, kind):
    """A `current` ring of 1 000-3 000 members (bench/scale.sh's geode-removal set-up, 30 s
    simulated) with one removal case, so that the terms that grow with n are seen at a size
    where they dominate: a process crash early in the view (almost every member holds a
    start-up connection from it and checks it: models/geode/cost_bound.h), ten crashes spread
    over the view, a host crash with unreachable_send_errors, a partition of a tenth lasting to
    the horizon. Each runs in about a second in Release."""
    n = rng.randint(1000, 3000)
    h = 30.0
    at = rng.choice([5.0, 10.0])
    m = {"profile": "current", "member_timeout_ms": rng.choice([2000, 5000]), "members": "all",
         "send_jitter_ms": 10, "start_offset_max_ms": 100}
    if rng.random() < 0.5:
        m["app_messages_per_s"] = rng.choice([0.2, 1.0])
    if kind == "process_crash":
        faults = [{"kind": "crash", "at_s": at, "nodes": [rng.randint(1, 3)]}]
    elif kind == "crashes":
        faults = [{"kind": "crash", "at_s": at, "nodes": [1 + i * (n // 10) for i in range(10)]}]
    elif kind == "host_crash":
        m["crash_kind"] = "host"
        m["unreachable_send_errors"] = True
        faults = [{"kind": "crash", "at_s": at, "nodes": [rng.randint(1, n - 1)]}]
    else:
        # A tenth: the last members in view order (bench/scale.sh), the first ones (with the
        # coordinator: the small side coordinates), or every tenth member (many crossings).
        where = rng.choice(["last", "first", "scattered"])
        a = ({"from": n - n // 10, "to": n - 1} if where == "last" else
             {"from": 0, "to": n // 10 - 1} if where == "first" else
             list(range(5, n, 10)))
        faults = [{"kind": "partition", "at_s": at, "a": a, "one_way": rng.random() < 0.3}]
    return {"name": f"large-{kind}", "seed": rng.randrange(1, 1 << 31), "horizon_s": h,
            "nodes": {"count": n, "locators": [0]},
            "network": {"latency": {"model": "exponential", "min_ms": 0.2, "mean_ms": 1},
                        "loss": rng.choice([0.0, 0.01])},
            "faults": faults, "membership": m}


def run_case(fdsim, doc, workdir):
    p = subprocess.run([fdsim, "run", "-", "--stdout", "--quiet"], input=json.dumps(doc),
                       capture_output=True, text=True, cwd=workdir, timeout=300)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fdsim")
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--geode-cases", type=int, default=4,
                    help="runs per Geode stressor in the Geode round")
    ap.add_argument("--large-geode-cases", type=int, default=1,
                    help="runs per large Geode removal case (large_geode)")
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    a.fdsim = os.path.abspath(a.fdsim)
    rng = random.Random(a.seed)
    sources = shipped_scenarios()
    docs = []
    for f in sources:
        with open(f) as fh:
            doc = json.load(fh)
        absolutize_files(doc, os.path.dirname(f))
        docs.append((os.path.relpath(f, REPO), doc))
    ratios = {}  # model (or "geode:<stressor>") -> list of (events ratio, memory ratio)
    failures = []
    skipped = 0
    runs = 0
    # The random round, then the Geode round: each Geode stressor (geode_stressor) on
    # --geode-cases resized Geode scenarios, so that every term of the Geode bound is exercised
    # by runs whose work it dominates (their rows are "geode:<stressor>").
    cases = [(None, None)] * a.cases
    geode_docs = [(nm, d) for nm, d in docs if model_of(d) == "membership"
                  and "workload" not in d and not any(
                      f.get("kind") == "churn" for f in d.get("faults", []))]
    for kind in GEODE_STRESSORS:
        cases += [(kind, k) for k in range(a.geode_cases)]
    for kind in LARGE_GEODE:
        cases += [("large:" + kind, k) for k in range(a.large_geode_cases)]
    with tempfile.TemporaryDirectory() as work:
        for case, (kind, _) in enumerate(cases):
            if kind is None:
                name, base = docs[case % len(docs)] if case < len(docs) else rng.choice(docs)
                doc = mutate(base, rng)
                label = model_of(doc)
            elif kind.startswith("large:"):
                name = "large Geode ring"
                doc = large_geode(rng, kind[len("large:"):])
                label = "geode-" + kind
            else:
                name, base = rng.choice(geode_docs)
                # Up to 160 members: a stressor's suspicions (each about n messages and view
                # changes of n members) then outweigh the periodic traffic (n per period).
                doc = mutate(base, rng, stressed=False, max_nodes=160)
                geode_stressor(doc, rng, kind)
                label = "geode:" + kind
            runs += 1
            p = run_case(a.fdsim, doc, work)
            if p.returncode == 2 and "budget exceeded" not in p.stderr:
                skipped += 1  # a resize the scenario does not allow (validation says why)
                continue
            if p.returncode != 0:
                failures.append((name, doc, f"exit {p.returncode}: {p.stderr.strip()[:300]}"))
                continue
            for line in p.stdout.splitlines():
                r = json.loads(line)
                stats = r["run_stats"]
                est = stats["budget"]
                for sim in stats["simulations"]:
                    ev = sim["work_count"] / max(1.0, est["estimated_events_count"] or 0.0)
                    mem_est = est["estimated_memory_bytes"] or 0.0
                    heap = sim["peak_heap_bytes"]
                    mr = heap / max(1.0, mem_est) if heap >= 0 else float("nan")
                    ratios.setdefault(label, []).append((ev, mr))
                    why = []
                    if sim["work_count"] > (est["estimated_events_count"] or 0.0):
                        why.append(f"work {sim['work_count']:.4g} > estimated events "
                                   f"{est['estimated_events_count']:.4g}")
                    if heap >= 0 and heap > mem_est + MEMORY_CONSTANT_BYTES:
                        why.append(f"peak heap {heap:.4g} B > estimate {mem_est:.4g} B + "
                                   f"{MEMORY_CONSTANT_BYTES} B")
                    if why:
                        failures.append((name, doc, "; ".join(why) + f" (arms {sim['arms']}, "
                                         f"{label})"))
    print(f"actual / estimate over {runs - skipped} runs ({skipped} resizes refused by "
          f"validation), seed {a.seed}:")
    print(f"{'model':<22}{'runs':>6}  {'events: min':>12}{'median':>8}{'p90':>8}{'max':>8}"
          f"  {'memory: min':>12}{'median':>8}{'p90':>8}{'max':>8}")
    for model in sorted(ratios):
        ev = sorted(r[0] for r in ratios[model])
        mem = sorted(r[1] for r in ratios[model] if r[1] == r[1])

        def q(v, p):
            return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
        print(f"{model:<22}{len(ev):>6}  {ev[0]:>12.3g}{statistics.median(ev):>8.3g}"
              f"{q(ev, 0.9):>8.3g}{ev[-1]:>8.3g}  "
              + (f"{mem[0]:>12.3g}{statistics.median(mem):>8.3g}{q(mem, 0.9):>8.3g}"
                 f"{mem[-1]:>8.3g}" if mem else f"{'(heap not counted)':>36}"))
    if failures:
        print(f"\n{len(failures)} runs break the bound:")
        for i, (name, doc, why) in enumerate(failures):
            print(f"  {name}: {why}")
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                with open(os.path.join(a.keep, f"case{i}.json"), "w") as fh:
                    json.dump(doc, fh, indent=1)
        return 1
    print("every run within its estimate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
