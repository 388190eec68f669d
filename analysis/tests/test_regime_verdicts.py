import math
import unittest

from fdsim_analysis.inference import interval, simultaneous_confidence
from fdsim_analysis.regime_verdicts import (RegimeComparison, figure_verdicts,
                                            regime_verdicts, replicate_until_precise,
                                            verdict_csv, verdict_table)


def around(mean, spread, n):
    """n values with the given mean, symmetric: mean +/- spread * (1, 2, ...)/n."""
    half = [spread * (i + 1) / n for i in range(n // 2)]
    return [mean + h for h in half] + [mean - h for h in half]


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.comparisons = [
            RegimeComparison("clearly better", around(1.0, 0.2, 10), around(0.9, 0.2, 10), 0.3),
            RegimeComparison("tie", around(0.0, 0.1, 10), around(0.0, 0.1, 10), 0.5),
            RegimeComparison("small gain", around(0.1, 0.05, 10), around(-0.1, 0.05, 10), 0.5),
            RegimeComparison("noisy", around(0.0, 5.0, 10), around(0.0, 5.0, 10), 0.5),
        ]

    def test_one_adjusted_interval_per_regime(self):
        rows = regime_verdicts(self.comparisons)
        conf = simultaneous_confidence(0.05, 4)
        for r, c in zip(rows, self.comparisons):
            self.assertAlmostEqual(r.confidence, conf)
            mean, low, high = interval(c.diffs, conf)
            self.assertEqual((r.mean, r.low, r.high), (mean, low, high))
        self.assertEqual([r.verdict for r in rows],
                         ["better", "equivalent", "better within margin", "inconclusive"])

    def test_held_out_confirmation(self):
        rows = {r.name: r for r in regime_verdicts(self.comparisons)}
        self.assertTrue(rows["clearly better"].confirmed)
        self.assertEqual(rows["clearly better"].holdout_verdict, "better")
        # Two verdicts to confirm: the held-out intervals are at the Sidak confidence of 2.
        self.assertAlmostEqual(rows["clearly better"].holdout_confidence,
                               simultaneous_confidence(0.05, 2))
        self.assertIsNone(rows["tie"].confirmed)              # equivalent: not needed
        self.assertFalse(rows["small gain"].confirmed)        # held-out block says worse
        self.assertEqual(rows["small gain"].holdout_verdict, "worse within margin")
        self.assertIsNone(rows["noisy"].confirmed)

    def test_table_csv_and_figure_show_the_same_intervals(self):
        rows = regime_verdicts(self.comparisons)
        md = verdict_table(rows)
        self.assertIn("| small gain | 0.5 | 10 | 0.1 |", md)
        self.assertIn("| better within margin | 10 | -0.1 |", md)
        self.assertIn("**no**", md)
        self.assertTrue(verdict_csv(rows).startswith("name,margin,confidence,n,mean,low,high,"))
        fig = figure_verdicts(rows)
        ax = fig.axes[0]
        # Every discovery error bar spans exactly [low, high] of its row.
        bars = [c for c in ax.containers if hasattr(c, "lines")]
        spans = []
        for c in bars:
            seg = c.lines[2][0].get_segments()[0]
            spans.append((round(seg[0][0], 12), round(seg[1][0], 12), round(seg[0][1], 3)))
        for k, r in enumerate(rows):
            y = len(rows) - 1 - k + 0.1
            self.assertIn((round(r.low, 12), round(r.high, 12), round(y, 3)), spans, r.name)


class FamilySize(unittest.TestCase):
    def test_the_design_s_regime_count_sets_the_confidence(self):
        # A map of 12 regimes whose stopping rule used the 12-regime confidence must read its
        # verdicts at that confidence even when fewer regimes are compared (one left out).
        c = RegimeComparison("a", [0.01, 0.02, 0.015, 0.03, 0.0], [], 0.05)
        row = regime_verdicts([c], family_size=12)[0]
        self.assertAlmostEqual(row.confidence, simultaneous_confidence(0.05, 12), places=15)
        self.assertAlmostEqual(row.high - row.low,
                               interval(c.diffs, 0.95 ** (1 / 12))[2] -
                               interval(c.diffs, 0.95 ** (1 / 12))[1], places=12)
        self.assertAlmostEqual(regime_verdicts([c])[0].confidence, 0.95, places=15)


class Driver(unittest.TestCase):
    def test_asks_for_blocks_until_precise(self):
        data = around(0.2, 1.0, 400)
        data = [data[i // 2] if i % 2 == 0 else data[200 + i // 2] for i in range(400)]
        asked = []

        def diffs_of(n):
            asked.append(n)
            return data[:n]

        out = replicate_until_precise(diffs_of, margin=0.5, confidence=0.95, block=4, cap=400)
        _, low, high = interval(out, 0.95)
        self.assertLess(high - low, 0.5)
        self.assertEqual(asked[0], 8)
        self.assertTrue(all(b - a == 4 for a, b in zip(asked[1:], asked[2:])))


if __name__ == "__main__":
    unittest.main()
