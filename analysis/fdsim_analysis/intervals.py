"""Confidence intervals for the quantities a study table reports that are not means of
i.i.d. replications: proportions of runs, rates of rare events, medians. All are 95% by
default and need nothing beyond the standard library.

Contract:
- wilson(k, n, confidence=0.95) -> (low, high): the Wilson score interval of a proportion from
  k successes in n independent trials (Wilson, JASA 22, 1927). Unlike the normal (Wald)
  interval it is not degenerate at k = 0 or k = n: for k = 0 it is (0, z^2 / (n + z^2)).
  n = 0: None. k outside 0..n: ValueError.
- poisson_exact(k, exposure, confidence=0.95) -> (low, high): the exact (Garwood 1936) interval
  of a Poisson rate from k events in `exposure` units (e.g. member-hours): low solves
  P(X >= k; low * exposure) = (1 - confidence) / 2 (0 when k = 0), high solves
  P(X <= k; high * exposure) = (1 - confidence) / 2, by bisection on the exact Poisson CDF
  (relative error below 1e-9). k = 0 gives high = -ln((1 - confidence) / 2) / exposure
  (3.689 / exposure at 95%). exposure <= 0 or k < 0: ValueError.
- median_interval(values, confidence=0.95) -> (low, high): the distribution-free interval of
  a median from the order statistics: (x_(l), x_(n+1-l)) with the largest l such that
  P(B <= l - 1) <= (1 - confidence) / 2 for B ~ Binomial(n, 1/2); its coverage is at least
  `confidence` for any continuous law (n = 40: ranks 14 and 27, coverage 0.962). None when n
  is too small for any l >= 1 (n < 6 at 95%).
"""

import math
from typing import Optional, Sequence, Tuple

from .stats import student_t_quantile


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    # The normal quantile as the limit of Student's t (df = 1e9: error far below 1e-9).
    return student_t_quantile(0.5 + 0.5 * confidence, 1e9)


def wilson(k: int, n: int, confidence: float = 0.95) -> Optional[Tuple[float, float]]:
    """Wilson score interval of k successes in n trials (see the module contract)."""
    if n == 0:
        return None
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k = {k}, n = {n}")
    z = _z(confidence)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def _poisson_cdf(k: int, mu: float) -> float:
    """P(X <= k) for X ~ Poisson(mu), summed in log space term by term."""
    if mu == 0.0:
        return 1.0
    total, log_term = 0.0, -mu
    for i in range(k + 1):
        if i > 0:
            log_term += math.log(mu) - math.log(i)
        total += math.exp(log_term)
    return min(1.0, total)


def _bisect(f, lo: float, hi: float) -> float:
    """Root of an increasing f on [lo, hi] (f(lo) < 0 < f(hi))."""
    for _ in range(300):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def poisson_exact(k: int, exposure: float, confidence: float = 0.95) -> Tuple[float, float]:
    """Exact Poisson interval of the rate k / exposure (see the module contract)."""
    if k < 0 or not exposure > 0.0:
        raise ValueError(f"need k >= 0 and exposure > 0, got k = {k}, exposure = {exposure}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    tail = 0.5 * (1.0 - confidence)
    hi_mu = max(10.0, 4.0 * (k + 10))
    # Upper: P(X <= k; mu) decreases in mu; find mu where it equals `tail`.
    upper = _bisect(lambda mu: tail - _poisson_cdf(k, mu), 0.0, hi_mu)
    if k == 0:
        lower = 0.0
    else:
        # Lower: P(X >= k; mu) = 1 - P(X <= k - 1; mu) increases in mu.
        lower = _bisect(lambda mu: (1.0 - _poisson_cdf(k - 1, mu)) - tail, 0.0, hi_mu)
    return (lower / exposure, upper / exposure)


def _binom_half_cdf(j: int, n: int) -> float:
    """P(B <= j) for B ~ Binomial(n, 1/2)."""
    if j < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(j, n) + 1)) / 2.0 ** n


def median_interval(values: Sequence[float],
                    confidence: float = 0.95) -> Optional[Tuple[float, float]]:
    """Distribution-free interval of the median (see the module contract)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = sorted(float(v) for v in values)
    n = len(xs)
    tail = 0.5 * (1.0 - confidence)
    best = 0
    for l in range(1, n // 2 + 1):
        if _binom_half_cdf(l - 1, n) <= tail:
            best = l
        else:
            break
    if best == 0:
        return None
    return (xs[best - 1], xs[n - best])
