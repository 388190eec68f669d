"""A study's declaration: which sweeps it runs, which steps turn them into tables and figures, and
which files of its results folder those steps write.

A declaration is a JSON file, studies/<study>.json:

  {
    "study": "paper",                       the study's name (= the file's name)
    "description": "...",                   one sentence: what the study answers
    "out": "results/paper",                 its results folder (every path below is relative to it)
    "sweeps": [                             fdsim sweeps run from scratch, in this order
      {"id": "paper",
       "file": "scenarios/paper/hou-shin-1994-sweep.json",   relative to the checkout
       "reference_arm": "hou_shin_extra",                    optional (fdsim sweep --reference-arm)
       "copy": {"aggregate.csv": "aggregate.csv", "sweep.json": "sweep.json"},
                                            files of the sweep's output folder copied into out
       "check": {"points": [0, 9]}}         the reduced check (--check --small): "points" reruns
                                            those points of the plan and compares their rows of
                                            the committed aggregate; {"run": "full"} reruns the
                                            whole sweep (the default); {"run": "none", "why": ...}
                                            reruns nothing (the analysis steps still run from the
                                            committed aggregate)
    ],
    "steps": [                              analysis steps, in this order (studies/steps.py)
      {"step": "analysis", "argv": ["study", "fixed-vs-adaptive", "--sweep", "{sweep:paper}",
                                    "--out", "{out}", "--format", "png,svg"],
       "writes": ["headline.md", ...],      the files of out the step writes
       "skip_small": "why"}                 optional: the reduced check does not run this step
    ],
    "documents": ["README.md"],             hand-written files of out; steps may fill their
                                            generated blocks, and --check compares them too
    "inputs": ["before-source-rules/restart.csv"],
                                            committed files of out that the steps read and no step
                                            can regenerate (with the reason in "inputs_why")
    "exclusive": true                       every file under out (but the folders of other
                                            declared studies) must be a sweep copy, a step's
                                            output, a document or an input (default true)
  }

Placeholders in a step's options: {out} the results folder (the committed one, or a temporary
copy under --check), {sweep:ID} the folder of sweep ID's aggregate (its work folder when it ran,
else the committed copy in out), {runs:ID} the work folder of a sweep that ran (a step that
needs it is skipped, and says so, when the sweep did not run), {work} the study's work folder,
{fdsim} the fdsim binary, {python} the Python interpreter, {small} "1" under --small else "".

Contract: load(path) returns the declaration as a dict with the defaults filled in, or raises
AnalysisInputError with one line naming the file and the JSON path of the first problem
(unknown keys included, so a misspelt option is never silently ignored).
"""

import json
import os

from ..errors import AnalysisInputError

_TOP = {"study": str, "description": str, "out": str, "sweeps": list, "steps": list,
        "documents": list, "inputs": list, "inputs_why": str, "exclusive": bool,
        "check_note": str}
_SWEEP = {"id": str, "file": str, "reference_arm": str, "copy": dict, "check": dict}
_CHECK = {"points": list, "run": str, "why": str}
_STEP = {"step": str, "writes": list, "small": dict}


def _expect(path, where, value, kind):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AnalysisInputError(f"{path}: {where}: expected {kind.__name__}, got "
                                 f"{json.dumps(value)[:60]}")


def _keys(path, where, obj, allowed, required=()):
    for k in obj:
        if k not in allowed:
            raise AnalysisInputError(f"{path}: {where}.{k}: unknown key (known: "
                                     f"{', '.join(sorted(allowed))})")
        if allowed[k] is not None:
            _expect(path, f"{where}.{k}", obj[k], allowed[k])
    for k in required:
        if k not in obj:
            raise AnalysisInputError(f"{path}: {where}.{k}: missing")


def load(path, step_names=None):
    """The declaration in `path`; `step_names` (a set) are the known step kinds."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise AnalysisInputError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise AnalysisInputError(f"{path}: not JSON: {e.msg} at line {e.lineno}") from None
    _expect(path, "$", doc, dict)
    _keys(path, "$", doc, _TOP, ("study", "description", "out", "steps"))
    name = os.path.splitext(os.path.basename(path))[0]
    if doc["study"] != name:
        raise AnalysisInputError(f"{path}: $.study: {doc['study']!r} is not the file's name "
                                 f"{name!r}")
    doc.setdefault("sweeps", [])
    doc.setdefault("documents", [])
    doc.setdefault("inputs", [])
    doc.setdefault("exclusive", True)
    if doc["inputs"] and "inputs_why" not in doc:
        raise AnalysisInputError(f"{path}: $.inputs_why: missing (why no step can make the "
                                 f"inputs)")
    ids = set()
    for i, sw in enumerate(doc["sweeps"]):
        where = f"$.sweeps[{i}]"
        _expect(path, where, sw, dict)
        _keys(path, where, sw, _SWEEP, ("id", "file", "copy"))
        if sw["id"] in ids:
            raise AnalysisInputError(f"{path}: {where}.id: {sw['id']!r} declared twice")
        ids.add(sw["id"])
        for src, dst in sw["copy"].items():
            if src not in ("aggregate.csv", "sweep.json"):
                raise AnalysisInputError(f"{path}: {where}.copy.{src}: expected aggregate.csv "
                                         f"or sweep.json")
            _expect(path, f"{where}.copy.{src}", dst, str)
        check = sw.setdefault("check", {"run": "full"})
        _keys(path, f"{where}.check", check, _CHECK)
        if "points" in check:
            if "run" in check:
                raise AnalysisInputError(f"{path}: {where}.check: give points or run, not both")
            for j, p in enumerate(check["points"]):
                _expect(path, f"{where}.check.points[{j}]", p, int)
        else:
            run = check.setdefault("run", "full")
            if run not in ("full", "none"):
                raise AnalysisInputError(f"{path}: {where}.check.run: expected full or none, "
                                         f"got {run!r}")
            if run == "none" and "why" not in check:
                raise AnalysisInputError(f"{path}: {where}.check.why: missing (why the reduced "
                                         f"check reruns nothing)")
    for i, st in enumerate(doc["steps"]):
        where = f"$.steps[{i}]"
        _expect(path, where, st, dict)
        if "step" not in st:
            raise AnalysisInputError(f"{path}: {where}.step: missing")
        if step_names is not None and st["step"] not in step_names:
            raise AnalysisInputError(f"{path}: {where}.step: unknown step {st['step']!r} "
                                     f"(known: {', '.join(sorted(step_names))})")
        st.setdefault("writes", [])
        if "skip_small" in st:
            _expect(path, f"{where}.skip_small", st["skip_small"], str)
        for j, w in enumerate(st["writes"]):
            _expect(path, f"{where}.writes[{j}]", w, str)
    for key in ("documents", "inputs"):
        for j, w in enumerate(doc[key]):
            _expect(path, f"$.{key}[{j}]", w, str)
    return doc


def outputs(decl):
    """Every file of out the study makes: {relative path: what makes it}."""
    made = {}
    for sw in decl["sweeps"]:
        for src, dst in sw["copy"].items():
            made[os.path.normpath(dst)] = f"sweep {sw['id']} ({src})"
    for i, st in enumerate(decl["steps"]):
        for w in st["writes"]:
            made[os.path.normpath(w)] = f"step {i} ({st['step']})"
    return made
