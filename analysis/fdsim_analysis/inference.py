"""Inference for arm-against-arm verdicts across a family of regimes: independent seeds per
regime, a margin tied to the value of detection, five verdicts plus "inconclusive" read off
one adjusted interval, precision-driven replication, and held-out confirmation.

Notation: a comparison is the paired difference d_i = baseline_i - challenger_i of replication
i (common random numbers); positive favours the challenger when `positive_is_better`.

Contract:
- regime_seed(name): the seed of a regime, derived from its name alone: the first 8 bytes,
  big-endian, of SHA-256("fdsim regime seed\\n" + name), masked to 63 bits (a JSON integer that
  every reader takes). Regimes with different names get independent random numbers (no shared
  seed, so no correlation between regimes, which the family adjustment below assumes); the
  same name always gets the same seed, whatever order regimes are listed in. holdout_seed(name)
  is regime_seed(name + "/held-out"): the seed of the confirmation block.
- value_of_detection_margin(metric_none, metric_oracle, share=DETECTION_VALUE_SHARE): the
  equivalence margin share x (metric[none] - metric[oracle]), i.e. a share of what perfect
  detection gains over no detection at all in that regime. ValueError unless the value of
  detection is > 0 and 0 < share < 1. Why 10 %: a margin must be small against the thing being
  decided. The whole benefit any detector can bring is the value of detection; two detectors
  whose difference is under a tenth of it are interchangeable for a user, while a margin of
  the baseline's own level (the 3 % of P(df) used before) was 34-154 % of the value of
  detection in slowly failing regimes, so "no detection" would have passed as equivalent to
  perfect detection. 10 % is also the usual non-inferiority convention (a tenth to a fifth of
  the effect of the active control over none).
- simultaneous_confidence(level, family_size): the Sidak per-comparison confidence
  (1 - level) ** (1 / family_size), so that the family's intervals all cover at once with
  probability >= 1 - level when the comparisons are independent (independent regime seeds).
- interval(diffs, confidence): the two-sided Student-t interval of the mean of diffs, as
  (mean, low, high); None when fewer than 2 values.
- classify(low, high, margin): the verdict from the interval of Delta (positive = challenger
  better):
    low > 0 and high > margin        -> "better"
    low > 0 and high <= margin       -> "better within margin"   (real, but not practically)
    -margin < low <= 0 <= high < margin -> "equivalent"
    high < 0 and low >= -margin      -> "worse within margin"
    high < 0 and low < -margin       -> "worse"
    otherwise (covers 0 and reaches past a margin) -> "inconclusive".
  The six cases partition every interval. Using the one two-sided interval at the adjusted
  confidence for every decision makes the equivalence test a TOST at level (1 - confidence)/2
  per side (conservative), and makes the intervals drawn in a figure exactly the intervals the
  verdicts are read from.
- replications_needed(diffs, margin, confidence, block, cap, min_blocks=2): precision-driven
  replication. Replications come in blocks of `block`; after each block the interval of the
  mean is computed at `confidence`; stop when its full width (high - low) is below `margin`,
  or when `cap` replications are reached. Returns the number of replications to have in
  total (a multiple of block, <= cap): len(diffs) when the rule says stop, else the next
  block. The rule depends on the data only through the sample sd (the width), never through
  the mean or its sign; for normal differences the sample mean and sd are independent, so the
  stopping time carries no information about the sign of Delta and the interval keeps its
  coverage up to the sd's own noise: the coverage of such fixed-width sequential intervals is
  asymptotically the nominal one (Chow and Robbins, Ann. Math. Statist. 36, 1965), and
  stop_rule_coverage() measures it for a given design (analysis/tests/test_inference.py,
  blocks of 4 from 8, nominal 0.95: 0.931 when about 18 replications suffice, 0.953 at about
  64; stopping early on a sample sd that happens to be small costs a little coverage at small
  n, so the false-verdict rate per regime is up to about 7 % instead of 5 % there; a larger
  `min_blocks` or confidence removes it). What the cap changes: a regime that hits the cap has
  a wider interval than the margin and is more often "inconclusive"; its error rates are those
  of a fixed-n design at the cap.
- confirm(verdict, holdout_diffs, margin, confidence): a verdict other than "equivalent" is
  confirmed when the held-out block (other seeds, holdout_seed) gives the same verdict at the
  same confidence; returns (held-out verdict, confirmed). "equivalent" needs no confirmation
  (returns (held-out verdict or None, True)).
"""

import functools
import hashlib
import math
import random
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from .stats import student_t_quantile

DETECTION_VALUE_SHARE = 0.10
VERDICTS = ("better", "better within margin", "equivalent", "worse within margin", "worse",
            "inconclusive")
_SEED_PREFIX = b"fdsim regime seed\n"


def regime_seed(name: str) -> int:
    """The seed of a regime, from its name alone (see the module contract)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a regime seed needs a non-empty name, got {name!r}")
    digest = hashlib.sha256(_SEED_PREFIX + name.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


def holdout_seed(name: str) -> int:
    """The seed of a regime's held-out confirmation block."""
    return regime_seed(name + "/held-out")


def value_of_detection_margin(metric_none: float, metric_oracle: float,
                              share: float = DETECTION_VALUE_SHARE) -> float:
    """share x (metric[none] - metric[oracle]) (see the module contract)."""
    if not 0.0 < share < 1.0:
        raise ValueError(f"the margin's share of the value of detection must be in (0, 1), "
                         f"got {share}")
    value = metric_none - metric_oracle
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"the value of detection (metric of none {metric_none} minus that of "
                         f"the oracle {metric_oracle}) must be > 0 for a margin tied to it")
    return share * value


def simultaneous_confidence(level: float, family_size: int) -> float:
    """Sidak per-comparison confidence for a family of independent comparisons."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if family_size < 1:
        raise ValueError(f"family size must be >= 1, got {family_size}")
    return (1.0 - level) ** (1.0 / family_size)


@functools.lru_cache(maxsize=4096)
def _t_quantile(p: float, df: int) -> float:
    return student_t_quantile(p, df)


def interval(diffs: Sequence[float], confidence: float) -> Optional[Tuple[float, float, float]]:
    """(mean, low, high) of the two-sided Student-t interval; None for n < 2."""
    xs = [float(x) for x in diffs if x is not None]
    n = len(xs)
    if n < 2:
        return None
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    hw = _t_quantile(0.5 + 0.5 * confidence, n - 1) * sd / math.sqrt(n)
    return (mean, mean - hw, mean + hw)


def classify(low: float, high: float, margin: float) -> str:
    """One of VERDICTS from the interval [low, high] of Delta (see the module contract)."""
    if not (margin > 0.0 and math.isfinite(margin)):
        raise ValueError(f"margin must be a finite number > 0, got {margin}")
    if not low <= high:
        raise ValueError(f"interval low {low} > high {high}")
    if low > 0.0:
        return "better" if high > margin else "better within margin"
    if high < 0.0:
        return "worse" if low < -margin else "worse within margin"
    if -margin < low and high < margin:
        return "equivalent"
    return "inconclusive"


def replications_needed(diffs: Sequence[float], margin: float, confidence: float, block: int,
                        cap: int, min_blocks: int = 2) -> int:
    """Total replications the precision rule asks for (see the module contract)."""
    if block < 1 or cap < block:
        raise ValueError(f"need block >= 1 and cap >= block, got block {block}, cap {cap}")
    n = len(diffs)
    if n % block != 0:
        raise ValueError(f"{n} replications is not a whole number of blocks of {block}")
    if n >= cap:
        return n
    if n < min_blocks * block:
        return min(cap, min_blocks * block)
    iv = interval(diffs, confidence)
    if iv is not None and iv[2] - iv[1] < margin:
        return n
    return min(cap, n + block)


@dataclass(frozen=True)
class Verdict:
    n: int
    mean: float
    low: float
    high: float
    verdict: str


def verdict_of(diffs: Sequence[float], margin: float, confidence: float) -> Optional[Verdict]:
    iv = interval(diffs, confidence)
    if iv is None:
        return None
    mean, low, high = iv
    return Verdict(len([d for d in diffs if d is not None]), mean, low, high,
                   classify(low, high, margin))


def confirm(verdict: str, holdout_diffs: Sequence[float], margin: float,
            confidence: float) -> Tuple[Optional[str], bool]:
    """(held-out verdict, confirmed) (see the module contract)."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    held = verdict_of(holdout_diffs, margin, confidence)
    held_verdict = held.verdict if held is not None else None
    if verdict == "equivalent":
        return held_verdict, True
    return held_verdict, held_verdict == verdict


def stop_rule_coverage(true_mean: float, sd: float, margin: float, confidence: float,
                       block: int, cap: int, trials: int, seed: int) -> Tuple[float, float]:
    """Monte Carlo of the precision rule on normal differences: (coverage of the final
    interval, mean replications used). Deterministic for a given seed (Python's Mersenne
    Twister, random.Random(seed))."""
    rng = random.Random(seed)
    covered, used = 0, 0
    for _ in range(trials):
        diffs = []
        while True:
            need = replications_needed(diffs, margin, confidence, block, cap)
            if need == len(diffs):
                break
            diffs.extend(rng.gauss(true_mean, sd) for _ in range(need - len(diffs)))
        _, low, high = interval(diffs, confidence)
        covered += low <= true_mean <= high
        used += len(diffs)
    return covered / trials, used / trials
