"""Runs the calibrated regime map (design format and procedure: calibrated_map.py).

Contract of run_map(design, fdsim, work, jobs, log, keys=None, fixed_n=None):
- For each regime (all, or `keys`), in the design's order: the discovery sweep
  (calibrated axes, seed regime_seed(key)) in WORK/<key>/discovery, first with
  min_blocks x block replications; after each sweep the precision rule
  (inference.replications_needed at the Sidak confidence of the whole design's regimes, the
  regime's margin) says whether to stop or to add a block; the same sweep is then rerun with
  more replications into the same folder (fdsim sweep reuses the finished runs and re-solves the
  calibration from the stored pilots, so nothing is run twice). A regime without a margin (no
  value of detection) stops at the first step. With `fixed_n`, every regime runs exactly
  fixed_n discovery replications and no held-out block (the reduced check).
- Then each regime whose discovery verdict needs confirmation (needs_confirmation: the
  interval at the Sidak confidence of the whole design) runs its held-out sweep (seed holdout_seed(key), the discovery's
  solved leaves, as many replications as its discovery) in WORK/<key>/held-out.
- A discovery sweep that fdsim refuses because the calibration of an arm with if_unreachable
  cannot reach the budget (the target is not bracketed, or the cost is not monotone over the
  bracket) is started afresh with that arm at its if_unreachable value; the arm and fdsim's
  refusal line are kept in WORK/<key>/excluded.json (read back by collect) and the arm is left
  out of the regime's baseline pool.
- A regime whose discovery sweep fails otherwise (fdsim exit 2: a calibration refused, say) is
  left out and its failure recorded; the others go on (the reduced check, fixed_n, fails at once).
- Returns (rows, calibration, cpu, failures, excluded): the rows of
  calibrated_map.rows_of_runs for every block run,
  the calibration of each regime ({key: {"record": the discovery sweep.json's "calibration",
  "leaves": {path: value} of the solved and linked leaves}}), and
  per regime and block the measured CPU ({"runs", "run_cpu_s", "pilots", "pilot_cpu_s"}: the
  runs' own run_stats.cpu_time_s, pilots included), {key: the failure's last line}, and
  {key: {arm: refusal line}} of the arms left out.
- Deterministic: the rows depend only on the design, the checkout and the fdsim binary's
  results (run ids are content hashes; -j changes nothing).
"""

import glob
import json
import os
import shutil
import subprocess

from . import calibrated_map as cm
from .errors import AnalysisInputError
from .inference import classify, interval, replications_needed, simultaneous_confidence
from .loading import load_sweep
from .regime_verdicts import NEEDS_CONFIRMATION


class SweepRefused(AnalysisInputError):
    """fdsim refused a sweep (exit 2); `line` is its last line of output, whole."""

    def __init__(self, message, line):
        super().__init__(message)
        self.line = line


UNREACHABLE = ("the target is not bracketed", "narrow the bracket to a monotone part")


def unreachable_arm(design, line, excluded):
    """The calibrated arm with if_unreachable that fdsim's refusal `line` names (its calibrated
    path, as the calibration's messages print it) as unable to reach the target, or None."""
    if not any(u in line for u in UNREACHABLE):
        return None
    for a in design["calibrated"]:
        if "if_unreachable" in a and a["arm"] not in excluded and f"{a['path']} = " in line:
            return a["arm"]
    return None


def _sweep(fdsim, doc, out_dir, jobs, log):
    os.makedirs(out_dir, exist_ok=True)
    path = out_dir + ".json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    cmd = [fdsim, "sweep", path, "--out", out_dir, "-j", str(jobs), "--quiet"]
    log.flush()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write(proc.stdout)
    if proc.returncode != 0:
        last = (proc.stdout.strip().splitlines() or [""])[-1]
        where = ": ".join(last.split(": ")[:2])   # the sweep file and the JSON path
        reason = last.rsplit("): ", 1)[-1]
        raise SweepRefused(f"fdsim sweep {os.path.basename(path)}: exit {proc.returncode}: "
                           f"{where}: {reason}", last)
    sweep = load_sweep(out_dir)
    runs = sweep.runs(0)
    if len(runs) != doc["replications"]:
        raise AnalysisInputError(f"{out_dir}: {len(runs)} runs, expected {doc['replications']}")
    return sweep, runs


def _cpu(out_dir, runs, design=None):
    """Measured CPU of a block's runs and of the calibration pilots its solve used (a pilot
    file whose first calibrated value is not among the record's evaluations, left by an
    earlier solve with other brackets, is not counted)."""
    def load(path):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, json.JSONDecodeError):
            return None

    def cpu_of(d):
        return float((d or {}).get("run_stats", {}).get("cpu_time_s", 0.0) or 0.0)
    run_cpu = sum(cpu_of(load(r.path)) for r in runs)
    used = None
    plan = load(os.path.join(out_dir, "sweep.json")) or {}
    cal = plan.get("calibration")
    if cal and design is not None:
        ax = cal["points"][0]["axes"][0]
        i, leaf = cm._arm_index(ax["path"])
        used = (i, leaf, {round(float(e["value"]), 6) for e in ax["evaluations"]})
    pilots, pilot_cpu = 0, 0.0
    for p in sorted(glob.glob(os.path.join(out_dir, "calibration", "*.json"))):
        d = load(p)
        if not isinstance(d, dict):
            continue
        if used is not None:
            arms = d["manifest"]["resolved_config"]["load_sharing"]["arms"]
            if round(float(arms[used[0]][used[1]]), 6) not in used[2]:
                continue
        pilots += 1
        pilot_cpu += cpu_of(d)
    return {"runs": len(runs), "run_cpu_s": run_cpu, "pilots": pilots, "pilot_cpu_s": pilot_cpu}


def _excluded_path(work, key):
    return os.path.join(work, key, "excluded.json")


def read_excluded(work, key):
    try:
        with open(_excluded_path(work, key), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def _discovery_sweep(design, key, fdsim, out, jobs, log, n, excluded, work):
    """The discovery sweep with n replications; an arm that cannot reach the budget is added
    to `excluded` (and its file) and the sweep started afresh without its calibration."""
    while True:
        try:
            return _sweep(fdsim, cm.regime_sweep(design, key, "discovery", n, excluded=excluded),
                          out, jobs, log)
        except SweepRefused as e:
            arm = unreachable_arm(design, e.line, excluded)
            if arm is None:
                raise
            reason = e.line.split(": ", 1)[-1]   # without the sweep file's path
            excluded[arm] = reason
            print(f"calibrated map: {key}: {arm} left out: {reason}", file=log)
            with open(_excluded_path(work, key), "w", encoding="utf-8") as f:
                json.dump(excluded, f, indent=1, sort_keys=True)
            shutil.rmtree(out, ignore_errors=True)


def _discovery(design, key, fdsim, work, jobs, log, conf, fixed_n):
    rep = design["replication"]
    n = fixed_n or rep["block"] * rep["min_blocks"]
    out = os.path.join(work, key, "discovery")
    excluded = read_excluded(work, key)
    while True:
        _, runs = _discovery_sweep(design, key, fdsim, out, jobs, log, n, excluded, work)
        rows = cm.rows_of_runs(design, key, "discovery", runs)
        if fixed_n:
            break
        res = cm.summarise_regime(design, key, rows, excluded)
        if res.margin is None:
            break
        need = replications_needed(res.diffs, res.margin, conf, rep["block"], rep["cap"],
                                   rep["min_blocks"])
        print(f"calibrated map: {key}: {n} replications, need {need}", file=log)
        if need == n:
            break
        n = need
    with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
        cal = json.load(f).get("calibration")
    solved = cm.solved_leaves(design, runs[0].resolved_config)
    return rows, cal, solved, _cpu(out, runs, design), excluded


def needs_confirmation(design, res):
    """Whether a regime's discovery verdict (interval at the Sidak confidence of all the
    design's regimes) is one that the held-out block must confirm. Per regime: it does not
    depend on which other regimes have run."""
    if res.margin is None:
        return False
    conf = simultaneous_confidence(design["replication"]["level"], len(design["regimes"]))
    iv = interval(res.diffs, conf)
    return iv is not None and classify(iv[1], iv[2], res.margin) in NEEDS_CONFIRMATION


def run_map(design, fdsim, work, jobs, log, keys=None, fixed_n=None):
    keys = keys or [g["key"] for g in design["regimes"]]
    conf = simultaneous_confidence(design["replication"]["level"], len(design["regimes"]))
    rows, calibration, cpu, solved, n_of = [], {}, {}, {}, {}
    failures, excluded = {}, {}
    for key in keys:
        try:
            r, cal, sol, c, ex = _discovery(design, key, fdsim, work, jobs, log, conf, fixed_n)
        except AnalysisInputError as e:
            if fixed_n:
                raise
            failures[key] = str(e)
            print(f"calibrated map: {key}: FAILED: {e}", file=log)
            continue
        rows += r
        if ex:
            excluded[key] = ex
        calibration[key], solved[key] = {"record": cal, "leaves": sol}, sol
        cpu[(key, "discovery")] = c
        n_of[key] = len({x["replication"] for x in r})
    if fixed_n:
        return rows, calibration, cpu, failures, excluded
    for key in keys:
        if key in failures or not needs_confirmation(design, cm.summarise_regime(
                design, key, rows, excluded.get(key))):
            continue
        out = os.path.join(work, key, "held-out")
        doc = cm.regime_sweep(design, key, "held-out", n_of[key], solved[key])
        _, runs = _sweep(fdsim, doc, out, jobs, log)
        rows += cm.rows_of_runs(design, key, "held-out", runs)
        cpu[(key, "held-out")] = _cpu(out, runs, design)
    return canonical(design, rows), calibration, cpu, failures, excluded


def canonical(design, rows):
    """Rows in the order the files keep them: block, regime (design order), replication, arm."""
    order = {g["key"]: i for i, g in enumerate(design["regimes"])}
    return sorted(rows, key=lambda r: (cm.BLOCKS.index(r["block"]), order[r["regime"]],
                                       r["replication"], r["arm"]))


def collect(design, work):
    """(rows, calibration, cpu, excluded) of every regime whose discovery sweep is complete in
    WORK, with
    the held-out block of each regime that needs_confirmation says needs one (which must then
    be complete): what run_map returns for the same runs, whichever invocations made them."""
    rows, calibration, cpu, excluded = [], {}, {}, {}
    for g in design["regimes"]:
        key = g["key"]
        out = os.path.join(work, key, "discovery")
        if not os.path.exists(os.path.join(out, "sweep.json")):
            continue
        runs = load_sweep(out).runs(0)
        with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
            plan = json.load(f)
        want = plan.get("sweep", {}).get("replications")
        if not runs or (want is not None and len(runs) != want):
            continue
        disc = cm.rows_of_runs(design, key, "discovery", runs)
        calibration[key] = {"record": plan.get("calibration"),
                            "leaves": cm.solved_leaves(design, runs[0].resolved_config)}
        cpu[(key, "discovery")] = _cpu(out, runs, design)
        rows += disc
        ex = read_excluded(work, key)
        if ex:
            excluded[key] = ex
        if needs_confirmation(design, cm.summarise_regime(design, key, disc, ex)):
            hout = os.path.join(work, key, "held-out")
            if not os.path.exists(os.path.join(hout, "sweep.json")):
                raise AnalysisInputError(f"{hout}: the held-out block of {key} has not run")
            hruns = load_sweep(hout).runs(0)
            rows += cm.rows_of_runs(design, key, "held-out", hruns)
            cpu[(key, "held-out")] = _cpu(hout, hruns, design)
    return canonical(design, rows), calibration, cpu, excluded
