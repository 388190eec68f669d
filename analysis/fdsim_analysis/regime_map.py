"""The fixed-versus-adaptive regime map (scenarios/studies/regime-map-sweep.json, issue 29): in
each regime, is the adaptive Hou-Shin scheme better than, equivalent to or worse than the best
fixed scheme that sends no more messages?

Input: a sweep output directory whose points are regimes and whose every run holds load-sharing
arms of the families below on common random numbers (the run files are read, not the
aggregate: the study pairs arms within each run).

Contract of analyse(sweep, metric, delta_rel, budget_arm):
- Families, from each arm's `diagnosis`: adaptive = hou_shin and hou_shin_extra; baselines =
  fixed, fixed_on_silence, fixed_periodic and geode_ring; controls (never chosen) = none,
  oracle, oracle_extra, oracle_periodic, periodic_no_diagnosis.
- Cost of an arm = the mean over replications of traffic.messages_per_node_s: every message
  the arm's simulation sent in the measured window (state broadcasts of every kind, transfers,
  and the Geode ring's own heartbeats, checks and views for geode_ring), per node per second.
- The budget of a regime = the cost of `budget_arm` (hou_shin_extra_a0.05, the scheme with its
  published default) times (1 + BUDGET_TOLERANCE). At that budget, the adaptive pick is the
  adaptive arm with the lowest mean `metric` whose cost is within the budget, and the baseline
  pick the baseline arm likewise (so the budget arm itself always qualifies). Both are chosen in
  hindsight on the same replications; the baseline pool has more arms, so the selection favours
  the baseline: an "adaptive better" verdict survives a tuned baseline.
- delta[i] = metric(baseline pick) - metric(adaptive pick) in replication i (paired, same run):
  positive = the adaptive scheme fails fewer tasks. Reported in the metric's unit (a ratio),
  relative to the baseline pick's mean, and in tasks lost per node-day (each arm's
  dynamic failures = metric x tasks_feasible_count, per node and per day of measured window).
- Equivalence margin: delta_rel x the baseline pick's mean (the same relative margin in every
  regime; P(df) varies tenfold across the map). Three tests per regime from the paired
  differences (one-sided paired t): superiority (delta > 0), inferiority (delta < 0) and TOST
  (|delta| < margin: the larger of the two one-sided p-values). Each of the three families of
  tests is Holm-adjusted across every regime of the map. Verdict: "equivalent" if the adjusted
  TOST p < level, else "adaptive better" / "adaptive worse" if the adjusted one-sided p < level,
  else "inconclusive".
- Per family, its frontier: the arms that no other arm of the family beats on both cost and mean
  metric (ties on cost keep the lower metric), in increasing cost.
- Per regime, the mechanism of the two picks (means over replications of by_region.* and the
  transfer counters, per node-hour of measured window).
"""

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import equivalence
from .errors import AnalysisInputError
from .multiplicity import holm
from .stats import summarize

ADAPTIVE = ("hou_shin", "hou_shin_extra")
BASELINES = ("fixed", "fixed_on_silence", "fixed_periodic", "geode_ring")
CONTROLS = ("none", "oracle", "oracle_extra", "oracle_periodic", "periodic_no_diagnosis")
FAMILIES = ADAPTIVE + BASELINES
BUDGET_ARM = "hou_shin_extra_a0.05"
BUDGET_TOLERANCE = 0.02   # a pick may cost up to 2 % more than the budget arm (run-to-run noise)
DELTA_REL = 0.03          # equivalence margin: 3 % of the baseline pick's P(df)
LEVEL = 0.05
COST_METRIC = ("traffic", "messages_per_node_s")
REGIONS = ("U", "M", "O", "unknown")


@dataclass
class Arm:
    name: str
    kind: str
    values: List[Optional[float]]      # metric per replication (run order)
    cost: List[Optional[float]]        # messages per node per s, per replication
    failures_per_node_day: List[Optional[float]]
    mean: Optional[float] = None
    ci95: Optional[float] = None
    cost_mean: Optional[float] = None
    mechanism: Dict[str, Optional[float]] = field(default_factory=dict)


@dataclass
class Test:
    n: int
    mean: Optional[float]
    ci95: Optional[float]
    sd: Optional[float]
    p_greater: Optional[float]
    p_less: Optional[float]
    p_tost: Optional[float]
    p_greater_holm: Optional[float] = None
    p_less_holm: Optional[float] = None
    p_tost_holm: Optional[float] = None


@dataclass
class Regime:
    index: int
    label: str
    anchor: str
    nodes: int
    arms: Dict[str, Arm]
    budget: Optional[float] = None
    adaptive_pick: Optional[str] = None
    baseline_pick: Optional[str] = None
    margin: Optional[float] = None
    delta: Optional[Test] = None
    delta_per_node_day: Optional[Test] = None
    verdict: str = "inconclusive"
    frontiers: Dict[str, List[str]] = field(default_factory=dict)
    family_best: Dict[str, Optional[str]] = field(default_factory=dict)
    family_delta: Dict[str, Optional[Test]] = field(default_factory=dict)


@dataclass
class RegimeMap:
    metric: str
    delta_rel: float
    budget_arm: str
    regimes: List[Regime]
    replications: int


def _num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _test(diffs, margin):
    s = summarize(diffs)
    t = Test(n=s.n, mean=s.mean, ci95=s.ci95_half_width, sd=s.sd,
             p_greater=equivalence.one_sided_p(s.mean, s.sd, s.n, "greater"),
             p_less=equivalence.one_sided_p(s.mean, s.sd, s.n, "less"), p_tost=None)
    if margin is not None and margin > 0:
        t.p_tost = equivalence.tost(s.mean, s.sd, s.n, margin)
    return t


def _paired(a, b):
    return [x - y for x, y in zip(a, b) if x is not None and y is not None]


def _get(metrics, path):
    cur = metrics
    for k in path:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return _num(cur)


def _mechanism(runs, arm, nodes):
    """Means over replications of the mechanism counters, per node-hour of window."""
    out = {}
    keys = {f"{r}.{m}": ("by_region", r, m) for r in REGIONS
            for m in ("false_suspicions_count", "suspicions_count", "crashes_observed_count",
                      "detections_never_count")}
    keys.update({f"{r}.live_suspected_time_s": ("by_region", r, "live_suspected_time_s")
                 for r in REGIONS})
    keys.update({"transfers_attempted_count": ("transfers_attempted_count",),
                 "transfers_to_dead_count": ("transfers_to_dead_count",),
                 "unplaced_no_receiver_count": ("unplaced_no_receiver_count",)})
    for name, path in keys.items():
        vals = []
        for r in runs:
            m = r.metrics.get(arm, {})
            v, w = _get(m, path), _num(m.get("window_s"))
            if v is not None and w:
                vals.append(v / (nodes * w / 3600.0))
        out[name] = summarize(vals).mean
    for reg in REGIONS:
        vals = [_get(r.metrics.get(arm, {}), ("by_region", reg, "detection_time_mean_s"))
                for r in runs]
        out[f"{reg}.detection_time_mean_s"] = summarize(vals).mean
    return out


def _frontier(arms):
    """Pareto-efficient arms (lower cost and lower mean), by increasing cost."""
    pts = sorted((a for a in arms if a.mean is not None and a.cost_mean is not None),
                 key=lambda a: (a.cost_mean, a.mean))
    out, best = [], math.inf
    for a in pts:
        if a.mean < best:
            out.append(a.name)
            best = a.mean
    return out


def _pick(arms, budget):
    ok = [a for a in arms if a.mean is not None and a.cost_mean is not None
          and a.cost_mean <= budget]
    return min(ok, key=lambda a: (a.mean, a.cost_mean, a.name)) if ok else None


def analyse(sweep, metric="dynamic_failure_feasible_ratio", delta_rel=DELTA_REL,
            budget_arm=BUDGET_ARM, level=LEVEL):
    regimes = []
    reps = 0
    for p in sweep.manifest.points:
        runs = sweep.runs(p.index)
        if not runs:
            raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no run results in "
                                     "runs/ (run the sweep first)")
        reps = max(reps, len(runs))
        cfg = runs[0].resolved_config
        arms_cfg = {a["name"]: a for a in cfg.get("load_sharing", {}).get("arms", [])
                    if isinstance(a, dict) and isinstance(a.get("name"), str)}
        nodes = int(cfg.get("nodes", {}).get("count", 0)) or 1
        arms = {}
        for name in runs[0].arm_order:
            if name not in arms_cfg:
                continue
            vals, cost, fpd = [], [], []
            for r in runs:
                m = r.metrics.get(name, {})
                v = _num(m.get(metric))
                vals.append(v)
                cost.append(_get(m, COST_METRIC))
                feas, w = _num(m.get("tasks_feasible_count")), _num(m.get("window_s"))
                fpd.append(v * feas / (nodes * w / 86400.0)
                           if v is not None and feas is not None and w else None)
            a = Arm(name=name, kind=str(arms_cfg[name].get("diagnosis")), values=vals,
                    cost=cost, failures_per_node_day=fpd)
            s = summarize(vals)
            a.mean, a.ci95 = s.mean, s.ci95_half_width
            a.cost_mean = summarize(cost).mean
            arms[name] = a
        if budget_arm not in arms:
            raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no arm "
                                     f"{budget_arm!r} (the budget arm)")
        label = str(cfg.get("description", f"point {p.index}"))
        anchor = label.split(":")[0].split(",")[0].strip()
        reg = Regime(index=p.index, label=label, anchor=anchor, nodes=nodes, arms=arms)
        for fam in FAMILIES:
            reg.frontiers[fam] = _frontier([a for a in arms.values() if a.kind == fam])
        if arms[budget_arm].cost_mean is not None:
            reg.budget = arms[budget_arm].cost_mean * (1 + BUDGET_TOLERANCE)
            ad = _pick([a for a in arms.values() if a.kind in ADAPTIVE], reg.budget)
            base = _pick([a for a in arms.values() if a.kind in BASELINES], reg.budget)
            if ad is not None and base is not None:
                reg.adaptive_pick, reg.baseline_pick = ad.name, base.name
                reg.margin = delta_rel * base.mean if base.mean is not None else None
                reg.delta = _test(_paired(base.values, ad.values), reg.margin)
                reg.delta_per_node_day = _test(
                    _paired(base.failures_per_node_day, ad.failures_per_node_day), None)
                ad.mechanism = _mechanism(runs, ad.name, nodes)
                base.mechanism = _mechanism(runs, base.name, nodes)
            for fam in BASELINES:
                b = _pick([a for a in arms.values() if a.kind == fam], reg.budget)
                reg.family_best[fam] = b.name if b else None
                reg.family_delta[fam] = (_test(_paired(b.values, ad.values), None)
                                         if b is not None and ad is not None else None)
        regimes.append(reg)
    tested = [r for r in regimes if r.delta is not None]
    for attr in ("p_greater", "p_less", "p_tost"):
        adj = holm([getattr(r.delta, attr) for r in tested])
        for r, q in zip(tested, adj):
            setattr(r.delta, attr + "_holm", q)
    for r in tested:
        d = r.delta
        if r.margin is None or not r.margin > 0:
            continue
        v = equivalence.verdict(d.mean, d.sd, d.n, r.margin, d.p_tost_holm, d.p_greater_holm,
                                d.p_less_holm, level=level, positive_is_better=True)
        r.verdict = {"better": "adaptive better", "worse": "adaptive worse"}.get(v, v)
    return RegimeMap(metric=metric, delta_rel=delta_rel, budget_arm=budget_arm,
                     regimes=regimes, replications=reps)
