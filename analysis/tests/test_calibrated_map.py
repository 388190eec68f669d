"""The calibrated regime map: design validation, the sweeps it writes, and the verdict inputs
computed from hand-made rows (calibrated_map.py, calibrated_map_report.py)."""

import copy
import csv
import json
import os
import tempfile
import unittest

from fdsim_analysis import calibrated_map as cm
from fdsim_analysis import calibrated_map_report as report
from fdsim_analysis.errors import AnalysisInputError
from fdsim_analysis.inference import holdout_seed, regime_seed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN = os.path.join(ROOT, "studies", "calibrated-map", "design.json")


def _design_doc():
    with open(DESIGN, encoding="utf-8") as f:
        return json.load(f)


class DesignFile(unittest.TestCase):
    def _load(self, doc):
        d = tempfile.mkdtemp()
        base = os.path.join(d, "base.json")
        with open(base, "w") as f:
            f.write("{}")
        path = os.path.join(d, "design.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return cm.load_design(path)

    def test_shipped_design_loads_and_is_balanced(self):
        d = cm.load_design(DESIGN)
        classes = [g["class"] for g in d["regimes"]]
        self.assertGreaterEqual(classes.count("realistic"), classes.count("stress"))
        with open(d["base_path"], encoding="utf-8") as f:
            base = json.load(f)
        kinds = {a["name"]: a["diagnosis"] for a in base["load_sharing"]["arms"]}
        families = {kinds[a] for a in cm.fixed_arms(d)}
        self.assertEqual(families, {"fixed_on_silence", "fixed_periodic", "fixed_heartbeat",
                                    "geode_ring"})
        # Every calibrated path names the arm it calibrates.
        for a in d["calibrated"]:
            i, leaf = cm._arm_index(a["path"])
            self.assertEqual(base["load_sharing"]["arms"][i]["name"], a["arm"])
            self.assertIn(leaf, base["load_sharing"]["arms"][i])

    def test_unknown_key_is_refused_with_its_path(self):
        doc = _design_doc()
        doc["regimes"][1]["sett"] = {}
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.regimes\[1\]\.sett: unknown key"):
            self._load(doc)

    def test_cap_must_be_whole_blocks(self):
        doc = _design_doc()
        doc["replication"]["cap"] = 30
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.replication\.cap"):
            self._load(doc)

    def test_duplicate_regime_key_is_refused(self):
        doc = _design_doc()
        doc["regimes"][2]["key"] = doc["regimes"][0]["key"]
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.regimes\[2\]\.key"):
            self._load(doc)

    def test_bad_bracket_is_refused(self):
        doc = _design_doc()
        doc["calibrated"][0]["bracket"] = [5, 1]
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.calibrated\[0\]\.bracket"):
            self._load(doc)


    def test_a_regime_bracket_needs_a_calibrated_arm_and_a_reason(self):
        doc = _design_doc()
        doc["regimes"][0]["brackets"] = {"fixed_on_silence_shrt": [1, 2]}
        doc["regimes"][0]["brackets_why"] = "x"
        with self.assertRaisesRegex(AnalysisInputError, r"brackets\.fixed_on_silence_shrt"):
            self._load(doc)
        doc["regimes"][0]["brackets"] = {"fixed_on_silence_short": [1, 2]}
        del doc["regimes"][0]["brackets_why"]
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.regimes\[0\]\.brackets_why"):
            self._load(doc)


class Sweeps(unittest.TestCase):
    def setUp(self):
        self.d = cm.load_design(DESIGN)

    def test_discovery_sweep_calibrates_each_fixed_arm_to_the_adaptive_arm(self):
        key = self.d["regimes"][1]["key"]
        doc = cm.regime_sweep(self.d, key, "discovery", 8)
        self.assertEqual(doc["replications"], 8)
        self.assertEqual(doc["axes"][0], {"name": "regime_seed", "path": "$.seed",
                                          "values": [regime_seed(key)]})
        cal = [a for a in doc["axes"] if "calibrate" in a]
        self.assertEqual([a["calibrate"]["arm"] for a in cal], cm.fixed_arms(self.d))
        for a in cal:
            self.assertEqual(a["calibrate"]["target"], {"arm": self.d["adaptive_arm"]})
            self.assertEqual(a["calibrate"]["metric"], "traffic.messages_per_node_s")
        set_paths = {a["path"] for a in doc["axes"] if "values" in a}
        self.assertTrue(set(self.d["regimes"][1]["set"]) <= set_paths)

    def test_a_regime_bracket_replaces_the_common_one_there_only(self):
        d = copy.deepcopy(self.d)
        d["regimes"][0]["brackets"] = {"fixed_on_silence_short": [600, 40000]}
        mine = cm.regime_sweep(d, d["regimes"][0]["key"], "discovery", 12)
        other = cm.regime_sweep(d, d["regimes"][1]["key"], "discovery", 12)
        get = lambda doc: {a["calibrate"]["arm"]: a["calibrate"]["bracket"]
                           for a in doc["axes"] if "calibrate" in a}
        self.assertEqual(get(mine)["fixed_on_silence_short"], [600, 40000])
        self.assertEqual(get(other)["fixed_on_silence_short"], d["calibrated"][0]["bracket"])
        self.assertEqual(get(mine)["fixed_periodic_short"], d["calibrated"][2]["bracket"])

    def test_held_out_sweep_has_its_own_seed_and_the_solved_values(self):
        key = "S"
        solved = {"$.load_sharing.arms[3].period_ms": 6827.5,
                  "$.load_sharing.arms[3].timeout_ms": 7827.5}
        doc = cm.regime_sweep(self.d, key, "held-out", 12, solved)
        self.assertEqual(doc["axes"][0]["values"], [holdout_seed(key)])
        self.assertNotEqual(holdout_seed(key), regime_seed(key))
        self.assertFalse(any("calibrate" in a for a in doc["axes"]))
        got = {a["path"]: a["values"][0] for a in doc["axes"]}
        for p, v in solved.items():
            self.assertEqual(got[p], v)
        with self.assertRaises(ValueError):
            cm.regime_sweep(self.d, key, "held-out", 12)

    def test_solved_leaves_read_from_a_resolved_configuration(self):
        arms = [{"name": "none"}, {"name": "oracle"}, {"name": "a"},
                {"period_ms": 6000.0, "timeout_ms": 7000.0},
                {"period_ms": 8000.0, "timeout_ms": 20000.0},
                {"period_ms": 30000.0, "timeout_ms": 31000.0},
                {"period_ms": 32000.0, "timeout_ms": 80000.0},
                {"period_ms": 33000.0, "timeout_ms": 34000.0},
                {"period_ms": 35000.0, "timeout_ms": 87500.0},
                {"member_timeout_ms": 28000.0}]
        got = cm.solved_leaves(self.d, {"load_sharing": {"arms": arms}})
        self.assertEqual(got["$.load_sharing.arms[4].timeout_ms"], 20000.0)
        self.assertEqual(got["$.load_sharing.arms[6].period_ms"], 32000.0)
        self.assertEqual(got["$.load_sharing.arms[9].member_timeout_ms"], 28000.0)
        self.assertEqual(len(got), 13)


def _rows(design, key, block, table):
    """table: {arm: [(metric, cost), ...]} per replication."""
    out = []
    for arm, reps in table.items():
        for i, (m, c) in enumerate(reps):
            out.append({"regime": key, "block": block, "seed": 1, "replication": i, "arm": arm,
                        "metric": m, "cost": c, "crashes": 10.0, "tasks_feasible": 1000.0})
    return out


class Summaries(unittest.TestCase):
    def setUp(self):
        self.d = cm.load_design(DESIGN)
        f = cm.fixed_arms(self.d)
        # Hand-made: none 0.020, oracle 0.010 -> value of detection 1.0 point, margin 0.1.
        self.table = {
            "none": [(0.021, 4.0), (0.019, 4.0), (0.020, 4.0)],
            "oracle": [(0.010, 4.0), (0.011, 4.0), (0.009, 4.0)],
            "hou_shin_extra_a0.05": [(0.0140, 5.0), (0.0150, 5.0), (0.0130, 5.0)],
            f[0]: [(0.0150, 5.01), (0.0160, 5.01), (0.0140, 5.01)],   # mean 1.5 %, +0.2 %
            f[1]: [(0.0148, 4.99), (0.0149, 4.99), (0.0151, 4.99)],   # mean 1.4933 %: the pick
        }
        self.rows = _rows(self.d, "S", "discovery", self.table)

    def test_margin_pick_and_paired_differences(self):
        res = cm.summarise_regime(self.d, "S", self.rows)
        self.assertAlmostEqual(res.margin, 0.1 * (2.0 - 1.0), places=12)
        self.assertEqual(res.pick, cm.fixed_arms(self.d)[1])
        self.assertAlmostEqual(res.budget, 5.0)
        self.assertAlmostEqual(res.arms[cm.fixed_arms(self.d)[0]].cost_error_rel, 0.002)
        self.assertAlmostEqual(res.arms[res.pick].cost_error_rel, -0.002)
        for got, want in zip(res.diffs, [0.08, -0.01, 0.21]):
            self.assertAlmostEqual(got, want, places=10)
        self.assertEqual(res.n, 3)
        self.assertEqual(res.crashes, 30.0)

    def test_held_out_rows_reuse_the_discovery_pick(self):
        f = cm.fixed_arms(self.d)
        held = copy.deepcopy(self.table)
        held[f[0]] = [(0.001, 5.0)] * 3     # would be the pick on the held-out block
        rows = self.rows + _rows(self.d, "S", "held-out", held)
        res = cm.summarise_regime(self.d, "S", rows)
        self.assertEqual(res.pick, f[1])
        self.assertEqual(res.holdout_n, 3)
        for got, want in zip(res.holdout_diffs, [0.08, -0.01, 0.21]):
            self.assertAlmostEqual(got, want, places=10)

    def test_no_value_of_detection_gives_no_margin(self):
        table = dict(self.table)
        table["none"] = table["oracle"]
        res = cm.summarise_regime(self.d, "S", _rows(self.d, "S", "discovery", table))
        self.assertIsNone(res.margin)
        self.assertIn("value of detection", res.note)

    def test_rows_csv_round_trip(self):
        path = os.path.join(tempfile.mkdtemp(), "r.csv")
        with open(path, "w") as f:
            f.write(cm.rows_csv(self.rows))
        back = cm.read_rows_csv(path)
        self.assertEqual(cm.rows_csv(back), cm.rows_csv(self.rows))

    def test_outputs_show_the_verdict_and_the_cost_error(self):
        out = tempfile.mkdtemp()
        rows = report.write_outputs(self.d, self.rows, [], out, formats=())
        self.assertEqual(len(rows), 1)
        r = rows[0]
        # Diffs 0.08, -0.01, 0.21 points: the interval covers 0 and passes the margin 0.1.
        self.assertEqual(r["verdict"], "inconclusive")
        self.assertAlmostEqual(r["max_abs_cost_error_rel"], 0.002)
        with open(os.path.join(out, "regime_map.csv")) as f:
            got = list(csv.DictReader(f))
        self.assertEqual(got[0]["pick"], cm.fixed_arms(self.d)[1])
        with open(os.path.join(out, "regime_map.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("inconclusive 1", text)
        self.assertIn("0.20 % of the budget", text)

    def test_main_job_summary_reads_the_map(self):
        from fdsim_analysis.studies import flagship_summary
        out = tempfile.mkdtemp()
        report.write_outputs(self.d, self.rows, [], out, formats=())
        lines, regimes, reps = flagship_summary.regime_lines(os.path.join(out, "regime_map.csv"))
        self.assertEqual((regimes, reps), (1, "3"))
        self.assertTrue(all(len(l) <= flagship_summary.WIDTH for l in lines))
        self.assertIn("inconclusive", lines[-1])
        self.assertIn("+0.093 [", lines[-1])    # mean of 0.08, -0.01, 0.21 points


class FailedRegimes(unittest.TestCase):
    def test_a_refused_calibration_is_recorded_and_the_others_go_on(self):
        from fdsim_analysis import calibrated_map_run as runner
        d = cm.load_design(DESIGN)
        tmp = tempfile.mkdtemp()
        fake = os.path.join(tmp, "fdsim")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'x.json: $.axes[5].calibrate.bracket: point 0 ($.seed = 1): "
                    "the target is not bracketed: widen the bracket'\nexit 2\n")
        os.chmod(fake, 0o755)
        with open(os.path.join(tmp, "log"), "w") as log:
            rows, cal, cpu, failures, excluded = runner.run_map(d, fake, os.path.join(tmp, "w"),
                                                                1, log, keys=["S", "R"])
        self.assertEqual(excluded, {})
        self.assertEqual(rows, [])
        self.assertEqual(sorted(failures), ["R", "S"])
        self.assertIn("$.axes[5].calibrate.bracket", failures["S"])
        self.assertIn("widen the bracket", failures["S"])
        out = report.failures_csv(failures)
        path = os.path.join(tmp, "failures.csv")
        with open(path, "w") as f:
            f.write(out)
        self.assertEqual(report.read_failures_csv(path), failures)
        with self.assertRaises(AnalysisInputError):   # the reduced check fails at once
            with open(os.path.join(tmp, "log2"), "w") as log:
                runner.run_map(d, fake, os.path.join(tmp, "w2"), 1, log, keys=["S"], fixed_n=4)


class UnreachableArms(unittest.TestCase):
    """An arm with if_unreachable whose calibration fdsim refuses as unreachable is left out of
    the pool (the shipped design's geode_ring), and the sweep restarts with it fixed."""
    LINE = ("x.json: $.axes[9].calibrate.bracket: point 0 ($.seed = 1): the target is not "
            "bracketed: arm mean of traffic.messages_per_node_s is 5.9 at "
            "$.load_sharing.arms[9].member_timeout_ms = 2000 and 5.4 at 40000, target 5.3 "
            "(mean of arm hou_shin_extra_a0.05): widen the bracket")

    def setUp(self):
        self.d = cm.load_design(DESIGN)
        self.geode = next(a for a in self.d["calibrated"] if a["arm"] == "geode_ring")

    def test_the_refusal_names_the_arm_only_when_it_cannot_reach_the_budget(self):
        from fdsim_analysis import calibrated_map_run as runner
        self.assertEqual(runner.unreachable_arm(self.d, self.LINE, {}), "geode_ring")
        self.assertIsNone(runner.unreachable_arm(self.d, self.LINE, {"geode_ring": "x"}))
        other = self.LINE.replace("arms[9].member_timeout_ms", "arms[3].period_ms")
        self.assertIsNone(runner.unreachable_arm(self.d, other, {}))  # no if_unreachable
        self.assertIsNone(runner.unreachable_arm(
            self.d, self.LINE.replace("the target is not bracketed", "cannot read"), {}))

    def test_an_excluded_arm_runs_at_its_value_and_is_never_the_pick(self):
        doc = cm.regime_sweep(self.d, "S", "discovery", 12, excluded={"geode_ring": "r"})
        ax = next(a for a in doc["axes"] if a["path"] == self.geode["path"])
        self.assertEqual(ax["values"], [self.geode["if_unreachable"]["value"]])
        self.assertNotIn("calibrate", ax)
        cal = [a for a in doc["axes"] if "calibrate" in a]
        self.assertEqual(len(cal), len(self.d["calibrated"]) - 1)
        full = cm.regime_sweep(self.d, "S", "discovery", 12)
        g = next(a for a in full["axes"] if a["path"] == self.geode["path"])
        self.assertEqual(g["calibrate"]["pilot_replications"], self.geode["pilot_replications"])
        # The geode arm fails fewest tasks but is left out: the pick is the best other arm.
        table = {a: [(0.05, 5.0)] * 3 for a in ("none", "oracle", self.d["adaptive_arm"])}
        table["none"] = [(0.08, 5.0)] * 3
        table["oracle"] = [(0.01, 5.0)] * 3
        for i, a in enumerate(cm.fixed_arms(self.d)):
            table[a] = [(0.06 + 0.001 * i, 5.0)] * 3
        table["geode_ring"] = [(0.001, 5.3)] * 3
        rows = _rows(self.d, "S", "discovery", table)
        self.assertEqual(cm.summarise_regime(self.d, "S", rows).pick, "geode_ring")
        res = cm.summarise_regime(self.d, "S", rows, {"geode_ring": "unreachable"})
        self.assertEqual(res.pick, cm.fixed_arms(self.d)[0])
        self.assertNotIn("geode_ring", res.family_diffs)
        out = tempfile.mkdtemp()
        mrows = report.write_outputs(self.d, rows, [], out, formats=(),
                                     excluded={"S": {"geode_ring": "unreachable"}})
        self.assertEqual(mrows[0]["max_abs_cost_error_rel"], 0.0)  # +6 % of geode not counted
        with open(os.path.join(out, "families.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("geode_ring (left out)", text)
        self.assertIn("| geode_ring | +6.00 % |", text)
        path = os.path.join(out, "excluded.csv")
        with open(path, "w") as f:
            f.write(report.excluded_csv({"S": {"geode_ring": "unreachable"}}))
        self.assertEqual(report.read_excluded_csv(path), {"S": {"geode_ring": "unreachable"}})

    def test_the_runner_restarts_the_sweep_without_the_unreachable_calibration(self):
        from fdsim_analysis import calibrated_map_run as runner
        tmp = tempfile.mkdtemp()
        fake = os.path.join(tmp, "fdsim")
        # Refuses the geode calibration as unreachable while the sweep calibrates it; then
        # refuses the sweep for another reason (so the regime fails after the restart).
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n/usr/bin/python3 - \"$2\" <<'PY'\nimport json, sys\n"
                    "d = json.load(open(sys.argv[1]))\n"
                    "g = [a for a in d['axes'] if a['path'].endswith('arms[9].member_timeout_ms')]\n"
                    f"print({self.LINE!r} if 'calibrate' in g[0] else 'x.json: other failure')\n"
                    "PY\nexit 2\n")
        os.chmod(fake, 0o755)
        with open(os.path.join(tmp, "log"), "w") as log:
            _, _, _, failures, _ = runner.run_map(self.d, fake, os.path.join(tmp, "w"), 1, log,
                                                  keys=["S"])
        self.assertIn("other failure", failures["S"])
        ex = runner.read_excluded(os.path.join(tmp, "w"), "S")
        self.assertEqual(list(ex), ["geode_ring"])
        self.assertIn("the target is not bracketed", ex["geode_ring"])
        self.assertFalse(ex["geode_ring"].startswith("x.json"))


if __name__ == "__main__":
    unittest.main()
