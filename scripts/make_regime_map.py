#!/usr/bin/env python3
"""Writes the regime-map study of fixed against adaptive timeouts (issue 29):

  scenarios/studies/regime-map.json         base scenario: 16 nodes and every arm family at
                                            several parameter values (each family gets a
                                            cost-P(df) frontier), on common random numbers
  scenarios/studies/regime-map-sweep.json   the full map: 18 regimes x 12 replications
  scenarios/sweeps/regime-map-small.json    the main job's reduced map: 5 regimes, 6
                                            replications, half-hour horizons

The design is not a full factorial. It is two anchor regimes and one-factor-at-a-time
departures from each (docs in results/fixed-vs-adaptive/README.md, "Design"):

  anchor S ("stress", the shipped regime of the earlier study): mean up time 20 min, repair
    60 s, load 0.8, 2 % independent loss, light lognormal delay (median 5 ms, sigma 1), 16 nodes;
  anchor R ("realistic"): mean up time 6 h, repair 5 min, load 0.8, no loss, light delay, 16
    nodes, 3 h horizons (so that a run still sees about 8 crashes).

From S: load 0.5 / 0.95 / changing uneven; loss 0 / 10 % / bursty (Gilbert-Elliott, the same
2 % mean in bursts of 10 packets); heavy-tailed delay (Pareto, alpha 1.2, scale 5 ms: mean 30 ms, 99.9th percentile 1.5 s) / a
replayed delay trace (AR(1) log-delays with slow periods in runs, 2 % loss in 1 s bursts:
regime-map-delay-trace-ms.txt, made by scripts/make_delay_trace.py); 8 / 64 nodes; correlated
failures (half of each node's crash rate comes from its rack of 4 failing at once); mean up time
2 h. From R: mean up time 1 day; 10 % loss; bursty loss; changing uneven load.

Deterministic; run from the repository root:  /usr/bin/python3 scripts/make_regime_map.py
"""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LIGHT = {"model": "lognormal", "min_ms": 1, "median_ms": 5, "sigma": 1.0}
PARETO = {"model": "pareto", "min_ms": 5, "alpha": 1.2}
TRACE = {"model": "trace", "file": "regime-map-delay-trace-ms.txt", "links": "offset"}
# Gilbert-Elliott per packet: pi_B = p_gb / (p_gb + p_bg) = 0.02 with loss 1 in the bad state,
# mean burst 1 / p_bg = 10 packets.
BURSTY = {"model": "gilbert_elliott", "p_good_to_bad": 0.002 / 0.98, "p_bad_to_good": 0.1,
          "loss_good": 0, "loss_bad": 1}


def arms():
    a = [{"name": "none", "diagnosis": "none"}]
    for t in (2, 5, 10, 20, 30, 60):
        a.append({"name": f"fixed_{t}s", "diagnosis": "fixed", "timeout_ms": t * 1000})
    for p, t in ((1, 3), (2, 5), (5, 12), (10, 25)):
        a.append({"name": f"fixed_on_silence_{p}s_{t}s", "diagnosis": "fixed_on_silence",
                  "period_ms": p * 1000, "timeout_ms": t * 1000})
    for p, t in ((1, 3), (2, 5), (5, 12), (10, 25)):
        a.append({"name": f"fixed_periodic_{p}s_{t}s", "diagnosis": "fixed_periodic",
                  "period_ms": p * 1000, "timeout_ms": t * 1000})
    for al in (0.01, 0.05, 0.1, 0.3):
        a.append({"name": f"hou_shin_a{al:g}", "diagnosis": "hou_shin", "alpha": al})
    for al in (0.01, 0.05, 0.1, 0.3):
        a.append({"name": f"hou_shin_extra_a{al:g}", "diagnosis": "hou_shin_extra", "alpha": al})
    for m in (2, 5, 10, 20):
        a.append({"name": f"geode_ring_{m}s", "diagnosis": "geode_ring",
                  "member_timeout_ms": m * 1000})
    a += [{"name": "oracle", "diagnosis": "oracle"},
          {"name": "oracle_extra", "diagnosis": "oracle_extra", "alpha": 0.05},
          {"name": "oracle_periodic_1s", "diagnosis": "oracle_periodic", "period_ms": 1000},
          {"name": "periodic_no_diagnosis_1s", "diagnosis": "periodic_no_diagnosis",
           "period_ms": 1000}]
    return a


def small_arms():
    """The reduced map's arms: two or three values per family (the main job's budget)."""
    keep = {"none", "fixed_5s", "fixed_10s", "fixed_30s", "fixed_on_silence_2s_5s",
            "fixed_on_silence_5s_12s", "fixed_periodic_1s_3s", "fixed_periodic_5s_12s",
            "hou_shin_a0.05", "hou_shin_extra_a0.05", "hou_shin_extra_a0.1", "geode_ring_5s",
            "geode_ring_10s", "oracle", "periodic_no_diagnosis_1s", "oracle_periodic_1s"}
    return [a for a in arms() if a["name"] in keep]


def nodes(n):
    """n nodes; groups even/odd (changing load) and racks of 4 (correlated failures)."""
    groups = {"even": list(range(0, n, 2)), "odd": list(range(1, n, 2))}
    for r in range(n // 4):
        groups[f"rack{r}"] = list(range(4 * r, 4 * r + 4))
    return {"count": n, "groups": groups}


def crashes(mean_up_s, mean_down_s, n, correlated=False):
    if not correlated:
        return [{"kind": "crash_process", "nodes": "all", "mean_up_s": mean_up_s,
                 "mean_down_s": mean_down_s}]
    # Half of each node's crash rate alone, half with its rack: per-node rate unchanged.
    f = [{"kind": "crash_process", "nodes": "all", "mean_up_s": 2 * mean_up_s,
          "mean_down_s": mean_down_s}]
    for r in range(n // 4):
        f.append({"kind": "group_crash_process", "nodes": f"rack{r}",
                  "mean_up_s": 2 * mean_up_s, "mean_down_s": mean_down_s})
    return f


def changing_phases(horizon_s, period_s=900):
    """Even and odd nodes alternate between loads 0.3 and 0.95 every period_s."""
    phases = []
    for i, t in enumerate(range(0, int(horizon_s), period_s)):
        lo, hi = ("even", "odd") if i % 2 == 0 else ("odd", "even")
        phases.append({"nodes": lo, "from_s": t, "rate_per_s": 0.3})
        phases.append({"nodes": hi, "from_s": t, "rate_per_s": 0.95})
    return phases


def regime(key, label, anchor, *, mean_up_s, mean_down_s, load=0.8, changing=False, loss=0.0,
           loss_model=None, latency=LIGHT, n=16, correlated=False, horizon_s=3600,
           warmup_s=300):
    network = {"latency": latency}
    if loss_model is not None:
        network["loss_model"] = loss_model
    elif loss > 0:
        network["loss"] = loss
    return {"key": key, "label": label, "anchor": anchor, "horizon_s": horizon_s,
            "warmup_s": warmup_s, "nodes": nodes(n), "network": network,
            "faults": crashes(mean_up_s, mean_down_s, n, correlated),
            "arrival_rate_per_s": 0.625 if changing else load,
            "load_phases": changing_phases(horizon_s) if changing else [],
            "buddy_size": min(10, n - 1)}


def regimes():
    S = dict(mean_up_s=1200, mean_down_s=60, loss=0.02)
    R = dict(mean_up_s=21600, mean_down_s=300, horizon_s=10800, warmup_s=600)
    out = [
        regime("S", "S: stress anchor (up 20 min, load 0.8, 2% loss)", "S", **S),
        regime("S.load0.5", "S, load 0.5", "S", **S, load=0.5),
        regime("S.load0.95", "S, load 0.95", "S", **S, load=0.95),
        regime("S.changing", "S, changing uneven load", "S", **S, changing=True),
        regime("S.loss0", "S, no loss", "S", **{**S, "loss": 0.0}),
        regime("S.loss10", "S, 10% loss", "S", **{**S, "loss": 0.10}),
        regime("S.bursty", "S, bursty loss (GE, 2% in bursts of 10)", "S",
               **{**S, "loss": 0.0}, loss_model=BURSTY),
        regime("S.pareto", "S, Pareto delay (alpha 1.2)", "S", **S, latency=PARETO),
        regime("S.trace", "S, replayed delay trace (2% bursty loss)", "S",
               **{**S, "loss": 0.0}, latency=TRACE),
        regime("S.n8", "S, 8 nodes", "S", **S, n=8),
        regime("S.n64", "S, 64 nodes", "S", **S, n=64),
        regime("S.rack", "S, correlated rack failures", "S", **S, correlated=True),
        regime("S.up2h", "S, up 2 h", "S", **{**S, "mean_up_s": 7200}),
        regime("R", "R: realistic anchor (up 6 h, load 0.8, no loss)", "R", **R),
        regime("R.up1d", "R, up 1 day", "R", **{**R, "mean_up_s": 86400}),
        regime("R.loss10", "R, 10% loss", "R", **R, loss=0.10),
        regime("R.bursty", "R, bursty loss (GE)", "R", **R, loss_model=BURSTY),
        regime("R.changing", "R, changing uneven load", "R", **R, changing=True),
    ]
    return out


def base(arm_list):
    return {
        "name": "regime-map",
        "description": "The fixed-versus-adaptive regime map (issue 29; scripts/make_regime_map.py "
                       "writes this file and its sweeps): Hou-Shin load sharing (buddy sets of "
                       "10, mu = 1/s, deadlines uniform in 2..8 s) with every diagnosis family at "
                       "several parameter values on common random numbers, so that each family "
                       "has a cost-P(df) frontier. The sweeps set the regime.",
        "seed": 2029,
        "replications": 1,
        "horizon_s": 3600,
        "warmup_s": 300,
        "nodes": nodes(16),
        "network": {"latency": LIGHT, "loss": 0.02},
        "faults": crashes(1200, 60, 16),
        "workload": {"arrival_rate_per_s": 0.8,
                     "execution": {"distribution": "exponential", "rate_per_s": 1.0},
                     "deadline": {"kind": "uniform", "min_s": 2, "max_s": 8}},
        "load_sharing": {"buddy_size": 10, "arms": arm_list},
        "membership": {"profile": "wiki", "member_timeout_ms": 5000},
    }


def sweep(name, description, base_path, regs, replications, horizon_scale=1.0):
    def col(path, f):
        return {"path": path, "values": [f(r) for r in regs]}
    def scaled(r, key):
        return round(r[key] * horizon_scale)
    def phases(r):
        if not r["load_phases"]:
            return []
        return changing_phases(scaled(r, "horizon_s"))
    return {
        "name": name,
        "description": description,
        "base": base_path,
        "axes": [{"zip": [
            dict(col("$.description", lambda r: r["label"]), name="regime"),
            dict(col("$.name", lambda r: "regime-map-" + r["key"]), name="regime_key"),
            dict(col("$.horizon_s", lambda r: scaled(r, "horizon_s")), name="horizon_s"),
            dict(col("$.warmup_s", lambda r: scaled(r, "warmup_s")), name="warmup_s"),
            dict(col("$.nodes", lambda r: r["nodes"]), name="nodes"),
            dict(col("$.network", lambda r: r["network"]), name="network"),
            dict(col("$.faults", lambda r: r["faults"]), name="faults"),
            dict(col("$.workload.arrival_rate_per_s", lambda r: r["arrival_rate_per_s"]),
                 name="arrival_rate_per_s"),
            dict(col("$.workload.load_phases", phases), name="load_phases"),
            dict(col("$.load_sharing.buddy_size", lambda r: r["buddy_size"]),
                 name="buddy_size"),
        ]}],
        "replications": replications,
    }


def write(rel, doc):
    path = os.path.join(ROOT, rel)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    print("wrote", rel)


def main():
    regs = regimes()
    write("scenarios/studies/regime-map.json", base(arms()))
    write("scenarios/studies/regime-map-sweep.json", sweep(
        "regime-map",
        "The fixed-versus-adaptive regime map (issue 29): 18 regimes (two anchors, S = stress and "
        "R = realistic, and one-factor-at-a-time departures from each) x 12 replications, every "
        "arm family with its frontier. scripts/regenerate_results.sh regime-map writes "
        "results/fixed-vs-adaptive/ (analysis: fdsim-analysis study regime-map).",
        "regime-map.json", regs, 12))
    small_keys = ("S", "S.loss10", "S.bursty", "R", "R.changing")
    small = [r for r in regs if r["key"] in small_keys]
    write("scenarios/studies/regime-map-small.json", {**base(small_arms()),
                                                       "name": "regime-map-small"})
    write("scenarios/sweeps/regime-map-small.json", sweep(
        "regime-map-small",
        "The main job's reduced regime map (./quickstart.sh run): 5 of the 18 regimes of "
        "scenarios/studies/regime-map-sweep.json, 16 of its 35 arms, half-length horizons, 6 "
        "replications. A preview of the map's shape, not its evidence: the full map is "
        "results/fixed-vs-adaptive/.",
        "../studies/regime-map-small.json", small, 6, horizon_scale=0.5))


if __name__ == "__main__":
    main()
