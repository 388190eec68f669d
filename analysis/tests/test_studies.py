"""The studies layer: declarations, the runner's reduced-sweep and comparison rules, the shared
table helpers, the flagship's terminal summary, and the repository rules the layer exists for
(results/ holds outputs only; scripts/ has no program in a heredoc; every study is declared)."""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from fdsim_analysis.errors import AnalysisInputError
from fdsim_analysis.studies import declaration, flagship_summary, runner
from fdsim_analysis.studies.layout import REPO_ROOT
from fdsim_analysis.studies.steps import STEPS
from fdsim_analysis.studies.tables_common import diff_cell, fill, g, pm


def _tracked(prefix):
    proc = subprocess.run(["git", "-C", REPO_ROOT, "ls-files", "-z", prefix],
                          capture_output=True)
    if proc.returncode != 0:
        return None
    return [p for p in proc.stdout.decode().split("\0") if p]


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)^\s*\1\s*$", re.S | re.M)
_PROGRAM_LINE = re.compile(r"^\s*(import \w|from [\w.]+ import |def \w+\(|class \w+)", re.M)
_INLINE_PROGRAM = re.compile(r"\s-c\s+['\"]\s*(import|from)\s")


def embedded_programs(shell_text):
    """The Python programs a shell script embeds: heredocs whose body has Python statements,
    and `-c 'import ...'` one-liners."""
    found = [m.group(1) for m in _HEREDOC.finditer(shell_text)
             if _PROGRAM_LINE.search(m.group(2))]
    found += [m.group(0).strip() for m in _INLINE_PROGRAM.finditer(shell_text)]
    return found


class EmbeddedPrograms(unittest.TestCase):
    def test_the_old_heredoc_and_one_liner_forms_are_found(self):
        old = 'post() { "$py" - "$@" <<\'PY\'\nimport csv, json\ndef num(s):\n    pass\nPY\n}\n'
        self.assertEqual(embedded_programs(old), ["PY"])
        self.assertEqual(len(embedded_programs("x=$(\"$py\" -c 'import csv,sys\nprint(1)')")), 1)
        self.assertEqual(embedded_programs("cat <<EOF\nusage: x\nEOF\n"), [])


class Declarations(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, doc, name="s"):
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def minimal(self, **extra):
        doc = {"study": "s", "description": "d", "out": "results/s",
               "steps": [{"step": "analysis", "argv": ["x"], "writes": ["a.md"]}]}
        doc.update(extra)
        return doc

    def test_minimal_declaration_gets_its_defaults(self):
        d = declaration.load(self.write(self.minimal()), set(STEPS))
        self.assertEqual(d["sweeps"], [])
        self.assertTrue(d["exclusive"])
        self.assertEqual(declaration.outputs(d), {"a.md": "step 0 (analysis)"})

    def test_unknown_key_is_named_with_its_json_path(self):
        doc = self.minimal(sweeps=[{"id": "a", "file": "f.json", "copy": {},
                                    "refrence_arm": "oracle"}])
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.sweeps\[0\]\.refrence_arm: "
                                                        r"unknown key"):
            declaration.load(self.write(doc), set(STEPS))

    def test_unknown_step_and_wrong_name_and_missing_reason_are_refused(self):
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.steps\[0\]\.step: unknown step"):
            declaration.load(self.write(self.minimal(steps=[{"step": "nope"}])), set(STEPS))
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.study: .* is not the file's name"):
            declaration.load(self.write(self.minimal(), name="other"), set(STEPS))
        with self.assertRaisesRegex(AnalysisInputError, r"\$\.inputs_why: missing"):
            declaration.load(self.write(self.minimal(inputs=["x.csv"])), set(STEPS))
        doc = self.minimal(sweeps=[{"id": "a", "file": "f.json", "copy": {},
                                    "check": {"run": "none"}}])
        with self.assertRaisesRegex(AnalysisInputError, r"check\.why: missing"):
            declaration.load(self.write(doc), set(STEPS))

    def test_every_shipped_declaration_loads_and_names_existing_inputs(self):
        names = runner.study_names()
        self.assertIn("flagship", names)
        for name in names:
            d = runner.load_study(name)
            self.assertTrue(os.path.isdir(os.path.join(REPO_ROOT, d["out"])), name)
            for sw in d["sweeps"]:
                self.assertTrue(os.path.isfile(os.path.join(REPO_ROOT, sw["file"])), sw["file"])
            for f in d["documents"] + d["inputs"]:
                self.assertTrue(os.path.isfile(os.path.join(REPO_ROOT, d["out"], f)), f)


class ReducedSweep(unittest.TestCase):
    PLAN = {"axes": ["$.a", "$.b"],
            "points": [{"index": 0, "params": {"$.a": 1, "$.b": "x"}},
                       {"index": 1, "params": {"$.a": 2, "$.b": "y"}},
                       {"index": 2, "params": {"$.a": 3, "$.b": "z"}}]}

    def test_points_become_one_zip_axis_with_an_absolute_base(self):
        doc = runner.reduced_sweep("scenarios/sweeps/flagship.json", self.PLAN, [2, 0])
        self.assertEqual(doc["axes"], [{"zip": [{"path": "$.a", "values": [3, 1]},
                                                {"path": "$.b", "values": ["z", "x"]}]}])
        self.assertTrue(os.path.isabs(doc["base"]))
        self.assertTrue(os.path.isfile(doc["base"]))
        with open(os.path.join(REPO_ROOT, "scenarios/sweeps/flagship.json")) as f:
            self.assertEqual(doc["replications"], json.load(f)["replications"])

    def test_a_point_outside_the_plan_is_refused(self):
        with self.assertRaisesRegex(AnalysisInputError, "check point 7"):
            runner.reduced_sweep("scenarios/sweeps/flagship.json", self.PLAN, [7])

    def write_csv(self, name, rows):
        path = os.path.join(self.tmp, name)
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        return path

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_rows_of_the_rerun_points_are_matched_by_their_index_in_the_plan(self):
        head = ["point", "arm", "metric", "mean"]
        full = self.write_csv("full.csv", [head, ["0", "a", "m", "1.5"], ["1", "a", "m", "2.5"],
                                           ["2", "a", "m", "3.5"]])
        same = self.write_csv("same.csv", [head, ["0", "a", "m", "3.5"], ["1", "a", "m", "1.5"]])
        self.assertEqual(runner.compare_points(same, full, [2, 0]), [])
        other = self.write_csv("other.csv", [head, ["0", "a", "m", "3.5"],
                                             ["1", "a", "m", "1.50001"]])
        found = runner.compare_points(other, full, [2, 0])
        self.assertEqual(len(found), 1)
        self.assertIn("differ (2 rows", found[0])
        wrong_head = self.write_csv("head.csv", [["point", "arm", "metric", "sd"]])
        self.assertIn("header differs", runner.compare_points(wrong_head, full, [0])[0])


class CheckMode(unittest.TestCase):
    """run_study --check on a study with no sweep (so no fdsim binary is needed): a README whose
    generated block is filled from a committed table."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.saved = runner.REPO_ROOT, runner.DECLARED
        runner.REPO_ROOT = self.root
        runner.DECLARED = os.path.join(self.root, "studies")
        os.makedirs(runner.DECLARED)
        self.out = os.path.join(self.root, "results", "s")
        os.makedirs(self.out)
        with open(os.path.join(runner.DECLARED, "s.json"), "w") as f:
            json.dump({"study": "s", "description": "d", "out": "results/s",
                       "steps": [{"step": "readme-block", "readme": "README.md",
                                  "block": "t", "source": "table.md"}],
                       "documents": ["README.md"], "inputs": ["table.md"],
                       "inputs_why": "a fixture"}, f)
        self.put("table.md", "| a |\n|---|\n| 1 |\n")
        self.put("README.md", "x\n<!-- BEGIN t -->\n| a |\n|---|\n| 1 |\n<!-- END t -->\n")

    def tearDown(self):
        runner.REPO_ROOT, runner.DECLARED = self.saved
        shutil.rmtree(self.root)

    def put(self, name, text):
        with open(os.path.join(self.out, name), "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def check(self):
        err = io.StringIO()
        status, _, notes = runner.run_study("s", "/nonexistent/fdsim", 1,
                                            os.path.join(self.root, "work"), "python3",
                                            check=True, small=True, err=err)
        return status, err.getvalue(), notes

    def test_identical_committed_files_pass_and_leave_the_checkout_alone(self):
        before = self.read("README.md")
        status, err, notes = self.check()
        self.assertEqual((status, err), (0, ""))
        self.assertIn("1 files identical to the committed ones", notes)
        self.assertEqual(self.read("README.md"), before)

    def test_a_stale_generated_block_is_reported(self):
        self.put("table.md", "| a |\n|---|\n| 2 |\n")
        status, err, _ = self.check()
        self.assertEqual(status, 1)
        self.assertIn("results/s/README.md: regenerated file DIFFERS", err)
        # The committed README keeps its stale block: --check never writes into results/.
        self.assertIn("| 1 |", self.read("README.md"))

    def test_a_committed_file_no_step_makes_is_reported(self):
        self.put("orphan.csv", "x\n")
        status, err, _ = self.check()
        self.assertEqual(status, 1)
        self.assertIn("results/s/orphan.csv: committed, but no step of the study makes it", err)


class TableHelpers(unittest.TestCase):
    def test_number_formats_of_the_committed_tables(self):
        self.assertEqual(g(0.012345), "0.0123")
        self.assertEqual(g(1234.5), "1234")  # 3 significant digits, but never fewer than units
        self.assertEqual(g(123456.0), "1.23e+05")
        self.assertEqual(g(0), "0")
        self.assertEqual(pm(0.5, 0.0123), "0.500 ± 0.012")
        self.assertEqual(diff_cell({"diff_mean": -0.26, "diff_ci95_half_width": 0.068}),
                         "-0.26 ± 0.068*")
        self.assertEqual(diff_cell({"diff_mean": 0.01, "diff_ci95_half_width": 0.05}),
                         "+0.010 ± 0.050")

    def test_fill_replaces_only_the_block_and_names_missing_markers(self):
        with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False) as f:
            f.write("a\n<!-- BEGIN t -->\nold\n<!-- END t -->\nb\n")
        try:
            fill(f.name, "t", "new\n")
            with open(f.name) as r:
                self.assertEqual(r.read(), "a\n<!-- BEGIN t -->\nnew\n<!-- END t -->\nb\n")
            with self.assertRaisesRegex(AnalysisInputError, "BEGIN u"):
                fill(f.name, "u", "x")
        finally:
            os.unlink(f.name)


class FlagshipSummary(unittest.TestCase):
    def test_committed_summary_fits_100_columns_and_states_the_verdicts(self):
        res = os.path.join(REPO_ROOT, "results", "flagship")
        text = flagship_summary.summary(res)
        self.assertLessEqual(max(len(line) for line in text.splitlines()), 100)
        self.assertLessEqual(len(text.splitlines()), 45)
        # One line per point of the flagship, each with a verdict.
        with open(os.path.join(res, "comparisons.csv"), newline="") as f:
            points = {r["point"] for r in csv.DictReader(f)}
        verdicts = re.findall(r"^repair .*(adaptive better|fixed better|no difference shown)$",
                              text, re.M)
        self.assertEqual(len(verdicts), len(points))
        self.assertIn("state broadcast", text)

    def test_verdict_follows_the_holm_adjusted_p_and_the_sign(self):
        self.assertEqual(flagship_summary._winner(0.05, 0.01), "adaptive better")
        self.assertEqual(flagship_summary._winner(-0.05, 0.01), "fixed better")
        # An unadjusted interval that excludes 0 is not enough: p_Holm 0.14 is no verdict.
        self.assertEqual(flagship_summary._winner(0.05, 0.14), "no difference shown")
        self.assertEqual(flagship_summary._winner(None, 0.01), "n/a")


class RepositoryLayout(unittest.TestCase):
    def test_results_hold_no_programs(self):
        files = _tracked("results")
        if files is None:
            self.skipTest("not a git checkout")
        programs = [f for f in files if re.search(r"\.(py|go|cpp|h|sh|java)$", f)]
        self.assertEqual(programs, [], "study code belongs in analysis/fdsim_analysis/studies/")

    def test_scripts_embed_no_program_in_a_heredoc(self):
        files = _tracked("scripts")
        if files is None:
            self.skipTest("not a git checkout")
        for f in files + ["quickstart.sh"]:
            if f.endswith(".py"):
                continue
            with open(os.path.join(REPO_ROOT, f), encoding="utf-8", errors="replace") as fh:
                self.assertEqual(embedded_programs(fh.read()), [], f)

    def test_every_results_folder_with_outputs_belongs_to_a_declared_study(self):
        files = _tracked("results")
        if files is None:
            self.skipTest("not a git checkout")
        outs = [runner.load_study(n)["out"] for n in runner.study_names()]
        # results/README.md is the index.
        unowned = [f for f in files if f != "results/README.md"
                   and not any(f.startswith(o + "/") for o in outs)]
        self.assertEqual(unowned, [])


if __name__ == "__main__":
    unittest.main()
