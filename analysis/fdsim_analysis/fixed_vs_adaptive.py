"""The fixed-versus-adaptive study (scenarios/studies/fixed-vs-adaptive-sweep.json and the
flagship): is any fixed timeout as good as the adaptive Hou-Shin timeout, and how much does it
matter which one you pick?

Input: a sweep output directory whose points are (repair time x load regime) and whose every
run holds the load-sharing arms none, fixed (a grid of timeouts), fixed_periodic, hou_shin
(several alphas), hou_shin_extra, oracle and oracle_extra on common random numbers. The run
files are read (not the aggregate) because the study pairs arms other than the sweep's
reference arm.

Contract of analyse(sweep, metric):
- Per point, per arm: the replication values of `metric` (runs of the point present in
  OUT/runs, in manifest order; a run without the metric for an arm is left out of that arm's
  comparisons pairwise).
- Estimates are means with the Student-t 95% half-width over replications. Paired
  comparisons use the per-replication differences (same run, same random numbers): mean,
  95% half-width and the two-sided paired-t p-value.
- `vs_oracle[arm]`: arm - oracle. `vs_adaptive[arm]`: arm - the adaptive reference arm
  (hou_shin_extra unless told otherwise), with raw and Holm-adjusted p-values; the Holm family
  is every (point, arm) comparison against the adaptive arm in the study.
- `best_fixed`: the fixed arm with the lowest mean at that point, chosen in hindsight (a
  baseline tuned with knowledge the adaptive scheme does not need).
- `messages_mean`: the arm's mean number of state broadcasts per run (MESSAGES_METRIC), the
  price of its information; reports give it relative to `none`.
- `gap_share[arm]` = mean(none - arm) / mean(none - oracle): the share of the none-to-oracle gap
  the arm captures (1 = as good as the oracle, 0 = no better than no diagnosis; can leave
  [0, 1]). Its 95% interval is a percentile bootstrap over replications (2000 resamples,
  numpy Generator seeded with 20261201 + point index, so the numbers are reproducible). None
  when the gap's mean is not > 0.
"""

import math
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from .errors import AnalysisInputError
from .multiplicity import holm, paired_t_p_value
from .stats import summarize

ADAPTIVE_REFERENCE = "hou_shin_extra"
# The cost side: state broadcasts sent (periodic heartbeats and extra broadcasts included).
MESSAGES_METRIC = "broadcast_messages_count"


@dataclass
class Comparison:
    n: int
    mean: Optional[float]
    ci95_half_width: Optional[float]
    p: Optional[float]
    p_holm: Optional[float] = None


@dataclass
class ArmResult:
    name: str
    kind: str                      # the arm's diagnosis ("fixed", "hou_shin", ...)
    timeout_s: Optional[float]     # fixed and fixed_periodic arms
    alpha: Optional[float]         # Hou-Shin arms and oracle_extra
    values: List[Optional[float]]  # one per replication (run order)
    n: int
    mean: Optional[float]
    ci95_half_width: Optional[float]
    vs_oracle: Optional[Comparison] = None
    vs_adaptive: Optional[Comparison] = None
    gap_share: Optional[float] = None
    gap_share_ci: Optional[tuple] = None
    messages_mean: Optional[float] = None   # mean of MESSAGES_METRIC over replications


@dataclass
class PointResult:
    index: int
    params: dict
    arms: Dict[str, ArmResult]
    best_fixed: Optional[str] = None
    notes: List[str] = field(default_factory=list)

    def fixed_arms(self):
        """The fixed-timeout arms, by increasing timeout."""
        fixed = [a for a in self.arms.values() if a.kind == "fixed" and a.timeout_s is not None]
        return sorted(fixed, key=lambda a: a.timeout_s)

    def of_kind(self, kind):
        return [a for a in self.arms.values() if a.kind == kind]


@dataclass
class Study:
    metric: str
    adaptive: str
    points: List[PointResult]
    axes: List[str]


def _arm_configs(run):
    """{arm name: arm config} of the load-sharing arms in a run's resolved config."""
    arms = run.resolved_config.get("load_sharing", {}).get("arms")
    if not isinstance(arms, list):
        raise AnalysisInputError(f"{run.path}: resolved config has no load_sharing.arms "
                                 "(not a load-sharing study?)")
    return {a["name"]: a for a in arms if isinstance(a, dict) and isinstance(a.get("name"), str)}


def _num_or_none(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _paired(a, b):
    """Per-replication differences a - b where both are present."""
    return [x - y for x, y in zip(a, b) if x is not None and y is not None]


def _compare(a, b):
    d = _paired(a, b)
    s = summarize(d)
    return Comparison(n=s.n, mean=s.mean, ci95_half_width=s.ci95_half_width,
                      p=paired_t_p_value(s.mean, s.sd, s.n))


def _gap_share(none, arm, oracle, seed):
    """Point estimate and bootstrap 95% interval of mean(none - arm) / mean(none - oracle)."""
    rows = [(n, a, o) for n, a, o in zip(none, arm, oracle)
            if n is not None and a is not None and o is not None]
    if len(rows) < 2:
        return None, None
    x = np.array(rows, dtype=float)
    gain, gap = x[:, 0] - x[:, 1], x[:, 0] - x[:, 2]
    if gap.mean() <= 0:
        return None, None
    share = float(gain.mean() / gap.mean())
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(rows), size=(2000, len(rows)))
    g, G = gain[idx].mean(axis=1), gap[idx].mean(axis=1)
    ok = G > 0
    if ok.sum() < 100:
        return share, None
    lo, hi = np.percentile(g[ok] / G[ok], [2.5, 97.5])
    return share, (float(lo), float(hi))


def analyse(sweep, metric="dynamic_failure_feasible_ratio", adaptive=ADAPTIVE_REFERENCE):
    """The study's results from a sweep output directory (see the module contract)."""
    points = []
    for p in sweep.manifest.points:
        runs = sweep.runs(p.index)
        if not runs:
            raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no run results in "
                                     "runs/ (run the sweep first)")
        configs = _arm_configs(runs[0])
        arms = {}
        for name in runs[0].arm_order:
            cfg = configs.get(name)
            if cfg is None:
                continue
            values = [_num_or_none(r.metrics.get(name, {}).get(metric)) for r in runs]
            s = summarize(values)
            t_ms = _num_or_none(cfg.get("timeout_ms"))
            arms[name] = ArmResult(
                name=name, kind=str(cfg.get("diagnosis")),
                timeout_s=None if t_ms is None else t_ms / 1000.0,
                alpha=_num_or_none(cfg.get("alpha")), values=values, n=s.n, mean=s.mean,
                ci95_half_width=s.ci95_half_width,
                messages_mean=summarize([_num_or_none(r.metrics.get(name, {}).get(
                    MESSAGES_METRIC)) for r in runs]).mean)
        for required in ("none", "oracle", adaptive):
            if required not in arms:
                raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no arm "
                                         f"{required!r} (arms: {', '.join(arms)})")
        if all(a.n == 0 for a in arms.values()):
            raise AnalysisInputError(f"{sweep.out_dir}: no run has the metric {metric!r}")
        pr = PointResult(index=p.index, params=dict(p.params), arms=arms)
        none, oracle, ref = arms["none"].values, arms["oracle"].values, arms[adaptive].values
        for a in arms.values():
            a.vs_oracle = _compare(a.values, oracle) if a.name != "oracle" else None
            a.vs_adaptive = _compare(a.values, ref) if a.name != adaptive else None
            if a.name not in ("none", "oracle"):
                a.gap_share, a.gap_share_ci = _gap_share(none, a.values, oracle,
                                                         20261201 + p.index)
        fixed = [a for a in pr.fixed_arms() if a.mean is not None]
        if fixed:
            pr.best_fixed = min(fixed, key=lambda a: (a.mean, a.timeout_s)).name
        points.append(pr)
    # One Holm family: every comparison against the adaptive arm in the study.
    family = [(pr, a) for pr in points for a in pr.arms.values() if a.vs_adaptive is not None]
    adjusted = holm([a.vs_adaptive.p for _, a in family])
    for (_, a), q in zip(family, adjusted):
        a.vs_adaptive.p_holm = q
    return Study(metric=metric, adaptive=adaptive, points=points, axes=list(sweep.manifest.axes))




def point_label(params, axes):
    """A short human label of a point: its string parameters, then the others as k=v."""
    parts = []
    for ax in axes:
        v = params.get(ax)
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            key = ax.rsplit(".", 1)[-1]
            parts.append(f"{key}={v:g}")
    return ", ".join(parts)


def is_finite(x):
    return x is not None and math.isfinite(x)
