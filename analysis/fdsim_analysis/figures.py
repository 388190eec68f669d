"""The figures of the study, each a function returning a matplotlib Figure.

- figure_loadsharing: P(dynamic failure) against load, one line per diagnosis arm, 95% error
  bars; optionally a second panel with the paired difference of each arm minus the reference arm.
- figure_qos_tradeoff: failure-detector QoS trade-off, mistake rate (log y) against mean
  detection time, one curve per detector, 95% error bars in both directions.
- figure_cdf: empirical CDFs of Geode detection time and removal time from the per-run lists,
  one line per (profile, member-timeout[, arm]).
- figure_geode_gc: false removals against mean removal time for the Geode ring under GC pauses,
  one curve per neighbour-check arm (fixed member-timeout versus adaptive detectors).
- figure_tradeoff: the generic "metric against metric, one curve per group" behind the two
  trade-off figures.
- figure_metric: any metric against any numeric sweep axis, one line per arm (or per value of
  a --hue axis), optionally one panel per value of a --facet axis.

One rule for every figure drawn from an aggregate: a sweep axis that varies but is neither on
the x axis (the curve's parameter, for the trade-off figures), nor split into separate curves,
nor faceted is refused (AnalysisInputError naming the axes, with the fix: --where AXIS=VALUE to
keep some values, or --facet AXIS for one panel per value); nothing is silently averaged or
drawn as a zig-zag. With `facet` (an axis path or name), each panel holds the points of one
value of that axis, panels share the y axis, and the value is the panel's title. A `where`
selection is named in the figure title ("name = v1, v2"), after any given title.
Axes are named by AggregateTable.axis_label(): the sweep file's "name", else an unambiguous
last key, else the full path.

Contract: inputs are AggregateTables (aggregate.py) or run results (loading.RunResult); metric
arguments are roles of fdsim_analysis/metric_names.py or literal metric paths. Input that cannot
make the figure (a missing metric, an ambiguous x axis, a non-numeric axis, no data) raises
AnalysisInputError naming what is missing. Things silently left out of a figure (points with a
zero value on a log axis, runs without a per-run list) are reported as lines appended to the
`notes` list when one is given. Every axis gets a label with its unit.
"""

import json

from . import metric_names as names
from .aggregate import (BARE_UNITS, AnyOf, format_value, last_key, sort_key_of_value,
                        values_equal)
from .arm_kinds import table_arm_kinds
from .errors import AnalysisInputError
from .paths import MISSING, get_config, get_metric
from .plotting import (STYLE, legend, legend_right, line_with_ci, new_figure, series_style,
                       start_counts_at_zero, step_cdf)


def _note(notes, text):
    if notes is not None:
        notes.append(text)


def axis_label(path, label=None):
    """"$.workload.arrival_rate_per_s" -> "arrival rate (1/s)"."""
    unit = names.unit_of(path)
    if label is None:
        last = path.replace("[", ".").rstrip("]").split(".")[-1]
        for suffix in ("_per_member_hour", "_per_s", "_ms", "_s", "_ratio", "_count", "_bytes"):
            if last.endswith(suffix) and len(last) > len(suffix):
                last = last[: -len(suffix)]
                break
        label = last.replace("_", " ")
    return f"{label} ({unit})" if unit else label


def _require(table, role_or_path):
    path = names.metric_path(role_or_path)
    table.require_metric(path, role=role_or_path)
    return path


def refuse_other_axes(table, others, what):
    """The one rule (module contract): `others` (axis paths) vary besides `what`."""
    if not others:
        return
    labels = ", ".join(table.axis_label(a) if table.axis_label(a) == a
                       else f"{table.axis_label(a)} ({a})" for a in others)
    first = table.axis_label(others[0])
    vals = table.axis_values(others[0])
    example = format_value(vals[0]) if vals else "VALUE"
    raise AnalysisInputError(
        f"{table.source}: {'axis' if len(others) == 1 else 'axes'} {labels} "
        f"{'varies' if len(others) == 1 else 'vary'} besides {what}: fix "
        f"{'it' if len(others) == 1 else 'them'} with --where AXIS=VALUE (e.g. --where "
        f"{first}={example}, or several values V1,V2) or draw one panel per value with "
        f"--facet AXIS (e.g. --facet {first})")


def choose_x_axis(table, x_axis=None, suffixes=names.LOAD_AXIS_SUFFIXES, facet=None,
                  hue=None):
    """The sweep axis to use as x: the given one (path or name), else the only varying axis
    (besides `facet` and `hue`, axis paths), else the first varying axis ending with one of
    `suffixes`. Other varying axes are refused (refuse_other_axes)."""
    varying = [a for a in table.varying_axes() if a not in (facet, hue)]
    if x_axis is not None:
        x_axis = table.resolve_axis(x_axis, "--x-axis")
    elif len(varying) == 1:
        x_axis = varying[0]
    else:
        matching = [a for s in suffixes for a in varying if a.endswith(s)]
        if not varying:
            raise AnalysisInputError(
                f"{table.source}: no sweep axis varies, nothing to put on the x axis "
                f"(axes: {', '.join(table.axes) or 'none'})")
        if not matching:
            raise AnalysisInputError(
                f"{table.source}: cannot tell which axis is the x axis among "
                f"{', '.join(table.axis_label(a) for a in varying)}: give --x-axis")
        x_axis = matching[0]
    others = [a for a in varying if a != x_axis]
    refuse_other_axes(table, others, f"the x axis {table.axis_label(x_axis)}")
    return x_axis


def _numeric_x(value, table, x_axis):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnalysisInputError(f"{table.source}: axis {x_axis} has a non-numeric value "
                                 f"{format_value(value)}: it cannot be an x axis")
    return float(value)


def _facet_tables(sub, facet):
    """[(panel title or None, table)]: one per value of the `facet` axis path (sorted), or the
    whole table."""
    if facet is None:
        return [(None, sub)]
    label = sub.axis_label(facet)
    return [(f"{label} = {format_value(v)}", sub.select({facet: v}))
            for v in sub.axis_values(facet)]


def _panel_grid(size, n_panels, per_panel_cols=1):
    """A figure of n_panels panels (each `per_panel_cols` axes wide), at most 3 panels a row;
    the height grows with the rows. Returns (fig, [[axes of panel 0], ...])."""
    cols = min(n_panels, 3)
    rows = -(-n_panels // cols)
    fig, axes = new_figure(size, ncols=cols * per_panel_cols, nrows=rows,
                           sharey=n_panels > 1 and per_panel_cols == 1)
    axes = axes if isinstance(axes, list) else [axes]
    if rows > 1:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, h * (0.75 * rows + 0.25))
    panels = []
    for i in range(n_panels):
        r, c = divmod(i, cols)
        base = r * cols * per_panel_cols + c * per_panel_cols
        panels.append(axes[base:base + per_panel_cols])
    for ax in axes[n_panels * per_panel_cols:]:
        ax.set_visible(False)
    return fig, panels


def _title_with_selection(table, title, where):
    sel = table.selection_text(where) if where else ""
    if title and sel:
        return f"{title} ({sel})"
    return title or sel or None


def _series_of(sub, points, x_axis, path, arm, diff=False):
    series = []
    for p, params in points:
        r = sub.row(p, arm, path)
        if r is None:
            continue
        mean = r.diff_mean if diff else r.mean
        hw = r.diff_ci95_half_width if diff else r.ci95_half_width
        if mean is None:
            continue
        series.append((_numeric_x(params.get(x_axis), sub, x_axis), mean, hw))
    series.sort(key=lambda s: s[0])
    return series


def _draw_lines(ax, sub, x_axis, path, lines, diff=False):
    """One line per (label, style index, arm, {axis: value} or None) of `lines`, x = the axis
    values, y = the metric's mean (or paired difference) with its 95% bars. Returns the labels
    drawn."""
    drawn = []
    for label, index, arm, fixed in lines:
        part = sub.select(fixed) if fixed else sub
        series = _series_of(part, part.points(), x_axis, path, arm, diff)
        if not series:
            continue
        line_with_ci(ax, [s[0] for s in series], [s[1] for s in series],
                     [s[2] for s in series], label=label, index=index)
        drawn.append(label)
    return drawn


def _line_specs(sub, hue=None):
    """[(label, style index, arm, fixed {hue axis: value} or None)]: a line per arm, or with a
    hue axis per (hue value[, arm when several])."""
    arms = sub.arms()
    if hue is None:
        return [(arm, i, arm, None) for i, arm in enumerate(arms)]
    out = []
    label = sub.axis_label(hue)
    for v in sub.axis_values(hue):
        for arm in arms:
            text = f"{label}={format_value(v)}" + (f", {arm}" if len(arms) > 1 else "")
            out.append((text, len(out), arm, {hue: v}))
    return out


def figure_metric(table, y_metric, x_axis=None, where=None, arms=None, facet=None, hue=None,
                  diff=False, x_label=None, log_y=False, size=None, title=None, notes=None,
                  suffixes=names.LOAD_AXIS_SUFFIXES, what_y=None):
    """`y_metric` (role or metric path) against the numeric sweep axis `x_axis` (path or name;
    default: the only varying axis, else the one ending in `suffixes`), one line per arm, or per
    value of the `hue` axis; `facet`: one panel per value of that axis; `diff`: each panel gets
    a second one with the paired difference against the reference arm. Every other varying axis
    is refused (module contract).

    size None: "double" with the difference panel or facets, else "single". A given size is
    honoured: "single" with `diff` and no facet stacks the two panels in one column."""
    path = _require(table, what_y or y_metric)
    sub = table.select(where, arms)
    facet = sub.resolve_axis(facet, "--facet") if facet is not None else None
    hue = sub.resolve_axis(hue, "--hue") if hue is not None and hue != "arm" else None
    if facet is not None and facet == hue:
        raise AnalysisInputError(f"{table.source}: --facet and --hue name the same axis")
    x_axis = choose_x_axis(sub, x_axis, suffixes=suffixes, facet=facet, hue=hue)
    if x_axis in (facet, hue):
        raise AnalysisInputError(f"{table.source}: {sub.axis_label(x_axis)} cannot be both the "
                                 f"x axis and --facet/--hue")
    panels = _facet_tables(sub, facet)
    lines = _line_specs(sub, hue)
    if size is None:
        size = "double" if diff or facet else "single"
    stacked = diff and size == "single" and facet is None
    if stacked:
        fig, axes = new_figure(size, nrows=2)
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, 1.8 * h)
        grid = [axes]
    else:
        fig, grid = _panel_grid(size, len(panels), 2 if diff else 1)
    base = names.label_of(y_metric)
    refs = {r.reference_arm for r in sub.rows if r.metric == path and r.reference_arm}
    ref = sorted(refs)[0] if len(refs) == 1 else None
    any_drawn = False
    for (panel_title, part), axs in zip(panels, grid):
        ax = axs[0]
        drawn = _draw_lines(ax, part, x_axis, path, lines)
        any_drawn = any_drawn or bool(drawn)
        ax.set_xlabel(axis_label(x_axis, x_label if x_label else
                                 (sub.axis_names.get(x_axis))))
        ax.set_ylabel(base)
        if log_y:
            ax.set_yscale("log")
        start_counts_at_zero(ax, y_path=path)
        if panel_title:
            ax.set_title(panel_title)
        if diff:
            dax = axs[1]
            _draw_lines(dax, part, x_axis, path, [l for l in lines if l[2] != ref], diff=True)
            dax.axhline(0.0, color="0.4", linewidth=0.6)
            dax.set_xlabel(axis_label(x_axis, x_label if x_label else
                                      (sub.axis_names.get(x_axis))))
            dax.set_ylabel(f"\u0394 {base} vs {ref}" if ref else f"\u0394 {base} vs reference")
            if panel_title:
                dax.set_title(panel_title)
    if not any_drawn:
        raise AnalysisInputError(f"{table.source}: no value of {path} to plot")
    for label, _, arm, _ in lines:
        if not any(l.get_label() == label for axs in grid for l in axs[0].get_lines()) and \
                not any(c.get_label() == label for axs in grid for c in axs[0].containers):
            _note(notes, f"{label}: no value of {path}")
    if len(grid) == 1 and not (diff and not stacked):
        legend(grid[0][0])
        if stacked:
            legend(grid[0][1])
    else:
        # One legend for every panel (each line keeps its style in all of them), right of the
        # top-right panel: a legend inside one panel would hide another's data.
        best = max(grid, key=lambda axs: len(axs[0].get_legend_handles_labels()[0]))
        handles, labels = best[0].get_legend_handles_labels()
        top_right = grid[min(len(grid), 3) - 1][-1]
        legend_right(top_right, handles, labels)
    full_title = _title_with_selection(sub, title, where)
    if full_title:
        if len(grid) == 1 and not facet:
            grid[0][0].set_title(full_title)
        else:
            fig.suptitle(full_title)
    return fig


def figure_loadsharing(table, metric="dynamic_failure_probability", x_axis=None, where=None,
                       arms=None, diff=False, x_label=None, log_y=False, size=None,
                       title=None, notes=None, facet=None):
    """P(dynamic failure) (or `metric`) against the load axis, one line per arm (figure_metric
    with the load axis as default x)."""
    return figure_metric(table, metric, x_axis=x_axis, where=where, arms=arms, facet=facet,
                         diff=diff, x_label=x_label, log_y=log_y, size=size, title=title,
                         notes=notes)


def _group_label(arm, kind, group_by):
    if group_by == "kind":
        return kind or arm
    return arm if not kind or kind == arm else f"{arm} ({kind})"


def _move_together(table, axes):
    """True if the axes vary together (as a sweep "zip" group): as many distinct value tuples
    as the most distinct values of any single axis."""
    tuples = {json.dumps([params.get(a) for a in axes], sort_keys=True)
              for _, params in table.points()}
    singles = max(len({json.dumps(params.get(a), sort_keys=True)
                       for _, params in table.points()}) for a in axes)
    return len(tuples) == singles


def _axis_owner(table, axis, point):
    """The arm whose own entry of an arm list (`...arms[i]...`, `...neighbour_check[i]...`)
    holds `axis` (by the entry's "name" in the point's resolved config, else the i-th arm of
    the table), or None for an axis outside any arm list."""
    cfg = table.point_configs.get(point)
    for list_path in ("arms", "neighbour_check"):
        marker = f".{list_path}["
        if marker in axis:
            head, rest = axis.split(marker, 1)
            index = int(rest.split("]", 1)[0])
            entry = get_config(cfg, f"{head}.{list_path}[{index}]") if cfg else MISSING
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                return entry["name"]
            arms = table.arms()
            return arms[index] if index < len(arms) else None
    return None


def _check_curve_axes(sub, along, group_by):
    """The one rule for trade-off figures: along one curve at most one sweep axis may vary
    (or several that move together, as a zip). For a curve per arm, an axis inside another
    arm's own entry does not move this arm's curve."""
    if len(along) <= 1 or _move_together(sub, along):
        return
    points = sub.points()
    first = points[0][0] if points else None
    if group_by == "arm":
        for arm in sub.arms():
            mine = [a for a in along if _axis_owner(sub, a, first) in (None, arm)]
            if len(mine) > 1 and not _move_together(sub, mine):
                refuse_other_axes(sub, mine[1:], f"{sub.axis_label(mine[0])} along the curve "
                                                 f"of {arm} (or use --split-by AXIS)")
        return
    refuse_other_axes(sub, along[1:], f"{sub.axis_label(along[0])} along each curve (or use "
                                      f"--split-by AXIS)")


def figure_tradeoff(table, x_metric, y_metric, group_by="auto", where=None, arms=None,
                    split_by=(), log_x=False, log_y=False, size="single", title=None,
                    notes=None, group_label=None, facet=None):
    """y_metric against x_metric, one curve per group of (point, arm) pairs.

    group_by: "arm" (a curve per arm across the sweep points), "kind" (a curve per arm kind:
    detector kind or diagnosis, from the points' resolved configs), or "auto": "arm" when the
    table has several points, else "kind". split_by: sweep axes (paths or names) whose values
    also split the curves (e.g. the Geode profile), so that only the remaining axes vary along
    a curve; facet: an axis with one panel per value. More than one axis varying along a curve
    is refused (_check_curve_axes). Each curve is drawn in increasing x."""
    xp = _require(table, x_metric)
    yp = _require(table, y_metric)
    sub = table.select(where, arms)
    split_by = [sub.resolve_axis(a, "--split-by") for a in (split_by or ())]
    facet = sub.resolve_axis(facet, "--facet") if facet is not None else None
    points = sub.points()
    if group_by == "auto":
        group_by = "arm" if len(points) > 1 else "kind"
    if group_by not in ("arm", "kind"):
        raise ValueError(f"group_by must be auto, arm or kind, got {group_by!r}")
    along = [a for a in sub.varying_axes() if a not in split_by and a != facet]
    _check_curve_axes(sub, along, group_by)
    kinds = table_arm_kinds(sub)
    if group_by == "kind" and not kinds:
        _note(notes, "no resolved config to find the arms' kinds: one curve per arm")
    label_fn = group_label or _group_label
    panels = _facet_tables(sub, facet)
    drawn = []
    for _, part in panels:
        drawn.append(_tradeoff_groups(part, xp, yp, group_by, split_by, kinds, label_fn, along,
                                      log_x, log_y))
    dropped_log = sum(d[4] for d in drawn)
    if dropped_log:
        _note(notes, f"{dropped_log} (point, arm) pair(s) with an x value <= 0 not shown on the "
                     f"log axis")
    if not any(any(d[0].values()) or d[2] for d in drawn):
        raise AnalysisInputError(f"{table.source}: no (point, arm) has values of both {xp} "
                                 f"and {yp} (null values, e.g. detection times without "
                                 f"crashes, have none)")
    # One style per curve key across the panels.
    keys = []
    for d in drawn:
        for k in d[1]:
            if k not in keys:
                keys.append(k)
    if facet is None:
        fig, ax = new_figure(size)
        grid = [[ax]]
    else:
        fig, grid = _panel_grid("double" if size == "single" else size, len(panels))
    for (panel_title, _), (groups, order, zeros, knob, _, knob_labels), axs in \
            zip(panels, drawn, grid):
        _draw_tradeoff(axs[0], groups, order, zeros, knob, knob_labels, keys, x_metric,
                       y_metric, xp, yp, log_x, log_y, legend_inside=facet is None)
        if panel_title:
            axs[0].set_title(panel_title)
    if facet is not None:
        best = max(grid, key=lambda axs: len(axs[0].get_legend_handles_labels()[0]))
        handles, labels = best[0].get_legend_handles_labels()
        legend_right(grid[min(len(grid), 3) - 1][0], handles, labels)
    full_title = _title_with_selection(sub, title, where)
    if full_title:
        if facet is None:
            grid[0][0].set_title(full_title)
        else:
            fig.suptitle(full_title)
    return fig


def _tradeoff_groups(sub, xp, yp, group_by, split_by, kinds, label_fn, along, log_x, log_y):
    """(groups, order, zeros, knob, dropped_log, knob_labels) of one panel: curve key -> [(x, y, x half
    width, y half width, params)], keys in first-seen order, values a log axis cannot show,
    the axis varying along each curve, and the count of x values <= 0 left out."""
    groups, order, zeros, knob = {}, [], {}, {}
    dropped_log = 0
    for p, params in sub.points():
        split = ", ".join(f"{sub.axis_label(a)}={format_value(params.get(a))}" for a in split_by)
        for arm in sub.arms():
            xr, yr = sub.row(p, arm, xp), sub.row(p, arm, yp)
            if xr is None or yr is None or xr.mean is None or yr.mean is None:
                continue
            kind = kinds.get(p, {}).get(arm)
            key = label_fn(arm, kind, group_by) + (f", {split}" if split else "")
            if key not in groups:
                groups[key] = []
                order.append(key)
                knob[key] = _curve_axis(sub, arm, along, p) if group_by == "arm" else None
            if log_x and xr.mean <= 0:
                dropped_log += 1
                continue
            if log_y and yr.mean <= 0:
                zeros.setdefault(key, []).append((xr.mean, params))
                continue
            groups[key].append((xr.mean, yr.mean, xr.ci95_half_width, yr.ci95_half_width,
                                params))
    # The knob is named in the curve's legend entry: by its axis name, else, for an axis
    # inside the arm's own entry (the entry names the arm), by its last key, else by its axis
    # label (a last key shared by several arms' axes is unambiguous next to the arm's name).
    knob_labels = {k: _knob_label(sub, v) for k, v in knob.items() if v}
    return groups, order, zeros, knob, dropped_log, knob_labels


def _knob_label(sub, axis):
    if sub.axis_names.get(axis):
        return sub.axis_names[axis]
    key = last_key(axis)
    if (".arms[" in axis or ".neighbour_check[" in axis) and key not in BARE_UNITS:
        return key
    return sub.axis_label(axis)


def _draw_tradeoff(ax, groups, order, zeros, knob, knob_labels, keys, x_metric, y_metric, xp,
                   yp, log_x, log_y, legend_inside=True):
    """One panel of figure_tradeoff: each curve in the style of its key's place in `keys` (so a
    curve looks the same in every facet), the swept value written at its points."""
    labels = {}
    for key in order:
        i = keys.index(key)
        s = sorted(groups[key], key=lambda v: (v[0], v[1]))
        label = key + (f" [{knob_labels[key]}]" if knob.get(key) else "")
        labels[key] = label
        if s:
            line_with_ci(ax, [v[0] for v in s], [v[1] for v in s], [v[3] for v in s],
                         x_half_widths=[v[2] for v in s], label=label, index=i)
        elif key in zeros:  # only zeros: a legend entry for the edge markers below
            ax.plot([], [], color=series_style(i)[0], marker=series_style(i)[1], label=label)
    ax.set_xlabel(names.label_of(x_metric))
    ax.set_ylabel(names.label_of(y_metric))
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    start_counts_at_zero(ax, x_path=xp, y_path=yp)
    placed = []
    if zeros:
        _mark_zeros(ax, order, zeros, knob, placed, keys)
    for key in order:
        if knob.get(key):
            _annotate_knob(ax, sorted(groups[key], key=lambda v: (v[0], v[1])), knob[key],
                           keys.index(key), placed)
    if legend_inside:
        legend(ax)


def _curve_axis(table, arm, along, point):
    """The sweep axis that parameterises `arm`'s curve: among the axes varying along the curves,
    the one inside this arm's own entry of an arm list (`...arms[i]...` or
    `...neighbour_check[i]...` whose entry is named `arm` in the point's resolved config, or,
    without configs, the i-th arm of the table), else the first axis outside any arm list;
    None if nothing varies."""
    shared = None
    cfg = table.point_configs.get(point)
    for a in along:
        owner = None
        for list_path in ("arms", "neighbour_check"):
            marker = f".{list_path}["
            if marker in a:
                head, rest = a.split(marker, 1)
                index = int(rest.split("]", 1)[0])
                entry = get_config(cfg, f"{head}.{list_path}[{index}]") if cfg else MISSING
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    owner = entry["name"]
                else:
                    arms = table.arms()
                    owner = arms[index] if index < len(arms) else None
                break
        else:
            if shared is None:
                shared = a
            continue
        if owner == arm:
            return a
    return shared


def _fmt_knob(v):
    return f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def _free_spot(ax, x, y, placed, min_pt=7.0):
    """True (and the spot is taken) if no label already sits within min_pt points of the data
    point (x, y): labels that would overprint each other are left out, nearest first."""
    px, py = ax.transData.transform((x, y))
    scale = 72.0 / ax.figure.dpi
    for qx, qy in placed:
        if abs(px - qx) * scale < min_pt * 2.5 and abs(py - qy) * scale < min_pt:
            return False
    placed.append((px, py))
    return True


def _annotate_knob(ax, s, axis, index, placed):
    """Writes the swept parameter's value (the legend names the parameter) next to the points
    of one curve, in the curve's colour; a value that would overprint another label is left
    out, but the curve's two ends are always tried first."""
    color = series_style(index)[0]
    n = len(s)
    order = ([0, n - 1] if n > 1 else list(range(n))) + list(range(1, n - 1))
    for j in order:
        v = s[j]
        if not _free_spot(ax, v[0], v[1], placed):
            continue
        ax.annotate(_fmt_knob(v[4].get(axis)), xy=(v[0], v[1]), xytext=(3, 3),
                    textcoords="offset points", fontsize=4.5, color=color, ha="left",
                    va="bottom")


def _mark_zeros(ax, order, zeros, knob, placed, keys=None):
    """Values a log y axis cannot show (mean <= 0, e.g. no mistake at all) are drawn as open
    downward triangles on the bottom edge, in the curve's colour, labelled with the swept
    value, and named in the legend; never silently dropped."""
    y0 = ax.get_ylim()[0]
    for j, key in enumerate(order):
        i = keys.index(key) if keys is not None else j
        for x, params in zeros.get(key, []):
            color = series_style(i)[0]
            ax.plot([x], [y0], marker="v", markerfacecolor="none", markeredgecolor=color,
                    markersize=5, linestyle="none", clip_on=False, zorder=6)
            if knob.get(key) and _free_spot(ax, x, y0, placed):
                ax.annotate(_fmt_knob(params.get(knob[key])), xy=(x, y0), xytext=(0, 4),
                            textcoords="offset points", fontsize=4.5, color=color,
                            ha="center", va="bottom")
    ax.set_ylim(bottom=y0)
    ax.plot([], [], marker="v", markerfacecolor="none", markeredgecolor="black",
            linestyle="none", label="0 (not on the log axis)")


def figure_qos_tradeoff(table, group_by="auto", where=None, arms=None, split_by=(),
                        x_metric="detection_time_mean", y_metric="mistake_rate",
                        size="single", title=None, notes=None, facet=None):
    """Mistake rate (log y) against mean detection time, one curve per detector."""
    return figure_tradeoff(table, x_metric, y_metric, group_by=group_by, where=where, arms=arms,
                           split_by=split_by, log_y=True, size=size, title=title, notes=notes,
                           facet=facet)


def _gc_label(arm, kind, group_by):
    if group_by == "kind":
        return "fixed" if kind in (None, "fixed") else f"adaptive: {kind}"
    if kind in (None, "fixed"):
        return arm if arm == "fixed" else f"{arm} (fixed)"
    return f"{arm} (adaptive: {kind})"


def figure_geode_gc(table, group_by="auto", where=None, arms=None, split_by=None,
                    x_metric="geode_removal_time_mean", y_metric="geode_false_removals",
                    log_y=False, size="single", title=None, notes=None, facet=None):
    """False removals against mean removal time under GC pauses: fixed vs adaptive arms.

    split_by None (the default) splits the curves by the Geode profile axis when it varies
    (after `where`) and is not the facet, so each curve keeps one profile."""
    if split_by is None:
        sub = table.select(where, arms)
        f = sub.resolve_axis(facet, "--facet") if facet is not None else None
        split_by = [a for a in sub.varying_axes() if a == names.GEODE_PROFILE and a != f]
    return figure_tradeoff(table, x_metric, y_metric, group_by=group_by, where=where, arms=arms,
                           split_by=split_by, log_y=log_y, size=size, title=title, notes=notes,
                           group_label=_gc_label, facet=facet)


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _list_values(arm_metrics, spec):
    """(values, how) for one run's arm: how is "list", "summary" (exact: count <= 1),
    "mean_of_many" (count > 1: a per-run mean stands for several samples) or None when the
    run has neither (values None)."""
    v = get_metric(arm_metrics, spec["list"])
    if isinstance(v, dict) and isinstance(v.get("values"), list):
        v = v["values"]
    if isinstance(v, list):
        return [float(x) for x in v if _is_num(x)], "list"
    if spec.get("mean"):
        mean = get_metric(arm_metrics, spec["mean"])
        count = get_metric(arm_metrics, spec["count"]) if spec.get("count") else MISSING
        if mean is MISSING:
            return None, None
        if _is_num(count) and count == 0 or mean is None:
            return [], "summary"
        if not _is_num(mean):
            return None, None
        if _is_num(count) and count > 1:
            return [float(mean)], "mean_of_many"
        return [float(mean)], "summary"
    return None, None


def group_value_label(path, value, label=None):
    """Legend text of one grouping value: metric_names.GROUP_LABELS, else "<label>=<value>"
    (label: the axis label, default the path's last key unless that is a bare unit)."""
    fmt = names.GROUP_LABELS.get(path)
    if fmt is not None:
        return fmt.format(format_value(value))
    if label is None:
        key = last_key(path)
        label = path if key in BARE_UNITS else key
    return f"{label}={format_value(value)}"


def filter_runs(runs, where, source="runs", axes=(), axis_names=None):
    """The runs whose resolved config matches `where` ({axis: value or AnyOf(...)}), an axis
    given by its config path, or by the name of one of a sweep's `axes` (axis_names: path ->
    name). A value no run has is an error naming the values that exist."""
    runs = list(runs)
    axis_names = axis_names or {}
    for axis, v in (where or {}).items():
        path = axis
        if axis not in axes:
            named = [a for a in axes if axis_names.get(a) == axis or
                     (last_key(a) == axis and sum(last_key(b) == axis for b in axes) == 1)]
            if named:
                path = named[0]
            elif not axis.startswith("$"):
                raise AnalysisInputError(
                    f"{source}: --where {axis}: not an axis name or a config path "
                    f"(axes: {', '.join(axes) or 'none'})")
        alts = list(v) if isinstance(v, AnyOf) else [v]
        present = []
        for r in runs:
            x = get_config(r.resolved_config, path)
            if x is not MISSING and not any(values_equal(x, w) for w in present):
                present.append(x)
        if not present:
            raise AnalysisInputError(f"{source}: --where {axis}: no run has {path} in its "
                                     f"resolved config")
        unknown = [a for a in alts if not any(values_equal(a, w) for w in present)]
        if unknown:
            present.sort(key=sort_key_of_value)
            raise AnalysisInputError(
                f"{source}: --where {axis}: no run has {', '.join(format_value(u) for u in unknown)}"
                f" (values of {path}: {', '.join(format_value(w) for w in present)})")
        runs = [r for r in runs
                if any(values_equal(get_config(r.resolved_config, path), a) for a in alts)]
    return runs


def pooled_axes(runs, axes, group_paths):
    """The sweep axes (config paths) not among `group_paths` that take several values among
    `runs`: each CDF line pools the runs of all their values."""
    out = []
    for a in axes:
        if a in group_paths:
            continue
        vals = []
        for r in runs:
            x = get_config(r.resolved_config, a)
            if not any(values_equal(x, w) for w in vals):
                vals.append(x)
        if len(vals) > 1:
            out.append(a)
    return out


def figure_cdf(runs, lists=("geode_detection_times", "geode_removal_times"),
               group_paths=(names.GEODE_PROFILE, names.GEODE_MEMBER_TIMEOUT), arms=None,
               size=None, title=None, notes=None, source="runs", where=None, axes=(),
               axis_names=None):
    """Empirical CDFs of per-run lists (one panel per list role), one line per group of runs
    with equal values at `group_paths` in their resolved configs (and per arm when several).

    where: keeps the runs matching it (filter_runs). axes: the sweep's axes, when known: any of
    them that varies among the runs kept but is not a group path is pooled into each line; the
    figure's title and a note say so ("pooled over ..."). A note always says how many runs each
    panel pools."""
    runs = filter_runs(runs, where, source, axes, axis_names)
    if not runs:
        raise AnalysisInputError(f"{source}: no run results")
    axis_names = axis_names or {}
    pooled = pooled_axes(runs, axes, group_paths)
    pooled_text = ", ".join(axis_names.get(a) or a for a in pooled)
    sel = ""
    if where:
        sel = "; ".join(f"{k} = " + ", ".join(format_value(x) for x in
                                               (v if isinstance(v, AnyOf) else [v]))
                        for k, v in where.items())
    all_arms = []
    for r in runs:
        for a in r.arm_order:
            if a not in all_arms:
                all_arms.append(a)
    if arms is not None:
        unknown = [a for a in arms if a not in all_arms]
        if unknown:
            raise AnalysisInputError(f"{source}: unknown arm(s) {', '.join(unknown)} "
                                     f"(arms: {', '.join(all_arms)})")
        use_arms = list(arms)
    else:
        use_arms = all_arms
    fig, axes = new_figure(size or ("double" if len(lists) > 1 else "single"), ncols=len(lists))
    axes = axes if isinstance(axes, list) else [axes]
    missing_cfg = set()
    per_run_means = False  # some line mixes per-run means in: the title must say so
    for ax, role in zip(axes, lists):
        spec = names.LISTS.get(role, {"list": role})
        list_path, scalar_path = spec["list"], spec.get("mean")
        groups = {}
        how_count = {"list": 0, "summary": 0, "mean_of_many": 0}
        for run in runs:
            key = []
            for gp in group_paths:
                v = get_config(run.resolved_config, gp)
                if v is MISSING:
                    missing_cfg.add(gp)
                    v = "?"
                key.append(v)
            for arm in use_arms:
                if arm not in run.metrics:
                    continue
                vals, how = _list_values(run.metrics[arm], spec)
                if vals is None:
                    continue
                how_count[how] += 1
                k = tuple(key) + ((arm,) if len(use_arms) > 1 else ())
                groups.setdefault(k, []).extend(vals)
        if not groups:
            what = list_path + (f" or {scalar_path}" if scalar_path else "")
            raise AnalysisInputError(f"{source}: no run has metrics at {what} "
                                     f"(role {role!r} in fdsim_analysis/metric_names.py)")
        fallback = how_count["summary"] + how_count["mean_of_many"]
        if fallback:
            _note(notes, f"{role}: {fallback} run-arm(s) without the list {list_path}: used "
                         f"the per-run summary {scalar_path} (one sample per run)")
        if how_count["mean_of_many"]:
            per_run_means = True
            _note(notes, f"{role}: {how_count['mean_of_many']} of those run-arm(s) had several "
                         f"samples: their mean stands for them, so that CDF is not of single "
                         f"events (needs the list {list_path})")
        keys = sorted(groups, key=lambda k: tuple(sort_key_of_value(v) for v in k))
        for i, k in enumerate(keys):
            if not groups[k]:
                _note(notes, f"{role}: group {k} has no values")
                continue
            parts = [group_value_label(gp, v) for gp, v in zip(group_paths, k)]
            if len(k) > len(group_paths):
                parts.append(k[-1])
            step_cdf(ax, groups[k], label=", ".join(parts) or "all runs", index=i)
        unit = names.LIST_UNITS.get(role, names.unit_of(list_path))
        base = names.LIST_LABELS.get(role, list_path)
        ax.set_xlabel(f"{base} ({unit})" if unit else base)
        ax.set_ylabel("Empirical CDF")
        ax.set_ylim(0.0, 1.0)
    # The same groups in every panel: one legend, below the panels when there are many.
    if len(axes[-1].get_lines()) > 4 or len(axes) > 1:
        handles, labels = axes[-1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=min(len(labels), 4 if len(axes) > 1 else 2),
                   fontsize=STYLE["legend.fontsize"], frameon=False)
    else:
        legend(axes[-1], loc="lower right")
    for gp in sorted(missing_cfg):
        _note(notes, f"some runs have no {gp} in their resolved config (grouped as \"?\")")
    _note(notes, f"figure cdf: {len(runs)} run(s)" + (f" with {sel}" if sel else "") +
                 "; each line pools the per-run lists of the runs with equal " +
                 (", ".join(group_paths) or "(nothing: one line)") +
                 (f", across every value of {pooled_text} (select values with --where or "
                  f"split them with --group-path)" if pooled else ""))
    if per_run_means:
        title = (f"{title} " if title else "") + "(includes per-run means, not single events)"
    if sel:
        title = f"{title} ({sel})" if title else sel
    if pooled:
        title = (f"{title} " if title else "") + f"(pooled over {pooled_text})"
    if title:
        fig.suptitle(title)
    return fig


def _split_top_level(text):
    """Splits at commas outside brackets, braces and double quotes."""
    parts, depth, quoted, cur, escaped = [], 0, False, "", False
    for c in text:
        if quoted:
            cur += c
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
            continue
        if c == '"':
            quoted = True
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    parts.append(cur)
    return parts


def _where_value(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text.strip()


def parse_where(items):
    """["$.a=1", "b=wiki,paper", "$.a=2"] -> {"$.a": AnyOf(1, 2), "b": AnyOf("wiki", "paper")}.

    AXIS is a path or an axis name. The value text is one JSON value if it parses as one
    (`[1,2]` is an array value, `"a,b"` a string); otherwise it is split at top-level commas into
    alternatives, each JSON if it parses, else text (`wiki,paper`, `1,2`). Repeating an axis
    adds alternatives (OR); a single value stays a plain value."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise AnalysisInputError(f"--where {item}: expected AXIS=VALUE (or AXIS=V1,V2)")
        path, text = item.split("=", 1)
        path = path.strip()
        if not path:
            raise AnalysisInputError(f"--where {item}: no axis before '='")
        try:
            values = [json.loads(text)]
        except json.JSONDecodeError:
            values = [_where_value(t) for t in _split_top_level(text)]
        if any(isinstance(v, str) and v == "" for v in values):
            raise AnalysisInputError(f"--where {item}: an empty value")
        prev = out.get(path)
        if prev is not None:
            values = (list(prev) if isinstance(prev, AnyOf) else [prev]) + values
        out[path] = values[0] if len(values) == 1 else AnyOf(values)
    return out


__all__ = ["figure_loadsharing", "figure_tradeoff", "figure_qos_tradeoff", "figure_geode_gc",
           "figure_cdf", "figure_metric", "filter_runs", "AnyOf", "choose_x_axis", "axis_label", "parse_where", "values_equal"]
