#!/usr/bin/python3
"""The real memberlist library under slowness: K of n member processes slowed, dead declarations
of live members counted by declarer and victim.

Every member is its own OS process (validation/memberlist/slownode, memberlist 0.2.2 from
/usr/share/gocode, LAN defaults, 127.0.0.1, GOMAXPROCS=1). Members 1..K are slowed from the
window start t0 for `window_s` by one mechanism:

  stall   SIGSTOP for U(0.5, 1.5) x length_s, then SIGCONT for U(0.5, 1.5) x run_s, repeated
          (first stall at a random offset): the whole process is descheduled, as in a GC pause
          of the whole runtime, VM steal or a cgroup CPU quota exhausted.
  delay   the member's transport delays every inbound packet and accepted stream by
          U(0.5, 1.5) x length_s while its timers and sends run on time (SIGUSR1 on, SIGUSR2 off;
          with run_s > 0 the delay is on for U(0.5,1.5) x length_s, off for U(0.5,1.5) x run_s).
  delay_fifo  as delay, but in arrival order: a packet is handed over at max(arrival + draw,
          the previous hand-over), a processing lag (a slow process works its backlog in order).
  none    nothing slowed (control: what the shared machine's own scheduling noise causes).
  cpu     `burners` busy-loop processes pinned with the slow members to CPU 1 (taskset), all at
          the same nice level: CPU contention without descheduling the member for long.

Nobody crashes, so every dead declaration ("Marking X as failed", state.go:1211) is a false
positive. One JSON line per run in <out>/raw/<config>.jsonl; cached (existing runs are kept and
only the missing ones run).

  slowness.py --out results/validation/memberlist/slowness-map --plan map --parallel 4
  slowness.py --out DIR --plan quick     (the two regimes of the CTest comparison)
  slowness.py --out DIR --plan n100 --runs 2 --parallel 1   (n = 100; see the README)
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GOPATH_SYSTEM = "/usr/share/gocode"
MEMBERLIST = GOPATH_SYSTEM + "/src/github.com/hashicorp/memberlist"

# Lifeguard arms as memberlist's Config allows (config.go:79-94, 128-131). The buddy system
# (a suspect message piggybacked on the probe of a suspect member, state.go:324-358) has no
# switch in memberlist 0.2.2: it is on in every arm.
ARMS = {
    "swim": (1, 1),            # AwarenessMaxMultiplier 1: probe interval never scaled
    "lha_probe": (8, 1),       # awareness only
    "lha_suspicion": (1, 6),   # suspicion timeout from 6x min down to min with confirmations
    "lifeguard": (8, 6),       # as shipped (DefaultLANConfig, config.go:286, 291)
}


def build(work):
    if shutil.which("go") is None or not os.path.isdir(MEMBERLIST):
        return None
    exe = os.path.join(work, "slownode")
    if os.path.exists(exe):
        return exe
    env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH_SYSTEM, GOFLAGS="",
               GOCACHE=os.path.join(work, "gocache"))
    subprocess.run(["go", "build", "-o", exe, "."], cwd=os.path.join(HERE, "slownode"),
                   env=env, check=True)
    return exe


def config_id(c):
    s = f"{c['mech']}-n{c['n']}-k{c['k']}-L{c['length_s']:g}-R{c['run_s']:g}-{c['arm']}"
    s += "-tcp" if c["tcp"] else "-notcp"
    if c["mech"] == "cpu":
        s += f"-b{c['burners']}"
    return s + f"-w{c['window_s']:g}"


def read_events(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    out.append((int(p[0]) / 1e9, p[1], int(p[2])))
    except FileNotFoundError:
        pass
    return out


def last_members(path):
    m = -1
    for _, kind, arg in read_events(path):
        if kind == "members":
            m = arg
    return m


def run_cluster(exe, c, seed, tmp, trace=None):
    """One run: start n members, converge, slow members 1..K for the window, count.
    With a dict `trace`, also fills trace["signals"] {member: [(unix s, "on" | "off"), ...]}
    (when each slowed member was stopped / continued, or its delay switched) and
    trace["events"] {member: [(unix s, kind, arg), ...]} (its event lines), trace["window"]
    (t0, t_end)."""
    n, k = c["n"], c["k"]
    rng = random.Random(seed)
    slow = set(range(1, k + 1))
    cpu = c["mech"] == "cpu"
    procs, paths = [], []
    env = dict(os.environ, GOMAXPROCS="1")
    aw, sm = ARMS[c["arm"]]

    def start(i, join_port):
        path = os.path.join(tmp, f"ev{i}")
        paths.append(path)
        cmd = ["nice", "-n", "10", exe, "-index", str(i), "-join_port", str(join_port),
               "-awareness_max", str(aw), "-suspicion_max_mult", str(sm),
               f"-tcp_pings={'true' if c['tcp'] else 'false'}",
               "-inbound_delay_ms",
               str(1000 * c["length_s"] if c["mech"] in ("delay", "delay_fifo") else 0),
               f"-inbound_fifo={'true' if c['mech'] == 'delay_fifo' else 'false'}",
               "-seed", str(seed * 1000 + i), "-events", path]
        if c.get("lag_probe"):
            cmd.append("-lag_probe")
        if cpu and i in slow:
            cmd = ["taskset", "-c", "1"] + cmd
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))

    burners = []
    try:
        start(0, 0)
        port0, deadline = None, time.time() + 20
        while port0 is None and time.time() < deadline:
            for _, kind, arg in read_events(paths[0]):
                if kind == "port":
                    port0 = arg
            time.sleep(0.05)
        if port0 is None:
            raise RuntimeError("member 0 did not start")
        for i in range(1, n):
            start(i, port0)
        deadline = time.time() + 60 + n  # n = 100 takes longer than 60 s to converge here
        while True:
            if all(last_members(p) == n for p in paths):
                break
            if time.time() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError("cluster did not converge: %s" % [last_members(p) for p in paths])
            time.sleep(0.2)
        time.sleep(c["settle_s"])
        if cpu:
            for _ in range(c["burners"]):
                burners.append(subprocess.Popen(
                    ["taskset", "-c", "1", "nice", "-n", "10", "sh", "-c", "while :; do :; done"]))
        t0 = time.time()
        t_end = t0 + c["window_s"]
        threads = []
        if trace is not None:
            trace["signals"] = {}
            trace["window"] = (t0, t_end)

        def cycle(i, r):
            pid = procs[i].pid
            on, off = ((signal.SIGSTOP, signal.SIGCONT) if c["mech"] == "stall"
                       else (signal.SIGUSR1, signal.SIGUSR2))
            # nice wraps the member: signal the member itself (nice execs it, same pid).
            if c["run_s"] <= 0:
                os.kill(pid, on)
                time.sleep(max(0.0, t_end - time.time()))
                os.kill(pid, off)
                return
            t = time.time() + r.uniform(0, c["length_s"] + c["run_s"])
            while t < t_end:
                time.sleep(max(0.0, t - time.time()))
                if trace is not None:  # before the signal: the member may log at once
                    trace["signals"].setdefault(i, []).append((time.time(), "on"))
                os.kill(pid, on)
                t = min(t_end, time.time() + c["length_s"] * r.uniform(0.5, 1.5))
                time.sleep(max(0.0, t - time.time()))
                if trace is not None:
                    trace["signals"].setdefault(i, []).append((time.time(), "off"))
                os.kill(pid, off)
                t = time.time() + c["run_s"] * r.uniform(0.5, 1.5)

        if c["mech"] in ("stall", "delay", "delay_fifo"):
            for i in sorted(slow):
                th = threading.Thread(target=cycle, args=(i, random.Random(rng.random())))
                th.start()
                threads.append(th)
        time.sleep(max(0.0, t_end - time.time()))
        for th in threads:
            th.join()
        for b in burners:
            b.kill()
        time.sleep(0.3)
    finally:
        for b in burners:
            b.kill()
            b.wait()
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGCONT)
                p.terminate()
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    if trace is not None:
        trace["events"] = {i: read_events(p) for i, p in enumerate(paths)}
    out = count(paths, slow, t0, t_end, n)
    if c.get("lag_probe"):
        out["healthy_lag_ms"] = lag_summary(paths, slow, t0, t_end)
    return out


def lag_summary(paths, slow, t0, t_end):
    """The healthy members' scheduling lag in the window (slownode -lag_probe: the largest
    lateness of a 100-ms timer in each second, per member): the median, 99th percentile and
    largest of those per-second values in ms, and the share of member-seconds above 100 ms."""
    v = sorted(arg / 1000.0 for i, p in enumerate(paths) if i not in slow
               for t, kind, arg in read_events(p) if kind == "lag" and t0 <= t < t_end)
    if not v:
        return None
    return {"member_seconds": len(v), "median": v[len(v) // 2], "p99": v[int(0.99 * (len(v) - 1))],
            "max": v[-1], "share_over_100": sum(1 for x in v if x > 100.0) / len(v)}


def count(paths, slow, t0, t_end, n):
    """Counts in [t0, t_end] split by the role (slow 's' / healthy 'h') of declarer and victim."""
    def role(i):
        return "s" if i in slow else "h"
    out = {"suspect": {}, "dead": {}, "removal": {}, "refute": {"s": 0, "h": 0}}
    for key in ("suspect", "dead", "removal"):
        out[key] = {a + b: 0 for a in "sh" for b in "sh"}
    for i, p in enumerate(paths):
        for t, kind, arg in read_events(p):
            if not (t0 <= t < t_end):
                continue
            if kind == "suspect" and arg >= 0:
                out["suspect"][role(i) + role(arg)] += 1
            elif kind == "dead" and arg >= 0:
                out["dead"][role(i) + role(arg)] += 1
            elif kind == "leave" and arg >= 0:
                out["removal"][role(i) + role(arg)] += 1
            elif kind.startswith("refute"):
                out["refute"][role(i)] += 1
    return out


def plan_n100():
    """The real library at the Lifeguard paper's size, n = 100 processes on this machine: the
    control first (nothing slowed: does the machine itself make false positives, and how late do
    the healthy members run their timers?), then a long stall and a processing lag, K = 4, SWIM
    and Lifeguard; 60-s windows, healthy members' scheduling lag recorded (-lag_probe)."""
    base = dict(n=100, k=4, window_s=60.0, settle_s=5.0, tcp=True, burners=0, lag_probe=True)
    cs = []
    for arm in ("swim", "lifeguard"):
        cs.append(dict(base, mech="none", length_s=0.0, run_s=0.0, arm=arm))
        cs.append(dict(base, mech="stall", length_s=12.0, run_s=round(12.0 / 9, 3), arm=arm))
        cs.append(dict(base, mech="delay_fifo", length_s=10.0, run_s=0.0, arm=arm))
    return cs


def plan_map():
    """The reduced design (see the README): a core grid and slices around it."""
    base = dict(n=16, k=2, window_s=30.0, settle_s=3.0, tcp=True, burners=0)
    cs = []
    lengths = [0.1, 0.3, 1.0, 3.0, 6.0, 12.0]
    # Core: stall at 50 % duty (run = stall) and 90 % duty (run = stall / 9), inbound delay on
    # for the whole window; every arm.
    for arm in ARMS:
        for L in lengths:
            cs.append(dict(base, mech="stall", length_s=L, run_s=L, arm=arm))
            cs.append(dict(base, mech="stall", length_s=L, run_s=round(L / 9, 3), arm=arm))
            cs.append(dict(base, mech="delay", length_s=L, run_s=0.0, arm=arm))
    # TCP fallback off; K and n slices; SWIM and Lifeguard only; a control without slowness
    # (the false positives of the loaded machine itself).
    for arm in ("swim", "lifeguard"):
        cs.append(dict(base, mech="none", length_s=0.0, run_s=0.0, arm=arm))
        for L in (1.0, 6.0):
            cs.append(dict(base, mech="stall", length_s=L, run_s=round(L / 9, 3), arm=arm, tcp=False))
            cs.append(dict(base, mech="delay", length_s=L, run_s=0.0, arm=arm, tcp=False))
        for k in (1, 4):
            cs.append(dict(base, mech="stall", length_s=6.0, run_s=round(6.0 / 9, 3), arm=arm, k=k))
            cs.append(dict(base, mech="delay", length_s=6.0, run_s=0.0, arm=arm, k=k))
        cs.append(dict(base, mech="stall", length_s=6.0, run_s=round(6.0 / 9, 3), arm=arm, n=32))
        cs.append(dict(base, mech="delay", length_s=6.0, run_s=0.0, arm=arm, n=32))
        cs.append(dict(base, mech="cpu", length_s=0.0, run_s=0.0, arm=arm, burners=8))
    # The processing lag (FIFO inbound delay), every arm, a shorter grid.
    for arm in ARMS:
        for L in (1.0, 3.0, 6.0, 12.0):
            cs.append(dict(base, mech="delay_fifo", length_s=L, run_s=0.0, arm=arm))
    return cs


def plan_quick():
    """The CTest comparison's two regimes (see compare_slowness.py)."""
    # The stall at n = 16 (the map's size). At n = 8 two 3-run library samples once gave the
    # stalled members 0.02-0.08 of the declarations against fdsim's 0.12-0.13; 10 runs per arm
    # give 0.11 with fdsim inside the interval (slowness-map/README.md, "Stalled declarers"),
    # but a 3-run sample is too small for that share at n = 8.
    base = dict(k=2, window_s=30.0, settle_s=2.0, tcp=True, burners=0)
    cs = []
    for arm in ("swim", "lifeguard"):
        cs.append(dict(base, n=16, mech="stall", length_s=6.0, run_s=0.667, arm=arm))
        cs.append(dict(base, n=8, mech="delay_fifo", length_s=3.0, run_s=0.0, arm=arm))
    return cs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan", choices=["map", "quick", "n100"], default="map")
    ap.add_argument("--runs", type=int, default=4, help="runs per configuration")
    ap.add_argument("--parallel", type=int, default=3, help="clusters at once")
    ap.add_argument("--only", default="", help="substring of the configuration id")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    raw = os.path.join(a.out, "raw")
    os.makedirs(raw, exist_ok=True)
    work = tempfile.mkdtemp(prefix="slowness-")
    exe = build(work)
    if exe is None:
        print("slowness: go or the memberlist source missing; skipped")
        return 77
    cs = {"map": plan_map, "quick": plan_quick, "n100": plan_n100}[a.plan]()
    jobs = []
    for c in cs:
        cid = config_id(c)
        if a.only and a.only not in cid:
            continue
        path = os.path.join(raw, cid + ".jsonl")
        have = sum(1 for _ in open(path)) if os.path.exists(path) else 0
        for r in range(have, a.runs):
            jobs.append((c, cid, path, r))
    # Round-robin over configurations so that a partial sweep covers every configuration.
    jobs.sort(key=lambda j: j[3])
    print(f"slowness: {len(jobs)} runs, {a.parallel} at once", flush=True)
    lock = threading.Lock()
    started = time.time()

    def worker(wid):
        while True:
            with lock:
                if not jobs:
                    return
                c, cid, path, r = jobs.pop(0)
            seed = a.seed * 7919 + zlib.crc32(cid.encode()) % 100000 * 31 + r
            tmp = tempfile.mkdtemp(prefix=f"run{wid}-", dir=work)
            try:
                res = run_cluster(exe, c, seed, tmp)
                line = json.dumps({"config": c, "id": cid, "run": r, "counts": res,
                                   "load1": os.getloadavg()[0]})
                with lock:
                    with open(path, "a") as f:
                        f.write(line + "\n")
                    print(f"[{time.time() - started:6.0f}s] {cid} run {r}: dead "
                          f"{res['dead']} load {os.getloadavg()[0]:.1f}", flush=True)
            except Exception as e:  # a failed run is reported and skipped, not counted
                print(f"slowness: {cid} run {r}: {e}", flush=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)

    ths = [threading.Thread(target=worker, args=(w,)) for w in range(a.parallel)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
