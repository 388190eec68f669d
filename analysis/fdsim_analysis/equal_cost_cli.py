"""The `equal-cost` subcommand: an arm against every family's cost-metric frontier at the arm's
own cost, per sweep point (equal_cost.py).

  equal-cost --sweep OUT --arm ARM [--metric M] [--cost-metric C] [--family NAME=GLOB ...]
             [--tolerance-rel 0.005] [--boot 2000] [--seed 1] [--higher-is-better] [--out DIR]

writes DIR/equal_cost.md, DIR/equal_cost.csv and DIR/equal_cost.{png,svg} and prints the table.
Families: each --family NAME=GLOB puts the arms whose names match GLOB (fnmatch) in NAME, in
the order given (an arm goes to the first family that matches); without --family, an arm's
family is its configuration's kind: `diagnosis` for load-sharing arms, `detector.kind` for
heartbeat-detector arms. The challenger arm and arms of the challenger's own family are not
frontier candidates. Metric names are dotted paths into each arm's metrics
(`traffic.messages_per_node_s`).
"""

import fnmatch
import os

from .equal_cost import (ArmSeries, compare_at_equal_cost, equal_cost_csv, equal_cost_table,
                         figure_equal_cost)
from .errors import AnalysisInputError
from .loading import load_sweep
from .output_dirs import default_output_dir
from .plotting import save_figure


def add_equal_cost_parser(sub):
    p = sub.add_parser(
        "equal-cost",
        help="an arm against each family's cost-metric frontier at the arm's own cost",
        description="Per sweep point: each family's Pareto frontier of (mean cost, mean metric) "
                    "read at the challenger arm's mean cost (a calibrated arm, or paired linear "
                    "interpolation between the neighbouring frontier arms), with a paired "
                    "bootstrap interval over replications.")
    p.add_argument("--sweep", metavar="OUT", required=True, help="the sweep output directory")
    p.add_argument("--arm", required=True, help="the challenger arm")
    p.add_argument("--metric", default="dynamic_failure_feasible_ratio",
                   help="the metric compared (default: dynamic_failure_feasible_ratio)")
    p.add_argument("--cost-metric", default="traffic.messages_per_node_s",
                   help="the cost (default: traffic.messages_per_node_s)")
    p.add_argument("--family", action="append", default=None, metavar="NAME=GLOB",
                   help="a family of arms by name pattern; repeatable (default: each arm's "
                        "configured kind)")
    p.add_argument("--tolerance-rel", type=float, default=0.005,
                   help="an arm whose cost is this close (relative) to the challenger's is read "
                        "as calibrated (default 0.005)")
    p.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="bootstrap seed (default 1)")
    p.add_argument("--higher-is-better", action="store_true",
                   help="the metric is better when higher (default: lower is better)")
    p.add_argument("--out", metavar="DIR", help="output directory (default: OUT)")
    p.add_argument("--format", dest="formats", default="png,svg")


def _get(metrics, dotted):
    cur = metrics
    for k in dotted.split("."):
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return float(cur) if isinstance(cur, (int, float)) and not isinstance(cur, bool) else None


def _configured_kinds(cfg):
    kinds = {}
    for a in cfg.get("load_sharing", {}).get("arms", []) or []:
        if isinstance(a, dict) and isinstance(a.get("name"), str):
            kinds[a["name"]] = str(a.get("diagnosis"))
    for a in cfg.get("detectors", {}).get("arms", []) or []:
        if isinstance(a, dict) and isinstance(a.get("name"), str):
            kinds[a["name"]] = str((a.get("detector") or {}).get("kind"))
    return kinds


def _family_of(name, patterns, kinds):
    if patterns:
        for fam, glob in patterns:
            if fnmatch.fnmatchcase(name, glob):
                return fam
        return None
    return kinds.get(name)


def _parse_families(specs):
    out = []
    for s in specs or []:
        if "=" not in s or not s.split("=", 1)[0] or not s.split("=", 1)[1]:
            raise AnalysisInputError(f"--family {s!r}: expected NAME=GLOB")
        out.append(tuple(s.split("=", 1)))
    return out


def point_label(sweep, point):
    p = sweep.manifest.points[point]
    if p.params:
        return ", ".join(f"{sweep.manifest.axis_names.get(k) or k}={v}"
                         for k, v in p.params.items()
                         if not isinstance(v, (dict, list)))
    return f"point {point}"


def analyse_sweep(sweep, arm, metric, cost_metric, families=None, tolerance_rel=0.005,
                  n_boot=2000, seed=1, lower_is_better=True):
    """(rows, panels) for every point of `sweep` (see equal_cost.py)."""
    patterns = _parse_families(families)
    rows, panels = [], {}
    for p in sweep.manifest.points:
        runs = sweep.runs(p.index)
        if not runs:
            raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no run results")
        kinds = _configured_kinds(runs[0].resolved_config)
        names = runs[0].arm_order
        if arm not in names:
            raise AnalysisInputError(f"{sweep.out_dir}: point {p.index} has no arm {arm!r} "
                                     f"(arms: {', '.join(names)})")
        series = {}
        for name in names:
            fam = _family_of(name, patterns, kinds)
            if fam is None and name != arm:
                continue
            series[name] = ArmSeries(name, fam or "challenger",
                                     [_get(r.metrics.get(name, {}), cost_metric) for r in runs],
                                     [_get(r.metrics.get(name, {}), metric) for r in runs])
        ch = series[arm]
        label = point_label(sweep, p.index)
        by_family = {}
        for name, s in series.items():
            if name == arm or s.family == ch.family:
                continue
            by_family.setdefault(s.family, []).append(s)
        point_rows = []
        for fam in sorted(by_family):
            r = compare_at_equal_cost(ch, by_family[fam], tolerance_rel, n_boot,
                                      seed + p.index, lower_is_better=lower_is_better)
            if r is not None:
                r.label = label
                point_rows.append(r)
        rows.extend(point_rows)
        panels[label] = {"arms": [s for n, s in series.items() if n != arm],
                         "challenger": ch, "rows": point_rows}
    return rows, panels


def run_equal_cost(args, out, notes):
    sweep = load_sweep(args.sweep)
    rows, panels = analyse_sweep(sweep, args.arm, args.metric, args.cost_metric, args.family,
                                 args.tolerance_rel, args.boot, args.seed,
                                 not args.higher_is_better)
    out_dir = args.out or default_output_dir(args.sweep, notes)
    os.makedirs(out_dir, exist_ok=True)
    md = equal_cost_table(rows, args.metric, args.cost_metric)
    with open(os.path.join(out_dir, "equal_cost.md"), "w", encoding="utf-8") as f:
        f.write(md)
    with open(os.path.join(out_dir, "equal_cost.csv"), "w", encoding="utf-8") as f:
        f.write(equal_cost_csv(rows))
    fig = figure_equal_cost(panels, args.metric, args.cost_metric, not args.higher_is_better)
    save_figure(fig, out_dir, "equal_cost", tuple(args.formats.split(",")))
    out.write(md)
