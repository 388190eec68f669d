import hashlib
import math
import unittest

from fdsim_analysis.inference import (VERDICTS, classify, confirm, holdout_seed, interval,
                                      regime_seed, replications_needed,
                                      simultaneous_confidence, stop_rule_coverage,
                                      value_of_detection_margin, verdict_of)

T975_9 = 2.262157  # Student t_{0.975} with 9 degrees of freedom


class RegimeSeeds(unittest.TestCase):
    def test_documented_derivation(self):
        name = "R: realistic anchor"
        d = hashlib.sha256(b"fdsim regime seed\n" + name.encode()).digest()
        self.assertEqual(regime_seed(name), int.from_bytes(d[:8], "big") & (2**63 - 1))

    def test_distinct_names_distinct_seeds_and_stable(self):
        names = [f"regime-{i}" for i in range(200)]
        seeds = [regime_seed(n) for n in names]
        self.assertEqual(len(set(seeds)), len(seeds))
        self.assertEqual(seeds, [regime_seed(n) for n in names])
        self.assertTrue(all(0 <= s < 2**63 for s in seeds))
        self.assertNotEqual(holdout_seed("a"), regime_seed("a"))
        self.assertEqual(holdout_seed("a"), regime_seed("a/held-out"))

    def test_empty_name_refused(self):
        with self.assertRaises(ValueError):
            regime_seed("")


class Margin(unittest.TestCase):
    def test_ten_percent_of_the_value_of_detection(self):
        self.assertAlmostEqual(value_of_detection_margin(0.30, 0.10), 0.02, places=15)
        self.assertAlmostEqual(value_of_detection_margin(0.30, 0.10, share=0.2), 0.04,
                               places=15)

    def test_no_value_of_detection_no_margin(self):
        for none, oracle in ((0.1, 0.1), (0.1, 0.2), (float("nan"), 0.1)):
            with self.assertRaises(ValueError):
                value_of_detection_margin(none, oracle)
        with self.assertRaises(ValueError):
            value_of_detection_margin(0.3, 0.1, share=1.0)


class Intervals(unittest.TestCase):
    def test_sidak(self):
        self.assertAlmostEqual(simultaneous_confidence(0.05, 1), 0.95, places=15)
        c = simultaneous_confidence(0.05, 10)
        self.assertAlmostEqual(c ** 10, 0.95, places=12)
        self.assertLess(c, 1 - 0.05 / 10)  # Sidak is less strict than Bonferroni

    def test_t_table(self):
        # n = 10, sd = 1 (values symmetric around 2): half-width t_{0.975,9} / sqrt(10).
        xs = [2 + s * a for a in (0.5, 1.0, 1.5, 0.25, 0.75) for s in (1, -1)]
        mean, low, high = interval(xs, 0.95)
        sd = math.sqrt(sum((x - 2) ** 2 for x in xs) / 9)
        self.assertAlmostEqual(mean, 2.0, places=12)
        self.assertAlmostEqual(high - mean, T975_9 * sd / math.sqrt(10), places=6)
        self.assertIsNone(interval([1.0], 0.95))


class Classify(unittest.TestCase):
    def test_each_region(self):
        m = 1.0
        cases = {
            (0.2, 1.5): "better", (0.2, 0.9): "better within margin",
            (-0.5, 0.5): "equivalent", (-0.9, -0.1): "worse within margin",
            (-1.5, -0.1): "worse", (-0.2, 1.2): "inconclusive", (-1.2, 0.2): "inconclusive",
            (-1.2, 1.2): "inconclusive", (0.0, 0.5): "equivalent",
        }
        for (lo, hi), v in cases.items():
            self.assertEqual(classify(lo, hi, m), v, (lo, hi))

    def test_partition(self):
        # Every interval gets exactly one verdict, and all six occur.
        seen = set()
        grid = [x / 4 for x in range(-10, 11)]
        for lo in grid:
            for hi in grid:
                if lo <= hi:
                    seen.add(classify(lo, hi, 1.0))
        self.assertEqual(seen, set(VERDICTS))

    def test_bad_margin(self):
        for m in (0.0, -1.0, float("inf")):
            with self.assertRaises(ValueError):
                classify(-0.1, 0.1, m)


class PrecisionRule(unittest.TestCase):
    def test_blocks_until_narrower_than_margin(self):
        # sd 1, margin 1: width 2 t sd / sqrt(n) < 1 needs n with 2 t / sqrt(n) < 1 (n >= 18).
        diffs = []
        import random
        rng = random.Random(3)
        while True:
            need = replications_needed(diffs, 1.0, 0.95, block=4, cap=200)
            if need == len(diffs):
                break
            diffs.extend(rng.gauss(0.0, 1.0) for _ in range(need - len(diffs)))
        _, low, high = interval(diffs, 0.95)
        self.assertLess(high - low, 1.0)
        self.assertEqual(len(diffs) % 4, 0)
        # One block fewer was not narrow enough.
        _, low2, high2 = interval(diffs[:-4], 0.95)
        self.assertGreaterEqual(high2 - low2, 1.0)

    def test_cap_and_minimum(self):
        self.assertEqual(replications_needed([], 0.1, 0.95, 4, 12), 8)
        self.assertEqual(replications_needed([0.0, 5.0] * 6, 0.1, 0.95, 4, 12), 12)
        with self.assertRaises(ValueError):
            replications_needed([0.0] * 3, 0.1, 0.95, 4, 12)

    def test_coverage_near_nominal(self):
        # Stopping on a small sample sd costs coverage when few replications suffice (about 18
        # here: measured 0.931 for a nominal 0.95), hardly any at about 64 (measured 0.953).
        cov, used = stop_rule_coverage(true_mean=0.3, sd=1.0, margin=1.0, confidence=0.95,
                                       block=4, cap=400, trials=1500, seed=7)
        self.assertGreater(cov, 0.92)
        self.assertLess(cov, 0.95)
        self.assertGreater(used, 18)
        cov, used = stop_rule_coverage(true_mean=0.0, sd=1.0, margin=0.5, confidence=0.95,
                                       block=4, cap=400, trials=1500, seed=7)
        self.assertGreater(cov, 0.94)
        self.assertGreater(used, 60)


class Confirmation(unittest.TestCase):
    def test_same_verdict_on_held_out_block(self):
        held = [0.5 + 0.01 * (i % 3) for i in range(10)]  # clearly better than margin 0.1
        self.assertEqual(confirm("better", held, 0.1, 0.95), ("better", True))
        self.assertEqual(confirm("worse", held, 0.1, 0.95), ("better", False))
        v, ok = confirm("equivalent", held, 0.1, 0.95)
        self.assertTrue(ok)
        self.assertEqual(verdict_of(held, 0.1, 0.95).verdict, "better")


if __name__ == "__main__":
    unittest.main()
