"""Tables from aggregates: per point and arm, each metric's mean with its 95% half-width and n,
and the paired difference against the reference arm; rendered as markdown or CSV.

Contract:
- metric_table() keeps the aggregate's numbers as they are (no re-computation): mean,
  ci95_half_width, n, and diff_mean, diff_ci95_half_width, diff_n (arm minus reference arm,
  paired over replications on common random numbers).
- to_markdown() prints mean ± half-width (4 significant digits) and "n/a" for missing values;
  to_csv() writes every number in full precision (repr), one column per quantity, empty cells
  for missing values. Row order: point index, then arm order.
- summary_markdown() is the compact `summary` view: the headline metric (the first role of
  metric_names.HEADLINE_ROLES present, unless one is given) with its 95% CI [mean - h, mean + h],
  n, and the paired difference against the reference arm.
- Axis columns are the axes that vary among the rows shown plus every axis a `where` selects
  on (so a selection of one value is still shown), named by AggregateTable.axis_label() (the
  sweep file's "name", else an unambiguous last key, else the full JSON path). The summary's
  header line names the selection ("where name = v1, v2").
- Multiplicity: wherever a table shows paired differences it also shows, per difference, the
  two-sided paired-t p-value and the Holm-adjusted p-value (multiplicity.py); the Holm family is
  every difference of that metric in the table (all points and arms shown), so a verdict read
  from the adjusted column holds for the table as a whole.
"""

import csv
import io
from dataclasses import dataclass, field

from . import metric_names as names
from .aggregate import format_value
from .errors import AnalysisInputError
from .multiplicity import holm, paired_t_p_value


@dataclass(frozen=True)
class Estimate:
    mean: object
    half_width: object
    n: object


@dataclass
class Table:
    columns: list            # column names
    rows: list               # cells: str, number, None, or Estimate
    estimate_columns: set = field(default_factory=set)  # indices of Estimate columns: each
                                                         # expands to 3 CSV columns


def fmt(x, digits=4):
    if x is None:
        return "n/a"
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    return f"{x:.{digits}g}"


def fmt_p(p):
    """A p-value for a table: empty when there is none, "<1e-4" below 1e-4."""
    if p is None:
        return ""
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


def _estimate_md(e):
    if e.mean is None:
        return "n/a"
    hw = f" ± {fmt(e.half_width)}" if e.half_width is not None else ""
    return f"{fmt(e.mean)}{hw} (n={e.n})"


def headline_metric(table):
    """(role or None, path) of the headline metric present in the table."""
    for role in names.HEADLINE_ROLES:
        path = names.metric_path(role)
        if table.has_metric(path):
            return role, path
    raise AnalysisInputError(
        f"{table.source}: none of the headline metrics "
        f"({', '.join(names.metric_path(r) for r in names.HEADLINE_ROLES)}) is in the data: "
        f"give --metric")


def _shown_axes(sub, where):
    """The varying axes and the axes selected on, in the table's axis order."""
    selected = {sub.resolve_axis(a) for a in (where or {})}
    varying = set(sub.varying_axes())
    return [a for a in sub.axes if a in varying or a in selected]


def metric_table(table, metrics, where=None, arms=None, diff=True, all_axes=False):
    """A Table with one row per (point, arm) and, per metric, its Estimate (and paired diff)."""
    paths = []
    for m in metrics:
        p = names.metric_path(m)
        table.require_metric(p, role=m)
        paths.append(p)
    sub = table.select(where, arms)
    axes = sub.axes if all_axes else _shown_axes(sub, where)
    columns = ["point"] + [sub.axis_label(a) for a in axes] + ["arm"]
    estimate_columns = set()
    for p in paths:
        estimate_columns.add(len(columns))
        columns.append(p)
        if diff:
            estimate_columns.add(len(columns))
            columns.append(f"{p} diff")
            columns += [f"{p} diff p", f"{p} diff p_holm"]
    if diff:
        columns.append("reference_arm")
    rows = []
    for point, params in sub.points():
        for arm in sub.arms():
            present = [sub.row(point, arm, p) for p in paths]
            if all(r is None for r in present):
                continue
            row = [point] + [params.get(a) for a in axes] + [arm]
            ref = None
            for r in present:
                row.append(Estimate(r.mean, r.ci95_half_width, r.n) if r else
                           Estimate(None, None, 0))
                if diff:
                    if r is not None and r.diff_n is not None:
                        row.append(Estimate(r.diff_mean, r.diff_ci95_half_width, r.diff_n))
                        row += [paired_t_p_value(r.diff_mean, r.diff_sd, r.diff_n), None]
                    else:
                        row += [None, None, None]
                if r is not None and r.reference_arm:
                    ref = r.reference_arm
            if diff:
                row.append(ref)
            rows.append(row)
    if diff:  # Holm per metric, over every row of the table
        for p in paths:
            col = columns.index(f"{p} diff p")
            for row, q in zip(rows, holm([row[col] for row in rows])):
                row[col + 1] = q
    return Table(columns, rows, estimate_columns)


def _cell_md(c):
    if isinstance(c, Estimate):
        return _estimate_md(c)
    if c is None:
        return ""
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return fmt(c)
    return format_value(c).replace("|", "\\|")


def to_markdown(t):
    head = "| " + " | ".join(c.replace("|", "\\|") for c in t.columns) + " |"
    sep = "|" + "|".join("---" for _ in t.columns) + "|"
    lines = [head, sep]
    for row in t.rows:
        cells = [_cell_md(c) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _num_csv(x):
    if x is None:
        return ""
    if isinstance(x, float):
        return repr(x)
    return str(x)


def to_csv(t):
    header = []
    est_cols = t.estimate_columns
    for i, c in enumerate(t.columns):
        if i in est_cols:
            header += [f"{c} mean", f"{c} ci95_half_width", f"{c} n"]
        else:
            header.append(c)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in t.rows:
        out = []
        for i, c in enumerate(row):
            if i in est_cols:
                if isinstance(c, Estimate):
                    out += [_num_csv(c.mean), _num_csv(c.half_width), _num_csv(c.n)]
                else:
                    out += ["", "", ""]
            elif c is None:
                out.append("")
            elif isinstance(c, (int, float)) and not isinstance(c, bool):
                out.append(_num_csv(c))
            else:
                out.append(format_value(c))
        w.writerow(out)
    return buf.getvalue()


def summary_markdown(table, metric=None, where=None, arms=None):
    """The compact markdown summary: per point and arm, the headline metric with its 95% CI,
    the paired difference against the reference arm and its raw and Holm-adjusted p-values."""
    if metric is None:
        role, path = headline_metric(table)
    else:
        role, path = metric, names.metric_path(metric)
        table.require_metric(path, role=metric)
    sub = table.select(where, arms)
    axes = _shown_axes(sub, where)
    label = names.label_of(role or path)
    selection = sub.selection_text(where) if where else ""
    refs = sorted({r.reference_arm for r in sub.rows if r.metric == path and r.reference_arm})
    shown = [(point, params, arm, sub.row(point, arm, path)) for point, params in sub.points()
             for arm in sub.arms()]
    shown = [x for x in shown if x[3] is not None]
    pvals = [paired_t_p_value(r.diff_mean, r.diff_sd, r.diff_n) for *_, r in shown]
    lines = [f"{sub.source}: {label} [{path}], mean and 95% CI over replications (Student t); "
             f"\u0394 = arm \u2212 {refs[0] if len(refs) == 1 else 'reference arm'}, paired "
             f"over replications; p: paired t, two-sided; p (Holm): adjusted over the "
             f"{sum(1 for x in pvals if x is not None)} differences of this table"
             + (f"; where {selection}" if selection else "")
             + (f"; {label} {names.HEADLINE_NOTES[role or path]}"
                if (role or path) in names.HEADLINE_NOTES else ""), ""]
    cols = ["point"] + [sub.axis_label(a) for a in axes] + ["arm", "mean", "95% CI", "n", "\u0394 (95% CI)", "p",
                               "p (Holm)"]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "|".join("---" for _ in cols) + "|")
    for (point, params, arm, r), pv, q in zip(shown, pvals, holm(pvals)):
        if r.mean is not None and r.ci95_half_width is not None:
            ci = f"[{fmt(r.mean - r.ci95_half_width)}, {fmt(r.mean + r.ci95_half_width)}]"
        else:
            ci = "n/a"
        if r.diff_mean is not None:
            d = fmt(r.diff_mean) + (f" ± {fmt(r.diff_ci95_half_width)}"
                                    if r.diff_ci95_half_width is not None else "")
        elif r.reference_arm == arm:
            d = "(reference)"
        else:
            d = "n/a"
        cells = [str(point)] + [format_value(params.get(a)) for a in axes] + [
            arm, fmt(r.mean), ci, str(r.n), d, fmt_p(pv), fmt_p(q)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
