import math
import random
import unittest

from fdsim_analysis.equal_cost import (ArmSeries, compare_at_equal_cost, equal_cost_csv,
                                       equal_cost_table, frontier_at, pareto_frontier)


def arm(name, costs, metrics, family="fixed"):
    return ArmSeries(name, family, list(costs), list(metrics))


class Frontier(unittest.TestCase):
    def test_dominated_arms_left_out(self):
        a = arm("a", [1, 1], [5, 5])
        b = arm("b", [2, 2], [6, 6])   # costlier and worse than a: dominated
        c = arm("c", [3, 3], [2, 2])
        self.assertEqual([x.name for x in pareto_frontier([b, c, a])], ["a", "c"])
        # Higher is better: b beats a.
        self.assertEqual([x.name for x in pareto_frontier([a, b, c], lower_is_better=False)],
                         ["a", "b"])

    def test_reading(self):
        fr = [arm("a", [1.0], [9.0]), arm("b", [3.0], [5.0])]
        kind, lo, hi, w = frontier_at(fr, 2.5, 0.001)
        self.assertEqual((kind, lo.name, hi.name), ("interpolated", "a", "b"))
        self.assertAlmostEqual(w, 0.75)
        kind, lo, hi, w = frontier_at(fr, 3.002, 0.001)
        self.assertEqual((kind, lo.name, w), ("calibrated", "b", 0.0))
        self.assertIsNone(frontier_at(fr, 0.5, 0.001))   # cheaper than the family can go
        self.assertIsNone(frontier_at(fr, 3.5, 0.001))


class EqualCostComparison(unittest.TestCase):
    def setUp(self):
        rng = random.Random(5)
        self.noise = [rng.gauss(0, 0.5) for _ in range(12)]
        # A linear frontier metric = 10 - cost (+ the replication's common noise).
        self.family = [arm(f"f{c}", [c] * 12, [10 - c + e for e in self.noise])
                       for c in (1.0, 2.0, 3.0)]

    def test_exact_paired_interpolation(self):
        ch = arm("adaptive", [1.5] * 12, [10 - 1.5 - 0.2 + e for e in self.noise], "adaptive")
        r = compare_at_equal_cost(ch, self.family, n_boot=500, seed=3)
        self.assertEqual((r.kind, r.lo, r.hi), ("interpolated", "f1.0", "f2.0"))
        self.assertAlmostEqual(r.weight, 0.5)
        self.assertAlmostEqual(r.delta, 0.2, places=12)   # the noise cancels (paired)
        self.assertAlmostEqual(r.low, 0.2, places=12)
        self.assertAlmostEqual(r.high, 0.2, places=12)
        self.assertEqual(r.n, 12)

    def test_calibrated_point_is_used_directly(self):
        ch = arm("adaptive", [2.0005] * 12, [8.1 + e for e in self.noise], "adaptive")
        r = compare_at_equal_cost(ch, self.family, tolerance_rel=0.002, n_boot=200)
        self.assertEqual((r.kind, r.lo), ("calibrated", "f2.0"))
        self.assertAlmostEqual(r.delta, -0.1, places=12)   # the challenger is worse

    def test_bootstrap_interval_covers_and_is_deterministic(self):
        rng = random.Random(9)
        ch_noise = [rng.gauss(0, 0.3) for _ in range(12)]
        ch = arm("adaptive", [1.5 + 0.01 * e for e in ch_noise],
                 [8.5 - 0.2 + e + d for e, d in zip(self.noise, ch_noise)], "adaptive")
        r1 = compare_at_equal_cost(ch, self.family, n_boot=800, seed=11)
        r2 = compare_at_equal_cost(ch, self.family, n_boot=800, seed=11)
        self.assertEqual((r1.low, r1.high), (r2.low, r2.high))
        self.assertLess(r1.low, r1.delta)
        self.assertLess(r1.delta, r1.high)
        self.assertLess(r1.low, 0.2 + 0.5)
        self.assertGreater(r1.high, 0.2 - 0.5)

    def test_out_of_range_and_incomplete(self):
        ch = arm("adaptive", [5.0] * 12, [1.0] * 12, "adaptive")
        self.assertIsNone(compare_at_equal_cost(ch, self.family, n_boot=10))
        ch = arm("adaptive", [1.5, None], [8.0, 8.0], "adaptive")
        fam = [arm("a", [1, 1], [9, 9]), arm("b", [2, 2], [8, 8])]
        self.assertIsNone(compare_at_equal_cost(ch, fam, n_boot=10))   # 1 complete replication

    def test_table_and_csv(self):
        ch = arm("adaptive", [1.5] * 12, [8.3 + e for e in self.noise], "adaptive")
        r = compare_at_equal_cost(ch, self.family, n_boot=100)
        r.label = "R"
        md = equal_cost_table([r], "P(df)", "messages_per_node_s")
        self.assertIn("| R | fixed | `f1.0` (1) – `f2.0` (2), w = 0.50 | 1.5 |", md)
        csv_text = equal_cost_csv([r])
        self.assertTrue(csv_text.startswith("label,challenger,family,kind,"))
        self.assertIn("interpolated", csv_text)


class EqualCostCommand(unittest.TestCase):
    """fdsim-analysis equal-cost on a sweep whose fixed family costs 1, 2, 3 messages per node
    and second with P(df) = 0.10 - 0.02 cost + 0.001 rep, and an adaptive arm at cost 1.5 with
    P(df) 0.065 + 0.001 rep: the fixed frontier there is 0.07 + 0.001 rep (mean 0.0715 over
    replications 0-3), so delta = 0.005 in every replication."""

    def test_table_csv_and_figure(self):
        import io
        import os
        import tempfile
        from fdsim_analysis.cli import run
        from tests.fixtures import run_doc, write_sweep
        axis = "$.workload.arrival_rate_per_s"

        def make_run(params, rep):
            e = 0.001 * rep
            metrics = {f"fixed_{c}": {"dynamic_failure_feasible_ratio": 0.10 - 0.02 * c + e,
                                      "traffic": {"messages_per_node_s": float(c)}}
                       for c in (1, 2, 3)}
            metrics["adaptive"] = {"dynamic_failure_feasible_ratio": 0.065 + e,
                                   "traffic": {"messages_per_node_s": 1.5}}
            cfg = {"workload": {"arrival_rate_per_s": params[axis]},
                   "load_sharing": {"arms": [{"name": f"fixed_{c}", "diagnosis": "fixed"}
                                             for c in (1, 2, 3)] +
                                    [{"name": "adaptive", "diagnosis": "hou_shin"}]}}
            return run_doc(cfg, metrics, rep, scenario_hash=f"p{params[axis]}")

        with tempfile.TemporaryDirectory() as d:
            sweep = os.path.join(d, "s")
            write_sweep(sweep, [axis], [{axis: 0.8}], make_run, 4)
            out = io.StringIO()
            code = run(["equal-cost", "--sweep", sweep, "--arm", "adaptive", "--boot", "200",
                        "--out", os.path.join(d, "o")], out=out)
            self.assertEqual(code, 0)
            self.assertIn("| fixed | `fixed_1` (1) – `fixed_2` (2), w = 0.50 | 1.5 | 0.0715 | "
                          "0.0665 | 0.005 | [0.005, 0.005] | 4 |", out.getvalue())
            for f in ("equal_cost.md", "equal_cost.csv", "equal_cost.png", "equal_cost.svg"):
                self.assertTrue(os.path.exists(os.path.join(d, "o", f)), f)


if __name__ == "__main__":
    unittest.main()
