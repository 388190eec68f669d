#!/usr/bin/python3
"""Writes a delay/loss trace for fdsim's "trace" latency model (sim/net/delay_trace.h).

Two modes:

  synthetic (default): one row every --interval-ms; the delay is min_ms + exp(X_k) where X_k is
    an AR(1) process of the log of the excess delay,
        X_k = mu + phi (X_{k-1} - mu) + sqrt(1 - phi^2) sigma e_k,   e_k ~ N(0, 1),
    with mu = ln(median_ms - min_ms): its stationary law is the lognormal latency model's
    (median median_ms, log standard deviation sigma), but slow periods come in runs whose
    length grows with phi (lag-k correlation of X is phi^k). A row is "lost" by a
    Gilbert-Elliott chain stepped once per row (per-row transition probabilities --p-gb and
    --p-bg, loss probabilities --loss-good and --loss-bad; stationary loss
    pi_G loss_good + pi_B loss_bad with pi_B = p_gb / (p_gb + p_bg)).

  --from-heartbeats FILE: converts a recorded heartbeat trace, one heartbeat per line
    "send_ms recv_ms" (recv_ms empty, "-" or "lost" for a heartbeat that never arrived; both
    clocks in ms; blank lines and # comments skipped), into rows
        offset_ms = send_ms - first send_ms,  delay_ms = recv_ms - send_ms  (or lost).
    With unsynchronised clocks, one-way delays are only known up to the clock offset: pass
    --shift-ms to add a constant (e.g. minus the smallest observed difference plus the known
    minimum delay) so that every delay is >= 0; rows must come out >= 0 and in send order.

The output is deterministic for a given --seed (numpy's PCG64). Usage examples:
  scripts/make_delay_trace.py --rows 3600 --interval-ms 1000 -o trace.txt
  scripts/make_delay_trace.py --from-heartbeats recorded.txt --shift-ms -3.2 -o trace.txt
"""
import argparse
import math
import sys

import numpy as np


def synthetic(a):
    rng = np.random.default_rng(a.seed)
    mu = math.log(a.median_ms - a.min_ms)
    x = mu + a.sigma * rng.standard_normal()
    innov = math.sqrt(1 - a.phi * a.phi) * a.sigma
    pi_bad = a.p_gb / (a.p_gb + a.p_bg)
    bad = rng.random() < pi_bad
    rows = []
    for k in range(a.rows):
        if k > 0:
            x = mu + a.phi * (x - mu) + innov * rng.standard_normal()
        bad = (rng.random() >= a.p_bg) if bad else (rng.random() < a.p_gb)
        lost = rng.random() < (a.loss_bad if bad else a.loss_good)
        offset = k * a.interval_ms
        rows.append((offset, None if lost else a.min_ms + math.exp(x)))
    header = [
        "# fdsim delay trace (offset_ms delay_ms | lost), made by scripts/make_delay_trace.py",
        f"# AR(1) log-delay: min_ms {a.min_ms} median_ms {a.median_ms} sigma {a.sigma} phi {a.phi};"
        f" Gilbert-Elliott loss: p_gb {a.p_gb} p_bg {a.p_bg} loss_good {a.loss_good}"
        f" loss_bad {a.loss_bad}; {a.rows} rows every {a.interval_ms} ms; seed {a.seed}",
    ]
    return header, rows


def from_heartbeats(a):
    rows = []
    first = None
    with open(a.from_heartbeats, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.replace(",", " ").split()
            if len(parts) not in (1, 2):
                sys.exit(f"{a.from_heartbeats}:{n}: expected 'send_ms recv_ms' or 'send_ms lost'")
            send = float(parts[0])
            recv = None if len(parts) == 1 or parts[1] in ("-", "lost") else float(parts[1])
            if first is None:
                first = send
            offset = send - first
            if rows and offset <= rows[-1][0]:
                sys.exit(f"{a.from_heartbeats}:{n}: send times must be strictly increasing")
            delay = None if recv is None else recv - send + a.shift_ms
            if delay is not None and delay < 0:
                sys.exit(f"{a.from_heartbeats}:{n}: negative delay; pass a larger --shift-ms")
            rows.append((offset, delay))
    if len(rows) < 2:
        sys.exit(f"{a.from_heartbeats}: fewer than two heartbeats")
    return [f"# fdsim delay trace converted from {a.from_heartbeats} (shift {a.shift_ms} ms)"], rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", default="-")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rows", type=int, default=600)
    p.add_argument("--interval-ms", type=float, default=1000)
    p.add_argument("--min-ms", type=float, default=1)
    p.add_argument("--median-ms", type=float, default=5)
    p.add_argument("--sigma", type=float, default=0.8)
    p.add_argument("--phi", type=float, default=0.95)
    p.add_argument("--p-gb", type=float, default=0.01)
    p.add_argument("--p-bg", type=float, default=0.3)
    p.add_argument("--loss-good", type=float, default=0.0)
    p.add_argument("--loss-bad", type=float, default=0.8)
    p.add_argument("--from-heartbeats")
    p.add_argument("--shift-ms", type=float, default=0.0)
    a = p.parse_args()
    if not a.from_heartbeats:
        if not (a.rows >= 2 and a.interval_ms > 0 and 0 <= a.min_ms < a.median_ms and a.sigma >= 0
                and -1 < a.phi < 1 and 0 < a.p_gb <= 1 and 0 < a.p_bg <= 1
                and 0 <= a.loss_good <= 1 and 0 <= a.loss_bad <= 1):
            sys.exit("make_delay_trace.py: parameter out of range (see --help)")
        header, rows = synthetic(a)
    else:
        header, rows = from_heartbeats(a)
    out = sys.stdout if a.output == "-" else open(a.output, "w", encoding="utf-8")
    for h in header:
        print(h, file=out)
    for off, d in rows:
        print(f"{off:.6g} lost" if d is None else f"{off:.6g} {d:.6g}", file=out)


if __name__ == "__main__":
    main()
