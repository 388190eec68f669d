"""Per-regime verdicts of a challenger against a baseline with the machinery of inference.py:
one interval per regime (Sidak-adjusted across the regimes), the value-of-detection margin,
the five verdicts plus inconclusive, held-out confirmation, precision-driven replication, and a
table and figure that show exactly those intervals.

Contract:
- RegimeComparison(name, diffs, holdout_diffs, margin): diffs are the paired differences
  baseline - challenger of the regime's discovery replications (positive: the challenger is
  better), holdout_diffs those of its held-out block (its own seed, inference.holdout_seed),
  margin the regime's margin (inference.value_of_detection_margin).
- regime_verdicts(comparisons, level=0.05, family_size=None): the discovery intervals at
  simultaneous_confidence(level, family_size or the number of comparisons) (a study whose
  stopping rule used the confidence of all its regimes passes their number); each regime's verdict from its interval
  (inference.classify). Every verdict other than "equivalent" (and other than "inconclusive",
  which claims nothing) is confirmed on its held-out block at simultaneous_confidence(level,
  number of such verdicts): "confirmed" when the held-out verdict is the same. Rows keep the
  input order.
- replicate_until_precise(diffs_of, margin, confidence, block, cap): drives the precision rule
  (inference.replications_needed) with a callback diffs_of(n) -> the paired differences of the
  first n replications (e.g. a sweep rerun with replications = n: resume reuses finished runs);
  returns the final diffs.
- verdict_table(rows) (markdown) and verdict_csv(rows); figure_verdicts(rows): one row per
  regime, the discovery interval (the very numbers of the table: low, high) and the held-out
  interval, the margin as a shaded band, coloured by verdict.
"""

import csv
import io
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

from .inference import (classify, interval, replications_needed, simultaneous_confidence)


@dataclass
class RegimeComparison:
    name: str
    diffs: Sequence[float]
    holdout_diffs: Sequence[float]
    margin: float


@dataclass
class RegimeVerdict:
    name: str
    margin: float
    confidence: float
    n: int
    mean: Optional[float]
    low: Optional[float]
    high: Optional[float]
    verdict: str
    holdout_confidence: Optional[float] = None
    holdout_n: int = 0
    holdout_mean: Optional[float] = None
    holdout_low: Optional[float] = None
    holdout_high: Optional[float] = None
    holdout_verdict: Optional[str] = None
    confirmed: Optional[bool] = None   # None: no confirmation needed ("equivalent")


NEEDS_CONFIRMATION = ("better", "better within margin", "worse within margin", "worse")


def regime_verdicts(comparisons: Sequence[RegimeComparison], level: float = 0.05,
                    family_size: Optional[int] = None) -> List[RegimeVerdict]:
    if not comparisons:
        return []
    conf = simultaneous_confidence(level, family_size or len(comparisons))
    rows = []
    for c in comparisons:
        iv = interval(c.diffs, conf)
        if iv is None:
            rows.append(RegimeVerdict(c.name, c.margin, conf, len(c.diffs), None, None, None,
                                      "inconclusive"))
            continue
        mean, low, high = iv
        rows.append(RegimeVerdict(c.name, c.margin, conf, len(c.diffs), mean, low, high,
                                  classify(low, high, c.margin)))
    to_confirm = [i for i, r in enumerate(rows) if r.verdict in NEEDS_CONFIRMATION]
    if to_confirm:
        hconf = simultaneous_confidence(level, len(to_confirm))
        for i in to_confirm:
            r, c = rows[i], comparisons[i]
            r.holdout_confidence = hconf
            r.holdout_n = len(c.holdout_diffs)
            iv = interval(c.holdout_diffs, hconf)
            if iv is None:
                r.holdout_verdict, r.confirmed = None, False
                continue
            r.holdout_mean, r.holdout_low, r.holdout_high = iv
            r.holdout_verdict = classify(iv[1], iv[2], c.margin)
            r.confirmed = r.holdout_verdict == r.verdict
    return rows


def replicate_until_precise(diffs_of: Callable[[int], Sequence[float]], margin: float,
                            confidence: float, block: int, cap: int) -> List[float]:
    diffs: List[float] = []
    while True:
        need = replications_needed(diffs, margin, confidence, block, cap)
        if need == len(diffs):
            return diffs
        diffs = list(diffs_of(need))
        if len(diffs) != need:
            raise ValueError(f"diffs_of({need}) returned {len(diffs)} differences")


def _g(x, digits=3):
    return "" if x is None else f"{x:.{digits}g}"


def verdict_table(rows: Sequence[RegimeVerdict], unit: str = "") -> str:
    out = ["| regime | margin | n | Δ | interval | verdict | held-out n | held-out Δ | "
           "held-out interval | held-out verdict | confirmed |", "|" + "---|" * 11]
    for r in rows:
        conf = {None: "not needed", True: "yes", False: "**no**"}[r.confirmed]
        out.append(
            f"| {r.name} | {_g(r.margin)} | {r.n} | {_g(r.mean)} | [{_g(r.low)}, {_g(r.high)}] | "
            f"{r.verdict} | {r.holdout_n or ''} | {_g(r.holdout_mean)} | "
            + (f"[{_g(r.holdout_low)}, {_g(r.holdout_high)}]" if r.holdout_low is not None
               else "") + f" | {r.holdout_verdict or ''} | {conf} |")
    if rows:
        out.append("")
        out.append(f"Δ = baseline − challenger{(' (' + unit + ')') if unit else ''}, paired; "
                   f"positive: the challenger is better. Intervals: two-sided Student t at "
                   f"{rows[0].confidence:.4f} per regime (Šidák, {len(rows)} independent "
                   "regimes, family 0.95); held-out intervals at the Šidák confidence over the "
                   "verdicts confirmed.")
    return "\n".join(out) + "\n"


CSV_COLUMNS = ("name", "margin", "confidence", "n", "mean", "low", "high", "verdict",
               "holdout_confidence", "holdout_n", "holdout_mean", "holdout_low", "holdout_high",
               "holdout_verdict", "confirmed")


def verdict_csv(rows: Sequence[RegimeVerdict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow(["" if getattr(r, c) is None else
                    (repr(getattr(r, c)) if isinstance(getattr(r, c), float) else getattr(r, c))
                    for c in CSV_COLUMNS])
    return buf.getvalue()


VERDICT_COLOURS = {"better": "#1a7f37", "better within margin": "#7fc97f",
                   "equivalent": "#4a6fa5", "worse within margin": "#fdae61",
                   "worse": "#d7301f", "inconclusive": "#888888"}


def figure_verdicts(rows: Sequence[RegimeVerdict], x_label: str = "Δ (baseline − challenger)"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(rows) + 1.2))
    for k, r in enumerate(rows):
        y = len(rows) - 1 - k
        ax.fill_betweenx([y - 0.4, y + 0.4], -r.margin, r.margin, color="0.9", lw=0)
        if r.low is not None:
            ax.errorbar([r.mean], [y + 0.1], xerr=[[r.mean - r.low], [r.high - r.mean]],
                        fmt="o", ms=4, capsize=3, color=VERDICT_COLOURS[r.verdict],
                        label=r.verdict)
        if r.holdout_low is not None:
            ax.errorbar([r.holdout_mean], [y - 0.15],
                        xerr=[[r.holdout_mean - r.holdout_low], [r.holdout_high - r.holdout_mean]],
                        fmt="s", ms=3, capsize=2, color=VERDICT_COLOURS[r.verdict], alpha=0.55)
    ax.axvline(0, color="k", lw=0.6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.name for r in reversed(rows)], fontsize=7)
    ax.set_xlabel(x_label, fontsize=8)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), fontsize=7, loc="best", frameon=False)
    ax.tick_params(labelsize=7)
    fig.tight_layout()
    return fig
