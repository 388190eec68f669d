import math
import unittest

from fdsim_analysis.multiplicity import holm, holm_significant, paired_t_p_value


class PairedT(unittest.TestCase):
    def test_p_value_at_the_t_table_critical_values(self):
        # t_{0.975, 9} = 2.2622 and t_{0.995, 9} = 3.2498: two-sided p = 0.05 and 0.01.
        n = 10
        for t, p in ((2.262157, 0.05), (3.249836, 0.01)):
            sd = 1.0
            mean = t * sd / math.sqrt(n)
            self.assertAlmostEqual(paired_t_p_value(mean, sd, n), p, places=5)
            self.assertAlmostEqual(paired_t_p_value(-mean, sd, n), p, places=5)

    def test_one_df_is_cauchy(self):
        # n = 2: t with 1 df; p = 1 - 2 atan(|t|) / pi.
        t = 3.0
        self.assertAlmostEqual(paired_t_p_value(t / math.sqrt(2), 1.0, 2),
                               1 - 2 * math.atan(t) / math.pi, places=12)

    def test_degenerate_inputs(self):
        self.assertIsNone(paired_t_p_value(0.1, 0.2, 1))
        self.assertIsNone(paired_t_p_value(None, 0.2, 5))
        self.assertEqual(paired_t_p_value(0.0, 0.0, 5), 1.0)
        self.assertEqual(paired_t_p_value(0.3, 0.0, 5), 0.0)


class Holm(unittest.TestCase):
    def test_textbook_example(self):
        # Four tests; sorted p 0.01, 0.02, 0.03, 0.04 -> 0.04, 0.06, 0.06, 0.06.
        self.assertEqual([round(q, 12) for q in holm([0.04, 0.01, 0.03, 0.02])],
                         [0.06, 0.04, 0.06, 0.06])

    def test_monotone_and_capped(self):
        q = holm([0.5, 0.001, 0.2, 0.9])
        self.assertEqual([round(x, 12) for x in q], [1.0, 0.004, 0.6, 1.0])

    def test_none_entries_do_not_count(self):
        q = holm([0.01, None, 0.04])
        self.assertEqual(q[1], None)
        self.assertAlmostEqual(q[0], 0.02)
        self.assertAlmostEqual(q[2], 0.04)

    def test_never_below_raw_and_stricter_than_raw_threshold(self):
        raw = [0.001, 0.012, 0.02, 0.03, 0.049]
        adj = holm(raw)
        for r, a in zip(raw, adj):
            self.assertGreaterEqual(a, r)
        # Raw: all five significant at 0.05; Holm: only 0.001 (x5 = 0.005) and 0.012 (x4 =
        # 0.048) survive; 0.02 x 3 = 0.06 stops the step-down.
        self.assertEqual(holm_significant(raw), [True, True, False, False, False])

    def test_rejects_bad_p(self):
        with self.assertRaises(ValueError):
            holm([0.1, 1.5])


if __name__ == "__main__":
    unittest.main()
