import json
import os
import tempfile
import unittest

from fdsim_analysis.errors import AnalysisInputError
from fdsim_analysis.loading import (list_run_files, load_aggregate, load_manifest,
                                             load_run, load_runs, load_sweep)
from . import fixtures

CSV_HEADER = ("point,$.workload.arrival_rate_per_s,$.membership.profile,arm,metric,n,mean,sd,"
              "ci95_half_width,reference_arm,diff_n,diff_mean,diff_sd,diff_ci95_half_width\n")


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def assertInputError(self, fn, *fragments):
        with self.assertRaises(AnalysisInputError) as cm:
            fn()
        for frag in fragments:
            self.assertIn(frag, str(cm.exception))
        return str(cm.exception)


class RunResults(TempDirTest):
    def test_valid_run_gives_arms_in_manifest_order(self):
        doc = fixtures.run_doc({"a": 1}, {"x": {"m_s": 1}, "y": {"m_s": 2}})
        doc["manifest"]["arm_order"] = ["y", "x"]
        path = self.write("r.json", json.dumps(doc))
        run = load_run(path)
        self.assertEqual(run.arm_order, ["y", "x"])
        self.assertEqual(run.replication, 0)
        self.assertEqual(run.resolved_config, {"a": 1})

    def test_invalid_json_names_file_and_line(self):
        path = self.write("bad.json", '{\n "manifest": {,\n}')
        self.assertInputError(lambda: load_run(path), "bad.json:2:", "not valid JSON")

    def test_missing_metrics_object_is_named(self):
        path = self.write("nometrics.json", json.dumps({"manifest": {}}))
        self.assertInputError(lambda: load_run(path), "nometrics.json", '"metrics"')

    def test_missing_manifest_is_named(self):
        path = self.write("nomanifest.json", json.dumps({"metrics": {}}))
        self.assertInputError(lambda: load_run(path), "nomanifest.json", '"manifest"')

    def test_arm_metrics_must_be_objects(self):
        path = self.write("arm.json", json.dumps({"manifest": {}, "metrics": {"fixed": 3}}))
        self.assertInputError(lambda: load_run(path), "metrics.fixed must be an object")

    def test_missing_resolved_config_is_named_when_needed(self):
        path = self.write("r.json", json.dumps({"manifest": {}, "metrics": {}}))
        run = load_run(path)
        self.assertInputError(lambda: run.resolved_config, "r.json", "resolved_config")

    def test_missing_file(self):
        self.assertInputError(lambda: load_run(os.path.join(self.dir, "nope.json")),
                              "nope.json: no such file")

    def test_directory_listing_skips_errors_and_temp_files(self):
        doc = json.dumps(fixtures.run_doc({}, {"a": {}}))
        self.write("runs/b.json", doc)
        self.write("runs/a.json", doc)
        self.write("runs/c.error.json", "{}")
        self.write("runs/.a.json.tmp.123", "{")
        files = list_run_files(self.dir)
        self.assertEqual([os.path.basename(f) for f in files], ["a.json", "b.json"])
        self.assertEqual(len(load_runs([self.dir])), 2)

    def test_empty_directory_is_an_error(self):
        os.makedirs(os.path.join(self.dir, "empty"))
        self.assertInputError(lambda: load_runs([os.path.join(self.dir, "empty")]),
                              "no run result files")


class Aggregates(TempDirTest):
    def test_csv_reads_axis_values_with_their_types(self):
        self.write("aggregate.csv", CSV_HEADER +
                   "0,0.5,wiki,fixed,p_ratio,3,0.25,0.05,0.1242,fixed,,,,\n"
                   "0,0.5,wiki,hs,p_ratio,3,0.2,,,fixed,3,-0.05,0.01,0.02484\n")
        t = load_aggregate(self.dir)
        self.assertEqual(t.axes, ["$.workload.arrival_rate_per_s", "$.membership.profile"])
        fixed = t.row(0, "fixed", "p_ratio")
        self.assertEqual(fixed.params, {"$.workload.arrival_rate_per_s": 0.5,
                                        "$.membership.profile": "wiki"})
        self.assertEqual((fixed.n, fixed.mean, fixed.ci95_half_width), (3, 0.25, 0.1242))
        self.assertIsNone(fixed.diff_mean)
        hs = t.row(0, "hs", "p_ratio")
        self.assertIsNone(hs.sd)
        self.assertEqual((hs.diff_n, hs.diff_mean, hs.diff_ci95_half_width), (3, -0.05, 0.02484))

    def test_csv_missing_column_is_named(self):
        self.write("aggregate.csv", "point,arm,metric,n,mean,sd\n0,a,m,1,2,\n")
        self.assertInputError(lambda: load_aggregate(self.dir), "aggregate.csv",
                              "missing column(s) ci95_half_width")

    def test_csv_bad_number_names_line(self):
        self.write("aggregate.csv", CSV_HEADER + "0,0.5,wiki,a,m,three,1,,,,,,,\n")
        self.assertInputError(lambda: load_aggregate(self.dir), "aggregate.csv:2",
                              "n must be a number")

    def test_csv_short_row_names_line(self):
        self.write("aggregate.csv", CSV_HEADER + "0,0.5,a,m\n")
        self.assertInputError(lambda: load_aggregate(self.dir), "aggregate.csv:2", "cells")

    def test_jsonl_is_preferred_and_bad_lines_are_located(self):
        self.write("aggregate.csv", CSV_HEADER)
        self.write("aggregate.jsonl",
                   json.dumps({"point": 0, "params": {"$.x": 1}, "arm": "a", "metric": "m",
                               "n": 2, "mean": 1.5, "sd": 0.7, "ci95_half_width": 6.35}) +
                   "\n{oops\n")
        self.assertInputError(lambda: load_aggregate(self.dir), "aggregate.jsonl:2",
                              "not valid JSON")

    def test_jsonl_missing_field_is_named(self):
        self.write("aggregate.jsonl", json.dumps({"point": 0, "arm": "a", "metric": "m",
                                                  "n": 2, "mean": 1.5}) + "\n")
        self.assertInputError(lambda: load_aggregate(self.dir), "aggregate.jsonl:1",
                              "missing field(s) ci95_half_width")

    def test_directory_without_aggregate(self):
        self.assertInputError(lambda: load_aggregate(self.dir),
                              "neither aggregate.jsonl nor aggregate.csv")


class SweepHelperGoldenText(TempDirTest):
    """The exact text of tests/sweep/aggregate_test.cpp (Aggregate.CsvAndJsonlTextIsExact)."""
    CSV = ("point,$.a,arm,metric,n,mean,sd,ci95_half_width,reference_arm,diff_n,diff_mean,"
           "diff_sd,diff_ci95_half_width\n"
           "0,\"a,b\",base,k,2,7.0,0.0,0.0,base,,,,\n"
           "0,\"a,b\",base,m,2,1.0,0.7071067811865476,6.353102368087,base,,,,\n"
           "0,\"a,b\",new,m,0,,,,base,0,,,\n")
    JSONL = ('{"point":0,"params":{"$.a":"a,b"},"arm":"base","metric":"k","n":2,"mean":7.0,'
             '"sd":0.0,"ci95_half_width":0.0,"reference_arm":"base","diff_n":null,'
             '"diff_mean":null,"diff_sd":null,"diff_ci95_half_width":null}\n')

    def test_csv(self):
        t = load_aggregate(self.write("aggregate.csv", self.CSV))
        self.assertEqual(t.axes, ["$.a"])
        self.assertEqual(t.arms(), ["base", "new"])
        m = t.row(0, "base", "m")
        self.assertEqual((m.params, m.n, m.mean, m.sd), ({"$.a": "a,b"}, 2, 1.0,
                                                         0.7071067811865476))
        self.assertEqual((m.reference_arm, m.diff_n, m.diff_mean), ("base", None, None))
        new = t.row(0, "new", "m")
        self.assertEqual((new.n, new.mean, new.diff_n, new.diff_mean), (0, None, 0, None))

    def test_jsonl(self):
        t = load_aggregate(self.write("aggregate.jsonl", self.JSONL))
        k = t.row(0, "base", "k")
        self.assertEqual((k.params, k.n, k.mean, k.sd, k.ci95_half_width, k.diff_n),
                         ({"$.a": "a,b"}, 2, 7.0, 0.0, 0.0, None))


class SweepOutputs(TempDirTest):
    def test_manifest_without_points_is_rejected(self):
        self.write("sweep.json", json.dumps({"name": "s", "axes": []}))
        self.assertInputError(lambda: load_manifest(self.dir), "sweep.json", '"points"')

    def test_manifest_point_without_axis_value_is_rejected(self):
        self.write("sweep.json", json.dumps({"axes": ["$.a"], "points": [
            {"index": 0, "params": {}, "run_ids": []}]}))
        self.assertInputError(lambda: load_manifest(self.dir), "points[0]", "lacks axis $.a")

    def test_sweep_loads_runs_aggregate_and_skips_missing_runs(self):
        table = fixtures.write_ls_sweep(self.dir, replications=2)
        os.remove(os.path.join(self.dir, "runs", "0000000000000001.json"))
        sweep = load_sweep(self.dir)
        self.assertEqual(len(sweep.manifest.points), 3)
        self.assertEqual(len(sweep.runs()), 5)
        self.assertEqual(len(sweep.runs(point=0)), 1)
        self.assertEqual(len(sweep.aggregate.rows), len(table.rows))
        self.assertEqual(sweep.aggregate.axes, [fixtures.LS_AXIS])

    def test_csv_and_jsonl_of_the_same_sweep_agree(self):
        fixtures.write_qos_sweep(self.dir)
        a = load_aggregate(os.path.join(self.dir, "aggregate.jsonl"))
        b = load_aggregate(os.path.join(self.dir, "aggregate.csv"))
        self.assertEqual(a.rows, b.rows)

    def test_not_a_directory(self):
        self.assertInputError(lambda: load_sweep(os.path.join(self.dir, "none")),
                              "not a directory")


if __name__ == "__main__":
    unittest.main()
