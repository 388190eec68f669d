"""Significance of many paired comparisons at once: paired-t p-values and Holm's step-down
adjustment (Holm, Scand. J. Statist. 6, 1979), for every results table that makes many
comparisons (each arm against the reference arm at each point).

Contract:
- paired_t_p_value(diff_mean, diff_sd, n): the two-sided p-value of the paired t test of
  "mean difference = 0" from the summary the sweep aggregate carries (diff_mean, diff_sd,
  diff_n). n < 2 or a missing value: None. diff_sd == 0: 1.0 when the mean is 0 (identical
  arms), else 0.0 (a constant non-zero difference is not noise).
- holm(p_values): the Holm-adjusted p-values, in the input order. None entries are kept as
  None and are not counted in the family size m. Adjusted p_(i) = max over j <= i of
  min(1, (m - j + 1) p_(j)) with p_(1) <= ... <= p_(m) (ties keep input order). Holm controls
  the family-wise error rate at the chosen level under any dependence between the tests,
  which is what arms run on common random numbers need.
- holm_significant(p_values, level=0.05): adjusted p <= level, per input (None stays None).
"""

import math
from typing import List, Optional, Sequence

from .stats import student_t_cdf


def paired_t_p_value(diff_mean: Optional[float], diff_sd: Optional[float],
                     n: Optional[int]) -> Optional[float]:
    """Two-sided p-value of the paired t test (see the module contract)."""
    if diff_mean is None or diff_sd is None or n is None or n < 2:
        return None
    if not (math.isfinite(diff_mean) and math.isfinite(diff_sd)):
        return None
    if diff_sd == 0.0:
        return 1.0 if diff_mean == 0.0 else 0.0
    t = diff_mean / (diff_sd / math.sqrt(n))
    return min(1.0, 2.0 * student_t_cdf(-abs(t), n - 1))


def holm(p_values: Sequence[Optional[float]]) -> List[Optional[float]]:
    """Holm step-down adjusted p-values, in input order (see the module contract)."""
    present = [(p, i) for i, p in enumerate(p_values) if p is not None]
    for p, i in present:
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"p-value {i} is not in [0, 1]: {p}")
    order = sorted(present, key=lambda pi: (pi[0], pi[1]))
    m = len(order)
    out: List[Optional[float]] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def holm_significant(p_values: Sequence[Optional[float]], level: float = 0.05):
    """Per input: Holm-adjusted p <= level (None stays None)."""
    return [None if q is None else q <= level for q in holm(p_values)]
