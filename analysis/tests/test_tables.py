import csv
import io
import os
import tempfile
import unittest

from fdsim_analysis.aggregate import aggregate_runs
from fdsim_analysis.errors import AnalysisInputError
from fdsim_analysis.loading import RunResult, load_aggregate
from fdsim_analysis.tables import (metric_table, summary_markdown, to_csv,
                                            to_markdown)
from . import fixtures

# Hand computation for the fixed runs below (t_{0.975,3} = 3.182446):
#   arm A: 1, 2, 3, 4 -> mean 2.5, sd sqrt(5/3) = 1.290994, h = 3.182446 * 1.290994 / 2 = 2.054260
#   arm B: 2, 2, 5, 5 -> mean 3.5, sd sqrt(3) = 1.732051,   h = 3.182446 * 1.732051 / 2 = 2.756075
#   B - A: 1, 0, 2, 1 -> mean 1.0, sd sqrt(2/3) = 0.816497, h = 3.182446 * 0.816497 / 2 = 1.299228
A = (1.0, 2.0, 3.0, 4.0)
B = (2.0, 2.0, 5.0, 5.0)


def hand_runs(with_axis=False):
    runs = []
    for rep, (a, b) in enumerate(zip(A, B)):
        doc = fixtures.run_doc({"workload": {"arrival_rate_per_s": 0.5}},
                               {"A": {"loss_ratio": a, "note": "text"},
                                "B": {"loss_ratio": b, "note": "text"}}, replication=rep)
        runs.append(RunResult(f"run{rep}.json", doc["manifest"], doc["metrics"]))
    return runs


class AggregateOfRuns(unittest.TestCase):
    def test_means_half_widths_and_paired_differences_match_hand_computation(self):
        t = aggregate_runs(hand_runs())
        self.assertEqual(t.arms(), ["A", "B"])
        self.assertEqual(t.metrics(), ["loss_ratio"])   # strings are not metrics
        a, b = t.row(0, "A", "loss_ratio"), t.row(0, "B", "loss_ratio")
        self.assertEqual((a.n, a.mean), (4, 2.5))
        self.assertAlmostEqual(a.ci95_half_width, 2.054260, places=5)
        self.assertIsNone(a.diff_mean)
        self.assertEqual(b.mean, 3.5)
        self.assertAlmostEqual(b.ci95_half_width, 2.756075, places=5)
        self.assertEqual((b.reference_arm, b.diff_n, b.diff_mean), ("A", 4, 1.0))
        self.assertAlmostEqual(b.diff_ci95_half_width, 1.299228, places=5)

    def test_agrees_with_the_sweep_helper_golden_case(self):
        # tests/sweep/aggregate_test.cpp (Aggregate.CsvAndJsonlTextIsExact): base m = 0.5, 1.5
        # and k = 7, 7; new m = null: rows k (n 2, sd 0), m (h = 6.3531023681), new m (n 0,
        # diff_n 0).
        runs = []
        for r in range(2):
            doc = fixtures.run_doc({}, {"base": {"m": r + 0.5, "k": 7},
                                        "new": {"m": None}}, replication=r)
            runs.append(RunResult(f"r{r}.json", doc["manifest"], doc["metrics"]))
        t = aggregate_runs(runs)
        self.assertEqual([(r.arm, r.metric) for r in t.rows],
                         [("base", "k"), ("base", "m"), ("new", "m")])
        k, m, new = t.rows
        self.assertEqual((k.n, k.mean, k.sd, k.ci95_half_width), (2, 7.0, 0.0, 0.0))
        self.assertAlmostEqual(m.sd, 0.7071067811865476, places=15)
        self.assertAlmostEqual(m.ci95_half_width, 6.3531023681, places=9)
        self.assertEqual((new.n, new.mean, new.diff_n, new.diff_mean), (0, None, 0, None))

    def test_reference_arm_can_be_chosen(self):
        t = aggregate_runs(hand_runs(), reference_arm="B")
        self.assertEqual(t.row(0, "A", "loss_ratio").diff_mean, -1.0)
        with self.assertRaises(AnalysisInputError):
            aggregate_runs(hand_runs(), reference_arm="C")

    def test_runs_group_into_points_by_axis_values(self):
        runs = hand_runs()
        runs[3].manifest["resolved_config"] = {"workload": {"arrival_rate_per_s": 0.9}}
        t = aggregate_runs(runs, ["$.workload.arrival_rate_per_s"])
        self.assertEqual([p for p in t.points()],
                         [(0, {"$.workload.arrival_rate_per_s": 0.5}),
                          (1, {"$.workload.arrival_rate_per_s": 0.9})])
        self.assertEqual(t.row(0, "A", "loss_ratio").mean, 2.0)
        self.assertEqual(t.row(1, "A", "loss_ratio").n, 1)

    def test_runs_of_different_scenarios_are_labelled_by_name(self):
        runs = hand_runs()
        for r in runs[2:]:
            r.manifest = dict(r.manifest, scenario_name="other", scenario_hash="h2")
        t = aggregate_runs(runs)
        self.assertEqual(t.axes, ["scenario"])
        self.assertEqual(t.points(), [(0, {"scenario": "fixture"}), (1, {"scenario": "other"})])
        self.assertEqual(t.row(1, "B", "loss_ratio").mean, 5.0)

    def test_the_same_run_twice_is_an_error(self):
        runs = hand_runs()
        runs.append(runs[0])
        with self.assertRaisesRegex(AnalysisInputError, "replication 0"):
            aggregate_runs(runs)

    def test_missing_metric_error_names_role_and_close_names(self):
        t = aggregate_runs(hand_runs())
        with self.assertRaises(AnalysisInputError) as cm:
            t.require_metric("loss_ratios", role="my_role")
        msg = str(cm.exception)
        self.assertIn("loss_ratios", msg)
        self.assertIn("my_role", msg)
        self.assertIn("closest present: loss_ratio", msg)


class Tables(unittest.TestCase):
    def test_markdown_shows_mean_half_width_n_and_paired_difference(self):
        md = to_markdown(metric_table(aggregate_runs(hand_runs()), ["loss_ratio"]))
        lines = md.splitlines()
        self.assertEqual(lines[0], "| point | arm | loss_ratio | loss_ratio diff | "
                                   "loss_ratio diff p | loss_ratio diff p_holm | "
                                   "reference_arm |")
        self.assertEqual(lines[2], "| 0 | A | 2.5 ± 2.054 (n=4) |  |  |  | A |")
        # Paired t: t = 1 / (0.8165 / 2) = 2.449 with 3 df, two-sided p = 0.0917; a family of
        # one comparison, so Holm leaves it unchanged.
        self.assertEqual(lines[3], "| 0 | B | 3.5 ± 2.756 (n=4) | 1 ± 1.299 (n=4) | 0.09172 | "
                                   "0.09172 | A |")

    def test_csv_has_full_precision_columns(self):
        text = to_csv(metric_table(aggregate_runs(hand_runs()), ["loss_ratio"]))
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual(rows[1]["arm"], "B")
        self.assertEqual(float(rows[1]["loss_ratio mean"]), 3.5)
        self.assertAlmostEqual(float(rows[1]["loss_ratio ci95_half_width"]), 2.756075, places=5)
        self.assertEqual(rows[1]["loss_ratio n"], "4")
        self.assertAlmostEqual(float(rows[1]["loss_ratio diff ci95_half_width"]), 1.299228,
                               places=5)
        self.assertEqual(rows[0]["loss_ratio diff mean"], "")

    def test_sweep_aggregate_numbers_are_shown_as_written(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "aggregate.csv"), "w", encoding="utf-8") as f:
                f.write("point,$.workload.arrival_rate_per_s,arm,metric,n,mean,sd,"
                        "ci95_half_width,reference_arm,diff_n,diff_mean,diff_sd,"
                        "diff_ci95_half_width\n"
                        "0,0.5,none,dynamic_failure_ratio,3,0.25,0.05,0.1242,none,,,,\n"
                        "0,0.5,oracle,dynamic_failure_ratio,3,0.2,0.05,0.1242,none,3,-0.05,"
                        "0.01,0.02484\n"
                        "1,0.9,none,dynamic_failure_ratio,3,0.5,0.1,0.2484,none,,,,\n"
                        "1,0.9,oracle,dynamic_failure_ratio,1,0.3,,,none,1,-0.2,,\n")
            t = load_aggregate(d)
        summary = summary_markdown(t).splitlines()
        self.assertIn("P(dynamic failure) [dynamic_failure_ratio]", summary[0])
        self.assertIn("\u0394 = arm \u2212 none", summary[0])
        # The axis is shown by its last key: no other axis ends in it, and it is not a unit.
        self.assertEqual(summary[2], "| point | arrival_rate_per_s | arm | mean | "
                                     "95% CI | n | \u0394 (95% CI) | p | p (Holm) |")
        self.assertEqual(summary[4], "| 0 | 0.5 | none | 0.25 | [0.1258, 0.3742] | 3 | "
                                     "(reference) |  |  |")
        # t = -0.05 / (0.01 / sqrt 3) = -8.660 with 2 df: p = 1 - 8.660 / sqrt(2 + 75) = 0.01307;
        # the n = 1 difference has no p, so the Holm family has one member.
        self.assertEqual(summary[5], "| 0 | 0.5 | oracle | 0.2 | [0.0758, 0.3242] | 3 | "
                                     "-0.05 ± 0.02484 | 0.0131 | 0.0131 |")
        self.assertEqual(summary[7], "| 1 | 0.9 | oracle | 0.3 | n/a | 1 | -0.2 |  |  |")
        self.assertIn("adjusted over the 1 differences", summary[0])
        # The default metric says what it counts (issue 28).
        self.assertIn("P(dynamic failure) counts every task missed or lost per task arrived, "
                      "including tasks infeasible at arrival", summary[0])
        md = to_markdown(metric_table(t, ["dynamic_failure_probability"],
                                      where={"$.workload.arrival_rate_per_s": 0.9}))
        # The selected axis keeps its column, with the value selected.
        self.assertIn("| 1 | 0.9 | oracle | 0.3 (n=1) | -0.2 (n=1) |  |  | none |", md)

    def test_summary_without_headline_metric_asks_for_one(self):
        with self.assertRaisesRegex(AnalysisInputError, "give --metric"):
            summary_markdown(aggregate_runs(hand_runs()))
        self.assertIn("loss_ratio", summary_markdown(aggregate_runs(hand_runs()),
                                                     metric="loss_ratio"))

    def test_where_on_unknown_axis_or_value_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            t = fixtures.write_ls_sweep(d, replications=2)
        with self.assertRaisesRegex(AnalysisInputError, "not an axis"):
            t.select({"$.nope": 1})
        with self.assertRaisesRegex(AnalysisInputError,
                                    r"--where arrival_rate_per_s: no point has 0\.6 \(values of "
                                    r"\$\.workload\.arrival_rate_per_s: 0\.5, 0\.7, 0\.9\)"):
            t.select({fixtures.LS_AXIS: 0.6})
        with self.assertRaisesRegex(AnalysisInputError, "unknown arm"):
            t.select(arms=["ghost"])
        self.assertEqual(len(t.select({fixtures.LS_AXIS: 0.7}).points()), 1)


if __name__ == "__main__":
    unittest.main()
