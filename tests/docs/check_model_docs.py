#!/usr/bin/python3
"""docs.model_parameters: the parameter documentation of docs/models/ matches the scenario readers.

For each model page, the keys and defaults it documents are compared with what the readers
actually resolve (`fdsim explain` on minimal scenarios, which prints every key with its default)
and with the enumeration values the readers accept (taken from `fdsim validate`'s message for a
bad value):
- geode-membership.md, table "Parameters": the same key set as the resolved `membership`
  section, and every default that is a number, a boolean, a list or an expression in M
  (M = 5000 ms) equal to the resolved value, for both profiles;
- heartbeat-detectors.md, table "Detectors": the same kinds as the reader accepts, per kind
  the same keys as it resolves and the same numeric defaults; the study keys all named;
- load-sharing.md: every resolved key of `workload` and `load_sharing` (estimation included)
  and every accepted enumeration value named in backticks.
Usage: check_model_docs.py FDSIM [REPO_ROOT]. Prints one line per mismatch; exit 1 if any.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

FDSIM = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
M_MS = 5000.0
problems = []
checked = {"defaults": 0}


def doc(name):
    with open(os.path.join(ROOT, "docs", "models", name), encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    m = re.search(r"^#+ " + re.escape(heading) + r"\s*$(.*?)(?=^#+ |\Z)", text, re.S | re.M)
    if not m:
        problems.append(f"no section {heading!r}")
        return ""
    return m.group(1)


def table_rows(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|[\s|:-]+\|$", line):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows[1:]  # without the header


def run_json(doc_obj, command):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc_obj, f)
        path = f.name
    try:
        return subprocess.run([FDSIM, command, path], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)


def explain(scenario):
    proc = run_json(scenario, "explain")
    if proc.returncode != 0:
        problems.append(f"fdsim explain failed: {proc.stderr.strip()}")
        return {}
    return json.loads(proc.stdout)


def accepted_values(scenario, json_path):
    """The enumeration values named by fdsim validate's message about json_path."""
    proc = run_json(scenario, "validate")
    for line in proc.stderr.splitlines():
        if f"{json_path}: expected one of" in line:
            return re.findall(r'"([^"]+)"', line.split("expected one of", 1)[1].split(", got")[0])
    problems.append(f"no 'expected one of' message for {json_path}: {proc.stderr.strip()}")
    return []


def named(text, word):
    """True if `word` appears as a whole word inside some code span of `text`."""
    return any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(word) + r"(?![A-Za-z0-9_])", span)
               for span in re.findall(r"`([^`\n]+)`", text))


def value_of(cell, profile_index):
    """The documented default as a Python value, or None if it is not machine-checkable."""
    parts = [p.strip() for p in cell.split(" / ")]
    text = parts[profile_index] if len(parts) > 1 else parts[0]
    text = text.strip("`").replace("−", "-").replace("·", "*")
    if text in ("true", "false"):
        return text == "true"
    try:
        return json.loads(text)
    except ValueError:
        pass
    expr = re.sub(r"(\d)\s+M\b", r"\1*M", text)
    if re.fullmatch(r"[0-9M+\-*/.() ,clamp]+", expr):
        try:
            return float(eval(expr, {"__builtins__": {}},  # noqa: S307 (digits, M, clamp only)
                              {"M": M_MS, "clamp": lambda x, lo, hi: min(max(x, lo), hi)}))
        except (SyntaxError, TypeError, ZeroDivisionError):
            return None
    return None


def same(doc_value, resolved):
    if isinstance(doc_value, (int, float)) and not isinstance(doc_value, bool):
        return isinstance(resolved, (int, float)) and abs(float(resolved) - doc_value) <= 0.5
    return doc_value == resolved


def check_geode():
    rows = table_rows(section(doc("geode-membership.md"), "Parameters"))
    documented = {}
    for r in rows:
        m = re.fullmatch(r"`([a-z_]+)`", r[0])
        if m:
            documented[m.group(1)] = r[2]
    for index, profile in enumerate(("wiki", "current")):
        scenario = {"name": "g", "nodes": {"count": 10}, "horizon_s": 10,
                    "membership": {"profile": profile}}
        resolved = explain(scenario).get("membership", {})
        for key in sorted(set(resolved) - set(documented)):
            problems.append(f"geode-membership.md: key {key} is read but not documented")
        for key in sorted(set(documented) - set(resolved)):
            problems.append(f"geode-membership.md: key {key} is documented but not read")
        for key, cell in documented.items():
            if key in ("profile", "members"):  # the selector itself; a node set
                continue
            want = value_of(cell, index)
            if want is None or key not in resolved:
                continue
            checked["defaults"] += 1
            if not same(want, resolved[key]):
                problems.append(f"geode-membership.md: {key} ({profile}): documented {cell!r}, "
                                f"the reader resolves {resolved[key]!r}")
    bad = {"name": "g", "nodes": {"count": 4}, "horizon_s": 10, "membership": {"profile": "?"}}
    for v in accepted_values(bad, "$.membership.profile"):
        if not named(doc("geode-membership.md"), v):
            problems.append(f"geode-membership.md: profile {v} is not documented")


def check_detectors():
    text = doc("heartbeat-detectors.md")
    rows = table_rows(section(text, "Detectors"))
    documented = {}
    for r in rows:
        m = re.fullmatch(r"`([a-z_]+)`", r[0])
        if m:
            documented[m.group(1)] = dict(re.findall(r"`([a-z_]+)` \(([^)]*)\)", r[1]))
    base = {"name": "d", "nodes": {"count": 3}, "horizon_s": 10}
    kinds = accepted_values(dict(base, detectors={"arms": [
        {"name": "x", "detector": {"kind": "?"}}]}), "$.detectors.arms[0].detector.kind")
    if sorted(kinds) != sorted(documented):
        problems.append(f"heartbeat-detectors.md: kinds {sorted(documented)}, the reader "
                        f"accepts {sorted(kinds)}")
    arms = [{"name": k, "detector": {"kind": k}} for k in kinds]
    resolved = explain(dict(base, detectors={"arms": arms})).get("detectors", {})
    for arm in resolved.get("arms", []):
        kind, got = arm["name"], dict(arm["detector"])
        got.pop("kind", None)
        want = documented.get(kind, {})
        if set(got) != set(want):
            problems.append(f"heartbeat-detectors.md: {kind}: documented keys {sorted(want)}, "
                            f"the reader resolves {sorted(got)}")
        for key, cell in want.items():
            v = value_of(cell, 0)
            if v is None or key not in got:
                continue
            checked["defaults"] += 1
            if not same(v, got[key]):
                problems.append(f"heartbeat-detectors.md: {kind}.{key}: documented {cell!r}, "
                                f"the reader resolves {got[key]!r}")
    for key in resolved:
        if not named(text, key):
            problems.append(f"heartbeat-detectors.md: study key {key} is not documented")


def check_load_sharing():
    text = doc("load-sharing.md")
    base = {"name": "l", "nodes": {"count": 10}, "horizon_s": 10, "workload": {},
            "load_sharing": {}}
    resolved = explain(base)
    keys = set()
    for sec in ("workload", "load_sharing"):
        for k, v in resolved.get(sec, {}).items():
            keys.add(k)
            if isinstance(v, dict):
                keys.update(v)
    for key in sorted(keys):
        if not named(text, key):
            problems.append(f"load-sharing.md: key {key} is read but not documented")
    enums = {
        "$.load_sharing.arms[0].diagnosis": {"arms": [{"name": "a", "diagnosis": "?"}]},
        "$.load_sharing.scheduling": {"scheduling": "?"},
        "$.load_sharing.execution_time_knowledge": {"execution_time_knowledge": "?"},
        "$.load_sharing.unplaced": {"unplaced": "?"},
        "$.load_sharing.late_tasks": {"late_tasks": "?"},
        "$.load_sharing.load_index": {"load_index": "?"},
        "$.load_sharing.broadcast_on": {"broadcast_on": "?"},
        "$.load_sharing.transfer_transport": {"transfer_transport": "?"},
    }
    for path, ls in enums.items():
        for v in accepted_values(dict(base, load_sharing=ls), path):
            if not named(text, v):
                problems.append(f"load-sharing.md: {path} value {v} is not documented")
    for path, wl in (("$.workload.execution.distribution", {"execution": {"distribution": "?"}}),
                     ("$.workload.deadline.kind", {"deadline": {"kind": "?"}})):
        for v in accepted_values(dict(base, workload=wl), path):
            if not named(text, v):
                problems.append(f"load-sharing.md: {path} value {v} is not documented")


check_geode()
check_detectors()
check_load_sharing()
for p in problems:
    print(f"docs.model_parameters: {p}")
if checked["defaults"] < 40:
    print(f"docs.model_parameters: only {checked['defaults']} defaults could be checked")
    sys.exit(1)
print(f"docs.model_parameters: {checked['defaults']} defaults checked, "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
