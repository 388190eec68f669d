"""The Lifeguard paper study's scenarios: each regime slows members 1..K the way its name says,
inside the measured part of the run, the same way for every alpha."""
import unittest

from fdsim_analysis.studies import swim_lifeguard_paper as lp


class Scenarios(unittest.TestCase):
    def test_stall_windows_cover_the_slowed_members_inside_the_measured_part(self):
        doc = lp.scenario("stall-12s", 4, 4, 0)
        entries = doc["network"]["starved"]
        self.assertEqual(sorted({e["nodes"][0] for e in entries}), [1, 2, 3, 4])
        for e in entries:
            self.assertEqual(e["mode"], "stall")
            self.assertGreaterEqual(e["at_s"], lp.WARMUP_S)
            self.assertLessEqual(e["at_s"] + e["duration_s"], lp.HORIZON_S + 1e-6)
            self.assertLessEqual(e["duration_s"], 1.5 * 12.0 + 1e-6)
        # 90 % stalled: per member, the stalled time is most of the window
        node1 = [e for e in entries if e["nodes"] == [1]]
        first = min(e["at_s"] for e in node1)
        stalled = sum(e["duration_s"] for e in node1)
        self.assertGreater(stalled / (lp.HORIZON_S - first), 0.8)

    def test_lag_is_a_fifo_inbound_delay_for_the_whole_measured_part(self):
        doc = lp.scenario("lag-10s", 16, 5, 2)
        (e, *rest) = doc["network"]["starved"]
        self.assertEqual(len(rest), 15)
        self.assertEqual((e["mode"], e["delay_order"]), ("inbound_delay", "fifo"))
        self.assertEqual((e["at_s"], e["duration_s"]), (lp.WARMUP_S, lp.HORIZON_S - lp.WARMUP_S))
        self.assertEqual((e["service"]["min_ms"], e["service"]["max_ms"]), (5000.0, 15000.0))
        self.assertEqual(doc["swim"]["suspicion_mult"], 5)
        self.assertEqual(doc["swim"]["suspicion_max_timeout_mult"], 6)

    def test_the_old_per_item_model_is_a_process_with_timers_waiting(self):
        (e,) = lp.scenario("per-item-60ms", 4, 4, 0)["network"]["starved"]
        self.assertEqual(e["nodes"], [1, 2, 3, 4])
        self.assertNotIn("mode", e)
        self.assertNotIn("timers", e)
        self.assertEqual(e["service"], {"model": "exponential", "min_ms": 0, "mean_ms": 60})

    def test_every_alpha_sees_the_same_windows_and_every_run_its_own(self):
        a = lp.scenario("stall-3s", 4, 2, 1)
        b = lp.scenario("stall-3s", 4, 6, 1)
        c = lp.scenario("stall-3s", 4, 2, 2)
        self.assertEqual(a["network"], b["network"])
        self.assertEqual(a["seed"], b["seed"])
        self.assertNotEqual(a["network"], c["network"])

    def test_cells_include_the_papers_alpha_and_the_crashes_are_of_healthy_members(self):
        self.assertIn(("lag-10s", 16, 5), lp.CELLS)
        self.assertEqual(len(lp.CELLS), len(lp.REGIMES) * 9 + 6)
        crashed = {n for f in lp.scenario("lag-10s", 16, 4, 0)["faults"] for n in f["nodes"]}
        self.assertTrue(crashed.isdisjoint(range(1, 17)))


if __name__ == "__main__":
    unittest.main()
