"""Loading fdsim outputs: run results, sweep manifests, sweep aggregates.

Formats (written by the C++ side; see sim/run/run.h, sim/sweep/aggregate.h, sim/sweep/plan.h):
- run result: {"manifest": {scenario_name, scenario_hash, seed, replication, arm_order,
  resolved_config, ...}, "metrics": {"<arm>": {...}}, "run_stats": {...}}.
- OUT/sweep.json: {"name", "axes": [path...], "reference_arm", "points": [{"index",
  "params": {path: value}, "run_ids": [...]}], ...}; "axis_names": {path: name} when the
  sweep file names some axes (optional; names of paths that are not axes are ignored).
- OUT/aggregate.jsonl: one object per row {point, params, arm, metric, n, mean, sd,
  ci95_half_width, reference_arm, diff_n, diff_mean, diff_sd, diff_ci95_half_width};
  OUT/aggregate.csv: columns point, <one per axis path>, arm, metric, n, mean, sd, ... (the
  same), axis values JSON-encoded except strings, empty cells for nulls.

Contract: tolerant of extra fields and columns, strict about the ones it needs. Anything missing
or malformed raises AnalysisInputError("<file>[:line]: <what is missing or wrong>"). Only the
fields named "required" below are required at load time: run results need "manifest" (object)
and "metrics" (object of objects); the manifest needs "points" with "params" and "run_ids";
aggregate rows need point, arm, metric, n, mean, ci95_half_width. Optional fields read as None.
The JSONL aggregate is preferred (it keeps the axis values' types); the CSV is the fallback.
Directory listings are sorted, so every result is deterministic.
"""

import csv
import json
import os
from dataclasses import dataclass, field
from typing import Optional

from .aggregate import AggRow, AggregateTable
from .errors import AnalysisInputError

AGG_REQUIRED = ("point", "arm", "metric", "n", "mean", "ci95_half_width")
AGG_OPTIONAL = ("sd", "reference_arm", "diff_n", "diff_mean", "diff_sd", "diff_ci95_half_width")


def read_json(path):
    """The parsed JSON document at `path` (AnalysisInputError if absent or malformed)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise AnalysisInputError(f"{path}: no such file") from None
    except OSError as e:
        raise AnalysisInputError(f"{path}: cannot read ({e.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise AnalysisInputError(f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})") \
            from None


# --- run results ----------------------------------------------------------------------------

@dataclass
class RunResult:
    path: str
    manifest: dict
    metrics: dict

    @property
    def arm_order(self):
        order = []
        listed = self.manifest.get("arm_order")
        if isinstance(listed, list):
            order = [a for a in listed if isinstance(a, str) and a in self.metrics]
        for a in self.metrics:
            if a not in order:
                order.append(a)
        return order

    @property
    def resolved_config(self):
        rc = self.manifest.get("resolved_config")
        if not isinstance(rc, dict):
            raise AnalysisInputError(f"{self.path}: manifest has no \"resolved_config\" object")
        return rc

    @property
    def replication(self):
        r = self.manifest.get("replication")
        return r if isinstance(r, int) and not isinstance(r, bool) else None

    @property
    def scenario_name(self):
        return self.manifest.get("scenario_name") or os.path.basename(self.path)

    def point_key(self):
        """What identifies this run's scenario, replications aside."""
        h = self.manifest.get("scenario_hash")
        if isinstance(h, str) and h:
            return "hash:" + h
        rc = self.manifest.get("resolved_config")
        if isinstance(rc, dict):
            return "config:" + json.dumps(rc, sort_keys=True)
        return "name:" + self.scenario_name

    def arm_metrics(self, arm):
        if arm not in self.metrics:
            raise AnalysisInputError(f"{self.path}: no arm {arm!r} "
                                     f"(arms: {', '.join(self.arm_order)})")
        return self.metrics[arm]


def run_from_document(doc, path):
    if not isinstance(doc, dict):
        raise AnalysisInputError(f"{path}: a run result must be a JSON object")
    manifest = doc.get("manifest")
    if not isinstance(manifest, dict):
        raise AnalysisInputError(f"{path}: missing \"manifest\" object (not a run result?)")
    metrics = doc.get("metrics")
    if not isinstance(metrics, dict):
        raise AnalysisInputError(f"{path}: missing \"metrics\" object (not a run result?)")
    for arm, m in metrics.items():
        if not isinstance(m, dict):
            raise AnalysisInputError(f"{path}: metrics.{arm} must be an object")
    return RunResult(path, manifest, metrics)


def load_run(path):
    return run_from_document(read_json(path), path)


def _is_result_file(name):
    return (name.endswith(".json") and not name.endswith(".error.json")
            and not name.startswith(".") and ".tmp" not in name)


def list_run_files(directory):
    """Result files of a directory (OUT/runs, or OUT itself when it has a runs/ folder)."""
    runs_dir = os.path.join(directory, "runs")
    if os.path.isdir(runs_dir):
        directory = runs_dir
    try:
        names = sorted(os.listdir(directory))
    except OSError as e:
        raise AnalysisInputError(f"{directory}: cannot list ({e.strerror})") from None
    return [os.path.join(directory, n) for n in names if _is_result_file(n)]


def load_runs(paths):
    """Run results from files and directories, in a deterministic order."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = list_run_files(p)
            if not found:
                raise AnalysisInputError(f"{p}: no run result files (*.json) in it")
            files.extend(found)
        elif os.path.exists(p):
            files.append(p)
        else:
            raise AnalysisInputError(f"{p}: no such file or directory")
    return [load_run(f) for f in files]


# --- sweep manifest ---------------------------------------------------------------------------

@dataclass
class SweepPoint:
    index: int
    params: dict
    run_ids: list


@dataclass
class SweepManifest:
    path: str
    name: str
    axes: list
    points: list
    reference_arm: Optional[str] = None
    raw: dict = field(default_factory=dict)
    axis_names: dict = field(default_factory=dict)  # path -> the sweep file's axis "name"


def load_manifest(out_dir):
    path = os.path.join(out_dir, "sweep.json")
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise AnalysisInputError(f"{path}: the sweep manifest must be a JSON object")
    points_doc = doc.get("points")
    if not isinstance(points_doc, list):
        raise AnalysisInputError(f"{path}: missing \"points\" array (not a sweep manifest?)")
    axes = doc.get("axes", [])
    if not isinstance(axes, list) or not all(isinstance(a, str) for a in axes):
        raise AnalysisInputError(f"{path}: \"axes\" must be an array of path strings")
    points = []
    for i, p in enumerate(points_doc):
        where = f"{path}: points[{i}]"
        if not isinstance(p, dict):
            raise AnalysisInputError(f"{where} must be an object")
        params = p.get("params")
        run_ids = p.get("run_ids")
        if not isinstance(params, dict):
            raise AnalysisInputError(f"{where}: missing \"params\" object")
        if not isinstance(run_ids, list) or not all(isinstance(r, str) for r in run_ids):
            raise AnalysisInputError(f"{where}: missing \"run_ids\" array of strings")
        for a in axes:
            if a not in params:
                raise AnalysisInputError(f"{where}: params lacks axis {a}")
        index = p.get("index", i)
        if not isinstance(index, int) or isinstance(index, bool):
            raise AnalysisInputError(f"{where}: \"index\" must be an integer")
        points.append(SweepPoint(index, params, run_ids))
    ref = doc.get("reference_arm")
    names = doc.get("axis_names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        raise AnalysisInputError(f"{path}: \"axis_names\" must map axis paths to names")
    names = {a: n for a, n in names.items() if a in axes and n}
    return SweepManifest(path, str(doc.get("name", "")), list(axes), points,
                         ref if isinstance(ref, str) else None, doc, names)


# --- aggregates -------------------------------------------------------------------------------

def _num(v, where, name, integer=False):
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        raise AnalysisInputError(f"{where}: {name} must be a number, got {v!r}")
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise AnalysisInputError(f"{where}: {name} must be a number, got {v!r}") from None
    if not isinstance(v, (int, float)):
        raise AnalysisInputError(f"{where}: {name} must be a number, got {v!r}")
    if integer:
        if float(v) != int(v):
            raise AnalysisInputError(f"{where}: {name} must be an integer, got {v!r}")
        return int(v)
    return float(v)


def _row_from_fields(get, params, where):
    point = _num(get("point"), where, "point", integer=True)
    n = _num(get("n"), where, "n", integer=True)
    if point is None or n is None:
        raise AnalysisInputError(f"{where}: point and n must not be empty")
    arm, metric = get("arm"), get("metric")
    if not isinstance(arm, str) or not arm or not isinstance(metric, str) or not metric:
        raise AnalysisInputError(f"{where}: arm and metric must be non-empty strings")
    ref = get("reference_arm")
    return AggRow(point=point, params=params, arm=arm, metric=metric, n=n,
                  mean=_num(get("mean"), where, "mean"),
                  sd=_num(get("sd"), where, "sd"),
                  ci95_half_width=_num(get("ci95_half_width"), where, "ci95_half_width"),
                  reference_arm=ref if isinstance(ref, str) and ref else None,
                  diff_n=_num(get("diff_n"), where, "diff_n", integer=True),
                  diff_mean=_num(get("diff_mean"), where, "diff_mean"),
                  diff_sd=_num(get("diff_sd"), where, "diff_sd"),
                  diff_ci95_half_width=_num(get("diff_ci95_half_width"), where,
                                            "diff_ci95_half_width"))


def _parse_cell_value(text):
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return text


def load_aggregate_jsonl(path, axes=None):
    rows = []
    seen_axes = list(axes or [])
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise AnalysisInputError(f"{path}: cannot read ({e.strerror})") from None
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise AnalysisInputError(f"{where}: not valid JSON ({e.msg})") from None
            if not isinstance(obj, dict):
                raise AnalysisInputError(f"{where}: a row must be a JSON object")
            missing = [c for c in AGG_REQUIRED if c not in obj]
            if missing:
                raise AnalysisInputError(f"{where}: missing field(s) {', '.join(missing)}")
            params = obj.get("params", {})
            if not isinstance(params, dict):
                raise AnalysisInputError(f"{where}: params must be an object")
            for a in params:
                if a not in seen_axes:
                    seen_axes.append(a)
            rows.append(_row_from_fields(obj.get, dict(params), where))
    return AggregateTable(rows, seen_axes, path)


def load_aggregate_csv(path):
    try:
        f = open(path, encoding="utf-8", newline="")
    except OSError as e:
        raise AnalysisInputError(f"{path}: cannot read ({e.strerror})") from None
    with f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise AnalysisInputError(f"{path}: empty file (no header)") from None
        missing = [c for c in AGG_REQUIRED if c not in header]
        if missing:
            raise AnalysisInputError(f"{path}: missing column(s) {', '.join(missing)} "
                                     f"(columns: {', '.join(header)})")
        col = {name: i for i, name in enumerate(header)}
        # The axis columns sit between "point" and "arm".
        axes = header[col["point"] + 1:col["arm"]]
        rows = []
        for lineno, cells in enumerate(reader, 2):
            if not cells:
                continue
            where = f"{path}:{lineno}"
            if len(cells) != len(header):
                raise AnalysisInputError(f"{where}: {len(cells)} cells, the header has "
                                         f"{len(header)}")
            params = {a: _parse_cell_value(cells[col["point"] + 1 + i])
                      for i, a in enumerate(axes)}

            def get(name, cells=cells):
                return cells[col[name]] if name in col else None
            rows.append(_row_from_fields(get, params, where))
    return AggregateTable(rows, axes, path)


def load_aggregate(path):
    """An AggregateTable from OUT/ (aggregate.jsonl preferred, else aggregate.csv) or a file."""
    if os.path.isdir(path):
        jsonl = os.path.join(path, "aggregate.jsonl")
        csv_path = os.path.join(path, "aggregate.csv")
        axes, names = None, {}
        if os.path.exists(os.path.join(path, "sweep.json")):
            manifest = load_manifest(path)
            axes, names = manifest.axes, manifest.axis_names
        if os.path.exists(jsonl):
            table = load_aggregate_jsonl(jsonl, axes)
        elif os.path.exists(csv_path):
            table = load_aggregate_csv(csv_path)
        else:
            table = None
        if table is not None:
            table.axis_names = dict(names)
            return table
        raise AnalysisInputError(f"{path}: neither aggregate.jsonl nor aggregate.csv (run "
                                 f"`fdsim sweep SWEEP --out {path} --aggregate-only`)")
    if path.endswith(".csv"):
        return load_aggregate_csv(path)
    if not os.path.exists(path):
        raise AnalysisInputError(f"{path}: no such file or directory")
    return load_aggregate_jsonl(path)


# --- a whole sweep output -----------------------------------------------------------------

class Sweep:
    """A sweep output directory: manifest, aggregate (loaded on first use), run results."""

    def __init__(self, out_dir):
        if not os.path.isdir(out_dir):
            raise AnalysisInputError(f"{out_dir}: not a directory (expected a sweep output)")
        self.out_dir = out_dir
        self.manifest = load_manifest(out_dir)
        self._aggregate = None
        self._runs = {}

    @property
    def aggregate(self):
        if self._aggregate is None:
            self._aggregate = load_aggregate(self.out_dir)
        return self._aggregate

    def run_path(self, run_id):
        return os.path.join(self.out_dir, "runs", run_id + ".json")

    def run(self, run_id):
        """The result of one run, or None if it has none (failed, not run, other shard)."""
        if run_id not in self._runs:
            path = self.run_path(run_id)
            self._runs[run_id] = load_run(path) if os.path.exists(path) else None
        return self._runs[run_id]

    def runs(self, point=None):
        """Results present, in manifest order (each distinct run once), of one point or all."""
        out, seen = [], set()
        for p in self.manifest.points:
            if point is not None and p.index != point:
                continue
            for rid in p.run_ids:
                if rid in seen:
                    continue
                seen.add(rid)
                r = self.run(rid)
                if r is not None:
                    out.append(r)
        return out

    def first_run(self, point):
        """The first run result of a point (for its resolved config), or None."""
        for p in self.manifest.points:
            if p.index == point:
                for rid in p.run_ids:
                    r = self.run(rid)
                    if r is not None:
                        return r
        return None


def load_sweep(out_dir):
    return Sweep(out_dir)
