import math
import unittest

from fdsim_analysis.stats import (paired_differences, student_t_cdf,
                                           student_t_quantile, summarize)


class StudentT(unittest.TestCase):
    def test_quantile_matches_published_table(self):
        # t_{0.975, df} from standard tables (the same values the sweep helper tests against).
        for df, expected in ((1, 12.7062), (3, 3.1824), (4, 2.7764), (29, 2.0452),
                             (1000, 1.9623)):
            with self.subTest(df=df):
                self.assertAlmostEqual(student_t_quantile(0.975, df), expected, places=4)

    def test_quantile_inverts_cdf(self):
        for df in (1, 2.5, 7, 60):
            for p in (0.6, 0.9, 0.995):
                self.assertAlmostEqual(student_t_cdf(student_t_quantile(p, df), df), p,
                                       places=10)

    def test_cdf_of_one_df_is_cauchy(self):
        for t in (-3.0, -0.5, 0.0, 1.0, 10.0):
            self.assertAlmostEqual(student_t_cdf(t, 1), 0.5 + math.atan(t) / math.pi, places=12)

    def test_bad_arguments_raise(self):
        with self.assertRaises(ValueError):
            student_t_quantile(0.3, 5)
        with self.assertRaises(ValueError):
            student_t_quantile(0.975, 0)


class Summarize(unittest.TestCase):
    def test_hand_computed_example(self):
        # values 1, 2, 3, 4: mean 2.5, sd sqrt(5/3) = 1.290994, half-width 3.182446 * sd / 2.
        s = summarize([1.0, 2.0, 3.0, 4.0])
        self.assertEqual(s.n, 4)
        self.assertEqual(s.mean, 2.5)
        self.assertAlmostEqual(s.sd, 1.2909944, places=6)
        self.assertAlmostEqual(s.ci95_half_width, 2.0542603, places=6)

    def test_missing_values_are_skipped_and_small_n_is_undefined(self):
        self.assertEqual(summarize([]).mean, None)
        one = summarize([None, 7.0, None])
        self.assertEqual((one.n, one.mean, one.sd, one.ci95_half_width), (1, 7.0, None, None))

    def test_paired_differences_keep_only_complete_pairs(self):
        self.assertEqual(paired_differences([2.0, None, 5.0, 5.0], [1.0, 2.0, None, 4.0]),
                         [1.0, 1.0])
        with self.assertRaises(ValueError):
            paired_differences([1.0], [1.0, 2.0])


if __name__ == "__main__":
    unittest.main()
