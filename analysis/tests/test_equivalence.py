import math
import unittest

from fdsim_analysis.equivalence import (family_verdicts, one_sided_p, t_interval, tost,
                                        verdict)

# Student-t table values, 9 degrees of freedom (n = 10): t_{0.95} = 1.833113,
# t_{0.99} = 2.821438, t_{0.975} = 2.262157.
T95_9, T99_9, T975_9 = 1.833113, 2.821438, 2.262157


class OneSided(unittest.TestCase):
    def test_t_table_critical_values(self):
        n, sd = 10, 1.0
        for t, p in ((T95_9, 0.05), (T99_9, 0.01)):
            mean = t * sd / math.sqrt(n)
            self.assertAlmostEqual(one_sided_p(mean, sd, n, "greater"), p, places=5)
            self.assertAlmostEqual(one_sided_p(-mean, sd, n, "less"), p, places=5)
            # The other side of the same statistic.
            self.assertAlmostEqual(one_sided_p(mean, sd, n, "less"), 1 - p, places=5)

    def test_one_df_is_cauchy(self):
        t = 3.0
        self.assertAlmostEqual(one_sided_p(t / math.sqrt(2), 1.0, 2, "greater"),
                               0.5 - math.atan(t) / math.pi, places=12)

    def test_zero_mean_is_one_half(self):
        self.assertAlmostEqual(one_sided_p(0.0, 0.3, 7, "greater"), 0.5, places=12)

    def test_degenerate_inputs(self):
        self.assertIsNone(one_sided_p(0.1, 0.2, 1, "greater"))
        self.assertIsNone(one_sided_p(0.1, None, 5, "greater"))
        self.assertIsNone(one_sided_p(None, 0.2, 5, "less"))
        self.assertIsNone(one_sided_p(float("nan"), 0.2, 5, "less"))
        self.assertEqual(one_sided_p(0.2, 0.0, 5, "greater"), 0.0)
        self.assertEqual(one_sided_p(0.2, 0.0, 5, "less"), 1.0)
        self.assertEqual(one_sided_p(0.0, 0.0, 5, "greater"), 1.0)
        self.assertEqual(one_sided_p(0.0, 0.0, 5, "less"), 1.0)
        with self.assertRaises(ValueError):
            one_sided_p(0.1, 0.2, 5, "two-sided")


class Tost(unittest.TestCase):
    def test_zero_mean_at_the_critical_margin(self):
        # Mean 0, n = 10, sd 1: each one-sided test sits at t = delta / se; with delta =
        # t_{0.95,9} se both p-values are 0.05, so TOST p = 0.05.
        n, sd = 10, 1.0
        delta = T95_9 * sd / math.sqrt(n)
        self.assertAlmostEqual(tost(0.0, sd, n, delta), 0.05, places=5)
        self.assertAlmostEqual(tost(0.0, sd, n, delta * T99_9 / T95_9), 0.01, places=5)

    def test_p_is_the_larger_one_sided_p(self):
        # Mean 0.1, sd 1, n = 10, delta 0.5: p_low at t = 0.6/se, p_high at t = -0.4/se;
        # the near side (0.4/se = 1.2649) gives the larger p.
        n, sd, mean, delta = 10, 1.0, 0.1, 0.5
        se = sd / math.sqrt(n)
        near = one_sided_p(mean - delta, sd, n, "less")  # P(T <= (m - delta)/se)
        far = one_sided_p(mean + delta, sd, n, "greater")  # P(T >= (m + delta)/se)
        self.assertGreater(near, far)
        self.assertAlmostEqual(tost(mean, sd, n, delta), near, places=14)
        # And by symmetry the mirrored difference gives the same p.
        self.assertAlmostEqual(tost(-mean, sd, n, delta), near, places=14)
        self.assertAlmostEqual((delta - mean) / se, 1.264911, places=5)

    def test_rejects_iff_the_90_percent_interval_is_inside_the_margin(self):
        # A deterministic grid of summaries; the TOST at 0.05 and the 90% interval must agree
        # everywhere (away from the exact boundary, where rounding decides).
        delta = 0.02
        checked = 0
        for n in (2, 3, 5, 10, 40):
            for sd in (0.001, 0.01, 0.03, 0.1):
                for k in range(-30, 31):
                    mean = k * 0.001
                    low, high = t_interval(mean, sd, n, confidence=0.90)
                    inside = -delta < low and high < delta
                    margin = min(abs(low + delta), abs(high - delta))
                    if margin < 1e-9:
                        continue
                    self.assertEqual(tost(mean, sd, n, delta) < 0.05, inside,
                                     (n, sd, mean))
                    checked += 1
        self.assertGreater(checked, 1000)
        # Both outcomes occur on the grid (the test would not notice a constant answer).
        self.assertLess(tost(0.0, 0.001, 40, delta), 0.05)
        self.assertGreater(tost(0.0, 0.1, 2, delta), 0.05)

    def test_interval_matches_the_t_table(self):
        low, high = t_interval(1.0, 1.0, 10, confidence=0.95)
        self.assertAlmostEqual(high - 1.0, T975_9 / math.sqrt(10), places=5)
        self.assertAlmostEqual(1.0 - low, T975_9 / math.sqrt(10), places=5)
        self.assertEqual(t_interval(0.3, 0.0, 4), (0.3, 0.3))
        self.assertIsNone(t_interval(0.3, 0.1, 1))

    def test_degenerate_inputs(self):
        self.assertIsNone(tost(0.0, 0.1, 1, 0.05))
        self.assertIsNone(tost(0.0, None, 10, 0.05))
        self.assertIsNone(tost(None, 0.1, 10, 0.05))
        self.assertIsNone(tost(0.0, float("inf"), 10, 0.05))
        # A constant difference: equivalent iff strictly inside the margin.
        self.assertEqual(tost(0.01, 0.0, 10, 0.05), 0.0)
        self.assertEqual(tost(-0.049, 0.0, 10, 0.05), 0.0)
        self.assertEqual(tost(0.05, 0.0, 10, 0.05), 1.0)
        self.assertEqual(tost(-0.2, 0.0, 10, 0.05), 1.0)
        for bad in (0.0, -0.1, None, float("nan"), float("inf")):
            with self.assertRaises(ValueError):
                tost(0.0, 0.1, 10, bad)

    def test_far_outside_the_margin_is_near_one(self):
        self.assertGreater(tost(1.0, 0.01, 10, 0.05), 0.999999)


class Verdict(unittest.TestCase):
    def test_rule_order(self):
        m, s, n, d = 0.01, 0.02, 40, 0.05
        # Equivalence is tested first, even when a one-sided test is also significant.
        self.assertEqual(verdict(m, s, n, d, 0.01, 0.001, 0.9), "equivalent")
        self.assertEqual(verdict(m, s, n, d, 0.2, 0.001, 0.9), "better")
        self.assertEqual(verdict(m, s, n, d, 0.2, 0.9, 0.001), "worse")
        self.assertEqual(verdict(m, s, n, d, 0.2, 0.3, 0.7), "inconclusive")
        # The comparison is strict: p = level is not significant.
        self.assertEqual(verdict(m, s, n, d, 0.05, 0.05, 0.9), "inconclusive")
        self.assertEqual(verdict(m, s, n, d, 0.2, 0.09, 0.9, level=0.1), "better")

    def test_sign_convention(self):
        # Lower is better (e.g. P(dynamic failure)): a significant "less" is "better".
        self.assertEqual(verdict(-0.03, 0.01, 40, 0.01, 0.9, 1.0, 1e-6,
                                 positive_is_better=False), "better")
        self.assertEqual(verdict(0.03, 0.01, 40, 0.01, 0.9, 1e-6, 1.0,
                                 positive_is_better=False), "worse")

    def test_undefined_tests_are_inconclusive(self):
        self.assertEqual(verdict(0.0, 0.01, 1, 0.05, None, None, None), "inconclusive")
        self.assertEqual(verdict(0.0, None, 10, 0.05, 0.001, None, None), "inconclusive")
        self.assertEqual(verdict(0.0, 0.01, 10, 0.05, None, None, None), "inconclusive")
        with self.assertRaises(ValueError):
            verdict(0.0, 0.01, 10, 0.0, 0.01, 0.5, 0.5)
        with self.assertRaises(ValueError):
            verdict(0.0, 0.01, 10, 0.05, 0.01, 0.5, 0.5, level=0.0)


class Family(unittest.TestCase):
    def test_holm_across_the_family(self):
        # Two comparisons with raw one-sided p 0.03 and 0.04 ("greater"): Holm gives 0.06 and
        # 0.06, so neither is "better" at 0.05 although both are by raw p.
        n, sd = 10, 1.0
        se = sd / math.sqrt(n)
        from fdsim_analysis.stats import student_t_quantile
        t03 = student_t_quantile(1 - 0.03, n - 1)
        t04 = student_t_quantile(1 - 0.04, n - 1)
        comps = [(t03 * se, sd, n), (t04 * se, sd, n)]
        out = family_verdicts(comps, delta=0.01)
        self.assertAlmostEqual(out[0].p_greater, 0.03, places=8)
        self.assertAlmostEqual(out[1].p_greater, 0.04, places=8)
        self.assertAlmostEqual(out[0].p_greater_adj, 0.06, places=8)
        self.assertAlmostEqual(out[1].p_greater_adj, 0.06, places=8)
        self.assertEqual([v.verdict for v in out], ["inconclusive", "inconclusive"])
        # Alone, the first one is "better".
        self.assertEqual(family_verdicts(comps[:1], delta=0.01)[0].verdict, "better")

    def test_per_comparison_margins_and_undefined_entries(self):
        comps = [(0.0, 0.001, 40), (0.0, 0.001, 1), (0.5, 0.01, 40)]
        out = family_verdicts(comps, delta=[0.01, 0.01, 0.01], positive_is_better=False)
        self.assertEqual([v.verdict for v in out], ["equivalent", "inconclusive", "worse"])
        self.assertIsNone(out[1].p_tost_adj)
        # The undefined comparison is not counted: m = 2 for the TOST family.
        self.assertAlmostEqual(out[0].p_tost_adj, min(1.0, 2 * out[0].p_tost), places=12)
        with self.assertRaises(ValueError):
            family_verdicts(comps, delta=[0.01, 0.02])


if __name__ == "__main__":
    unittest.main()
