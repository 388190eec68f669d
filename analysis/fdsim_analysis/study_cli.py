"""The `study` subcommand: whole-study reports (figures + tables) from one sweep output.

  study fixed-vs-adaptive --sweep OUT --out DIR
      writes DIR/fixed_vs_adaptive.{png,svg} (paired excess over the oracle, the headline),
      DIR/fixed_vs_adaptive_levels.{png,svg} (each arm's own level), DIR/headline.md,
      DIR/comparisons.md and DIR/comparisons.csv (see fixed_vs_adaptive_report), and prints
      the headline table. The run files in OUT/runs are read (the study pairs arms other than
      the sweep's reference arm). Without --out, DIR is OUT itself (for a sweep in a
      repository's committed results/ folder: out/figures/<same path>, see output_dirs.py).
"""

import os

from .errors import AnalysisInputError
from .fixed_vs_adaptive import ADAPTIVE_REFERENCE, analyse
from .fixed_vs_adaptive_report import (comparisons_csv, comparisons_markdown, figure_excess,
                                       figure_levels, headline_markdown)
from .loading import load_sweep
from .output_dirs import default_output_dir
from .plotting import save_figure

REPAIR_AXIS = "$.faults[0].mean_down_s"
REGIME_AXIS = "$.description"


def add_study_parser(sub):
    p = sub.add_parser("study", help="a whole study's figures and tables from one sweep",
                       description="Figures and tables of a named study from its sweep output.")
    studies = p.add_subparsers(dest="study", required=True, metavar="STUDY")
    s = studies.add_parser(
        "fixed-vs-adaptive",
        help="is any fixed timeout as good as the adaptive one? (scenarios/studies/"
             "fixed-vs-adaptive-sweep.json, scenarios/sweeps/flagship.json)",
        description="Per point (repair time x load regime): every fixed timeout against the "
                    "adaptive arms and the oracles, paired over replications; the best fixed "
                    "timeout in hindsight; gap shares; Holm-adjusted comparisons.")
    s.add_argument("--sweep", metavar="OUT", required=True, help="the sweep output directory")
    s.add_argument("--out", metavar="DIR", help="output directory (default: OUT; never a committed results/ folder)")
    s.add_argument("--metric", default="dynamic_failure_feasible_ratio",
                   help="the metric compared (default: dynamic_failure_feasible_ratio, "
                        "P(dynamic failure) of the tasks that could meet their deadline)")
    s.add_argument("--adaptive", default=ADAPTIVE_REFERENCE,
                   help=f"the adaptive arm every arm is tested against (default: "
                        f"{ADAPTIVE_REFERENCE})")
    s.add_argument("--rows-axis", default=REPAIR_AXIS,
                   help=f"sweep axis of the figure rows (default: {REPAIR_AXIS})")
    s.add_argument("--cols-axis", default=REGIME_AXIS,
                   help=f"sweep axis of the figure columns (default: {REGIME_AXIS})")
    s.add_argument("--format", dest="formats", default="png,svg",
                   help="comma-separated figure formats among png, svg, pdf")


def _row_label(repair_axis):
    def label(v):
        if repair_axis == REPAIR_AXIS and isinstance(v, (int, float)):
            return f"repair mean {v:g} s"
        return f"{repair_axis.rsplit('.', 1)[-1]} = {v}"
    return label


def _write_text(dest, name, text):
    path = os.path.join(dest, name)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def _formats(arg):
    formats = [f.strip() for f in arg.split(",") if f.strip()]
    for f in formats:
        if f not in ("png", "svg", "pdf"):
            raise AnalysisInputError(f"--format {f}: expected png, svg or pdf")
    return formats


def run_study(args, out, notes=None):
    sweep = load_sweep(args.sweep)
    for ax in (args.rows_axis, args.cols_axis):
        if ax not in sweep.manifest.axes:
            raise AnalysisInputError(f"{args.sweep}: the sweep has no axis {ax} (axes: "
                                     f"{', '.join(sweep.manifest.axes)})")
    formats = _formats(args.formats)
    study = analyse(sweep, metric=args.metric, adaptive=args.adaptive)
    dest = args.out or default_output_dir(args.sweep, notes if notes is not None else [])
    os.makedirs(dest, exist_ok=True)
    row_label = _row_label(args.rows_axis)

    def label(p):
        return f"{row_label(p.params.get(args.rows_axis))}, {p.params.get(args.cols_axis)}"
    written = []
    written += save_figure(figure_excess(study, args.rows_axis, args.cols_axis, row_label),
                           dest, "fixed_vs_adaptive", formats)
    written += save_figure(figure_levels(study, args.rows_axis, args.cols_axis, row_label),
                           dest, "fixed_vs_adaptive_levels", formats)
    for name, text in (("headline.md", headline_markdown(study, label)),
                       ("comparisons.md", comparisons_markdown(study)),
                       ("comparisons.csv", comparisons_csv(study))):
        written.append(_write_text(dest, name, text))
    out.write(headline_markdown(study, label))
    return written
