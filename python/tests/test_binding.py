"""The Python module fdsim (python/fdsim_module.cpp) against the fdsim command it wraps.

Run with the build's python/ directory on PYTHONPATH and FDSIM_BINARY naming the fdsim binary
of the same build (ctest python.binding does both):
    PYTHONPATH=build/python FDSIM_BINARY=build/fdsim python3 -m unittest python/tests/test_binding.py
"""
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import fdsim

REPO = pathlib.Path(__file__).resolve().parents[2]
FDSIM = os.path.abspath(os.environ.get("FDSIM_BINARY", str(REPO / "build" / "fdsim")))

# A heartbeat study of a few simulated seconds: fast, two arms, one crash.
SCENARIO = {
    "name": "py", "seed": 3, "horizon_s": 20, "warmup_s": 1,
    "nodes": {"count": 4},
    "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}, "loss": 0.01},
    "faults": [{"kind": "crash", "at_s": 8, "nodes": [2]}],
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}},
                           {"name": "phi", "detector": {"kind": "phi_accrual"}}]},
}


def without_stats(result):
    r = dict(result)
    r.pop("run_stats")
    return r


class BindingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fdsim-py-")
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, doc):
        p = self.dir / name
        p.write_text(json.dumps(doc, indent=2))
        return p

    def cli(self, *args, cwd=None):
        return subprocess.run([FDSIM, *map(str, args)], cwd=cwd or self.dir,
                              capture_output=True, text=True)

    def test_version_is_the_binary_version(self):
        out = self.cli("--version").stdout
        self.assertIn(fdsim.__version__, out)
        self.assertIn(fdsim.git_revision, out)

    def test_run_is_byte_identical_to_fdsim_run(self):
        path = self.write("s.json", SCENARIO)
        done = self.cli("run", path, "--replications", 2, "--quiet", "--out", self.dir / "o")
        self.assertEqual(done.returncode, 0, done.stderr)
        results = fdsim.run(path, replications=2)
        self.assertEqual(len(results), 2)
        for rep, r in enumerate(results):
            text = (self.dir / "o" / f"py-seed3-rep{rep}.json").read_text()
            from_file = json.loads(text)
            self.assertEqual(r["manifest"]["replication"], rep)
            self.assertIn("wall_time_s", r["run_stats"])
            # The file's text is json.dumps of the dict (with the file's machine-dependent
            # run_stats): the same document, byte for byte.
            r = dict(r, run_stats=from_file["run_stats"])
            self.assertEqual(json.dumps(r, indent=2, sort_keys=True, ensure_ascii=False) + "\n", text)

    def test_memory_is_counted_as_fdsim_run_counts_it(self):
        # The module links its own counting allocator (python/counting_new.cpp), so memory
        # budgets hold in Python: each simulation's peak heap is measured (it was -1, not
        # counted) and is the command's figure up to the few strings the two callers hold
        # differently (measured: within 0.6 % on the load-sharing example).
        path = REPO / "scenarios" / "examples" / "load-sharing.json"
        done = self.cli("run", path, "--quiet", "--out", self.dir / "o")
        self.assertEqual(done.returncode, 0, done.stderr)
        (file,) = (self.dir / "o").glob("*-rep0.json")
        cli_sims = json.loads(file.read_text())["run_stats"]["simulations"]
        py_sims = fdsim.run(path)[0]["run_stats"]["simulations"]
        self.assertEqual(len(py_sims), len(cli_sims))
        for py, cli in zip(py_sims, cli_sims):
            self.assertEqual(py["work_count"], cli["work_count"])
            self.assertGreater(py["peak_heap_bytes"], 100000)
            self.assertLess(abs(py["peak_heap_bytes"] / cli["peak_heap_bytes"] - 1), 0.02,
                            (py["peak_heap_bytes"], cli["peak_heap_bytes"]))

    def test_dict_json_string_and_path_give_the_same_result(self):
        path = self.write("s.json", SCENARIO)
        a = without_stats(fdsim.run(SCENARIO)[0])
        b = without_stats(fdsim.run(json.dumps(SCENARIO))[0])
        c = without_stats(fdsim.run(path)[0])
        d = without_stats(fdsim.run(str(path))[0])
        self.assertEqual(a, b)
        self.assertEqual(a, c)
        self.assertEqual(a, d)
        self.assertEqual(SCENARIO["horizon_s"], 20, "the caller's dict must not change")

    def test_seed_and_set_are_the_cli_overrides(self):
        path = self.write("s.json", SCENARIO)
        done = self.cli("run", path, "--seed", 11, "--set", "$.horizon_s=12",
                        "--set", '$.detectors.arms[0].detector.timeout_ms=900', "--stdout")
        self.assertEqual(done.returncode, 0, done.stderr)
        cli_result = json.loads(done.stdout.splitlines()[0])
        r = fdsim.run(SCENARIO, seed=11,
                      set={"$.horizon_s": 12, "$.detectors.arms[0].detector.timeout_ms": 900})[0]
        self.assertEqual(without_stats(r), without_stats(cli_result))
        self.assertEqual(r["manifest"]["seed"], 11)
        self.assertEqual(r["manifest"]["resolved_config"]["horizon_s"], 12)

    def test_validate_returns_the_resolved_config_of_the_manifest(self):
        resolved = fdsim.validate(SCENARIO)
        self.assertEqual(resolved, fdsim.run(SCENARIO)[0]["manifest"]["resolved_config"])
        self.assertIn("replications", resolved)  # defaults written in
        # fdsim explain prints the same configuration (its layout only writes node sets
        # compactly): it validates to the same thing.
        path = self.write("s.json", SCENARIO)
        explained = json.loads(self.cli("explain", path).stdout)
        self.assertEqual(fdsim.validate(explained), resolved)

    def test_input_error_carries_every_problem_with_its_json_path(self):
        bad = copy.deepcopy(SCENARIO)
        bad["horizon_s"] = -1
        bad["nodes"]["cuont"] = 3
        with self.assertRaises(fdsim.InputError) as ctx:
            fdsim.validate(bad)
        e = ctx.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual(len(e.problems), 2, e.problems)
        self.assertEqual(str(e), "\n".join(e.problems))
        paths = sorted(p.split(": ")[1] for p in e.problems)
        self.assertEqual(paths, ["$.horizon_s", "$.nodes.cuont"])
        for p in e.problems:
            self.assertTrue(p.startswith("<dict>: $."), p)
        # The same lines as fdsim validate (up to the source name).
        path = self.write("bad.json", bad)
        cli = self.cli("validate", path).stderr.splitlines()
        self.assertEqual(sorted(l.replace(str(path), "<dict>") for l in cli), sorted(e.problems))
        # run() refuses the same way, before simulating.
        with self.assertRaises(fdsim.InputError):
            fdsim.run(bad)

    def test_bad_arguments(self):
        with self.assertRaises(fdsim.InputError) as ctx:
            fdsim.run(str(self.dir / "missing.json"))
        self.assertIn("missing.json", str(ctx.exception))
        with self.assertRaises(fdsim.InputError) as ctx:
            fdsim.run('{"name": ')
        self.assertTrue(ctx.exception.problems[0].startswith("<json>: line 1"), ctx.exception.problems)
        with self.assertRaises(TypeError):
            fdsim.run(42)
        with self.assertRaises(fdsim.InputError) as ctx:
            fdsim.run(SCENARIO, set={"$.nope.deeper": 1})
        self.assertIn("set[$.nope.deeper]", str(ctx.exception))
        with self.assertRaises(ValueError):
            fdsim.run(SCENARIO, replications=0)

    def test_the_gil_is_released_while_simulating(self):
        # With a switch interval of 100 s no thread is preempted: the main thread can only run
        # while the worker is inside fdsim.run if the module released the GIL. The run takes
        # far longer (about a second) than the main thread's 20 ms sleep.
        long = dict(SCENARIO, horizon_s=20000)
        old = sys.getswitchinterval()
        sys.setswitchinterval(100)
        try:
            started = threading.Event()

            def work():
                started.set()
                fdsim.run(long)

            t = threading.Thread(target=work)
            t.start()
            started.wait()
            time.sleep(0.02)
            overlapped = t.is_alive()
            t.join()
        finally:
            sys.setswitchinterval(old)
        self.assertTrue(overlapped, "fdsim.run held the GIL for the whole simulation")

    def sweep_doc(self, base_path):
        return {"name": "pysweep", "base": str(base_path), "replications": 2,
                "axes": [{"path": "$.detectors.arms[0].detector.timeout_ms", "values": [800, 1600]}]}

    def test_sweep_writes_what_fdsim_sweep_writes(self):
        base = self.write("base.json", SCENARIO)
        sweep_path = self.write("sweep.json", self.sweep_doc(base))
        done = self.cli("sweep", sweep_path, "--out", self.dir / "cli", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        res = fdsim.sweep(self.sweep_doc(base), out=self.dir / "py", jobs=2)
        self.assertEqual(res["out"], str(self.dir / "py"))
        self.assertIn("2 points, 4 runs", res["summary"])
        for name in ("aggregate.csv", "aggregate.jsonl"):
            self.assertEqual((self.dir / "py" / name).read_bytes(),
                             (self.dir / "cli" / name).read_bytes(), name)
        # From a path too; then everything is reused (resume).
        again = fdsim.sweep(sweep_path, out=self.dir / "py")
        self.assertIn("4 reused, 0 executed", again["summary"])

    def test_sweep_problems_are_input_errors(self):
        base = self.write("base.json", SCENARIO)
        doc = self.sweep_doc(base)
        doc["axes"][0]["path"] = "$.detectors.arms[5].detector.timeout_ms"
        with self.assertRaises(fdsim.InputError) as ctx:
            fdsim.sweep(doc, out=self.dir / "bad")
        self.assertEqual(ctx.exception.problems, [
            "<sweep>: $.axes[0].path: $.detectors.arms[5] does not exist in the base scenario "
            "($.detectors.arms has 2 elements)"])
        self.assertFalse((self.dir / "bad").exists(), "nothing is written on bad input")
        with self.assertRaises(fdsim.InputError):
            fdsim.validate(doc)
        self.assertIsNone(fdsim.validate(self.sweep_doc(base)))
        with self.assertRaises(fdsim.InputError):
            fdsim.sweep(SCENARIO, out=self.dir / "x")


if __name__ == "__main__":
    unittest.main()
