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
