#!/usr/bin/env python3
"""Runs real JGroups 2.12.2 members on 127.0.0.1 and measures failure detection
(validation/jgroups/README.md).

A trial of a fault setting: the "cluster" JVM holds members m0..m(N-2) (m0 is the coordinator),
a second JVM holds the victim m(N-1) (it joins last, so it is last in the view and m(N-2) is
the FD/FD_SOCK neighbour watching it). When all N members have installed the view of N, the
driver waits `settle_s` plus a uniform random phase in [0, phase_s) (so the fault falls at a
random point of the heartbeat cycles), then sends SIGSTOP (hang) or SIGKILL (kill) to the
victim's JVM and records the time. The trial ends when every survivor has installed a view
without the victim, or `wait_s` after the fault.

A loss trial runs all N members in one JVM; `loss_after_s` after the last one joined, every
member's DISCARD protocol drops each received message with probability p, for `duration_s`.

Times are epoch nanoseconds (Java's Instant.now(), Python's time.time_ns(); one clock, one
machine). Nothing here is random but the phase (Python's `random` seeded per trial: the
library is the measured system, not a simulation).
"""
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
JAR = "/usr/share/java/jgroups.jar"
JVM_FLAGS = ["-Djava.net.preferIPv4Stack=true", "-Djgroups.bind_addr=127.0.0.1", "-XX:+UseSerialGC", "-Xmx256m",
             "-Djava.util.logging.config.file=/dev/null"]


def have_jdk():
    return shutil.which("java") is not None and shutil.which("javac") is not None and os.path.exists(JAR)


def build(classes_dir):
    """Compiles the harness offline against Debian's jar (no Maven); returns the class path."""
    os.makedirs(classes_dir, exist_ok=True)
    src = os.path.join(HERE, "harness", "Node.java")
    out = os.path.join(classes_dir, "Node.class")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["javac", "-nowarn", "-cp", JAR, "-d", classes_dir, src], check=True)
    return JAR + ":" + classes_dir


class JvmReader:
    """Starts one JVM and collects its JSON lines in a thread."""

    def __init__(self, classpath, args):
        self.events = []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(["java"] + JVM_FLAGS + ["-cp", classpath, "Node"] + args,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.strip()
            if line.startswith("{"):
                try:
                    ev = json.loads(line)
                except json.JSONDecodeError:
                    continue
                with self.lock:
                    self.events.append(ev)

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def kill(self):
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGCONT)
            except ProcessLookupError:
                pass
            self.proc.kill()
        self.proc.wait()
        self.thread.join(timeout=5)


def params_args(p):
    keys = ["stack", "detector", "fd_timeout", "fd_max_tries", "fd_all_interval", "fd_all_timeout",
            "verify_timeout", "max_bundling_time", "view_ack_collection_timeout",
            "discovery_timeout", "join_timeout"]
    return ["%s=%s" % (k, p[k]) for k in keys if k in p]


def last_views(events):
    views = {}
    for e in events:
        if e.get("ev") == "view":
            views[e["node"]] = e["members"]
    return views


def wait_until(pred, deadline_s, poll_s=0.02):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(poll_s)
    return pred()


def fault_trial(classpath, p, n, fault, trial_seed, base_port):
    """One fault trial; returns {"fault_t_ns", "events", "ok"}."""
    rnd = random.Random(trial_seed)
    names = ["m%d" % i for i in range(n)]
    victim = names[-1]
    common = params_args(p) + ["total=%d" % n, "base_port=%d" % base_port, "run_ms=600000"]
    cluster = JvmReader(classpath, common + ["first=0", "count=%d" % (n - 1)])
    jvms = [cluster]
    try:
        ok = wait_until(lambda: sum(e.get("ev") == "ready" for e in cluster.snapshot()) == n - 1, 60)
        if not ok:
            return {"ok": False, "why": "cluster did not start"}
        target = JvmReader(classpath, common + ["first=%d" % (n - 1), "count=1"])
        jvms.append(target)

        def all_see_n():
            v = last_views(cluster.snapshot() + target.snapshot())
            return len(v) == n and all(len(m) == n for m in v.values())

        if not wait_until(all_see_n, 30):
            return {"ok": False, "why": "victim did not join"}
        time.sleep(p["settle_s"] + rnd.uniform(0.0, p["phase_s"]))
        fault_t_ns = time.time_ns()
        target.proc.send_signal(signal.SIGSTOP if fault == "hang" else signal.SIGKILL)

        def all_removed():
            v = last_views(cluster.snapshot())
            return len(v) == n - 1 and all(victim not in m for m in v.values())

        removed = wait_until(all_removed, p["wait_s"])
        if removed:
            time.sleep(0.3)  # late suspicion records
        events = cluster.snapshot() + target.snapshot()
        return {"ok": True, "fault_t_ns": fault_t_ns, "victim": victim, "removed": removed,
                "events": events}
    finally:
        for j in jvms:
            j.kill()


def loss_trial(classpath, p, n, loss, base_port):
    args = params_args(p) + ["total=%d" % n, "base_port=%d" % base_port, "first=0",
                             "count=%d" % n, "loss=%g" % loss,
                             "loss_after_ms=%d" % int(p["loss_after_s"] * 1000),
                             "run_ms=%d" % int((p["loss_after_s"] + p["duration_s"]) * 1000)]
    jvm = JvmReader(classpath, args)
    try:
        jvm.proc.wait(timeout=120 + p["loss_after_s"] + p["duration_s"] + 5 * n)
    except subprocess.TimeoutExpired:
        pass
    jvm.kill()
    events = jvm.snapshot()
    on = [e for e in events if e.get("ev") == "loss_on"]
    end = [e for e in events if e.get("ev") == "end"]
    if not on or not end:
        return {"ok": False, "why": "no loss window"}
    return {"ok": True, "loss_on_t_ns": on[0]["t_ns"], "end_t_ns": end[0]["t_ns"], "events": events}


def partition_trial(classpath, p, n, trial_seed, base_port):
    """One partition trial (shipped stacks): all N members in one JVM; settle_s + U(0, phase_s)
    after the view of N, members m0..m(N/2-1) and the rest stop hearing each other (the harness's
    PartitionFilter) for heal_s, then hear each other again; the JVM runs merge_wait_s more."""
    rnd = random.Random(trial_seed)
    after_ms = int(1000 * (p["settle_s"] + rnd.uniform(0.0, p["phase_s"])))
    args = params_args(p) + ["total=%d" % n, "base_port=%d" % base_port, "first=0", "count=%d" % n,
                             "partition_a=" + ",".join(str(i) for i in range(n // 2)),
                             "partition_after_ms=%d" % after_ms,
                             "heal_after_ms=%d" % int(1000 * p["heal_s"]),
                             "run_ms=%d" % int(1000 * (60 + p["settle_s"] + p["phase_s"] + p["heal_s"]
                                                       + p["merge_wait_s"]))]
    jvm = JvmReader(classpath, args)
    try:
        jvm.proc.wait(timeout=120 + p["settle_s"] + p["phase_s"] + p["heal_s"] + p["merge_wait_s"])
    except subprocess.TimeoutExpired:
        pass
    jvm.kill()
    events = jvm.snapshot()
    part = [e for e in events if e.get("ev") == "partition"]
    heal = [e for e in events if e.get("ev") == "heal"]
    if not part or not heal:
        return {"ok": False, "why": "no partition window"}
    return {"ok": True, "partition_t_ns": part[0]["t_ns"], "heal_t_ns": heal[0]["t_ns"],
            "a": part[0]["a"], "b": part[0]["b"], "events": events}


def partition_metrics(r):
    """Seconds from the partition until every member has installed a view of its own side only
    (`split_s`), and from the heal until every member has installed a view of all N (`merge_s`);
    None when not reached."""
    t0, t1, a, b = r["partition_t_ns"], r["heal_t_ns"], set(r["a"]), set(r["b"])
    split, merged = {}, {}
    for e in r["events"]:
        if e.get("ev") != "view":
            continue
        side = a if e["node"] in a else b
        if t0 <= e["t_ns"] < t1 and set(e["members"]) == side:
            split.setdefault(e["node"], e["t_ns"])
        if e["t_ns"] >= t1 and set(e["members"]) == a | b:
            merged.setdefault(e["node"], e["t_ns"])
    n = len(a) + len(b)
    return {"split_s": (max(split.values()) - t0) * 1e-9 if len(split) == n else None,
            "merge_s": (max(merged.values()) - t1) * 1e-9 if len(merged) == n else None}


_port = [21000 + 97 * (os.getpid() % 50)]


def next_port(n):
    _port[0] += n + 3
    if _port[0] > 60000:
        _port[0] = 21000
    return _port[0]


def run_setting(classpath, setting, trials, raw_path, log=print):
    """Runs `trials` trials of a setting, appending each as one JSON line to raw_path (trials
    already there are kept: delete the file to rerun)."""
    done = []
    if os.path.exists(raw_path):
        with open(raw_path) as f:
            done = [json.loads(l) for l in f if l.strip()]
    p, n = setting["params"], setting["n"]
    with open(raw_path, "a") as f:
        for t in range(len(done), trials):
            for attempt in range(3):
                if setting["fault"] == "loss":
                    r = loss_trial(classpath, p, n, setting["loss"], next_port(n))
                elif setting["fault"] == "partition":
                    r = partition_trial(classpath, p, n, zlib.crc32(repr((setting["name"], t, attempt)).encode()),
                                        next_port(n))
                else:
                    r = fault_trial(classpath, p, n, setting["fault"], zlib.crc32(repr((setting["name"], t, attempt)).encode()),
                                    next_port(n))
                if r["ok"]:
                    break
                log("  %s trial %d attempt %d failed: %s" % (setting["name"], t, attempt, r.get("why")))
            r["trial"] = t
            f.write(json.dumps(r) + "\n")
            f.flush()
            done.append(r)
    return done


def fault_metrics(r):
    """Seconds from the fault: first detector suspicion of the victim, first verified suspicion,
    first view without it at any survivor, and at the last survivor (None when not reached)."""
    t0, victim = r["fault_t_ns"], r["victim"]
    out = {}
    for key, layer in (("first_suspicion_s", "detector"), ("first_verified_s", "verified")):
        ts = [e["t_ns"] for e in r["events"] if e.get("ev") == "suspect" and e.get("layer") == layer
              and e.get("of") == victim and e["t_ns"] >= t0]
        out[key] = (min(ts) - t0) * 1e-9 if ts else None
    first_without = {}
    for e in r["events"]:
        if e.get("ev") == "view" and e["t_ns"] >= t0 and e["node"] != victim and victim not in e["members"]:
            first_without.setdefault(e["node"], e["t_ns"])
    n = int(victim[1:]) + 1
    out["first_removal_s"] = (min(first_without.values()) - t0) * 1e-9 if first_without else None
    out["all_removed_s"] = ((max(first_without.values()) - t0) * 1e-9
                            if len(first_without) == n - 1 else None)
    return out


def loss_metrics(r, n):
    """False suspicions (detector layer, and verified) and false removals (a view that drops a
    member: every member is alive) during the loss window, and member-hours observed."""
    a, b = r["loss_on_t_ns"], r["end_t_ns"]
    inside = [e for e in r["events"] if a <= e["t_ns"] <= b]
    det = sum(1 for e in inside if e.get("ev") == "suspect" and e.get("layer") == "detector")
    ver = sum(1 for e in inside if e.get("ev") == "suspect" and e.get("layer") == "verified")
    removals = set()
    for e in inside:
        if e.get("ev") == "view":
            for m in ("m%d" % i for i in range(n)):
                if m not in e["members"]:
                    removals.add(m)
    return {"detector_suspicions": det, "verified_suspicions": ver, "members_removed": len(removals),
            "member_hours": n * (b - a) * 1e-9 / 3600.0}


if __name__ == "__main__":
    if not have_jdk():
        print("skipped: no JDK or no %s" % JAR)
        sys.exit(77)
    cp = build(tempfile.mkdtemp(prefix="jgroups-classes-"))
    p = {"detector": sys.argv[1] if len(sys.argv) > 1 else "fd", "fd_timeout": 1000, "fd_max_tries": 2,
         "fd_all_interval": 500, "fd_all_timeout": 2000, "verify_timeout": 500,
         "max_bundling_time": 50, "view_ack_collection_timeout": 2000, "discovery_timeout": 500,
         "join_timeout": 2000, "settle_s": 1.0, "phase_s": 1.0, "wait_s": 10.0}
    r = fault_trial(cp, p, 4, "kill", 1, next_port(4))
    print(json.dumps(fault_metrics(r)) if r["ok"] else r)
