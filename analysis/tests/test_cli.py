import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

from fdsim_analysis import cli
from . import fixtures

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Cli(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.ls = os.path.join(self.dir, "ls")
        fixtures.write_ls_sweep(self.ls)

    def tearDown(self):
        self._tmp.cleanup()

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = cli.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_summary_of_a_sweep_prints_one_row_per_point_and_arm(self):
        code, out, _ = self.run_cli("summary", self.ls)
        self.assertEqual(code, 0)
        rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "---" not in ln]
        self.assertEqual(len(rows), 1 + 3 * 3)
        self.assertIn("| 0 | 0.5 | none | 0.11 | [0.08516, 0.1348] | 3 | (reference) |", out)

    def test_summary_of_run_files_aggregates_them(self):
        code, out, _ = self.run_cli("summary", os.path.join(self.ls, "runs"))
        self.assertEqual(code, 0)
        self.assertIn("| none | 0.11 | [0.08516, 0.1348] | 3 | (reference) |", out)

    def test_figure_writes_png_and_svg_and_prints_paths(self):
        figs = os.path.join(self.dir, "figs")
        code, out, _ = self.run_cli("figure", "loadsharing", "--sweep", self.ls, "--out", figs)
        self.assertEqual(code, 0)
        self.assertEqual(out.split(), [os.path.join(figs, "loadsharing_dynamic_failure.png"),
                                       os.path.join(figs, "loadsharing_dynamic_failure.svg")])
        for p in out.split():
            self.assertGreater(os.path.getsize(p), 1000)

    def test_table_csv_to_a_file(self):
        path = os.path.join(self.dir, "t", "table.csv")
        code, _, _ = self.run_cli("table", "--sweep", self.ls, "--metric", "response_time_mean",
                                  "--format", "csv", "--out", path,
                                  "--where", f"{fixtures.LS_AXIS}=0.9")
        self.assertEqual(code, 0)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 1 + 3)
        cells = lines[1].split(",")
        # The axis selected on is a column (named by its last key), though it has one value.
        self.assertEqual(lines[0].split(",")[:3], ["point", "arrival_rate_per_s", "arm"])
        self.assertEqual(cells[:3], ["2", "0.9", "none"])
        self.assertAlmostEqual(float(cells[3]), 10.1)

    def test_metrics_lists_names_and_roles(self):
        code, out, err = self.run_cli("metrics", "--sweep", self.ls)
        self.assertEqual(code, 0)
        self.assertIn("dynamic_failure_ratio    <- dynamic_failure_probability", out)
        self.assertIn("roles without data here", err)

    def test_bad_input_exits_2_with_the_file_named(self):
        code, _, err = self.run_cli("figure", "qos", "--sweep", os.path.join(self.dir, "none"),
                                    "--out", self.dir)
        self.assertEqual(code, 2)
        self.assertIn("error: ", err)
        self.assertIn("none: not a directory", err)
        code, _, err = self.run_cli("figure", "qos", "--sweep", self.ls, "--out", self.dir)
        self.assertEqual(code, 2)
        self.assertIn("detection_time_mean_s", err)

    def test_runs_options_are_refused_with_a_sweep(self):
        code, _, err = self.run_cli("table", "--sweep", self.ls, "--axis", "$.a")
        self.assertEqual(code, 2)
        self.assertIn("--axis applies to --runs only", err)

    def test_module_entry_point_has_help(self):
        proc = subprocess.run([sys.executable, "-m", "fdsim_analysis", "figure", "--help"],
                              cwd=os.path.join(REPO_ROOT, "analysis"), capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("loadsharing", "qos", "cdf", "geode-gc"):
            self.assertIn(name, proc.stdout)


if __name__ == "__main__":
    unittest.main()
