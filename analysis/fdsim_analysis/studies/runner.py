"""`fdsim-analysis regenerate STUDY...|all [--check [--small]]`: regenerate or check the declared
studies (studies/<study>.json, format in declaration.py).

- regenerate: runs each sweep of the study from scratch in WORK/<study>/<sweep id> (the run
  files stay there for inspection), copies the declared files of each sweep into the study's
  results folder and runs the analysis steps, which write the tables, figures and the generated
  blocks of the READMEs there.
- --check: the same into a temporary copy of the committed results folder; then every file the
  study declares (sweep copies, step outputs, documents) must be byte-identical to the committed
  one (a sweep.json up to its git revision and run ids, which name the build: _plan_identity), and
  every committed file of the folder must be declared. Exit 1 on any difference.
- --check --small: the reduced check, for the test suite: each sweep reruns what its "check"
  says (all of it, some points whose rows of the committed aggregate must come out identical,
  or nothing), the analysis steps run from the committed aggregates (or from the sweep that
  reran in full), and every output of a step that could run is compared as above.

Contract: returns 0 when every study regenerated (or checked identical), 1 when a check found a
difference (each difference named on stderr), 2 on bad input (an unknown study, a declaration
error, a missing fdsim binary). Deterministic: the same checkout and binary give the same files.
"""

import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ..errors import AnalysisInputError
from . import declaration
from .layout import REPO_ROOT
from .steps import STEPS, CheckMismatch

DECLARED = os.path.join(REPO_ROOT, "studies")


class _NotAvailable(Exception):
    """A placeholder names what this mode did not produce ({runs:ID} of a sweep that did not run)."""


class Context:
    def __init__(self, out, work, fdsim, python, check, small, log, progress=False, resume=False):
        self.out, self.work, self.fdsim, self.python = out, work, fdsim, python
        self.check, self.small, self.log = check, small, log
        self.progress, self.resume = progress, resume
        self.sweep_dirs, self.runs_dirs = {}, {}

    def resolve(self, value):
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if not isinstance(value, str):
            return value
        for kind, table in (("sweep", self.sweep_dirs), ("runs", self.runs_dirs)):
            while "{" + kind + ":" in value:
                i = value.index("{" + kind + ":")
                j = value.index("}", i)
                sid = value[i + len(kind) + 2:j]
                if table.get(sid) is None:
                    raise _NotAvailable(f"{{{kind}:{sid}}}")
                value = value[:i] + table[sid] + value[j + 1:]
        return (value.replace("{out}", self.out).replace("{work}", self.work)
                .replace("{fdsim}", self.fdsim).replace("{python}", self.python)
                .replace("{small}", "1" if self.small else ""))


def study_names():
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(DECLARED, "*.json")))


def load_study(name):
    path = os.path.join(DECLARED, name + ".json")
    if not os.path.isfile(path):
        raise AnalysisInputError(f"{path}: no such study (declared: {', '.join(study_names())})")
    return declaration.load(path, set(STEPS))


def _run_sweep(ctx, sw, out_dir, jobs, sweep_file=None):
    """fdsim sweep from scratch into out_dir (with ctx.resume, the runs already there are kept:
    fdsim sweep skips them); progress on the terminal with ctx.progress, else in the log."""
    if not ctx.resume:
        shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(os.path.dirname(out_dir), exist_ok=True)
    cmd = [ctx.fdsim, "sweep", sweep_file or sw["file"], "--out", out_dir, "-j", str(jobs)]
    if not ctx.progress:
        cmd.append("--quiet")
    if "reference_arm" in sw:
        cmd += ["--reference-arm", sw["reference_arm"]]
    ctx.log.flush()
    if ctx.progress:
        print(f"regenerate: {sw['file']} -> {out_dir} (-j {jobs})", file=sys.stderr)
    proc = subprocess.run(cmd, cwd=REPO_ROOT, stdout=ctx.log,
                          stderr=None if ctx.progress else subprocess.STDOUT)
    if proc.returncode != 0:
        raise AnalysisInputError(f"{' '.join(cmd)}: exit {proc.returncode} (log: {ctx.log.name})")


def reduced_sweep(sweep_file, plan, points):
    """A sweep of only the given points of `plan` (a sweep.json), with the same base scenario,
    replications and name: a run depends only on its point's scenario and replication
    (docs/sweeps.md, "Runs and their identity"), so each point's rows of its aggregate equal
    that point's rows of the full sweep's."""
    with open(os.path.join(REPO_ROOT, sweep_file), encoding="utf-8") as f:
        doc = json.load(f)
    base = os.path.normpath(os.path.join(REPO_ROOT, os.path.dirname(sweep_file), doc["base"]))
    by_index = {p["index"]: p["params"] for p in plan["points"]}
    for p in points:
        if p not in by_index:
            raise AnalysisInputError(f"{sweep_file}: check point {p}: the plan has points "
                                     f"0-{len(by_index) - 1}")
    axes = [{"path": a, "values": [by_index[p][a] for p in points]} for a in plan["axes"]]
    doc["base"] = base
    doc["axes"] = [axes[0]] if len(axes) == 1 else [{"zip": axes}]
    return doc


def _aggregate_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, list(reader)


def compare_points(reduced_csv, committed_csv, points):
    """Differences between the rows of the reduced sweep's aggregate (point i = points[i]) and
    the committed aggregate's rows of those points; [] when identical."""
    h_new, new = _aggregate_rows(reduced_csv)
    h_old, old = _aggregate_rows(committed_csv)
    if h_new != h_old:
        return [f"{committed_csv}: header differs: {h_new} against {h_old}"]
    col = h_old.index("point")
    want = {str(p) for p in points}
    old = [r for r in old if r[col] in want]
    renamed = []
    for r in new:
        r = list(r)
        r[col] = str(points[int(r[col])])
        renamed.append(r)
    if sorted(renamed) == sorted(old):
        return []
    diff = sorted(set(map(tuple, renamed)) ^ set(map(tuple, old)))
    return [f"{committed_csv}: the rerun rows of points {points} differ ({len(diff)} rows, "
            f"first: {','.join(diff[0])})"]


def _plan_identity(plan):
    """A sweep plan without what names the build rather than the study: the git revision of
    the checkout, and the run ids, which hash each point's resolved scenario (so a default
    added to the scenario format by a newer fdsim changes them; the runs' results, compared
    through the aggregate and the tables, are what must not change)."""
    plan = dict(plan)
    plan.pop("fdsim_git_revision", None)
    plan["points"] = [{k: v for k, v in p.items() if k != "run_ids"}
                      for p in plan.get("points", [])]
    return plan


def _same(path_new, path_old):
    if os.path.basename(path_old).endswith("sweep.json"):
        try:
            with open(path_new) as f:
                a = json.load(f)
            with open(path_old) as f:
                b = json.load(f)
        except (OSError, json.JSONDecodeError):
            return False
        return _plan_identity(a) == _plan_identity(b)
    with open(path_new, "rb") as f:
        a = f.read()
    with open(path_old, "rb") as f:
        b = f.read()
    return a == b


def _owned_files(decl, others):
    """Committed files under the study's out folder, but not under another study's out."""
    root = os.path.join(REPO_ROOT, decl["out"])
    files = []
    for d, dirs, names in os.walk(root):
        rel_d = os.path.relpath(d, REPO_ROOT)
        if any(os.path.normpath(rel_d) == os.path.normpath(o) for o in others):
            dirs[:] = []
            continue
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(os.path.normpath(f) for f in files)


def run_study(name, fdsim, jobs, work_root, python, check, small, out=None, err=sys.stderr,
              progress=False, resume=False):
    """Regenerates (or checks) one study; returns (status, seconds, notes)."""
    t0 = time.monotonic()
    decl = load_study(name)
    others = [load_study(n)["out"] for n in study_names() if n != name]
    committed = os.path.join(REPO_ROOT, decl["out"])
    work = os.path.join(work_root, name)
    tmp = None
    if check:
        tmp = tempfile.mkdtemp(prefix=f"fdsim-check-{name}-")
        work = os.path.join(tmp, "work")
        target = os.path.join(tmp, os.path.basename(os.path.normpath(committed)))
        shutil.copytree(committed, target)
    else:
        target = out or committed
    os.makedirs(work, exist_ok=True)
    os.makedirs(target, exist_ok=True)
    notes, problems = [], []
    log_path = os.path.join(work, "regenerate.log")
    with open(log_path, "w") as log:
        ctx = Context(target, work, fdsim, python, check, small, log, progress=progress,
                      resume=resume and not check)
        ctx.jobs = jobs
        for sw in decl["sweeps"]:
            sweep_work = os.path.join(work, sw["id"])
            mode = sw["check"] if small else {"run": "full"}
            if mode.get("run") == "full":
                _run_sweep(ctx, sw, sweep_work, jobs)
                for src, dst in sw["copy"].items():
                    os.makedirs(os.path.dirname(os.path.join(target, dst)), exist_ok=True)
                    shutil.copyfile(os.path.join(sweep_work, src), os.path.join(target, dst))
                ctx.sweep_dirs[sw["id"]] = sweep_work
                ctx.runs_dirs[sw["id"]] = sweep_work
                continue
            agg = sw["copy"].get("aggregate.csv")
            plan = sw["copy"].get("sweep.json")
            if agg is None or plan is None or os.path.dirname(agg) != os.path.dirname(plan):
                raise AnalysisInputError(f"{name}: sweep {sw['id']}: a check that does not rerun "
                                         f"the whole sweep needs its aggregate.csv and sweep.json "
                                         f"copied into one folder")
            ctx.sweep_dirs[sw["id"]] = os.path.join(target, os.path.dirname(agg))
            ctx.runs_dirs[sw["id"]] = None
            if "points" in mode:
                with open(os.path.join(committed, plan)) as f:
                    doc = reduced_sweep(sw["file"], json.load(f), mode["points"])
                path = os.path.join(work, sw["id"] + "-reduced.json")
                with open(path, "w") as f:
                    json.dump(doc, f, indent=1)
                _run_sweep(ctx, sw, sweep_work, jobs, sweep_file=path)
                found = compare_points(os.path.join(sweep_work, "aggregate.csv"),
                                       os.path.join(committed, agg), mode["points"])
                problems += found
                if not found:
                    notes.append(f"sweep {sw['id']}: points {mode['points']} rerun, their "
                                 f"aggregate rows identical")
            else:
                notes.append(f"sweep {sw['id']}: not rerun ({mode['why']})")
        skipped = set()
        for i, st in enumerate(decl["steps"]):
            opts = {k: v for k, v in st.items() if k not in ("step", "writes", "skip_small")}
            if small and "skip_small" in st:
                notes.append(f"step {i} ({st['step']}) not run: {st['skip_small']}")
                skipped.update(os.path.normpath(w) for w in st["writes"])
                continue
            try:
                opts = ctx.resolve(opts)
            except _NotAvailable as e:
                notes.append(f"step {i} ({st['step']}) not run: {e} is made by a full rerun only")
                skipped.update(os.path.normpath(w) for w in st["writes"])
                continue
            try:
                note = STEPS[st["step"]](ctx, **opts)
            except TypeError as e:
                raise AnalysisInputError(f"{name}: step {i} ({st['step']}): {e}") from None
            except CheckMismatch as e:
                problems.append(f"step {i} ({st['step']}): {e}")
                note = "differs"
            if note is not None:
                notes.append(f"step {i} ({st['step']}): {note}")
                skipped.update(os.path.normpath(w) for w in st["writes"])
    if check:
        made = declaration.outputs(decl)
        declared = set(made) | {os.path.normpath(d) for d in decl["documents"]}
        inputs = {os.path.normpath(d) for d in decl["inputs"]}
        compared = 0
        for rel in sorted(declared - skipped):
            new, old = os.path.join(target, rel), os.path.join(committed, rel)
            if not os.path.exists(old):
                problems.append(f"{decl['out']}/{rel}: declared but not committed")
            elif not _same(new, old):
                problems.append(f"{decl['out']}/{rel}: regenerated file DIFFERS from the "
                                f"committed one ({made.get(rel, 'document')}; the regenerated "
                                f"copy: {new})")
            else:
                compared += 1
        for rel in sorted(inputs):
            if not os.path.exists(os.path.join(committed, rel)):
                problems.append(f"{decl['out']}/{rel}: declared input missing")
        if decl["exclusive"]:
            for rel in _owned_files(decl, others):
                if rel not in declared and rel not in inputs:
                    problems.append(f"{decl['out']}/{rel}: committed, but no step of the study "
                                    f"makes it and it is not a declared input")
        notes.append(f"{compared} files identical to the committed ones"
                     + (f", {len(skipped & declared)} not regenerated by the reduced check"
                        if skipped & declared else ""))
        if problems or os.environ.get("FDSIM_KEEP_CHECK"):
            notes.append(f"the regenerated copy is kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print(f"regenerate {name}: {p}", file=err)
    return (1 if problems else 0), time.monotonic() - t0, notes


def main(args, out=sys.stdout, err=sys.stderr):
    """The `regenerate` subcommand (cli.py builds its parser)."""
    names = study_names() if args.studies == ["all"] else args.studies
    for n in names:
        if n not in study_names():
            raise AnalysisInputError(f"{DECLARED}: no study {n!r} (declared: "
                                     f"{', '.join(study_names())}, or all)")
    if args.small and not args.check:
        raise AnalysisInputError("--small applies to --check only")
    if args.out and len(names) != 1:
        raise AnalysisInputError("--out applies to one study only")
    fdsim = os.path.abspath(args.fdsim)
    if not os.access(fdsim, os.X_OK):
        raise AnalysisInputError(f"{fdsim}: no fdsim binary (build it first: cmake -S . -B build "
                                 f"-G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build fdsim)")
    python = args.python or sys.executable
    worst = 0
    for n in names:
        status, seconds, notes = run_study(n, fdsim, args.jobs, os.path.abspath(args.work),
                                           python, args.check, args.small,
                                           out=os.path.abspath(args.out) if args.out else None,
                                           err=err, progress=args.progress, resume=args.resume)
        verb = ("check" + (" --small" if args.small else "")) if args.check else "regenerate"
        verdict = ("FAILED" if status else "ok")
        print(f"regenerate {n}: {verb} {verdict} in {seconds:.0f} s", file=err)
        for note in notes:
            print(f"  {note}", file=err)
        worst = max(worst, status)
    return worst


def add_parser(sub):
    p = sub.add_parser("regenerate", help="regenerate or check declared studies (results/)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("studies", nargs="+", metavar="STUDY",
                   help="study names (studies/*.json) or all")
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary copy and compare with the committed files")
    p.add_argument("--small", action="store_true",
                   help="with --check: the reduced check of each study's declaration")
    p.add_argument("--fdsim", default=os.path.join(REPO_ROOT, os.environ.get("FDSIM_BUILD",
                                                                               "build"), "fdsim"),
                   help="the fdsim binary (default $FDSIM_BUILD/fdsim, FDSIM_BUILD=build)")
    p.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("JOBS", 0) or
                                                         os.cpu_count() or 1),
                   help="parallel runs of each sweep (default $JOBS, else the CPU count)")
    p.add_argument("--work", default=os.path.join(os.environ.get("FDSIM_WORK", "out"),
                                                  "regenerate"),
                   help="work folder of the runs (default $FDSIM_WORK/regenerate, out/regenerate)")
    p.add_argument("--out", default=None,
                   help="write one study's results here instead of its results folder")
    p.add_argument("--python", default=None, help="interpreter of external steps (default: this)")
    p.add_argument("--progress", action="store_true",
                   help="show each sweep's progress line (default: quiet, output in the log)")
    p.add_argument("--resume", action="store_true",
                   help="keep the runs already in the work folder (same binary only)")
    return p
