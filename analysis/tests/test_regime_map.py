"""The regime map (issue 29) on a hand-made sweep whose answers are known."""

import os
import tempfile
import unittest

from fdsim_analysis import regime_map_report as rmr
from fdsim_analysis.errors import AnalysisInputError
from fdsim_analysis.loading import load_sweep
from fdsim_analysis.equivalence import one_sided_p
from fdsim_analysis.regime_map import analyse
from . import fixtures

AXIS = "$.description"
ARMS = [
    {"name": "none", "diagnosis": "none"},
    {"name": "fixed_10s", "diagnosis": "fixed", "timeout_ms": 10000},
    {"name": "fixed_30s", "diagnosis": "fixed", "timeout_ms": 30000},
    {"name": "fos_5s", "diagnosis": "fixed_on_silence", "period_ms": 5000, "timeout_ms": 12000},
    {"name": "periodic_1s", "diagnosis": "fixed_periodic", "period_ms": 1000, "timeout_ms": 3000},
    {"name": "hou_shin_a0.05", "diagnosis": "hou_shin", "alpha": 0.05},
    {"name": "hou_shin_extra_a0.05", "diagnosis": "hou_shin_extra", "alpha": 0.05},
    {"name": "hou_shin_extra_a0.3", "diagnosis": "hou_shin_extra", "alpha": 0.3},
    {"name": "oracle", "diagnosis": "oracle"},
]
# Cost (messages per node per s) of each arm; the budget is hou_shin_extra_a0.05's x 1.02 =
# 5.406: fos_5s (5.35) is inside, periodic_1s and hou_shin_extra_a0.3 are not.
COST = {"none": 5.0, "fixed_10s": 5.01, "fixed_30s": 5.02, "fos_5s": 5.35, "periodic_1s": 15.0,
        "hou_shin_a0.05": 5.02, "hou_shin_extra_a0.05": 5.3, "hou_shin_extra_a0.3": 6.0,
        "oracle": 5.0}
# P(df) per regime and arm. The lowest-P(df) arms overall (periodic_1s, hou_shin_extra_a0.3)
# are over the budget, so they must never be picked.
BASE = {
    "better": {"fixed_10s": 0.0250, "fixed_30s": 0.0260, "fos_5s": 0.0245,
               "hou_shin_a0.05": 0.0230, "hou_shin_extra_a0.05": 0.0200},
    "equivalent": {"fixed_10s": 0.0200, "fixed_30s": 0.0210, "fos_5s": 0.0204,
                   "hou_shin_a0.05": 0.0215, "hou_shin_extra_a0.05": 0.0201},
    "worse": {"fixed_10s": 0.0200, "fixed_30s": 0.0210, "fos_5s": 0.0230,
              "hou_shin_a0.05": 0.0300, "hou_shin_extra_a0.05": 0.0290},
    "inconclusive": {"fixed_10s": 0.0200, "fixed_30s": 0.0210, "fos_5s": 0.0230,
                     "hou_shin_a0.05": 0.0300, "hou_shin_extra_a0.05": 0.0195},
}
NOISE = [0.002, -0.001, 0.0005, 0.0, -0.0015, 0.001]   # common to every arm (CRN)


def run(params, rep):
    regime = params[AXIS]
    metrics = {}
    for a in ARMS:
        n = a["name"]
        v = BASE[regime].get(n, {"none": 0.04, "periodic_1s": 0.015, "hou_shin_extra_a0.3": 0.016,
                                 "oracle": 0.014}.get(n))
        # Arm-specific wobble with alternating sign: paired differences have a small spread
        # (large in the inconclusive regime).
        size = 0.004 if regime == "inconclusive" else 1e-5
        wobble = size * (1 if rep % 2 else -1) * (1 if n.startswith("fixed") else 0)
        v = v + NOISE[rep] + wobble
        metrics[n] = {"dynamic_failure_feasible_ratio": v, "tasks_feasible_count": 10000,
                      "window_s": 86400.0, "traffic": {"messages_per_node_s": COST[n]},
                      "by_region": {"U": {"false_suspicions_count": 2 * rep}},
                      "transfers_to_dead_count": 4}
    cfg = {"description": regime, "nodes": {"count": 10}, "load_sharing": {"arms": ARMS}}
    return fixtures.run_doc(cfg, metrics, rep, scenario_hash=regime)


class RegimeMap(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        points = [{AXIS: r} for r in BASE]
        fixtures.write_sweep(self.tmp.name, [AXIS], points, run, len(NOISE))
        self.rmap = analyse(load_sweep(self.tmp.name))
        self.by = {r.label: r for r in self.rmap.regimes}

    def tearDown(self):
        self.tmp.cleanup()

    def test_picks_are_the_best_within_the_budget_never_over_it(self):
        r = self.by["better"]
        self.assertAlmostEqual(r.budget, 5.3 * 1.02)
        self.assertEqual(r.adaptive_pick, "hou_shin_extra_a0.05")
        self.assertEqual(r.baseline_pick, "fos_5s")
        for reg in self.rmap.regimes:
            self.assertNotIn(reg.adaptive_pick, ("hou_shin_extra_a0.3",))
            self.assertNotIn(reg.baseline_pick, ("periodic_1s",))
        self.assertEqual(self.by["worse"].baseline_pick, "fixed_10s")
        self.assertEqual(self.by["worse"].adaptive_pick, "hou_shin_extra_a0.05")

    def test_delta_is_paired_baseline_minus_adaptive(self):
        d = self.by["better"].delta
        self.assertEqual(d.n, len(NOISE))
        self.assertAlmostEqual(d.mean, 0.0245 - 0.0200, places=9)
        # Common noise cancels; only the wobble (+-1e-5) is left in the spread.
        self.assertLess(d.sd, 2e-5)
        # Tasks per node-day: delta x 10000 feasible tasks / (10 nodes x 1 day).
        self.assertAlmostEqual(self.by["better"].delta_per_node_day.mean, 0.0045 * 1000, places=6)

    def test_verdicts(self):
        self.assertEqual(self.by["better"].verdict, "adaptive better")
        self.assertEqual(self.by["equivalent"].verdict, "equivalent")
        self.assertEqual(self.by["worse"].verdict, "adaptive worse")
        self.assertEqual(self.by["inconclusive"].verdict, "inconclusive")

    def test_margin_is_relative_to_the_baseline_pick(self):
        r = self.by["equivalent"]
        self.assertEqual(r.baseline_pick, "fixed_10s")
        self.assertAlmostEqual(r.margin, 0.03 * (0.0200 + sum(NOISE) / len(NOISE)), places=9)

    def test_holm_adjusts_each_test_across_the_map(self):
        for r in self.rmap.regimes:
            d = r.delta
            for raw, adj in ((d.p_greater, d.p_greater_holm), (d.p_less, d.p_less_holm),
                             (d.p_tost, d.p_tost_holm)):
                self.assertGreaterEqual(adj, raw - 1e-15)
        # The smallest raw TOST p is multiplied by the family size (4 regimes).
        ps = sorted(r.delta.p_tost for r in self.rmap.regimes)
        adj = min(r.delta.p_tost_holm for r in self.rmap.regimes)
        self.assertAlmostEqual(adj, min(1.0, 4 * ps[0]))

    def test_frontier_keeps_only_undominated_arms(self):
        r = self.by["better"]
        self.assertEqual(r.frontiers["fixed"], ["fixed_10s"])   # 30 s: dearer and worse
        self.assertEqual(r.frontiers["hou_shin_extra"],
                         ["hou_shin_extra_a0.05", "hou_shin_extra_a0.3"])

    def test_one_sided_p_matches_the_t_table(self):
        # t = 1.833 with 9 degrees of freedom is the one-sided 5 % point.
        sd, n = 1.0, 10
        mean = 1.833 * sd / n ** 0.5
        self.assertAlmostEqual(one_sided_p(mean, sd, n, "greater"), 0.05, places=3)
        self.assertAlmostEqual(one_sided_p(mean, sd, n, "less"), 0.95, places=3)

    def test_reports_render(self):
        md = rmr.map_markdown(self.rmap)
        self.assertIn("**adaptive better**", md)
        self.assertIn("fos_5s", md)
        self.assertEqual(len(rmr.map_csv(self.rmap).strip().splitlines()), 1 + 4)
        self.assertIn("fos_5s", rmr.family_markdown(self.rmap))
        alpha = rmr.alpha_markdown(self.rmap)
        self.assertIn("hou_shin_extra_a0.3", alpha)
        self.assertIn("[", alpha)
        mech = rmr.mechanism_csv(self.rmap)
        self.assertIn("U.false_suspicions_count", mech.splitlines()[0])
        fig = rmr.figure_map(self.rmap)
        self.assertEqual(len(fig.axes[0].get_yticks()), 4)
        rmr.figure_frontiers(self.rmap, ["better"])

    def test_missing_budget_arm_is_a_clear_error(self):
        with self.assertRaises(AnalysisInputError) as e:
            analyse(load_sweep(self.tmp.name), budget_arm="nope")
        self.assertIn("nope", str(e.exception))


if __name__ == "__main__":
    unittest.main()
