"""The analysis steps a study declaration can name ("step": NAME, the other keys are options).

Contract: STEPS maps a step name to a function f(ctx, **options). A step reads its inputs (sweep
folders, run files, committed files of ctx.out) and writes only under ctx.out; it returns None,
or a short note when under --small it checked a reduced part itself (then the runner does not
byte-compare the files it declares). Options are the declaration's, with the placeholders of
declaration.py already substituted; an unknown or missing option is an AnalysisInputError.
"""

import contextlib
import csv
import io
import os
import subprocess
import tempfile

from ..errors import AnalysisInputError
from . import detector_tables, geode_connections, geode_source_rules, geode_tables
from . import flagship_summary, geode_source_rules_extract, paper_tables, swim_lifeguard_paper
from . import swim_tradeoff
from .layout import REPO_ROOT
from .tables_common import fill


class CheckMismatch(Exception):
    """A reduced check found a regenerated value that differs from the committed one."""


def _in_out(ctx, rel):
    return os.path.join(ctx.out, rel)


def analysis(ctx, argv):
    """One fdsim-analysis command (cli.py), run in this process; its output goes to the log."""
    from ..cli import run
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        status = run([str(a) for a in argv])
    ctx.log.write(buf.getvalue())
    if status != 0:
        raise AnalysisInputError(f"fdsim-analysis {' '.join(argv)}: exit {status}")


def readme_block(ctx, readme, block, source):
    """The generated block `block` of the document `readme` gets the text of `source`."""
    with open(_in_out(ctx, source), encoding="utf-8") as f:
        fill(_in_out(ctx, readme), block, f.read())


def paper_step(ctx, results, readme, prefix, name):
    """name: the study's name in the tables' titles."""
    paper_tables.paper(_in_out(ctx, results), _in_out(ctx, readme), prefix, name)


def paper_figures(ctx, results):
    """P(dynamic failure) against load with the paired-difference panel, every arm; and, when
    the sweep has a fixed_2s arm, the same without it (its large difference flattens the
    others) as dynamic_failure_zoom."""
    res = _in_out(ctx, results)
    common = ["figure", "loadsharing", "--sweep", res, "--diff", "--size", "double", "--out", res,
              "--format", "png,svg", "--x-label", "Load: per-node arrival rate"]
    analysis(ctx, common + ["--name", "dynamic_failure"])
    with open(os.path.join(res, "aggregate.csv"), newline="") as f:
        arms = []
        for r in csv.DictReader(f):
            if r["arm"] not in arms:
                arms.append(r["arm"])
    if "fixed_2s" not in arms:
        return
    only = [x for a in arms if a != "fixed_2s" for x in ("--arm", a)]
    analysis(ctx, common + only + ["--name", "dynamic_failure_zoom"])


def detectors(ctx, results):
    detector_tables.detectors(_in_out(ctx, results))


def geode_gc(ctx, results):
    geode_tables.geode_gc(_in_out(ctx, results))


def geode_removal(ctx, results, runs):
    geode_tables.geode_removal(_in_out(ctx, results), os.path.join(runs, "runs"))


def geode_connections_step(ctx, connections, reconnect):
    geode_connections.regenerate(connections, reconnect, ctx.out)


def geode_source_rules_extract_step(ctx, runs, case, table):
    geode_source_rules_extract.extract(runs, case, _in_out(ctx, table))


def geode_source_rules_figure(ctx):
    geode_source_rules.figure(ctx.out)


def _csv_rows(path, key_columns):
    with open(path, newline="") as f:
        return {tuple(r[k] for k in key_columns): r for r in csv.DictReader(f)}


def swim(ctx, reps, small=None):
    """The SWIM / Lifeguard / Geode trade-off. Under --small only the rows of small["protocols"]
    and small["knobs"] are rerun, and their rows of table.csv are compared with the committed
    ones (table.md and the figure need every row)."""
    if not ctx.small:
        swim_tradeoff.regenerate(ctx.fdsim, os.path.join(ctx.work, "swim"), ctx.out, reps=reps)
        return None
    if not small:
        raise AnalysisInputError("step swim: --small needs the option small "
                                 "{\"protocols\": [...], \"knobs\": [...]}")
    tmp = tempfile.mkdtemp(prefix="swim-small-", dir=ctx.work)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        swim_tradeoff.regenerate(ctx.fdsim, os.path.join(ctx.work, "swim"), tmp, reps=reps,
                                 protocols=small.get("protocols"), knobs=small.get("knobs"))
    ctx.log.write(buf.getvalue())
    return _rerun_rows_match(ctx, tmp, ("protocol", "knob", "value"))


def _rerun_rows_match(ctx, tmp, key):
    """A reduced check's verdict: every row of the rerun's table.csv (in tmp) equals the
    committed row with the same key; raises CheckMismatch naming the first that differs."""
    new = _csv_rows(os.path.join(tmp, "table.csv"), key)
    old = _csv_rows(_in_out(ctx, "table.csv"), key)
    for k, row in new.items():
        if old.get(k) != row:
            raise CheckMismatch(f"table.csv: the rerun row {k} differs from the committed one:\n"
                                f"  rerun:     {row}\n  committed: {old.get(k)}")
    return f"table.csv: {len(new)} of {len(old)} rows rerun and identical"


def lifeguard_paper(ctx, reps, small=None):
    """The Lifeguard paper's experiment (swim_lifeguard_paper.py). Under --small only the cells
    of small["cells"] ([regime, K, alpha] each) are rerun, and their rows of table.csv are
    compared with the committed ones (the other files need every cell)."""
    buf = io.StringIO()
    if not ctx.small:
        with contextlib.redirect_stdout(buf):
            swim_lifeguard_paper.regenerate(ctx.fdsim, os.path.join(ctx.work, "lifeguard-paper"),
                                            ctx.out, reps=reps)
        ctx.log.write(buf.getvalue())
        return None
    if not small or not small.get("cells"):
        raise AnalysisInputError("step swim-lifeguard-paper: --small needs the option small "
                                 "{\"cells\": [[regime, K, alpha], ...]}")
    tmp = tempfile.mkdtemp(prefix="lifeguard-paper-small-", dir=ctx.work)
    with contextlib.redirect_stdout(buf):
        swim_lifeguard_paper.regenerate(ctx.fdsim, os.path.join(ctx.work, "lifeguard-paper"), tmp,
                                        reps=reps, cells=small["cells"])
    ctx.log.write(buf.getvalue())
    return _rerun_rows_match(ctx, tmp, ("regime", "K", "alpha", "arm"))


def external(ctx, argv):
    """A Python program of the checkout (harness code, e.g. validation/memberlist/compare.py),
    run with ctx.python from the checkout's root; its output goes to the log."""
    script = os.path.join(REPO_ROOT, argv[0])
    if not os.path.isfile(script):
        raise AnalysisInputError(f"step external: {argv[0]}: no such file in the checkout")
    ctx.log.flush()
    proc = subprocess.run([ctx.python, script] + [str(a) for a in argv[1:]], cwd=REPO_ROOT,
                          stdout=ctx.log, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise AnalysisInputError(f"step external: {' '.join(argv)}: exit {proc.returncode} "
                                 f"(log: {ctx.log.name})")


def flagship_summary_step(ctx):
    """summary.txt: the main job's terminal summary (flagship_summary.py)."""
    flagship_summary.write_summary(ctx.out)


def tidy_example(ctx, runs):
    """Under --check: the tidy export of the rerun sweep and its pandas example
    (analysis/examples/tidy_export.py) must redo the committed comparisons.csv. Writes nothing;
    skipped, with a note, where pandas is missing (./quickstart.sh test installs it)."""
    if not ctx.check:
        return None
    probe = subprocess.run([ctx.python, "-c", "import pandas"], capture_output=True)
    if probe.returncode != 0:
        return "pandas missing: the tidy-export example was not checked"
    ctx.log.flush()
    subprocess.run([ctx.fdsim, "export", runs, "--format", "csv", "--quiet"], check=True,
                   stdout=ctx.log, stderr=subprocess.STDOUT)
    proc = subprocess.run([ctx.python, os.path.join(REPO_ROOT, "analysis", "examples",
                                                    "tidy_export.py"),
                           os.path.join(runs, "tidy.csv"), "--compare",
                           _in_out(ctx, "comparisons.csv")], capture_output=True, text=True)
    ctx.log.write(proc.stdout + proc.stderr)
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    if proc.returncode != 0:
        raise CheckMismatch(f"analysis/examples/tidy_export.py: {last}")
    return None


def calibrated_regime_map(ctx, design, small, into=""):
    """The calibrated regime map (calibrated_map.py): runs every regime's sweeps by the
    precision rule with held-out confirmation (calibrated_map_run.py) and writes
    replications.csv, calibration.csv, failures.csv (regimes whose sweep failed, left out),
    cpu.csv (the measured CPU: machine-dependent, a declared
    input) and the tables and figure (calibrated_map_report.py). Under --small it reruns
    small["replications"] discovery replications of the regime small["regime"] (its calibration
    included) and requires their rows of the committed replications.csv and calibration.csv to
    come out identical; the tables and figure are then remade from the committed rows. `into`:
    a subfolder of the results folder to write into (default: the folder itself)."""
    from .. import calibrated_map as cm
    from .. import calibrated_map_report as report
    from .. import calibrated_map_run as runner
    d = cm.load_design(os.path.join(REPO_ROOT, design))
    work = os.path.join(ctx.work, "calibrated-map", into)
    os.makedirs(os.path.join(ctx.out, into), exist_ok=True)
    jobs = getattr(ctx, "jobs", 1)
    if ctx.small:
        key, n = small["regime"], int(small["replications"])
        rows, cal, _, _, ex = runner.run_map(d, ctx.fdsim, work, jobs, ctx.log, keys=[key],
                                             fixed_n=n)
        committed = cm.read_rows_csv(_in_out(ctx, os.path.join(into, "replications.csv")))
        want = [r for r in committed if r["regime"] == key and r["block"] == "discovery"
                and r["replication"] < n]
        if cm.rows_csv(rows) != cm.rows_csv(want):
            raise CheckMismatch(f"replications.csv: the rerun rows of regime {key} "
                                f"(replications 0-{n - 1}) differ from the committed ones")
        mine = report.calibration_csv(d, cal).splitlines()[1:]
        with open(_in_out(ctx, os.path.join(into, "calibration.csv")), encoding="utf-8") as f:
            theirs = [l for l in f.read().splitlines()[1:] if l.split(",")[0] == key]
        if mine != theirs:
            raise CheckMismatch(f"calibration.csv: the rerun calibration of regime {key} "
                                f"differs from the committed one:\n  {mine}\n  {theirs}")
        excluded = report.read_excluded_csv(_in_out(ctx, os.path.join(into, "excluded.csv")))
        if ex.get(key, {}) != excluded.get(key, {}):
            raise CheckMismatch(f"excluded.csv: the rerun of regime {key} leaves out "
                                f"{ex.get(key, {})}, the committed file {excluded.get(key, {})}")
        report.write_outputs(d, committed, report.read_calibration_csv(
            _in_out(ctx, os.path.join(into, "calibration.csv"))), os.path.join(ctx.out, into),
            failures=report.read_failures_csv(_in_out(ctx, os.path.join(into, "failures.csv"))),
            excluded=excluded)
        return None
    _, _, _, failures, _ = runner.run_map(d, ctx.fdsim, work, jobs, ctx.log)
    # The files are made from what the work folder holds (runner.collect): the same as the
    # rows just run, and also right when a regime was run again on its own (resume).
    rows, cal, cpu, excluded = runner.collect(d, work)
    failures = {k: v for k, v in failures.items() if k not in cal}
    with open(_in_out(ctx, os.path.join(into, "failures.csv")), "w", encoding="utf-8") as f:
        f.write(report.failures_csv(failures))
    with open(_in_out(ctx, os.path.join(into, "replications.csv")), "w", encoding="utf-8") as f:
        f.write(cm.rows_csv(rows))
    with open(_in_out(ctx, os.path.join(into, "calibration.csv")), "w", encoding="utf-8") as f:
        f.write(report.calibration_csv(d, cal))
    with open(_in_out(ctx, os.path.join(into, "excluded.csv")), "w", encoding="utf-8") as f:
        f.write(report.excluded_csv(excluded))
    with open(_in_out(ctx, os.path.join(into, "cpu.csv")), "w", encoding="utf-8") as f:
        f.write("regime,block,runs,run_cpu_s,pilots,pilot_cpu_s\n")
        for (key, block), c in cpu.items():
            f.write(f"{key},{block},{c['runs']},{c['run_cpu_s']:.1f},{c['pilots']},"
                    f"{c['pilot_cpu_s']:.1f}\n")
    cal_rows = report.read_calibration_csv(_in_out(ctx, os.path.join(into, "calibration.csv")))
    report.write_outputs(d, rows, cal_rows, os.path.join(ctx.out, into), failures=failures,
                         excluded=excluded)
    return None


STEPS = {
    "calibrated-regime-map": calibrated_regime_map,
    "analysis": analysis,
    "readme-block": readme_block,
    "paper-tables": paper_step,
    "paper-figures": paper_figures,
    "detector-tables": detectors,
    "geode-gc-tables": geode_gc,
    "geode-removal-tables": geode_removal,
    "geode-connections": geode_connections_step,
    "geode-source-rules-extract": geode_source_rules_extract_step,
    "geode-source-rules-figure": geode_source_rules_figure,
    "swim-tradeoff": swim,
    "swim-lifeguard-paper": lifeguard_paper,
    "external": external,
    "flagship-summary": flagship_summary_step,
    "tidy-export-example": tidy_example,
}
