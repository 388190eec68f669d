"""The settings compared in results/validation/jgroups/ (README there).

Timers are scaled down from JGroups' defaults so that the comparison runs in minutes; both
sides use the same values. JGroups 2.12.2 defaults for reference: FD timeout 3000 ms,
max_tries 2; FD_ALL interval 3000 ms, timeout 10000 ms; VERIFY_SUSPECT timeout 2000 ms;
GMS max_bundling_time 50 ms, view_ack_collection_timeout 2000 ms.
"""

SCALED = {"fd_timeout": 1000, "fd_max_tries": 2, "fd_all_interval": 500, "fd_all_timeout": 2000,
          "verify_timeout": 500, "max_bundling_time": 50, "view_ack_collection_timeout": 2000,
          "discovery_timeout": 500, "join_timeout": 2000,
          # driver: wait after the view of N, random fault phase, wait for the removal
          "settle_s": 1.0, "phase_s": 1.0, "wait_s": 10.0}


def params(detector, **over):
    p = dict(SCALED, detector=detector)
    p.update(over)
    return p


def all_settings(trials=8):
    out = []
    for det in ("fd", "fd_all", "fd_sock"):
        for n in (4, 8, 16):
            faults = ("kill", "hang")
            for fault in faults:
                t = trials
                w = {}
                if det == "fd_sock" and fault == "hang":
                    t, w = 5, {"wait_s": 6.0}  # FD_SOCK alone cannot see a hang: 5 trials show it
                out.append({"name": "%s-n%d-%s" % (det, n, fault), "detector": det, "n": n,
                            "fault": fault, "trials": t, "params": params(det, **w)})
    # the library's scheduling noise: one setting run twice
    out.append({"name": "fd-n8-kill-repeat", "detector": "fd", "n": 8, "fault": "kill",
                "trials": trials, "params": params("fd")})
    for det in ("fd", "fd_all"):
        out.append({"name": "%s-n8-loss20" % det, "detector": det, "n": 8, "fault": "loss",
                    "loss": 0.20, "trials": 12,
                    "params": params(det, loss_after_s=1.0, duration_s=30.0)})
    return out


def quick_settings():
    return [{"name": "quick-fd-n4-kill", "detector": "fd", "n": 4, "fault": "kill", "trials": 3,
             "params": params("fd")}]


# The stacks Debian's jar ships (tcp.xml, udp.xml; validation/jgroups/harness/Node.java), with
# their shipped values: tcp.xml FD_SOCK + FD (timeout 3000, max_tries 3) + VERIFY_SUSPECT (1500)
# + MERGE2 (10000-30000); udp.xml FD_SOCK + FD_ALL (defaults: interval 3000, timeout 10000) +
# VERIFY_SUSPECT (1500) + MERGE2 (10000-30000); GMS max_bundling_time 50 and
# view_ack_collection_timeout 2000 (defaults). The fault falls U(0, phase_s) after settle_s.
SHIPPED = {
    "tcp": {"fd_timeout": 3000, "fd_max_tries": 3, "verify_timeout": 1500},
    "udp": {"fd_all_interval": 3000, "fd_all_timeout": 10000, "verify_timeout": 1500},
}
SHIPPED_COMMON = {"max_bundling_time": 50, "view_ack_collection_timeout": 2000,
                  "merge_min_interval": 10000, "merge_max_interval": 30000,
                  "settle_s": 1.0, "phase_s": 3.0}


def shipped_params(stack, fault):
    p = dict(SHIPPED_COMMON, stack=stack, detector="shipped", **SHIPPED[stack])
    p["wait_s"] = {"kill": 8.0, "hang": 25.0, "partition": 0.0}[fault]
    if fault == "partition":
        p.update({"heal_s": 45.0 if stack == "tcp" else 25.0, "merge_wait_s": 40.0})
    return p


def shipped_settings():
    """Library trials: the crash (SIGKILL), hang (SIGSTOP) and partition of each shipped stack,
    N = 4, plus a calibration set of tcp.xml crashes (the per-message delay, compare.py)."""
    out = [{"name": "tcp-n4-kill-calibration", "stack": "tcp", "detector": "shipped", "n": 4,
            "fault": "kill", "trials": 24, "params": shipped_params("tcp", "kill")}]
    for stack in ("tcp", "udp"):
        for fault, trials in (("kill", 16), ("hang", 16), ("partition", 6)):
            out.append({"name": "%s-n4-%s" % (stack, fault), "stack": stack, "detector": "shipped",
                        "n": 4, "fault": fault, "trials": trials, "params": shipped_params(stack, fault)})
    return out
