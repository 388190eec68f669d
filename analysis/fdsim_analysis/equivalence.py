"""Paired equivalence and superiority tests from the summary statistics of per-replication
differences (the diff_mean, diff_sd, diff_n columns a sweep's aggregate.csv carries for each
arm against the reference arm), so that a results README can say "equivalent within delta",
"better", "worse" or "inconclusive" instead of "about equal".

Notation: d_i = challenger_i - reference_i, the paired difference of replication i (common
random numbers); diff_mean and diff_sd are the mean and sample sd (n - 1) of the n d_i;
se = diff_sd / sqrt(n); every t statistic has n - 1 degrees of freedom.

Contract:
- tost(diff_mean, diff_sd, n, delta) -> p: the two one-sided tests (Schuirmann 1987) of
  "|mean difference| >= delta" against "|mean difference| < delta", delta > 0 in the metric's
  own unit. p = max(p_low, p_high) with p_low = P(T >= (diff_mean + delta) / se) (H0: mean <=
  -delta) and p_high = P(T <= (diff_mean - delta) / se) (H0: mean >= delta). Rejecting at level
  a is the same as the (1 - 2a) two-sided t interval (the 90% interval for a = 0.05) lying
  inside (-delta, delta). None when n is None or < 2, or diff_mean or diff_sd is None or not
  finite. diff_sd == 0 (a constant difference, no noise): 0.0 when |diff_mean| < delta, else
  1.0. delta <= 0 or not finite: ValueError (an equivalence margin must be stated and
  positive).
- one_sided_p(diff_mean, diff_sd, n, direction): the one-sided paired t test of "mean
  difference = 0" against direction "greater" (mean > 0: p = P(T >= diff_mean / se)) or "less"
  (mean < 0: p = P(T <= diff_mean / se)). None under the same conditions as tost. diff_sd ==
  0: 0.0 when diff_mean lies strictly on the tested side of 0, else 1.0. Any other direction:
  ValueError.
- verdict(diff_mean, diff_sd, n, delta, p_tost_adj, p_greater_adj, p_less_adj, level=0.05,
  positive_is_better=True): "equivalent" if p_tost_adj < level; else "better" or "worse" if
  the adjusted one-sided p on that side is < level; else "inconclusive". The sign convention
  is the parameter positive_is_better: True when a positive difference favours the challenger
  (e.g. throughput), False when a negative one does (e.g. P(dynamic failure), messages). The
  p-values are the caller's adjusted ones (Holm across the family, see family_verdicts); a
  None p (test undefined) never counts as significant, and n < 2 or a missing diff_sd or
  diff_mean is always "inconclusive". delta is checked as in tost. Equivalence is tested
  first: a difference that is significant but smaller than delta is "equivalent" (in
  practice, not different) — which is why delta must be stated with the verdict.
- t_interval(diff_mean, diff_sd, n, confidence=0.95) -> (low, high): the two-sided Student-t
  interval diff_mean -/+ t_{(1+confidence)/2, n-1} se; None as for tost; (m, m) when sd = 0.
- family_verdicts(comparisons, delta, level=0.05, positive_is_better=True): comparisons is a
  sequence of (diff_mean, diff_sd, n); delta one margin for all or one per comparison. The raw
  TOST, "greater" and "less" p-values are each Holm-adjusted across the family
  (multiplicity.holm, which controls the family-wise error rate under any dependence, as arms
  on common random numbers need), and each comparison gets a FamilyVerdict with the raw and
  adjusted p-values and its verdict. Holm is applied to each kind of test separately; a
  comparison is counted in a family only where its test is defined.
"""

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

from .multiplicity import holm
from .stats import student_t_cdf, student_t_quantile

VERDICTS = ("equivalent", "better", "worse", "inconclusive")


def _check_delta(delta) -> float:
    if delta is None or not math.isfinite(delta) or delta <= 0.0:
        raise ValueError(f"equivalence margin delta must be a finite number > 0, got {delta}")
    return float(delta)


def _defined(diff_mean, diff_sd, n) -> bool:
    if diff_mean is None or diff_sd is None or n is None or n < 2:
        return False
    return math.isfinite(diff_mean) and math.isfinite(diff_sd)


def _upper_tail(t: float, df: int) -> float:
    # P(T >= t) by symmetry, which keeps precision for large t.
    return student_t_cdf(-t, df)


def tost(diff_mean: Optional[float], diff_sd: Optional[float], n: Optional[int],
         delta: float) -> Optional[float]:
    """TOST p-value of |mean difference| < delta (see the module contract)."""
    delta = _check_delta(delta)
    if not _defined(diff_mean, diff_sd, n):
        return None
    if diff_sd == 0.0:
        return 0.0 if abs(diff_mean) < delta else 1.0
    se = diff_sd / math.sqrt(n)
    df = n - 1
    p_low = _upper_tail((diff_mean + delta) / se, df)
    p_high = student_t_cdf((diff_mean - delta) / se, df)
    return max(p_low, p_high)


def one_sided_p(diff_mean: Optional[float], diff_sd: Optional[float], n: Optional[int],
                direction: str) -> Optional[float]:
    """One-sided paired-t p-value against "greater" or "less" (see the module contract)."""
    if direction not in ("greater", "less"):
        raise ValueError(f'direction must be "greater" or "less", got {direction!r}')
    if not _defined(diff_mean, diff_sd, n):
        return None
    if diff_sd == 0.0:
        on_side = diff_mean > 0.0 if direction == "greater" else diff_mean < 0.0
        return 0.0 if on_side else 1.0
    t = diff_mean / (diff_sd / math.sqrt(n))
    df = n - 1
    return _upper_tail(t, df) if direction == "greater" else student_t_cdf(t, df)


def verdict(diff_mean: Optional[float], diff_sd: Optional[float], n: Optional[int],
            delta: float, p_tost_adj: Optional[float], p_greater_adj: Optional[float],
            p_less_adj: Optional[float], level: float = 0.05,
            positive_is_better: bool = True) -> str:
    """"equivalent", "better", "worse" or "inconclusive" (see the module contract)."""
    _check_delta(delta)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if not _defined(diff_mean, diff_sd, n):
        return "inconclusive"

    def significant(p):
        return p is not None and p < level

    if significant(p_tost_adj):
        return "equivalent"
    p_better, p_worse = ((p_greater_adj, p_less_adj) if positive_is_better
                         else (p_less_adj, p_greater_adj))
    if significant(p_better):
        return "better"
    if significant(p_worse):
        return "worse"
    return "inconclusive"


def t_interval(diff_mean: Optional[float], diff_sd: Optional[float], n: Optional[int],
               confidence: float = 0.95) -> Optional[Tuple[float, float]]:
    """Two-sided Student-t interval of the mean difference (see the module contract)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if not _defined(diff_mean, diff_sd, n):
        return None
    hw = student_t_quantile(0.5 + 0.5 * confidence, n - 1) * diff_sd / math.sqrt(n)
    return (diff_mean - hw, diff_mean + hw)


@dataclass(frozen=True)
class FamilyVerdict:
    diff_mean: Optional[float]
    diff_sd: Optional[float]
    n: Optional[int]
    delta: float
    p_tost: Optional[float]
    p_greater: Optional[float]
    p_less: Optional[float]
    p_tost_adj: Optional[float]
    p_greater_adj: Optional[float]
    p_less_adj: Optional[float]
    verdict: str


def family_verdicts(comparisons: Sequence[Tuple[Optional[float], Optional[float], Optional[int]]],
                    delta: Union[float, Sequence[float]], level: float = 0.05,
                    positive_is_better: bool = True) -> List[FamilyVerdict]:
    """Holm-adjusted verdicts for a family of paired comparisons (see the module contract)."""
    if isinstance(delta, (int, float)):
        deltas = [float(delta)] * len(comparisons)
    else:
        deltas = [float(d) for d in delta]
        if len(deltas) != len(comparisons):
            raise ValueError(f"{len(deltas)} margins for {len(comparisons)} comparisons")
    raw_tost = [tost(m, s, n, d) for (m, s, n), d in zip(comparisons, deltas)]
    raw_greater = [one_sided_p(m, s, n, "greater") for m, s, n in comparisons]
    raw_less = [one_sided_p(m, s, n, "less") for m, s, n in comparisons]
    adj_tost, adj_greater, adj_less = holm(raw_tost), holm(raw_greater), holm(raw_less)
    out = []
    for i, ((m, s, n), d) in enumerate(zip(comparisons, deltas)):
        v = verdict(m, s, n, d, adj_tost[i], adj_greater[i], adj_less[i], level,
                    positive_is_better)
        out.append(FamilyVerdict(m, s, n, d, raw_tost[i], raw_greater[i], raw_less[i],
                                 adj_tost[i], adj_greater[i], adj_less[i], v))
    return out
