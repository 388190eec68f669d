"""Statistics across replications (the Student-t interval of docs/sweeps.md), for when the analysis aggregates
run results itself (the sweep's aggregate.csv already carries them).

Contract:
- student_t_quantile(p, df): the p-quantile of Student's t with df > 0 degrees of freedom,
  0.5 <= p < 1, by bisection on the exact CDF (regularised incomplete beta, continued
  fraction): absolute error below 1e-9 for df <= 1e6 (t_{0.975,1} = 12.7062, t_{0.975,4} =
  2.7764, t_{0.975,29} = 2.0452).
- summarize(values): n, mean, sample sd (n - 1), and the 95% half-width t_{0.975,n-1} sd/sqrt(n),
  the textbook interval for i.i.d. replications. n = 0: everything None; n = 1: sd and
  half-width None. Values are summed in the given order (the same inputs give the same bits).
- paired_differences(a, b): a[i] - b[i] over the indices where both are present (not None),
  the per-replication differences of two arms run on common random numbers.
"""

import math
from dataclasses import dataclass
from typing import Optional, Sequence


def _betacf(a, b, x):
    # Continued fraction of the incomplete beta (modified Lentz), as in Numerical Recipes 6.4.
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def regularized_incomplete_beta(a, b, x):
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def student_t_cdf(t, df):
    """P(T <= t) for Student's t with df degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    tail = 0.5 * regularized_incomplete_beta(0.5 * df, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def student_t_quantile(p, df):
    """The p-quantile of Student's t (0.5 <= p < 1, df > 0)."""
    if not 0.5 <= p < 1.0:
        raise ValueError(f"p must be in [0.5, 1), got {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while student_t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if student_t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Summary:
    n: int
    mean: Optional[float]
    sd: Optional[float]
    ci95_half_width: Optional[float]


def summarize(values: Sequence[Optional[float]]) -> Summary:
    """Summary of the present (not None) values; see the module contract."""
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return Summary(0, None, None, None)
    total = 0.0
    for x in xs:
        total += x
    mean = total / n
    if n == 1:
        return Summary(1, mean, None, None)
    ss = 0.0
    for x in xs:
        ss += (x - mean) * (x - mean)
    sd = math.sqrt(ss / (n - 1))
    hw = student_t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, hw)


def paired_differences(a: Sequence[Optional[float]], b: Sequence[Optional[float]]):
    """a[i] - b[i] where both are present (the sequences must have the same length)."""
    if len(a) != len(b):
        raise ValueError("paired sequences must have the same length")
    return [x - y for x, y in zip(a, b) if x is not None and y is not None]
