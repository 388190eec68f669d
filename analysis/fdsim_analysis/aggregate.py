"""Aggregate tables: one row per (point, arm, metric) over replications.

An AggregateTable is what every figure and table reads. It comes either from a sweep's
OUT/aggregate.{jsonl,csv} (loading.load_aggregate) or from run results aggregated here
(aggregate_runs), with the same columns as the sweep helper writes (sim/sweep/aggregate.h):
point, params (axis path -> value), arm, metric, n, mean, sd, ci95_half_width, reference_arm,
diff_n, diff_mean, diff_sd, diff_ci95_half_width (the paired difference arm - reference arm
over the replications where both have the metric; None on the reference arm's own rows).

Contract:
- aggregate_runs() groups runs into points by the values at `axes` (config paths into each
  run's resolved_config) when given, else by the manifest's scenario_hash (several scenarios
  then get a pseudo-axis "scenario": the scenario name, with the hash when names repeat,
  points sorted by it); replications of a
  point are paired by run (every run holds all arms on common random numbers). Its statistics
  are stats.summarize (Student t). Two runs with the same point and replication are an error.
- select() keeps the rows whose params match every (axis, value) given; numbers compare by
  value (1 == 1.0). An axis is given by its path or its name; a value may be AnyOf(v1, v2,
  ...) (any of them: `--where PATH=V1,V2` or a repeated --where); a value that no point of the
  table has is an error naming the values that exist.
- Axis names: `axis_names` maps paths to the sweep file's "name"s (sweep.json "axis_names").
  axis_label() is what tables, legends and titles show: the given name, else the path's last
  key when no other axis of the table ends in the same key and it is not a bare unit
  (BARE_UNITS: "ms", "s", ...), else the full path. resolve_axis() maps a name or path back.
- require_metric() raises AnalysisInputError naming the metric, the source, and the closest
  metric names present, so a renamed metric is obvious.
"""

import difflib
import json
from dataclasses import dataclass, field
from typing import Optional

from .errors import AnalysisInputError
from .paths import MISSING, flatten_metrics, get_config
from .stats import paired_differences, summarize


@dataclass
class AggRow:
    point: int
    params: dict
    arm: str
    metric: str
    n: int
    mean: Optional[float]
    sd: Optional[float]
    ci95_half_width: Optional[float]
    reference_arm: Optional[str] = None
    diff_n: Optional[int] = None
    diff_mean: Optional[float] = None
    diff_sd: Optional[float] = None
    diff_ci95_half_width: Optional[float] = None


def values_equal(a, b):
    """Parameter equality: numbers by value (bools are not numbers), everything else by ==."""
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (type(a) is type(b) and a == b)
    if isinstance(a, num) and isinstance(b, num):
        return float(a) == float(b)
    return a == b


class AnyOf(tuple):
    """A where-value meaning "any of these values" (a tuple of alternatives): distinct from a
    JSON array value, which an axis may also take."""


# Last keys that say nothing on their own (a pause length at "$.faults[0].pause.ms" is not
# shown as "ms"); the same list as sim/sweep/tidy_export.cpp.
BARE_UNITS = ("ms", "s", "us", "ns", "per_s", "ratio", "count", "bytes")
# Columns of fdsim-analysis tables that an axis label must not repeat.
TABLE_COLUMNS = ("point", "arm", "metric", "reference_arm", "n", "mean")


def last_key(path):
    """The last key of a config path ("$.a.arms[1].timeout_ms" -> "timeout_ms"; an index after
    it is kept: "$.faults[0].nodes[2]" -> "nodes[2]")."""
    text = path[2:] if path.startswith("$.") else path
    parts = text.split(".")
    return parts[-1] if parts else path


def format_value(v):
    """A parameter value as text: strings bare, integral floats as integers, everything else
    as compact JSON."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))          # 3000.0 (a resolved config's number) reads as 3000
    return json.dumps(v, separators=(",", ":"))


def _sort_key(v):
    if isinstance(v, bool):
        return (1, int(v), "")
    if isinstance(v, (int, float)):
        return (0, float(v), "")
    return (2, 0.0, json.dumps(v, sort_keys=True) if not isinstance(v, str) else v)


@dataclass
class AggregateTable:
    rows: list
    axes: list = field(default_factory=list)
    source: str = "aggregate"
    # point index -> resolved scenario config of that point (from one of its runs), when known:
    # used to find each arm's kind (detector kind, diagnosis). See attach_point_configs().
    point_configs: dict = field(default_factory=dict)
    # axis path -> the sweep file's "name" of that axis (when it has one)
    axis_names: dict = field(default_factory=dict)

    def __post_init__(self):
        self._index = {(r.point, r.arm, r.metric): r for r in self.rows}

    # --- what is there -------------------------------------------------------------------
    def arms(self):
        seen = []
        for r in self.rows:
            if r.arm not in seen:
                seen.append(r.arm)
        return seen

    def points(self):
        """[(index, params)] sorted by index."""
        pts = {}
        for r in self.rows:
            pts.setdefault(r.point, r.params)
        return sorted(pts.items())

    def metrics(self):
        return sorted({r.metric for r in self.rows})

    def has_metric(self, metric):
        return any(r.metric == metric for r in self.rows)

    def require_metric(self, metric, role=None):
        if self.has_metric(metric):
            return metric
        names = self.metrics()
        close = difflib.get_close_matches(metric, names, n=5, cutoff=0.4)
        what = f"metric {metric!r}" + (f" (role {role!r} in fdsim_analysis/metric_names.py)" if role
                                       and role != metric else "")
        hint = f"; closest present: {', '.join(close)}" if close else ""
        raise AnalysisInputError(
            f"{self.source}: no {what} in the data ({len(names)} metrics present{hint})")

    def row(self, point, arm, metric):
        return self._index.get((point, arm, metric))

    # --- axis names ----------------------------------------------------------------------
    def axis_label(self, path):
        """How tables, legends and titles name the axis at `path` (module contract)."""
        name = self.axis_names.get(path)
        if name:
            return name
        key = last_key(path)
        taken = set(self.axis_names.values())
        same = [a for a in self.axes if last_key(a) == key and a != path]
        if same or key in BARE_UNITS or key in taken or key in TABLE_COLUMNS or key == path:
            return path
        return key

    def describe_axes(self):
        """"name ($.path), ..." of every axis, for messages."""
        if not self.axes:
            return "none"
        return ", ".join(a if self.axis_label(a) == a else f"{self.axis_label(a)} ({a})"
                         for a in self.axes)

    def resolve_axis(self, axis, option="--where"):
        """The path of the axis given by its path or its name (AnalysisInputError if none)."""
        if axis in self.axes:
            return axis
        for path in self.axes:
            if self.axis_names.get(path) == axis or self.axis_label(path) == axis:
                return path
        raise AnalysisInputError(f"{self.source}: {option} {axis}: not an axis of this sweep "
                                 f"(axes: {self.describe_axes()})")

    def axis_values(self, path):
        """The distinct values of an axis among the points, sorted."""
        vals = []
        for _, params in self.points():
            v = params.get(path, MISSING)
            if v is not MISSING and not any(values_equal(v, w) for w in vals):
                vals.append(v)
        return sorted(vals, key=_sort_key)

    def selection_text(self, where):
        """"name = v1, v2; other = v" of a where dict (for titles and table headers)."""
        parts = []
        for axis, v in (where or {}).items():
            path = self.resolve_axis(axis)
            alts = list(v) if isinstance(v, AnyOf) else [v]
            parts.append(f"{self.axis_label(path)} = " + ", ".join(format_value(a) for a in alts))
        return "; ".join(parts)

    # --- subsets ---------------------------------------------------------------------------
    def select(self, where=None, arms=None):
        """Rows whose params match `where` ({axis path or name: value or AnyOf(...)}) and whose
        arm is in `arms`."""
        resolved = {}
        for axis, v in (where or {}).items():
            path = self.resolve_axis(axis)
            alts = tuple(v) if isinstance(v, AnyOf) else (v,)
            present = self.axis_values(path)
            unknown = [a for a in alts if not any(values_equal(a, w) for w in present)]
            if unknown:
                raise AnalysisInputError(
                    f"{self.source}: --where {self.axis_label(path)}: no point has "
                    + ", ".join(format_value(u) for u in unknown)
                    + f" (values of {path}: " + ", ".join(format_value(w) for w in present) + ")")
            resolved.setdefault(path, [])
            resolved[path].extend(a for a in alts
                                  if not any(values_equal(a, b) for b in resolved[path]))
        where = resolved
        if arms is not None:
            unknown = [a for a in arms if a not in self.arms()]
            if unknown:
                raise AnalysisInputError(
                    f"{self.source}: unknown arm(s) {', '.join(unknown)} "
                    f"(arms: {', '.join(self.arms())})")
        rows = [r for r in self.rows
                if all(path in r.params and any(values_equal(r.params[path], v) for v in alts)
                       for path, alts in where.items())
                and (arms is None or r.arm in arms)]
        if not rows and self.rows:
            raise AnalysisInputError(
                f"{self.source}: no point matches "
                + "; ".join(f"{self.axis_label(p)} = " + ", ".join(format_value(v) for v in alts)
                            for p, alts in where.items()))
        return AggregateTable(rows, list(self.axes), self.source, dict(self.point_configs),
                              dict(self.axis_names))

    def varying_axes(self):
        """Axes that take more than one value among the rows."""
        out = []
        for a in self.axes:
            vals = []
            for _, params in self.points():
                v = params.get(a, MISSING)
                if not any(values_equal(v, w) for w in vals):
                    vals.append(v)
            if len(vals) > 1:
                out.append(a)
        return out


def sort_key_of_value(v):
    return _sort_key(v)


def aggregate_runs(runs, axes=(), reference_arm=None, source="runs"):
    """An AggregateTable over run results (loading.RunResult), see the module contract."""
    axes = list(axes)
    groups = {}   # key -> (params, [runs])
    order = []
    for run in runs:
        if axes:
            params = {}
            for a in axes:
                v = get_config(run.resolved_config, a)
                if v is MISSING:
                    raise AnalysisInputError(f"{run.path}: manifest.resolved_config has no {a}")
                params[a] = v
            key = json.dumps([params[a] for a in axes], sort_keys=True)
        else:
            params = {}
            key = run.point_key()
        if key not in groups:
            groups[key] = (params, [])
            order.append(key)
        groups[key][1].append(run)
    if axes:
        order.sort(key=lambda k: tuple(_sort_key(groups[k][0][a]) for a in axes))
    elif len(order) > 1:
        # Several scenarios and no axes: label the points by scenario name (plus the hash
        # when names repeat), as a pseudo-axis "scenario".
        labels = {k: groups[k][1][0].scenario_name for k in order}
        counts = {}
        for k in order:
            counts[labels[k]] = counts.get(labels[k], 0) + 1
        for k in order:
            h = groups[k][1][0].manifest.get("scenario_hash")
            if counts[labels[k]] > 1 and isinstance(h, str):
                labels[k] = f"{labels[k]}@{h[:8]}"
            groups[k][0]["scenario"] = labels[k]
        order.sort(key=lambda k: labels[k])
        axes = ["scenario"]

    rows = []
    configs = {}
    for index, key in enumerate(order):
        params, point_runs = groups[key]
        rc = point_runs[0].manifest.get("resolved_config")
        if isinstance(rc, dict):
            configs[index] = rc
        seen_reps = {}
        for run in point_runs:
            rep = run.replication
            if rep is not None:
                if rep in seen_reps:
                    raise AnalysisInputError(
                        f"{run.path}: same point and replication {rep} as {seen_reps[rep]} "
                        f"(a run given twice?)")
                seen_reps[rep] = run.path
        arms = []
        for run in point_runs:
            for a in run.arm_order:
                if a not in arms:
                    arms.append(a)
        ref = reference_arm if reference_arm is not None else (arms[0] if arms else None)
        if reference_arm is not None and reference_arm not in arms:
            raise AnalysisInputError(f"{source}: reference arm {reference_arm!r} is not an arm "
                                     f"(arms: {', '.join(arms)})")
        flat = [{a: flatten_metrics(run.metrics[a]) for a in run.arm_order} for run in point_runs]
        for arm in arms:
            names = sorted({m for f in flat if arm in f for m in f[arm]})
            for name in names:
                vals = [f[arm].get(name) if arm in f else None for f in flat]
                s = summarize(vals)
                row = AggRow(index, dict(params), arm, name, s.n, s.mean, s.sd,
                             s.ci95_half_width, reference_arm=ref)
                if ref is not None and arm != ref:
                    refs = [f[ref].get(name) if ref in f else None for f in flat]
                    d = summarize(paired_differences(vals, refs))
                    row.diff_n, row.diff_mean = d.n, d.mean
                    row.diff_sd, row.diff_ci95_half_width = d.sd, d.ci95_half_width
                rows.append(row)
    return AggregateTable(rows, axes, source, configs)


def attach_point_configs(table, sweep):
    """Fills table.point_configs from the first run result of each point of a sweep."""
    for index, _ in table.points():
        if index not in table.point_configs:
            run = sweep.first_run(index)
            if run is not None and isinstance(run.manifest.get("resolved_config"), dict):
                table.point_configs[index] = run.manifest["resolved_config"]
    return table
