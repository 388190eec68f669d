"""The fixed-versus-adaptive study on a hand-made sweep whose answers are known."""

import os
import tempfile
import unittest

from fdsim_analysis.fixed_vs_adaptive import analyse
from fdsim_analysis.fixed_vs_adaptive_report import (comparisons_csv,
                                                              comparisons_markdown,
                                                              figure_excess, figure_levels,
                                                              headline_markdown)
from fdsim_analysis.loading import load_sweep
from fdsim_analysis.study_cli import REGIME_AXIS, REPAIR_AXIS
from . import fixtures

ARMS = [
    {"name": "none", "diagnosis": "none"},
    {"name": "fixed_2s", "diagnosis": "fixed", "timeout_ms": 2000},
    {"name": "fixed_10s", "diagnosis": "fixed", "timeout_ms": 10000},
    {"name": "fixed_60s", "diagnosis": "fixed", "timeout_ms": 60000},
    {"name": "hou_shin_extra", "diagnosis": "hou_shin_extra", "alpha": 0.05},
    {"name": "oracle", "diagnosis": "oracle"},
]
# Per arm: the metric is base + common noise of the replication (identical across arms: common
# random numbers), so every paired difference is exactly base(arm) - base(other).
BASE = {"none": 0.030, "fixed_2s": 0.040, "fixed_10s": 0.022, "fixed_60s": 0.026,
        "hou_shin_extra": 0.021, "oracle": 0.020}
NOISE = [0.004, -0.003, 0.001, 0.0, -0.002]


def run(params, rep):
    shift = 0.01 if params[REGIME_AXIS] == "changing" else 0.0
    metrics = {}
    for a in ARMS:
        n = a["name"]
        # A tiny arm-specific wobble keeps the paired sd > 0 (a test needs a spread).
        wobble = (1e-4 if rep % 2 else -1e-4) * (1 if n.startswith("fixed") else 0.5)
        v = BASE[n] + NOISE[rep] + (shift if n in ("none", "fixed_60s") else 0.0) + wobble
        metrics[n] = {"dynamic_failure_feasible_ratio": v,
                      "broadcast_messages_count": 100 * (2 if n == "hou_shin_extra" else 1)}
    cfg = {"description": params[REGIME_AXIS],
           "faults": [{"kind": "crash_process", "mean_down_s": params[REPAIR_AXIS]}],
           "load_sharing": {"arms": ARMS}}
    return fixtures.run_doc(cfg, metrics, rep, scenario_hash=f"{params}")


class FixedVsAdaptive(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        points = [{REPAIR_AXIS: 60, REGIME_AXIS: r} for r in ("stationary", "changing")]
        fixtures.write_sweep(self.tmp.name, [REPAIR_AXIS, REGIME_AXIS], points, run, len(NOISE))
        self.study = analyse(load_sweep(self.tmp.name))

    def tearDown(self):
        self.tmp.cleanup()

    def test_best_fixed_is_chosen_in_hindsight_per_point(self):
        stationary, changing = self.study.points
        self.assertEqual(stationary.best_fixed, "fixed_10s")
        self.assertEqual(changing.best_fixed, "fixed_10s")
        self.assertEqual([a.timeout_s for a in stationary.fixed_arms()], [2.0, 10.0, 60.0])

    def test_gap_share_is_the_captured_part_of_none_to_oracle(self):
        st, ch = self.study.points
        # stationary: gap = 0.030 - 0.020; hou_shin_extra gains 0.009 -> 90%; fixed_10s 80%.
        self.assertAlmostEqual(st.arms["hou_shin_extra"].gap_share, 0.9, places=2)
        self.assertAlmostEqual(st.arms["fixed_10s"].gap_share, 0.8, places=2)
        # changing: none is 0.01 worse, so the gap is 0.02 and the same arms capture more.
        self.assertAlmostEqual(ch.arms["hou_shin_extra"].gap_share, 0.95, places=2)
        self.assertAlmostEqual(ch.arms["fixed_60s"].gap_share, 0.2, places=2)
        lo, hi = ch.arms["hou_shin_extra"].gap_share_ci
        self.assertLessEqual(lo, 0.95)
        self.assertGreaterEqual(hi, 0.95)

    def test_comparisons_against_the_adaptive_arm_are_holm_adjusted_over_the_study(self):
        st, ch = self.study.points
        comps = [a.vs_adaptive for p in self.study.points for a in p.arms.values()
                 if a.vs_adaptive is not None]
        self.assertEqual(len(comps), 10)  # 5 arms x 2 points
        for c in comps:
            self.assertGreaterEqual(c.p_holm, c.p)
        d = st.arms["fixed_2s"].vs_adaptive
        self.assertAlmostEqual(d.mean, 0.019, places=4)
        self.assertLess(d.p_holm, 0.05)
        self.assertIsNone(st.arms["hou_shin_extra"].vs_adaptive)

    def test_reports_render(self):
        md = headline_markdown(self.study)
        self.assertIn("| 10 s: 2.198 ± 0.333 | 80% [80, 80] |", md)
        self.assertIn("×2.00", md)  # hou_shin_extra sends twice none's broadcasts
        self.assertIn("Holm", comparisons_markdown(self.study))
        csv_text = comparisons_csv(self.study)
        self.assertEqual(len(csv_text.strip().splitlines()), 1 + 2 * len(ARMS))
        for fig in (figure_excess(self.study, REPAIR_AXIS, REGIME_AXIS),
                    figure_levels(self.study, REPAIR_AXIS, REGIME_AXIS)):
            axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
            self.assertEqual(len(axes), 2)
            for ax in axes:
                self.assertEqual(ax.get_xscale(), "log")
            # The legend sits in its own strip below the panels, never over data.
            legend_axes = [ax for ax in fig.axes if not ax.axison]
            self.assertEqual(len(legend_axes), 1)
            self.assertIsNotNone(legend_axes[0].get_legend())

    def test_missing_reference_arm_is_a_clear_error(self):
        from fdsim_analysis.errors import AnalysisInputError
        with self.assertRaisesRegex(AnalysisInputError, "no arm 'nope'"):
            analyse(load_sweep(self.tmp.name), adaptive="nope")


if __name__ == "__main__":
    unittest.main()
