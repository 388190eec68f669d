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

Contract: inputs are AggregateTables (aggregate.py) or run results (loading.RunResult); metric
arguments are roles of fdsim_analysis/metric_names.py or literal metric paths. Input that cannot
make the figure (a missing metric, an ambiguous x axis, a non-numeric axis, no data) raises
AnalysisInputError naming what is missing. Things silently left out of a figure (points with a
zero value on a log axis, runs without a per-run list) are reported as lines appended to the
`notes` list when one is given. Every axis gets a label with its unit.
"""

import json

from . import metric_names as names
from .aggregate import format_value, sort_key_of_value, values_equal
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


def choose_x_axis(table, x_axis=None, suffixes=names.LOAD_AXIS_SUFFIXES):
    """The sweep axis to use as x: the given one, else the only varying axis, else the first
    varying axis ending with one of `suffixes`. Other varying axes are an error."""
    varying = table.varying_axes()
    if x_axis is not None:
        if x_axis not in table.axes:
            raise AnalysisInputError(f"{table.source}: --x-axis {x_axis}: not an axis "
                                     f"(axes: {', '.join(table.axes) or 'none'})")
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
                f"{', '.join(varying)}: give --x-axis")
        x_axis = matching[0]
    others = [a for a in varying if a != x_axis]
    if others:
        raise AnalysisInputError(
            f"{table.source}: axes {', '.join(others)} vary besides the x axis {x_axis}: "
            f"fix them with --where PATH=VALUE")
    return x_axis


def _numeric_x(value, table, x_axis):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnalysisInputError(f"{table.source}: axis {x_axis} has a non-numeric value "
                                 f"{format_value(value)}: it cannot be an x axis")
    return float(value)


def figure_loadsharing(table, metric="dynamic_failure_probability", x_axis=None, where=None,
                       arms=None, diff=False, x_label=None, log_y=False, size=None,
                       title=None, notes=None):
    """P(dynamic failure) (or `metric`) against the load axis, one line per arm.

    size None: "double" with the difference panel (side by side), else "single". A given size
    is honoured: "single" with `diff` stacks the two panels in one column."""
    path = _require(table, metric)
    sub = table.select(where, arms)
    x_axis = choose_x_axis(sub, x_axis)
    arm_list = sub.arms()
    points = sub.points()
    if size is None:
        size = "double" if diff else "single"
    stacked = diff and size == "single"
    fig, axes = new_figure(size, ncols=2 if diff and not stacked else 1,
                           nrows=2 if stacked else 1)
    if stacked:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, 1.8 * h)
    ax = axes[0] if diff else axes
    for i, arm in enumerate(arm_list):
        series = []
        for p, params in points:
            r = sub.row(p, arm, path)
            if r is None or r.mean is None:
                continue
            series.append((_numeric_x(params.get(x_axis), sub, x_axis), r.mean,
                           r.ci95_half_width, r))
        if not series:
            _note(notes, f"arm {arm}: no value of {path}")
            continue
        series.sort(key=lambda s: s[0])
        line_with_ci(ax, [s[0] for s in series], [s[1] for s in series],
                     [s[2] for s in series], label=arm, index=i)
    if not ax.lines:
        raise AnalysisInputError(f"{table.source}: no value of {path} to plot")
    ax.set_xlabel(axis_label(x_axis, x_label))
    ax.set_ylabel(names.label_of(metric))
    if log_y:
        ax.set_yscale("log")
    start_counts_at_zero(ax, y_path=path)
    side_by_side = diff and not stacked
    if not side_by_side:
        legend(ax)
    if title:
        ax.set_title(title)
    if diff:
        dax = axes[1]
        refs = {r.reference_arm for r in sub.rows if r.metric == path and r.reference_arm}
        ref = sorted(refs)[0] if len(refs) == 1 else None
        for i, arm in enumerate(arm_list):
            series = []
            for p, params in points:
                r = sub.row(p, arm, path)
                if r is None or r.diff_mean is None:
                    continue
                series.append((_numeric_x(params.get(x_axis), sub, x_axis), r.diff_mean,
                               r.diff_ci95_half_width))
            if not series:
                continue
            series.sort(key=lambda s: s[0])
            line_with_ci(dax, [s[0] for s in series], [s[1] for s in series],
                         [s[2] for s in series], label=arm, index=i)
        dax.axhline(0.0, color="0.4", linewidth=0.6)
        dax.set_xlabel(axis_label(x_axis, x_label))
        base = names.label_of(metric)
        dax.set_ylabel(f"\u0394 {base} vs {ref}" if ref else f"\u0394 {base} vs reference")
        if side_by_side:
            # One legend for both panels, right of the difference panel: every arm (the
            # reference arm too) keeps one style in both, and a legend placed right of the
            # left panel would cover the difference panel.
            handles, labels = ax.get_legend_handles_labels()
            legend_right(dax, handles, labels)
        else:
            legend(dax)
    return fig


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


def figure_tradeoff(table, x_metric, y_metric, group_by="auto", where=None, arms=None,
                    split_by=(), log_x=False, log_y=False, size="single", title=None,
                    notes=None, group_label=None):
    """y_metric against x_metric, one curve per group of (point, arm) pairs.

    group_by: "arm" (a curve per arm across the sweep points), "kind" (a curve per arm kind:
    detector kind or diagnosis, from the points' resolved configs), or "auto": "arm" when the
    table has several points, else "kind". split_by: sweep axes whose values also split the
    curves (e.g. the Geode profile), so that only the remaining axes vary along a curve.
    Each curve is drawn in increasing x."""
    xp = _require(table, x_metric)
    yp = _require(table, y_metric)
    sub = table.select(where, arms)
    points = sub.points()
    for a in split_by:
        if a not in sub.axes:
            raise AnalysisInputError(f"{table.source}: --split-by {a}: not an axis "
                                     f"(axes: {', '.join(sub.axes) or 'none'})")
    if group_by == "auto":
        group_by = "arm" if len(points) > 1 else "kind"
    if group_by not in ("arm", "kind"):
        raise ValueError(f"group_by must be auto, arm or kind, got {group_by!r}")
    along = [a for a in sub.varying_axes() if a not in split_by]
    if len(along) > 1 and not _move_together(sub, along):
        _note(notes, f"axes {', '.join(along)} all vary along each curve: fix some with "
                     f"--where or split the curves with --split-by")
    kinds = table_arm_kinds(sub)
    if group_by == "kind" and not kinds:
        _note(notes, "no resolved config to find the arms' kinds: one curve per arm")
    label_fn = group_label or _group_label
    groups = {}
    order = []
    zeros = {}  # key -> [(x, point params)] of values a log axis cannot show (<= 0)
    knob = {}   # key -> the sweep axis that varies along the curve (see _curve_axis)
    dropped_log = 0
    for p, params in points:
        split = ", ".join(f"{_short(a)}={format_value(params.get(a))}" for a in split_by)
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
    if dropped_log:
        _note(notes, f"{dropped_log} (point, arm) pair(s) with an x value <= 0 not shown on the "
                     f"log axis")
    if not any(groups.values()) and not zeros:
        raise AnalysisInputError(f"{table.source}: no (point, arm) has values of both {xp} "
                                 f"and {yp} (null values, e.g. detection times without "
                                 f"crashes, have none)")
    fig, ax = new_figure(size)
    for i, key in enumerate(order):
        s = sorted(groups[key], key=lambda v: (v[0], v[1]))
        label = key + (f" [{_short(knob[key])}]" if knob.get(key) else "")
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
        _mark_zeros(ax, order, zeros, knob, placed)
    for i, key in enumerate(order):
        if knob.get(key):
            _annotate_knob(ax, sorted(groups[key], key=lambda v: (v[0], v[1])), knob[key], i,
                           placed)
    legend(ax)
    if title:
        ax.set_title(title)
    return fig


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


def _mark_zeros(ax, order, zeros, knob, placed):
    """Values a log y axis cannot show (mean <= 0, e.g. no mistake at all) are drawn as open
    downward triangles on the bottom edge, in the curve's colour, labelled with the swept
    value, and named in the legend; never silently dropped."""
    y0 = ax.get_ylim()[0]
    for i, key in enumerate(order):
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
                        size="single", title=None, notes=None):
    """Mistake rate (log y) against mean detection time, one curve per detector."""
    return figure_tradeoff(table, x_metric, y_metric, group_by=group_by, where=where, arms=arms,
                           split_by=split_by, log_y=True, size=size, title=title, notes=notes)


def _gc_label(arm, kind, group_by):
    if group_by == "kind":
        return "fixed" if kind in (None, "fixed") else f"adaptive: {kind}"
    if kind in (None, "fixed"):
        return arm if arm == "fixed" else f"{arm} (fixed)"
    return f"{arm} (adaptive: {kind})"


def figure_geode_gc(table, group_by="auto", where=None, arms=None, split_by=None,
                    x_metric="geode_removal_time_mean", y_metric="geode_false_removals",
                    log_y=False, size="single", title=None, notes=None):
    """False removals against mean removal time under GC pauses: fixed vs adaptive arms.

    split_by None (the default) splits the curves by the Geode profile axis when it varies
    (after `where`), so each curve keeps one profile."""
    if split_by is None:
        varying = table.select(where, arms).varying_axes()
        split_by = [a for a in varying if a == names.GEODE_PROFILE]
    return figure_tradeoff(table, x_metric, y_metric, group_by=group_by, where=where, arms=arms,
                           split_by=split_by, log_y=log_y, size=size, title=title, notes=notes,
                           group_label=_gc_label)


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


def group_value_label(path, value):
    """Legend text of one grouping value: metric_names.GROUP_LABELS, else "<key>=<value>"."""
    fmt = names.GROUP_LABELS.get(path)
    if fmt is not None:
        return fmt.format(format_value(value))
    return f"{_short(path)}={format_value(value)}"


def _short(path):
    return path.replace("[", ".").rstrip("]").split(".")[-1]


def figure_cdf(runs, lists=("geode_detection_times", "geode_removal_times"),
               group_paths=(names.GEODE_PROFILE, names.GEODE_MEMBER_TIMEOUT), arms=None,
               size=None, title=None, notes=None, source="runs"):
    """Empirical CDFs of per-run lists (one panel per list role), one line per group of runs
    with equal values at `group_paths` in their resolved configs (and per arm when several)."""
    runs = list(runs)
    if not runs:
        raise AnalysisInputError(f"{source}: no run results")
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
    if per_run_means:
        title = (f"{title} " if title else "") + "(includes per-run means, not single events)"
    if title:
        fig.suptitle(title)
    return fig


def parse_where(items):
    """["$.a=1", "$.b=wiki"] -> {"$.a": 1, "$.b": "wiki"} (values parsed as JSON if they can be)."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise AnalysisInputError(f"--where {item}: expected PATH=VALUE")
        path, text = item.split("=", 1)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        out[path.strip()] = value
    return out


__all__ = ["figure_loadsharing", "figure_tradeoff", "figure_qos_tradeoff", "figure_geode_gc",
           "figure_cdf", "choose_x_axis", "axis_label", "parse_where", "values_equal"]
