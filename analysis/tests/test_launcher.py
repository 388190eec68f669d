"""The package runs from anywhere: the launcher scripts/fdsim-analysis from any directory,
`python3 -m fdsim_analysis` from analysis/, a pip install from pyproject.toml; a Python without
numpy or matplotlib gets one line and exit 2; figures without --out never land in results/."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from . import fixtures

ANALYSIS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(ANALYSIS_DIR)
LAUNCHER = os.path.join(REPO_ROOT, "scripts", "fdsim-analysis")


def run(argv, cwd, env_extra=None):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(env_extra or {})
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


class Launcher(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.ls = os.path.join(self.dir, "ls")
        fixtures.write_ls_sweep(self.ls)

    def tearDown(self):
        self._tmp.cleanup()

    def check_summary(self, proc):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("| 0 | 0.5 | none | 0.11 | [0.08516, 0.1348] | 3 | (reference) |",
                      proc.stdout)

    def test_launcher_runs_from_an_unrelated_directory(self):
        self.check_summary(run([LAUNCHER, "summary", self.ls], cwd=self.dir))

    def test_launcher_runs_from_analysis_and_through_a_symlink(self):
        self.check_summary(run([LAUNCHER, "summary", self.ls], cwd=ANALYSIS_DIR))
        link = os.path.join(self.dir, "bin", "fdsim-analysis")
        os.makedirs(os.path.dirname(link))
        os.symlink(LAUNCHER, link)
        self.check_summary(run([link, "summary", "ls"], cwd=self.dir))

    def test_module_runs_from_analysis(self):
        self.check_summary(run([sys.executable, "-m", "fdsim_analysis", "summary", self.ls],
                               cwd=ANALYSIS_DIR))

    def test_missing_numpy_gives_one_line_and_exit_2(self):
        # python3 -S skips site-packages, where numpy and matplotlib live: "another Python".
        wrapper = os.path.join(self.dir, "python-without-site")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
        os.chmod(wrapper, 0o755)
        proc = run([LAUNCHER, "summary", self.ls], cwd=self.dir,
                   env_extra={"FDSIM_PYTHON": wrapper})
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("error: fdsim-analysis needs numpy and matplotlib"))
        self.assertIn("cannot import numpy", lines[0])

    def test_blocked_matplotlib_gives_one_line_and_exit_2(self):
        code = ("import sys, runpy; sys.modules['matplotlib'] = None; "
                "sys.argv = ['fdsim-analysis', '--help']; "
                "runpy.run_module('fdsim_analysis', run_name='__main__')")
        proc = run([sys.executable, "-c", code], cwd=self.dir,
                   env_extra={"PYTHONPATH": ANALYSIS_DIR})
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("cannot import matplotlib", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def test_package_imports_without_numpy_and_names_the_problem_on_use(self):
        code = ("import sys; sys.modules['numpy'] = None\n"
                "import fdsim_analysis\n"
                "from fdsim_analysis import stats\n"
                "assert stats.summarize([1.0, 3.0]).mean == 2.0\n"
                "try:\n"
                "    fdsim_analysis.load_run\n"
                "except ImportError as e:\n"
                "    print(e)\n")
        proc = run([sys.executable, "-c", code], cwd=self.dir,
                   env_extra={"PYTHONPATH": ANALYSIS_DIR})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("cannot import numpy", proc.stdout)

    def test_figure_without_out_goes_next_to_the_sweep(self):
        proc = run([LAUNCHER, "figure", "loadsharing", "--sweep", "ls"], cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        want = [os.path.join("ls", "figures", "loadsharing_dynamic_failure." + e)
                for e in ("png", "svg")]
        self.assertEqual(proc.stdout.split(), want)
        for p in want:
            self.assertTrue(os.path.isfile(os.path.join(self.dir, p)))
        # Given as its runs/ folder, the figure still goes next to the sweep.
        shutil.rmtree(os.path.join(self.ls, "figures"))
        proc = run([LAUNCHER, "figure", "loadsharing", "--runs", "ls/runs", "--axis",
                    fixtures.LS_AXIS], cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.split(), want)

    def test_figure_of_a_committed_result_never_goes_into_results(self):
        repo = os.path.join(self.dir, "repo")
        os.makedirs(os.path.join(repo, ".git"))
        sweep = os.path.join(repo, "results", "study", "a")
        shutil.copytree(self.ls, sweep)
        proc = run([LAUNCHER, "figure", "loadsharing", "--sweep", sweep], cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out_dir = os.path.join(repo, "out", "figures", "study", "a")
        self.assertEqual(proc.stdout.split(),
                         [os.path.join(out_dir, "loadsharing_dynamic_failure." + e)
                          for e in ("png", "svg")])
        self.assertIn("committed results/", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(sweep, "figures")))

    @unittest.skipUnless(subprocess.run([sys.executable, "-m", "pip", "--version"],
                                        capture_output=True).returncode == 0,
                         "pip is not installed (Debian: python3-pip)")
    def test_pyproject_installs_a_working_console_script(self):
        src = os.path.join(self.dir, "src")
        os.makedirs(os.path.join(src, "analysis"))
        shutil.copy(os.path.join(REPO_ROOT, "pyproject.toml"), src)
        shutil.copy(os.path.join(ANALYSIS_DIR, "README.md"), os.path.join(src, "analysis"))
        shutil.copytree(os.path.join(ANALYSIS_DIR, "fdsim_analysis"),
                        os.path.join(src, "analysis", "fdsim_analysis"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        site = os.path.join(self.dir, "site")
        proc = run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
                    "--no-deps", "--no-index", "--target", site, src], cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        script = os.path.join(site, "bin", "fdsim-analysis")
        self.check_summary(run([script, "summary", self.ls], cwd=self.dir,
                               env_extra={"PYTHONPATH": site}))


if __name__ == "__main__":
    unittest.main()
