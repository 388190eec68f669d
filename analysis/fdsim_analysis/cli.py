"""Command line: fdsim-analysis <subcommand> ... (or python3 -m fdsim_analysis ...)

Exit codes: 0 ok; 2 bad input or usage (the message names the file and what is missing);
1 anything unexpected (a bug: the traceback is printed).
"""

import argparse
import os
import sys
import traceback

from . import metric_names as names
from .aggregate import aggregate_runs, attach_point_configs
from .errors import AnalysisInputError
from .figures import (figure_cdf, figure_geode_gc, figure_loadsharing, figure_metric,
                      figure_qos_tradeoff, parse_where)
from .loading import load_runs, load_sweep
from .output_dirs import default_output_dir
from .plotting import SIZES_IN, save_figure
from .study_cli import add_study_parser, run_study
from .equal_cost_cli import add_equal_cost_parser, run_equal_cost
from .tables import metric_table, summary_markdown, to_csv, to_markdown

EPILOG = """\
inputs:
  --sweep OUT      a sweep output directory (sweep.json, aggregate.jsonl or .csv, runs/)
  --runs PATH...   run result files or directories of them (fdsim run outputs); they are
                   aggregated here (Student t 95% half-widths; paired differences against the
                   reference arm), grouped into points by --axis paths of their resolved
                   config (default: one point per distinct scenario)
metrics:
  a --metric is a role of fdsim_analysis/metric_names.py (e.g. dynamic_failure_probability,
  mistake_rate, geode_removal_time_mean) or a literal metric path as in aggregate.csv
  (e.g. detection_time_mean_s, membership.views_installed_count).

figures:
  without --out a figure goes to OUT/figures/, next to the sweep (or the run files) it came
  from; for a sweep committed under a repository's results/ folder it goes to that
  repository's out/figures/<same sub-path> instead, never into results/.

examples:
  fdsim-analysis summary results/flagship
  fdsim-analysis summary out/grid --metric mistake_rate
  fdsim-analysis figure qos --sweep out/grid                       # -> out/grid/figures/
  fdsim-analysis figure loadsharing --sweep OUT --diff --out figs/
  fdsim-analysis figure cdf --sweep OUT
  fdsim-analysis figure geode-gc --sweep OUT
  fdsim-analysis figure metric --sweep OUT --x pause_ms --y geode_false_removals --facet profile
  fdsim-analysis table --sweep OUT --metric mistake_rate --format csv --where loss=0,0.01

axes besides x:
  every figure refuses (exit 2) a sweep axis that varies besides its x axis (or, for the
  trade-off figures, besides the one parameter along each curve) and is not split: fix it
  with --where AXIS=VALUE (or V1,V2 to keep several), or draw one panel per value with
  --facet AXIS. An axis is named by its JSON path or by its "name" in the sweep file.
"""


def _add_input(p, positional=False):
    if positional:
        p.add_argument("input", metavar="OUT",
                       help="a sweep output directory, or a run result file / directory of "
                            "run results")
    else:
        g = p.add_mutually_exclusive_group(required=True)
        g.add_argument("--sweep", metavar="OUT", help="sweep output directory")
        g.add_argument("--runs", metavar="PATH", nargs="+",
                       help="run result files or directories")
    p.add_argument("--axis", metavar="PATH", action="append", default=[],
                   help="with run results: config path grouping runs into points "
                        "(e.g. $.workload.arrival_rate_per_s); repeatable")
    p.add_argument("--reference-arm", metavar="ARM",
                   help="with run results: the arm paired differences are taken against "
                        "(default: the first arm). A sweep's is fixed by fdsim sweep")
    p.add_argument("--where", metavar="AXIS=VALUE", action="append", default=[],
                   help="keep only points whose axis (its JSON path or its name) has VALUE "
                        "(JSON or text), or one of V1,V2,...; repeatable: the same axis "
                        "again adds values (or), another axis narrows further (and); an "
                        "unknown value is an error listing the values present")
    p.add_argument("--arm", dest="arms", metavar="ARM", action="append",
                   help="keep only this arm; repeatable (default: every arm)")


def _add_figure_output(p, default_name):
    p.add_argument("--out", metavar="DIR", default=None,
                   help="output directory (default: figures/ next to the sweep or run files; "
                        "see 'figures' in fdsim-analysis --help)")
    p.add_argument("--name", default=default_name,
                   help=f"file name without extension (default: {default_name})")
    p.add_argument("--format", dest="formats", default="png,svg",
                   help="comma-separated formats among png, svg, pdf (default: png,svg)")
    p.add_argument("--size", choices=sorted(SIZES_IN), default=None,
                   help="paper size: single (one column), double (two columns), square")
    p.add_argument("--title", help="an axes title (papers usually put it in the caption); a "
                                   "--where selection is added to it")


def _add_facet(p):
    p.add_argument("--facet", metavar="AXIS",
                   help="one panel per value of this sweep axis (path or name), sharing the y "
                        "axis; the other varying axes must still be fixed with --where")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="fdsim-analysis",
        description="Figures and tables from fdsim result files (run results and sweep "
                    "outputs).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("summary", help="compact markdown table of the headline metric",
                       description="Prints a markdown table to stdout: per point and arm, the "
                                   "headline metric (first of " +
                                   ", ".join(names.HEADLINE_ROLES) +
                                   " present) with its 95% CI, n and the paired difference "
                                   "against the reference arm.")
    _add_input(p, positional=True)
    p.add_argument("--metric", help="metric role or path instead of the headline metric")

    p = sub.add_parser("table", help="table of metrics per point and arm (markdown or CSV)",
                       description="Per point and arm: each metric's mean ± 95% half-width "
                                   "(n) and its paired difference against the reference arm.")
    _add_input(p)
    p.add_argument("--metric", dest="metrics", action="append", metavar="M",
                   help="metric role or path; repeatable (default: the headline metric)")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--no-diff", action="store_true", help="leave out paired differences")
    p.add_argument("--all-axes", action="store_true",
                   help="show every axis column, not only the ones that vary")

    p = sub.add_parser("metrics", help="list the metric names present and the roles they fill")
    _add_input(p)

    fig = sub.add_parser("figure", help="make a figure (PNG and SVG)",
                         description="Makes one figure and writes it to --out.")
    figs = fig.add_subparsers(dest="figure", required=True, metavar="FIGURE")

    p = figs.add_parser("loadsharing", help="P(dynamic failure) against load, one line per arm",
                        description="P(dynamic failure) (or --metric) against the load axis of "
                                    "the sweep, one line per diagnosis arm, 95% error bars. "
                                    "Other varying axes must be fixed with --where.")
    _add_input(p)
    p.add_argument("--metric", default="dynamic_failure_probability",
                   help="y metric (default: dynamic_failure_probability)")
    p.add_argument("--x-axis", metavar="PATH",
                   help="the sweep axis on x (default: the only varying axis, or the one "
                        "ending in " + ", ".join(names.LOAD_AXIS_SUFFIXES) + ")")
    p.add_argument("--x-label", help="x axis label (the unit is added)")
    p.add_argument("--diff", action="store_true",
                   help="add a panel with the paired difference against the reference arm")
    p.add_argument("--log-y", action="store_true", help="logarithmic y axis")
    _add_facet(p)
    _add_figure_output(p, "loadsharing_dynamic_failure")

    p = figs.add_parser("metric", help="any metric against any sweep axis, one line per arm",
                        description="A metric (role or path) against a numeric sweep axis, one "
                                    "line per arm (or per value of --hue), 95%% error bars; "
                                    "--facet draws one panel per value of another axis. Every "
                                    "other varying axis must be fixed with --where.")
    _add_input(p)
    p.add_argument("--x", dest="x_axis", metavar="AXIS",
                   help="the sweep axis on x, path or name (default: the only varying axis)")
    p.add_argument("--y", dest="y_metric", metavar="METRIC", required=True,
                   help="the metric on y: a role of metric_names.py or a metric path")
    p.add_argument("--hue", metavar="ARM|AXIS", default="arm",
                   help="what the lines are: 'arm' (default, one per arm) or a sweep axis "
                        "(one line per value, and per arm when several arms are kept)")
    p.add_argument("--x-label", help="x axis label (the unit is added)")
    p.add_argument("--diff", action="store_true",
                   help="add a panel with the paired difference against the reference arm")
    p.add_argument("--log-y", action="store_true", help="logarithmic y axis")
    _add_facet(p)
    _add_figure_output(p, "metric")

    p = figs.add_parser("qos", help="detector QoS trade-off: mistake rate vs detection time",
                        description="Mistake rate (log y) against mean detection time, one "
                                    "curve per detector: per arm across the sweep points, or "
                                    "per detector kind across the arms of one scenario.")
    _add_input(p)
    p.add_argument("--group-by", choices=("auto", "arm", "kind"), default="auto",
                   help="curve per arm or per detector kind (auto: arm if several points)")
    p.add_argument("--x-metric", default="detection_time_mean")
    p.add_argument("--y-metric", default="mistake_rate")
    p.add_argument("--split-by", metavar="PATH", action="append", default=[],
                   help="sweep axis whose values also split the curves; repeatable")
    _add_facet(p)
    _add_figure_output(p, "detector_qos_tradeoff")

    p = figs.add_parser("cdf", help="CDFs of Geode detection and removal times",
                        description="Empirical CDFs from the per-run lists of the run results, "
                                    "one line per (profile, member-timeout[, arm]). Each line "
                                    "pools the runs with equal group values: --where keeps "
                                    "only some runs (by sweep axis path or name, or any config "
                                    "path of --runs); a sweep axis that varies among the runs "
                                    "kept and is not a --group-path is pooled, which a note "
                                    "and the figure title say.")
    _add_input(p)
    p.add_argument("--list", dest="lists", action="append", metavar="ROLE",
                   help="list role (" + ", ".join(names.LISTS) + ") or a metric path of a "
                        "list; repeatable; one panel each (default: both roles)")
    p.add_argument("--group-path", dest="group_paths", action="append", metavar="PATH",
                   help="config path grouping runs into lines; repeatable (default: " +
                        names.GEODE_PROFILE + " and " + names.GEODE_MEMBER_TIMEOUT + ")")
    _add_figure_output(p, "geode_time_cdfs")

    p = figs.add_parser("geode-gc", help="Geode under GC pauses: false removals vs removal time",
                        description="False removals against mean removal time for the Geode "
                                    "ring under GC pauses, one curve per neighbour-check arm "
                                    "(fixed member-timeout versus adaptive detectors).")
    _add_input(p)
    p.add_argument("--group-by", choices=("auto", "arm", "kind"), default="auto")
    p.add_argument("--x-metric", default="geode_removal_time_mean")
    p.add_argument("--y-metric", default="geode_false_removals",
                   help="e.g. geode_false_removals or geode_false_removal_rate")
    p.add_argument("--log-y", action="store_true")
    p.add_argument("--split-by", metavar="PATH", action="append", default=None,
                   help="sweep axis whose values also split the curves; repeatable "
                        "(default: " + names.GEODE_PROFILE + " when it varies)")
    _add_facet(p)
    _add_figure_output(p, "geode_gc_false_removals")

    add_study_parser(sub)
    from .studies.runner import add_parser as add_regenerate_parser
    add_regenerate_parser(sub)
    add_equal_cost_parser(sub)
    return parser


# --- input handling -------------------------------------------------------------------------

def _is_sweep_dir(path):
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "sweep.json"))


def _load_table(args, sweep_dir=None, run_paths=None):
    sweep_dir = sweep_dir or getattr(args, "sweep", None)
    run_paths = run_paths or getattr(args, "runs", None)
    if sweep_dir:
        if args.axis:
            raise AnalysisInputError("--axis applies to --runs only (a sweep has its axes)")
        if args.reference_arm:
            raise AnalysisInputError("--reference-arm applies to --runs only (a sweep's "
                                     "reference arm is set by fdsim sweep --reference-arm)")
        sweep = load_sweep(sweep_dir)
        table = attach_point_configs(sweep.aggregate, sweep)
        table.axis_names = dict(sweep.manifest.axis_names)
        return table, sweep
    runs = load_runs(run_paths)
    source = run_paths[0] if len(run_paths) == 1 else f"{run_paths[0]} (+{len(run_paths) - 1})"
    return aggregate_runs(runs, args.axis, args.reference_arm, source=source), None


def _load_run_results(args):
    if args.sweep:
        sweep = load_sweep(args.sweep)
        runs = sweep.runs()
        if not runs:
            raise AnalysisInputError(f"{args.sweep}: no run results in runs/")
        return runs, args.sweep
    runs = load_runs(args.runs)
    return runs, args.runs[0]


def default_figure_dir(args, notes):
    """Where a figure goes without --out: OUT/figures/ for --sweep OUT; for --runs, figures/ in
    the folder of the first path (the sweep folder when that is a sweep's runs/). A source in a
    repository's committed results/ maps to <repository>/out/figures/<path below results/>."""
    if getattr(args, "sweep", None):
        base = args.sweep
    else:
        first = args.runs[0]
        base = first if os.path.isdir(first) else (os.path.dirname(first) or ".")
        norm = os.path.normpath(base)
        parent = os.path.dirname(norm) or "."
        if os.path.basename(norm) == "runs" and _is_sweep_dir(parent):
            base = parent
    return default_output_dir(base, notes, "figures")


def _save(fig, args, out, notes):
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for f in formats:
        if f not in ("png", "svg", "pdf"):
            raise AnalysisInputError(f"--format {f}: expected png, svg or pdf")
    out_dir = args.out if args.out else default_figure_dir(args, notes)
    for path in save_figure(fig, out_dir, args.name, formats):
        print(path, file=out)


def _print_notes(notes, err):
    for n in notes:
        print(f"note: {n}", file=err)


def run(argv, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    notes = []
    if args.command == "summary":
        if _is_sweep_dir(args.input):
            table, _ = _load_table(args, sweep_dir=args.input)
        else:
            table, _ = _load_table(args, run_paths=[args.input])
        out.write(summary_markdown(table, args.metric, parse_where(args.where), args.arms))
    elif args.command == "table":
        table, _ = _load_table(args)
        metrics = args.metrics
        if not metrics:
            from .tables import headline_metric
            metrics = [headline_metric(table)[1]]
        t = metric_table(table, metrics, parse_where(args.where), args.arms,
                         diff=not args.no_diff, all_axes=args.all_axes)
        text = to_csv(t) if args.format == "csv" else to_markdown(t)
        if args.out:
            os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
            with open(args.out, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            print(args.out, file=out)
        else:
            out.write(text)
    elif args.command == "metrics":
        table, _ = _load_table(args)
        roles = {}
        for role, path in names.METRICS.items():
            roles.setdefault(path, []).append(role)
        for m in table.metrics():
            r = roles.get(m)
            print(m + (f"    <- {', '.join(r)}" if r else ""), file=out)
        missing = [f"{role} ({path})" for role, path in names.METRICS.items()
                   if not table.has_metric(path)]
        if missing:
            print("roles without data here: " + ", ".join(missing), file=err)
    elif args.command == "figure":
        where = parse_where(args.where)
        if args.figure == "loadsharing":
            table, _ = _load_table(args)
            fig = figure_loadsharing(table, metric=args.metric, x_axis=args.x_axis, where=where,
                                     arms=args.arms, diff=args.diff, x_label=args.x_label,
                                     log_y=args.log_y, size=args.size,
                                     title=args.title, notes=notes, facet=args.facet)
        elif args.figure == "metric":
            table, _ = _load_table(args)
            fig = figure_metric(table, args.y_metric, x_axis=args.x_axis, where=where,
                                arms=args.arms, facet=args.facet, hue=args.hue, diff=args.diff,
                                x_label=args.x_label, log_y=args.log_y, size=args.size,
                                title=args.title, notes=notes, suffixes=())
        elif args.figure == "qos":
            table, _ = _load_table(args)
            fig = figure_qos_tradeoff(table, group_by=args.group_by, where=where, arms=args.arms,
                                      split_by=args.split_by,
                                      x_metric=args.x_metric, y_metric=args.y_metric,
                                      size=args.size or "single", title=args.title, notes=notes,
                                      facet=args.facet)
        elif args.figure == "geode-gc":
            table, _ = _load_table(args)
            fig = figure_geode_gc(table, group_by=args.group_by, where=where, arms=args.arms,
                                  split_by=args.split_by,
                                  x_metric=args.x_metric, y_metric=args.y_metric,
                                  log_y=args.log_y, size=args.size or "single",
                                  title=args.title, notes=notes, facet=args.facet)
        else:  # cdf
            runs, source = _load_run_results(args)
            axes, axis_names = (), {}
            if args.sweep:
                manifest = load_sweep(args.sweep).manifest
                axes, axis_names = tuple(manifest.axes), manifest.axis_names
            fig = figure_cdf(runs, lists=tuple(args.lists or names.LISTS),
                             group_paths=tuple(args.group_paths or
                                               (names.GEODE_PROFILE, names.GEODE_MEMBER_TIMEOUT)),
                             arms=args.arms, size=args.size, title=args.title, notes=notes,
                             source=source, where=where, axes=axes, axis_names=axis_names)
        _save(fig, args, out, notes)
    elif args.command == "study":
        run_study(args, out, notes)
    elif args.command == "regenerate":
        from .studies.runner import main as regenerate_main
        return regenerate_main(args, out, err)
    elif args.command == "equal-cost":
        run_equal_cost(args, out, notes)
    _print_notes(notes, err)
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except AnalysisInputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception:  # a bug: show it
        traceback.print_exc()
        return 1
