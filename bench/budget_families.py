#!/usr/bin/python3
"""The hostile scenario families of the run-budget work, each run with default settings under a
4 GB address-space cap (`ulimit -v 4194304`): every one must end in exit 0 or 2 within 60 s,
with one budget or refusal line when it stops (docs/scenario-format.md, "Run budgets").

Prints one row per family: exit code, wall seconds, and the first line of stderr (or "ok").
Exits 1 if a family ends otherwise (another exit code, a signal, or more than 60 s; each run
is killed after 90 s so that a regression is seen, not waited for).

Not a ctest: the families together take about a minute of wall time (several stop only at their
budget). Run it after changing the cost estimate or the budgets:

    bench/budget_families.py build/fdsim [--only NAME ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CAP_KB = 4194304
LIMIT_S = 60.0
KILL_S = 90.0


def heartbeat_starved(horizon_s):
    return {"name": "starved", "seed": 1, "horizon_s": horizon_s, "nodes": {"count": 2},
            "network": {"latency": {"model": "constant", "ms": 1},
                        "starved": [{"nodes": [1], "at_s": 0, "duration_s": horizon_s,
                                     "service": {"model": "constant", "ms": 1e9}}]},
            "detectors": {"senders": "all", "monitors_per_sender": 1, "heartbeat_period_ms": 1,
                          "arms": [{"name": "fixed",
                                    "detector": {"kind": "fixed", "timeout_ms": 3}}]}}


def load_sharing(n, buddy_size, arrivals):
    return {"name": "ls", "seed": 1, "horizon_s": 60, "nodes": {"count": n},
            "network": {"latency": {"model": "constant", "ms": 1}},
            "workload": dict(arrivals, **{
                "execution": {"distribution": "exponential", "rate_per_s": 1},
                "deadline": {"kind": "uniform", "min_s": 2, "max_s": 10}}),
            "load_sharing": {"buddy_size": buddy_size,
                             "arms": [{"name": "none", "diagnosis": "none"}]}}


def swim_churn():
    return {"name": "swim-churn", "seed": 1, "horizon_s": 60, "nodes": {"count": 3000},
            "network": {"latency": {"model": "constant", "ms": 1}},
            "faults": [{"kind": "churn", "nodes": {"from": 0, "to": 1999},
                        "spare_nodes": {"from": 2000, "to": 2999},
                        "mean_session_s": 1, "leave": "crash", "mean_join_interval_s": 0.001}],
            "swim": {}}


def geode_fanout(n, profile):
    return {"name": "geode-fanout", "seed": 1, "horizon_s": 200,
            "nodes": {"count": n, "locators": [0, 1]},
            "network": {"latency": {"model": "constant", "ms": 1}},
            "faults": [{"kind": "partition", "at_s": 120, "a": {"from": 0, "to": n // 2 - 1},
                        "b": {"from": n // 2, "to": n - 1}}],
            "membership": {"profile": profile, "member_timeout_ms": 5000,
                           "small_view_size": 1000000, "max_suspect_recipients": 1000000}}


def geode_mass_crash(n):
    return {"name": "geode-crash", "seed": 1, "horizon_s": 200,
            "nodes": {"count": n, "locators": [0, 1]},
            "network": {"latency": {"model": "constant", "ms": 1}},
            "faults": [{"kind": "crash", "at_s": 120, "nodes": {"from": 2, "to": n // 2 - 1}}],
            "membership": {"profile": "wiki", "member_timeout_ms": 5000}}


def cet(prior_shape, arrival_prior=None):
    s = cet_base(prior_shape)
    if arrival_prior is not None:
        # The estimated input rate starts near the execution rate: near-critical regions of
        # hundreds of states, whose T_out takes the run span's fallback
        # (models/timeout/capped_quantile.h), counted by the estimate.
        s["load_sharing"]["estimation"].update({"arrival_prior_shape": arrival_prior,
                                                "arrival_prior_exposure_s": 1})
    return s


def cet_base(prior_shape):
    return {"name": "cet", "seed": 8, "horizon_s": 60, "warmup_s": 10, "nodes": {"count": 10},
            "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 4},
                        "loss": 0.005},
            "faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 800,
                        "mean_down_s": 60}],
            "workload": {"arrival_rate_per_s": 0.75,
                         "execution": {"distribution": "exponential", "rate_per_s": 1.0},
                         "deadline": {"kind": "uniform", "min_s": 3, "max_s": 12}},
            "load_sharing": {"scheduling": "fcfs", "load_index": "cet", "th_u": 1.5, "th_f": 5,
                             "buddy_size": 6,
                             "estimation": {"execution_prior_shape": prior_shape,
                                            "execution_prior_exposure_s": 1},
                             "arms": [{"name": "hs05", "diagnosis": "hou_shin", "alpha": 0.05}]}}


def time_overflow():
    return {"name": "overflow", "seed": 1, "horizon_s": 10, "nodes": {"count": 4},
            "network": {"latency": {"model": "constant", "ms": 1}},
            "faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 1e9,
                        "mean_down_s": 1}],
            "detectors": {"senders": "all", "monitors_per_sender": 1, "heartbeat_period_ms": 1e9,
                          "arms": [{"name": "fixed",
                                    "detector": {"kind": "fixed", "timeout_ms": 1e9}}]}}


def big_grid(base_file):
    # 100 x 100 x 100 = 1e6 points over a small heartbeat scenario.
    return {"name": "grid", "base": base_file,
            "axes": [{"path": "$.seed", "values": list(range(1, 101))},
                     {"path": "$.detectors.heartbeat_period_ms",
                      "values": [100 + i for i in range(100)]},
                     {"path": "$.detectors.arms[0].detector.timeout_ms",
                      "values": [1000 + i for i in range(100)]}],
            "replications": 1}


def families(work):
    small = heartbeat_starved(10)
    small["network"].pop("starved")
    with open(os.path.join(work, "small.json"), "w") as fh:
        json.dump(small, fh)
    return [
        ("starved 1 ms heartbeat, 1e5 s", "run", heartbeat_starved(1e5)),
        ("starved 1 ms heartbeat, 1e4 s", "run", heartbeat_starved(1e4)),
        ("load sharing 5 000 nodes, buddy_size 1e5", "run",
         load_sharing(5000, 100000, {"arrival_rate_per_s": 0.7})),
        ("load sharing 100 nodes, batches of 1e6", "run",
         load_sharing(100, 10, {"arrival_processes": [
             {"nodes": "all", "model": "batch_poisson", "batch_rate_per_s": 0.01,
              "batch_size": {"distribution": "deterministic", "value": 1000000}}]})),
        ("SWIM churn, 3 000 slots, 1 s sessions, joins every 1 ms", "run", swim_churn()),
        ("Geode fan-out to all, 1e4 members, current, partition", "run",
         geode_fanout(10000, "current")),
        ("Geode fan-out to all, 1e4 members, wiki, partition", "run",
         geode_fanout(10000, "wiki")),
        ("Geode fan-out to all, 2 000 members, current, partition", "run",
         geode_fanout(2000, "current")),
        ("Geode 1e4 members, half crash at once", "run", geode_mass_crash(10000)),
        ("load_index cet, execution_prior_shape 1e3", "run", cet(1e3)),
        ("load_index cet, execution_prior_shape 40", "run", cet(40)),
        ("load_index cet, execution_prior_shape 1e9", "run", cet(1e9)),
        ("load_index cet, execution prior 1e3, arrival prior 990 (near-critical)", "run",
         cet(1e3, 990)),
        ("time overflow: mean_up_s 1e9, 1e9 ms heartbeat and timeout", "run", time_overflow()),
        ("validate a 1e6-point sweep grid", "validate", big_grid("small.json")),
        ("trace with node 4294967296", "trace", None),
    ]


def run_family(fdsim, work, name, command, doc):
    path = os.path.join(work, "case.json")
    if command == "trace":
        path = os.path.join(work, "case.jsonl")
        with open(path, "w") as fh:
            fh.write('{"t_ns":1000,"node":0,"kind":"suspect","arm":"a"}\n'
                     '{"t_ns":2000,"node":4294967296,"kind":"suspect","arm":"a"}\n')
        args = f"trace '{path}' --plantuml"
    else:
        with open(path, "w") as fh:
            json.dump(doc, fh)
        args = (f"run '{path}' --out '{work}/out' --quiet" if command == "run"
                else f"validate '{path}'")
    t = time.monotonic()
    p = subprocess.run(["bash", "-c", f"ulimit -v {CAP_KB}; exec timeout -s KILL {KILL_S} "
                        f"'{fdsim}' {args} >/dev/null"],
                       capture_output=True, text=True, cwd=work)
    seconds = time.monotonic() - t
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    message = lines[0].replace(work + "/", "") if lines else "ok"
    return p.returncode, seconds, message


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fdsim")
    ap.add_argument("--only", nargs="*", default=None, help="substrings of family names")
    a = ap.parse_args()
    fdsim = os.path.abspath(a.fdsim)
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        print("| family | exit | seconds | message |\n|---|---|---|---|", flush=True)
        for name, command, doc in families(work):
            if a.only and not any(o in name for o in a.only):
                continue
            code, seconds, message = run_family(fdsim, work, name, command, doc)
            ok = code in (0, 2) and seconds <= LIMIT_S
            bad += not ok
            msg = message if len(message) <= 300 else message[:297] + "..."
            print(f"| {name} | {code} | {seconds:.1f} | {msg.replace('|', '/')} |"
                  + ("" if ok else " **FAILS**"), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
