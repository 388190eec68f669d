import math
import unittest

from fdsim_analysis.intervals import median_interval, poisson_exact, wilson


class Wilson(unittest.TestCase):
    def test_textbook_value(self):
        # k = 13 of n = 40 (p = 0.325), z = 1.959964: Wilson (0.2008, 0.4798), computed by
        # hand from centre (p + z^2/2n) / (1 + z^2/n) and its half-width.
        low, high = wilson(13, 40)
        z = 1.959964
        d = 1 + z * z / 40
        c = (0.325 + z * z / 80) / d
        h = z / d * math.sqrt(0.325 * 0.675 / 40 + z * z / 6400)
        self.assertAlmostEqual(low, c - h, places=6)
        self.assertAlmostEqual(high, c + h, places=6)
        self.assertAlmostEqual(low, 0.2008, places=4)
        self.assertAlmostEqual(high, 0.4798, places=4)

    def test_boundaries(self):
        z2 = 1.959964 ** 2
        self.assertEqual(wilson(0, 40)[0], 0.0)
        self.assertAlmostEqual(wilson(0, 40)[1], z2 / (40 + z2), places=6)
        self.assertEqual(wilson(40, 40)[1], 1.0)
        self.assertAlmostEqual(wilson(40, 40)[0], 40 / (40 + z2), places=6)
        self.assertIsNone(wilson(0, 0))
        with self.assertRaises(ValueError):
            wilson(5, 4)
        with self.assertRaises(ValueError):
            wilson(-1, 4)

    def test_symmetric(self):
        a, b = wilson(7, 40)
        c, d = wilson(33, 40)
        self.assertAlmostEqual(a, 1 - d, places=12)
        self.assertAlmostEqual(b, 1 - c, places=12)


class PoissonExact(unittest.TestCase):
    def test_table_values(self):
        # Garwood limits for k events (exposure 1), from chi-square quantiles:
        # k = 0: (0, 3.6889); k = 1: (0.0253, 5.5716); k = 10: (4.7954, 18.3904).
        for k, lo, hi in ((0, 0.0, 3.688879), (1, 0.025318, 5.571643), (10, 4.795389, 18.390356)):
            a, b = poisson_exact(k, 1.0)
            self.assertAlmostEqual(a, lo, places=5)
            self.assertAlmostEqual(b, hi, places=5)

    def test_exposure_scales(self):
        a, b = poisson_exact(1, 16.0)
        self.assertAlmostEqual(a * 16.0, 0.025318, places=5)
        self.assertAlmostEqual(b * 16.0, 5.571643, places=5)
        with self.assertRaises(ValueError):
            poisson_exact(1, 0.0)
        with self.assertRaises(ValueError):
            poisson_exact(-1, 1.0)


class MedianInterval(unittest.TestCase):
    def test_ranks_for_forty(self):
        # n = 40: P(B <= 13) = 0.0192 <= 0.025 < P(B <= 14) = 0.0403, so ranks 14 and 27.
        xs = list(range(1, 41))
        self.assertEqual(median_interval(xs), (14.0, 27.0))
        self.assertEqual(median_interval(list(reversed(xs))), (14.0, 27.0))

    def test_small_n(self):
        # n = 6: P(B <= 0) = 1/64 = 0.0156 <= 0.025, so (min, max); n = 5: 1/32 > 0.025.
        self.assertEqual(median_interval([3, 1, 2, 6, 5, 4]), (1.0, 6.0))
        self.assertIsNone(median_interval([1, 2, 3, 4, 5]))


if __name__ == "__main__":
    unittest.main()
