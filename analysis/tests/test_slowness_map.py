import random
import unittest

from fdsim_analysis import slowness_map as sm


def cells(hh=0, hs=0, sh=0, ss=0):
    return {"hh": hh, "hs": hs, "sh": sh, "ss": ss}


class RunMetrics(unittest.TestCase):
    def test_library_cells_sum_by_role(self):
        r = sm.run_metrics({"dead": cells(1, 2, 3, 4), "removal": cells(10, 20, 30, 40),
                            "suspect": cells(), "refute": {"s": 5, "h": 6}})
        self.assertEqual(r["declared"], 10)
        self.assertEqual(r["declared_by_slow"], 7)      # sh + ss
        self.assertEqual(r["declared_by_healthy"], 3)   # hh + hs
        self.assertEqual(r["declared_slow_of_healthy"], 3)
        self.assertEqual(r["removals_by_healthy"], 30)
        self.assertEqual(r["removals_of_slow"], 60)     # hs + ss
        self.assertEqual(r["refutations"], 11)

    def test_fdsim_metric_names_map_to_the_same_cells(self):
        st = {}
        for kind, base in (("dead_declarations", 1), ("removal_events", 10)):
            for i, (b, o) in enumerate((("healthy", "healthy"), ("healthy", "starved"),
                                        ("starved", "healthy"), ("starved", "starved"))):
                st[f"false_{kind}_by_{b}_of_{o}_count"] = base * (i + 1)
        r = sm.fdsim_run_metrics({"starved": st, "refutations_count": 2})
        self.assertEqual(r, sm.run_metrics({"dead": cells(1, 2, 3, 4),
                                            "removal": cells(10, 20, 30, 40),
                                            "refute": {"s": 0, "h": 2}}))


class StallWindows(unittest.TestCase):
    def test_windows_alternate_within_the_drawn_bounds(self):
        for L, R in ((1.0, 1.0), (6.0, 0.667), (0.1, 0.011)):
            w = sm.stall_windows(random.Random(3), L, R, 30.0)
            self.assertGreater(len(w), 0)
            self.assertLessEqual(w[0][0], L + R)
            for (t, ln), (t2, _) in zip(w, w[1:]):
                self.assertGreaterEqual(ln, 0.5 * L - 1e-12)
                self.assertLessEqual(ln, 1.5 * L + 1e-12)
                gap = t2 - (t + ln)
                self.assertGreaterEqual(gap, 0.5 * R - 1e-9)
                self.assertLessEqual(gap, 1.5 * R + 1e-9)
            t, ln = w[-1]
            self.assertLessEqual(t + ln, 30.0 + 1e-9)

    def test_scenarios_of_each_variant(self):
        c = {"mech": "stall", "n": 16, "k": 2, "length_s": 6.0, "run_s": 0.667,
             "window_s": 30.0, "tcp": False}
        after = sm.fdsim_scenario(c, 5, "after")
        before = sm.fdsim_scenario(c, 5, "before")
        self.assertEqual({tuple(e["nodes"]) for e in after["network"]["starved"]}, {(1,), (2,)})
        self.assertTrue(all(e["mode"] == "stall" for e in after["network"]["starved"]))
        self.assertTrue(all("mode" not in e for e in before["network"]["starved"]))
        # The same windows in both variants (same seed).
        self.assertEqual([(e["at_s"], e["duration_s"]) for e in after["network"]["starved"]],
                         [(e["at_s"], e["duration_s"]) for e in before["network"]["starved"]])
        self.assertFalse(after["swim"]["tcp_fallback"])
        d = sm.fdsim_scenario(dict(c, mech="delay", run_s=0.0), 5, "after")
        self.assertEqual(d["network"]["starved"][0]["mode"], "inbound_delay")
        self.assertEqual(d["network"]["starved"][0]["service"],
                         {"model": "uniform", "min_ms": 3000.0, "max_ms": 9000.0})


class Intervals(unittest.TestCase):
    def test_share_and_ratio(self):
        p, lo, hi = sm.share_interval([1, 1, 1], [2, 2, 2])
        self.assertEqual((p, lo, hi), (0.5, 0.5, 0.5))
        self.assertEqual(sm.share_interval([0], [0]), (None, None, None))
        p, lo, hi = sm.ratio_interval([2, 4], [1, 1])
        self.assertEqual(p, 3.0)
        self.assertLessEqual(lo, p)
        self.assertGreaterEqual(hi, p)
        self.assertEqual(sm.ratio_interval([1], [0]), (None, None, None))


if __name__ == "__main__":
    unittest.main()
