"""An arm against each family's cost-metric frontier at the arm's own cost.

Input: per arm, its cost and its metric in each replication (the same runs for every arm:
common random numbers), and a family for each arm. Nothing here reads files (see
equal_cost_cli for the sweep side).

Contract:
- pareto_frontier(arms, lower_is_better=True): the arms no other arm of the list beats on both
  mean cost (lower) and mean metric (lower, or higher when not lower_is_better), by increasing
  mean cost; on equal cost the better metric is kept.
- frontier_at(frontier, cost, tolerance_rel): where the family's frontier is read at `cost`,
  from the frontier arms' mean costs: ("calibrated", arm, arm, 0.0) when an arm's mean cost is
  within tolerance_rel x cost of it (a calibrated point: the arm itself); ("interpolated", lo,
  hi, w) with lo the costliest frontier arm cheaper than `cost`, hi the cheapest costlier one
  and w = (cost - cost_lo) / (cost_hi - cost_lo), the frontier's metric being (1 - w) metric_lo
  + w metric_hi; None outside the frontier's cost range (no extrapolation: a family that
  cannot reach the cost is not compared there).
- compare_at_equal_cost(challenger, family, tolerance_rel, n_boot, seed, confidence,
  lower_is_better): over the replications where the challenger and every frontier arm have
  both numbers, delta_i = frontier_i(c) - challenger_i with c the challenger's mean cost and
  frontier_i the reading above applied to replication i's metrics (weights from the mean
  costs); positive = the challenger is better (for lower_is_better; reversed otherwise). The
  estimate is mean(delta_i); the interval is the percentile bootstrap over replications
  (n_boot resamples of the replication indices, each recomputing the mean costs, the
  neighbours, the weight, the challenger's cost and the mean delta), numpy's default_rng(seed):
  the same inputs and seed give the same interval. The paired resampling keeps the common
  random numbers: every arm of a resample uses the same replications. None when the family
  cannot be read at the challenger's cost, or fewer than 2 replications are complete.
- equal_cost_table(rows) / equal_cost_csv(rows): markdown and CSV of EqualCost rows;
  figure_equal_cost(panels, ...): per panel (a regime), every family's arms (mean cost, mean
  metric), its frontier, the challenger with its 95 % intervals, and the frontier's reading at
  the challenger's cost with its bootstrap interval.
"""

import csv
import io
import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np


@dataclass
class ArmSeries:
    name: str
    family: str
    cost: List[Optional[float]]    # per replication, in replication order
    metric: List[Optional[float]]  # per replication, aligned with cost

    def complete(self, i):
        return self.cost[i] is not None and self.metric[i] is not None

    def mean_cost(self, idx=None):
        idx = range(len(self.cost)) if idx is None else idx
        xs = [self.cost[i] for i in idx if self.cost[i] is not None]
        return math.fsum(xs) / len(xs) if xs else None

    def mean_metric(self, idx=None):
        idx = range(len(self.metric)) if idx is None else idx
        xs = [self.metric[i] for i in idx if self.metric[i] is not None]
        return math.fsum(xs) / len(xs) if xs else None


@dataclass
class EqualCost:
    family: str
    kind: str               # "calibrated" or "interpolated"
    lo: str
    hi: str
    weight: float
    cost: float             # the challenger's mean cost
    lo_cost: float
    hi_cost: float
    frontier_metric: float  # the family's frontier read at `cost`
    challenger_metric: float
    delta: float            # frontier - challenger (positive: challenger better)
    low: float
    high: float
    n: int
    challenger: str = ""
    label: str = ""         # the regime / point, for tables


def pareto_frontier(arms: Sequence[ArmSeries], lower_is_better: bool = True,
                    idx=None) -> List[ArmSeries]:
    sign = 1.0 if lower_is_better else -1.0
    pts = [(a.mean_cost(idx), sign * a.mean_metric(idx), a) for a in arms
           if a.mean_cost(idx) is not None and a.mean_metric(idx) is not None]
    pts.sort(key=lambda t: (t[0], t[1], t[2].name))
    out, best = [], math.inf
    for c, m, a in pts:
        if m < best:
            out.append(a)
            best = m
    return out


def frontier_at(frontier: Sequence[ArmSeries], cost: float, tolerance_rel: float, idx=None):
    if not frontier or cost is None:
        return None
    costs = [a.mean_cost(idx) for a in frontier]
    best = min(range(len(frontier)), key=lambda i: (abs(costs[i] - cost), i))
    if abs(costs[best] - cost) <= tolerance_rel * abs(cost):
        return ("calibrated", frontier[best], frontier[best], 0.0)
    below = [i for i in range(len(frontier)) if costs[i] < cost]
    above = [i for i in range(len(frontier)) if costs[i] > cost]
    if not below or not above:
        return None
    lo = max(below, key=lambda i: (costs[i], -i))
    hi = min(above, key=lambda i: (costs[i], i))
    w = (cost - costs[lo]) / (costs[hi] - costs[lo])
    return ("interpolated", frontier[lo], frontier[hi], w)


def _delta(challenger, frontier, idx, tolerance_rel, sign):
    """(mean delta, reading) over replications idx; None if the frontier cannot be read."""
    c = challenger.mean_cost(idx)
    r = frontier_at(frontier, c, tolerance_rel, idx)
    if r is None:
        return None
    kind, lo, hi, w = r
    d = [sign * ((1 - w) * lo.metric[i] + w * hi.metric[i] - challenger.metric[i]) for i in idx]
    return math.fsum(d) / len(d), r, c


def compare_at_equal_cost(challenger: ArmSeries, family: Sequence[ArmSeries],
                          tolerance_rel: float = 0.005, n_boot: int = 2000, seed: int = 1,
                          confidence: float = 0.95, lower_is_better: bool = True
                          ) -> Optional[EqualCost]:
    if not family:
        return None
    n_all = len(challenger.metric)
    frontier_full = pareto_frontier(family, lower_is_better)
    idx = [i for i in range(n_all) if challenger.complete(i)
           and all(a.complete(i) for a in frontier_full)]
    if len(idx) < 2:
        return None
    frontier = pareto_frontier(family, lower_is_better, idx)
    sign = 1.0 if lower_is_better else -1.0
    est = _delta(challenger, frontier, idx, tolerance_rel, sign)
    if est is None:
        return None
    delta, (kind, lo, hi, w), cost = est
    rng = np.random.default_rng(seed)
    boots = []
    arr = np.array(idx)
    for _ in range(n_boot):
        sample = list(arr[rng.integers(0, len(arr), len(arr))])
        b = _delta(challenger, frontier, sample, tolerance_rel, sign)
        if b is not None:
            boots.append(b[0])
    if len(boots) < 0.9 * n_boot:
        # The frontier cannot be read at the cost in many resamples (the cost sits at the edge
        # of the family's range): no honest interval.
        low = high = float("nan")
    else:
        q = (1 - confidence) / 2
        low, high = (float(v) for v in np.quantile(boots, [q, 1 - q]))
    frontier_metric = (1 - w) * lo.mean_metric(idx) + w * hi.mean_metric(idx)
    return EqualCost(family=family[0].family, kind=kind, lo=lo.name, hi=hi.name, weight=w,
                     cost=cost, lo_cost=lo.mean_cost(idx), hi_cost=hi.mean_cost(idx),
                     frontier_metric=frontier_metric,
                     challenger_metric=challenger.mean_metric(idx), delta=delta, low=low,
                     high=high, n=len(idx), challenger=challenger.name)


def _g(x, digits=4):
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


COLUMNS = ("label", "challenger", "family", "kind", "cost", "lo", "lo_cost", "hi", "hi_cost",
           "weight", "frontier_metric", "challenger_metric", "delta", "low", "high", "n")


def equal_cost_csv(rows: Sequence[EqualCost]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([getattr(r, c) if not isinstance(getattr(r, c), float)
                    else repr(getattr(r, c)) for c in COLUMNS])
    return buf.getvalue()


def equal_cost_table(rows: Sequence[EqualCost], metric: str, cost_metric: str) -> str:
    head = ("| regime | family | read as | cost | frontier " + metric + " | challenger | "
            "Δ (frontier − challenger) | 95 % bootstrap interval | n |")
    out = [head, "|" + "---|" * 9]
    for r in rows:
        how = (f"`{r.lo}` (calibrated)" if r.kind == "calibrated" else
               f"`{r.lo}` ({_g(r.lo_cost)}) – `{r.hi}` ({_g(r.hi_cost)}), w = {r.weight:.2f}")
        out.append(f"| {r.label} | {r.family} | {how} | {_g(r.cost)} | {_g(r.frontier_metric)} | "
                   f"{_g(r.challenger_metric)} | {_g(r.delta, 3)} | "
                   f"[{_g(r.low, 3)}, {_g(r.high, 3)}] | {r.n} |")
    out.append("")
    out.append(f"Cost: {cost_metric}. Δ > 0: the challenger is better than the family's frontier "
               "at its own cost. Interval: percentile bootstrap over replications (paired).")
    return "\n".join(out) + "\n"


def figure_equal_cost(panels: Dict[str, dict], metric_label: str, cost_label: str,
                      lower_is_better: bool = True):
    """panels: label -> {"arms": [ArmSeries], "challenger": ArmSeries, "rows": [EqualCost]}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(panels)
    cols = min(3, n)
    rows_n = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 3.4 * rows_n), squeeze=False)
    families = sorted({a.family for p in panels.values() for a in p["arms"]})
    colours = {f: plt.cm.tab10(i % 10) for i, f in enumerate(families)}
    for k, (label, p) in enumerate(panels.items()):
        ax = axes[k // cols][k % cols]
        for fam in families:
            arms = [a for a in p["arms"] if a.family == fam]
            if not arms:
                continue
            xs = [a.mean_cost() for a in arms]
            ys = [a.mean_metric() for a in arms]
            ax.scatter(xs, ys, s=10, color=colours[fam], alpha=0.5)
            fr = pareto_frontier(arms, lower_is_better)
            ax.plot([a.mean_cost() for a in fr], [a.mean_metric() for a in fr], "-",
                    color=colours[fam], lw=1.2, label=fam if k == 0 else None)
        ch = p["challenger"]
        ax.plot([ch.mean_cost()], [ch.mean_metric()], "k*", ms=9,
                label=f"challenger ({ch.name})" if k == 0 else None)
        for r in p["rows"]:
            if math.isnan(r.low):
                continue
            # The frontier's reading at the challenger's cost, with Δ's interval moved onto it.
            y = r.frontier_metric
            sign = 1.0 if lower_is_better else -1.0
            lo_y = r.challenger_metric + sign * r.low
            hi_y = r.challenger_metric + sign * r.high
            ax.errorbar([r.cost], [y], yerr=[[max(0.0, y - min(lo_y, hi_y))],
                                             [max(0.0, max(lo_y, hi_y) - y)]],
                        fmt="o", ms=4, color=colours[r.family], capsize=3)
        ax.axvline(ch.mean_cost(), color="0.6", lw=0.6, ls=":")
        ax.set_title(label, fontsize=8)
        ax.set_xlabel(cost_label, fontsize=8)
        ax.set_ylabel(metric_label, fontsize=8)
        ax.tick_params(labelsize=7)
    for k in range(n, rows_n * cols):
        axes[k // cols][k % cols].axis("off")
    fig.legend(loc="lower center", ncol=min(6, len(families) + 1), fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
