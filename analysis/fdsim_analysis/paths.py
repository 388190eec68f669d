"""Two kinds of paths into JSON documents.

- Metric paths, as in the sweep aggregate's "metric" column: dotted keys relative to one arm's
  metrics, array elements as "name[3]" ("detection_time_s.mean", "membership.views_count",
  "values[0]"). flatten_metrics() produces exactly these names from a metrics object
  (numeric leaves only; booleans and strings are skipped; a null leaf maps to None).
- Config paths, as in sweep axes: "$.load_sharing.arms[1].timeout_ms" (grammar of
  sim/sweep/json_path.h: "$" then ".key" or "[index]" steps, no quoting).

Contract: lookups never raise on a missing step; they return MISSING (a sentinel distinct from
None, which is a JSON null). A malformed path raises ValueError naming it.
"""

import re

MISSING = object()

_CONFIG_STEP = re.compile(r"\.([A-Za-z0-9_\-]+)|\[(\d+)\]")
_METRIC_STEP = re.compile(r"(?:^|\.)([^.\[\]]+)|\[(\d+)\]")


def _steps(path, pattern, start):
    steps = []
    pos = start
    while pos < len(path):
        m = pattern.match(path, pos)
        if not m or m.end() == pos:
            raise ValueError(f"bad path {path!r} at character {pos}")
        steps.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return steps


def config_path_steps(path):
    """Steps of a "$.a.b[1]" path: ["a", "b", 1]."""
    if not isinstance(path, str) or not path.startswith("$") or len(path) < 2:
        raise ValueError(f"bad config path {path!r}: expected \"$.key...\"")
    return _steps(path, _CONFIG_STEP, 1)


def metric_path_steps(path):
    """Steps of a "a.b[1].c" metric path: ["a", "b", 1, "c"]."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"bad metric path {path!r}")
    return _steps(path, _METRIC_STEP, 0)


def _walk(doc, steps):
    cur = doc
    for s in steps:
        if isinstance(s, int):
            if not isinstance(cur, list) or s >= len(cur):
                return MISSING
            cur = cur[s]
        else:
            if not isinstance(cur, dict) or s not in cur:
                return MISSING
            cur = cur[s]
    return cur


def get_config(doc, path):
    """The value at config path `path` in `doc`, or MISSING."""
    return _walk(doc, config_path_steps(path))


def get_metric(arm_metrics, path):
    """The value at metric path `path` in one arm's metrics, or MISSING."""
    return _walk(arm_metrics, metric_path_steps(path))


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def flatten_metrics(arm_metrics, prefix=""):
    """{dotted name: float or None} over numeric (and null) leaves, as the sweep aggregate does."""
    out = {}

    def rec(v, name):
        if isinstance(v, dict):
            for k, x in v.items():
                rec(x, f"{name}.{k}" if name else k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                rec(x, f"{name}[{i}]")
        elif _is_number(v):
            out[name] = float(v)
        elif v is None and name:
            out[name] = None

    rec(arm_metrics, prefix)
    return out
