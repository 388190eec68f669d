"""Figures and tables of the fixed-versus-adaptive study (fixed_vs_adaptive.analyse()).

Contract:
- figure_excess(study, rows_axis, cols_axis): the headline figure. One panel per point, rows by
  `rows_axis` (repair time), columns by `cols_axis` (load regime), in sweep order. In each
  panel: x = the fixed timeout (s, log scale), y = P(dynamic failure) minus the oracle's, in
  percentage points, paired over replications (common random numbers), with 95% intervals:
  the fixed arms as a curve with error bars (the best one in hindsight starred), the other
  arms as horizontal bands (mean line, 95% paired interval shaded), the oracle as the zero
  line. The panel title gives the oracle's own level with its 95% interval. The y range is
  set by what is close to the oracle (the best fixed timeout and the bands other than `none`,
  at least 2.5 times their top): an arm whose mean lies above it (often `none`) is written at
  the top edge with an arrow, and fixed timeouts above it are drawn as a triangle on the edge
  with their value, instead of stretching the axis. One legend for the whole figure, below the
  panels, so it never covers data.
- figure_levels(...): the same layout with the arms' own levels (mean and 95% interval of each
  arm, unpaired), for readers who want absolute numbers.
- markdown tables: headline_markdown() (one row per point: best fixed timeout in hindsight and
  its value, the adaptive arms, the oracle, gap shares) and comparisons_markdown() (every arm
  against the adaptive reference with raw and Holm-adjusted p-values); comparisons_csv().
Values are printed in percent (the metric is a probability).
"""

import math

from matplotlib.figure import Figure
import matplotlib

from .fixed_vs_adaptive import ADAPTIVE_REFERENCE, is_finite, point_label
from .plotting import STYLE, _style_axes

# Band styles of the non-fixed arms, by diagnosis kind (Hou-Shin alphas in shades of blue).
_BLUES = ("#9ecae1", "#4292c6", "#08519c", "#08306b")
# hou_shin_extra arms: orange, then browns for further alphas (by increasing alpha: the one at
# the reference alpha keeps the plain orange when it is the only one).
_ORANGES = ("#ff7f0e", "#a63603", "#fdae6b", "#7f2704")
_BAND_STYLE = {
    "none": ("#7f7f7f", ":"),
    "fixed_periodic": ("#2ca02c", "-."),
    "hou_shin_extra": ("#ff7f0e", "-"),
    "oracle_extra": ("#9467bd", "--"),
}


def _pct(x):
    return None if x is None else 100.0 * x


def _band_arms(point):
    """The non-fixed arms drawn as bands, in a stable order, with (colour, linestyle)."""
    out = []
    hs = sorted(point.of_kind("hou_shin"), key=lambda a: (a.alpha or 0.0, a.name))
    for kind in ("none", "fixed_periodic"):
        out += [(a, _BAND_STYLE[kind]) for a in point.of_kind(kind)]
    out += [(a, (_BLUES[i % len(_BLUES)], "--")) for i, a in enumerate(hs)]
    # The adaptive reference first (plain orange), then the other hou_shin_extra arms.
    hx = sorted(point.of_kind("hou_shin_extra"),
                key=lambda a: (a.name != ADAPTIVE_REFERENCE, a.alpha or 0.0, a.name))
    out += [(a, (_ORANGES[i % len(_ORANGES)], "-" if i == 0 else (0, (5, 1, 1, 1))))
            for i, a in enumerate(hx)]
    out += [(a, _BAND_STYLE["oracle_extra"]) for a in point.of_kind("oracle_extra")]
    return out


def _arm_label(a):
    if a.kind == "hou_shin":
        return f"hou_shin, α = {a.alpha:g}" if a.alpha is not None else a.name
    if a.kind == "hou_shin_extra":
        return f"hou_shin_extra, α = {a.alpha:g}" if a.alpha is not None else a.name
    if a.kind == "fixed_periodic":
        return f"periodic heartbeat ({a.name})"
    return a.name


def _grid(study, rows_axis, cols_axis):
    rows, cols = [], []
    for p in study.points:
        r, c = p.params.get(rows_axis), p.params.get(cols_axis)
        if r not in rows:
            rows.append(r)
        if c not in cols:
            cols.append(c)
    cells = {(p.params.get(rows_axis), p.params.get(cols_axis)): p for p in study.points}
    return rows, cols, cells


def _new_grid_figure(nrows, ncols):
    """A figure with nrows x ncols panels and, below them, a full-width strip for the legend
    (so the legend never covers data; matplotlib 3.6 has no "outside" legend location)."""
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(1.9 * ncols + 0.6, 1.75 * nrows + 0.8), layout="constrained")
        gs = fig.add_gridspec(nrows + 1, ncols, height_ratios=[1.0] * nrows + [0.28])
        axes = [[fig.add_subplot(gs[i, j]) for j in range(ncols)] for i in range(nrows)]
        legend_ax = fig.add_subplot(gs[nrows, :])
    legend_ax.axis("off")
    for row in axes:
        for ax in row:
            _style_axes(ax)
    return fig, axes, legend_ax


def _value(a, excess):
    """(centre, half-width) in percent of an arm: paired excess over the oracle, or level."""
    if excess:
        if a.vs_oracle is None:  # the oracle itself
            return 0.0, 0.0
        return _pct(a.vs_oracle.mean), _pct(a.vs_oracle.ci95_half_width)
    return _pct(a.mean), _pct(a.ci95_half_width)


def _draw_panel(ax, point, excess, handles):
    fixed = [a for a in point.fixed_arms() if a.mean is not None]
    xs = [a.timeout_s for a in fixed]
    vals = [_value(a, excess) for a in fixed]
    ys = [v[0] for v in vals]
    es = [v[1] or 0.0 for v in vals]
    lo_x, hi_x = min(xs) / 1.4, max(xs) * 1.4
    bands = _band_arms(point)
    oracle_c, oracle_h = _value(point.arms["oracle"], excess)
    # The visible range is set by what is close to the oracle: the best fixed timeout and the
    # bands other than `none` (when showing excesses, at least 2.5 times their top, so that
    # differences between them stay readable); `none` and fixed timeouts far above it are
    # marked at the top edge with their value instead of stretching the axis.
    best = point.arms[point.best_fixed] if point.best_fixed else fixed[0]
    bc, bh = _value(best, excess)
    core_top, bottom = bc + (bh or 0.0), min(bc - (bh or 0.0), oracle_c - oracle_h)
    for a, _ in bands:
        c, h = _value(a, excess)
        if c is None:
            continue
        bottom = min(bottom, c - (h or 0.0))
        if a.kind != "none":
            core_top = max(core_top, c + (h or 0.0))
    if excess:
        top = max(2.5 * core_top, core_top + 0.05)
        for a, _ in bands:
            c, h = _value(a, excess)
            if a.kind == "none" and c is not None and c + (h or 0.0) <= 1.3 * top:
                top = max(top, c + (h or 0.0))
    else:
        top = max([core_top] + [y + e for y, e in zip(ys, es)] +
                  [(_value(a, excess)[0] or 0.0) + (_value(a, excess)[1] or 0.0)
                   for a, _ in bands])
    span = top - bottom
    ylo, yhi = bottom - 0.08 * span, top + 0.12 * span
    if not excess:
        ylo = max(0.0, ylo)
    for a, (colour, ls) in bands:
        c, h = _value(a, excess)
        if c is None:
            continue
        h = h or 0.0
        label = _arm_label(a)
        if c > yhi:
            ax.annotate(f"{label}: {c:+.2f}" if excess else f"{label}: {c:.2f}",
                        xy=(hi_x / 1.15, yhi), xytext=(hi_x / 1.15, yhi - 0.10 * (yhi - ylo)),
                        ha="right", va="top", fontsize=5.5, color=colour,
                        arrowprops=dict(arrowstyle="->", color=colour, lw=0.7))
            line = ax.plot([], [], color=colour, ls=ls, lw=1.0)[0]
        else:
            line = ax.plot([lo_x, hi_x], [c, c], color=colour, ls=ls, lw=1.0)[0]
            ax.fill_between([lo_x, hi_x], [c - h] * 2, [c + h] * 2, color=colour, alpha=0.15,
                            lw=0)
        handles.setdefault(label, line)
    if excess:
        line = ax.axhline(0.0, color="#d62728", lw=1.0)
        handles.setdefault("oracle (zero line)", line)
    else:
        line = ax.plot([lo_x, hi_x], [oracle_c] * 2, color="#d62728", lw=1.0)[0]
        ax.fill_between([lo_x, hi_x], [oracle_c - oracle_h] * 2, [oracle_c + oracle_h] * 2,
                        color="#d62728", alpha=0.15, lw=0)
        handles.setdefault("oracle", line)
    cont = ax.errorbar(xs, ys, yerr=es, color="black", marker="o", ms=3, lw=1.1, capsize=1.5,
                       zorder=5)
    handles.setdefault("fixed timeout (x axis)", cont)
    for x, y in zip(xs, ys):  # off-scale fixed timeouts: a marker at the edge with the value
        if y > yhi:
            ax.plot([x], [yhi], marker="^", ms=4, color="black", clip_on=False, zorder=6)
            ax.annotate(f"{y:+.2f}" if excess else f"{y:.2f}", xy=(x, yhi),
                        xytext=(3, -2), textcoords="offset points", ha="left", va="top",
                        fontsize=5.5)
    if point.best_fixed is not None:
        b = point.arms[point.best_fixed]
        by, _ = _value(b, excess)
        star = ax.plot([b.timeout_s], [by], marker="*", ms=8, color="gold",
                       markeredgecolor="black", mew=0.5, ls="none", zorder=6)[0]
        handles.setdefault("best fixed timeout in hindsight", star)
    ax.set_xscale("log")
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(ylo, yhi)
    ticks = [t for t in (1, 2, 5, 10, 20, 30, 60, 120) if lo_x <= t <= hi_x]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()


def _figure(study, rows_axis, cols_axis, excess, row_label, col_labels=None):
    rows, cols, cells = _grid(study, rows_axis, cols_axis)
    fig, axes, legend_ax = _new_grid_figure(len(rows), len(cols))
    handles = {}
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            ax = axes[i][j]
            p = cells.get((r, c))
            if p is None:
                ax.set_visible(False)
                continue
            _draw_panel(ax, p, excess, handles)
            o = p.arms["oracle"]
            title = (col_labels or {}).get(c, str(c))
            ax.set_title(f"{title}\noracle {_pct(o.mean):.2f} ± {_pct(o.ci95_half_width):.2f} %",
                         fontsize=6.5)
            if j == 0:
                ax.set_ylabel(f"{row_label(r)}\n" + ("excess over oracle (points)" if excess
                                                     else "P(dynamic failure) (%)"),
                              fontsize=7)
            if i == len(rows) - 1:
                ax.set_xlabel("fixed timeout (s)", fontsize=7)
    legend_ax.legend(list(handles.values()), list(handles.keys()), loc="center", ncol=4,
                     fontsize=6.5, frameon=False)
    return fig


def figure_excess(study, rows_axis, cols_axis, row_label=str, col_labels=None):
    return _figure(study, rows_axis, cols_axis, True, row_label, col_labels)


def figure_levels(study, rows_axis, cols_axis, row_label=str, col_labels=None):
    return _figure(study, rows_axis, cols_axis, False, row_label, col_labels)


# --- tables -------------------------------------------------------------------------------

def _f(x, digits=3):
    return "" if not is_finite(x) else f"{x:.{digits}f}"


def _p(x):
    if x is None:
        return ""
    return "< 1e-4" if x < 1e-4 else f"{x:.4f}"


def _share(a):
    if a is None or a.gap_share is None:
        return ""
    s = f"{100 * a.gap_share:.0f}%"
    if a.gap_share_ci:
        s += f" [{100 * a.gap_share_ci[0]:.0f}, {100 * a.gap_share_ci[1]:.0f}]"
    return s


def _msgs(a, none):
    if a is None or a.messages_mean is None or not none.messages_mean:
        return ""
    return f"×{a.messages_mean / none.messages_mean:.2f}"


def _est(a):
    if a is None or a.mean is None:
        return ""
    return f"{_pct(a.mean):.3f} ± {_pct(a.ci95_half_width or 0.0):.3f}"


def headline_rows(study):
    """Per point: the numbers of the headline (see headline_markdown)."""
    out = []
    for p in study.points:
        hs = sorted(p.of_kind("hou_shin"), key=lambda a: a.alpha or 0.0)
        best = p.arms.get(p.best_fixed) if p.best_fixed else None
        out.append({"point": p, "best": best, "hou_shin": hs,
                    "extra": p.arms.get(study.adaptive), "oracle": p.arms["oracle"],
                    "none": p.arms["none"],
                    "periodic": (p.of_kind("fixed_periodic") or [None])[0],
                    "oracle_extra": (p.of_kind("oracle_extra") or [None])[0]})
    return out


def headline_markdown(study, label=None):
    """label(point) -> str names each row (default: its parameters)."""
    label = label or (lambda p: point_label(p.params, study.axes))
    lines = [
        f"P(dynamic failure) [{study.metric}] in %, mean ± 95% half-width over replications; "
        "gap share = share of the none-to-oracle gap captured (paired, bootstrap 95% interval). "
        "The best fixed timeout is chosen in hindsight, per row, from the grid: a baseline "
        "tuned with knowledge the adaptive scheme does not need. Messages: state broadcasts "
        "sent, relative to `none` (the price of the information).",
        "",
        "| point | none | best fixed (hindsight) | its gap share | "
        + "hou_shin (α: value, gap share) | "
        + f"{study.adaptive} | its gap share | its messages | periodic heartbeat (gap share, "
        "messages) | oracle_extra | oracle |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for h in headline_rows(study):
        p, best = h["point"], h["best"]
        hs = "; ".join(f"{a.alpha:g}: {_est(a)} ({_share(a)})" for a in h["hou_shin"])
        per = h["periodic"]
        periodic = (f"{_est(per)} ({_share(per)}, {_msgs(per, h['none'])})" if per is not None
                    else "")
        lines.append(
            f"| {p.index}: {label(p)} | {_est(h['none'])} | "
            f"{best.timeout_s:g} s: {_est(best)} | {_share(best)} | {hs} | {_est(h['extra'])} | "
            f"{_share(h['extra'])} | {_msgs(h['extra'], h['none'])} | {periodic} | "
            f"{_est(h['oracle_extra'])} | {_est(h['oracle'])} |")
    return "\n".join(lines) + "\n"


def comparisons_markdown(study, level=0.05):
    lines = [
        f"Every arm against {study.adaptive}, paired over replications (common random numbers): "
        f"Δ = arm − {study.adaptive} in percentage points with its 95% interval, the paired-t "
        f"p-value and the Holm-adjusted p-value over all {_family_size(study)} comparisons of "
        f"the study. Verdict (Holm, level {level}): `worse` / `better` than {study.adaptive}, "
        "or `n.s.` (not significantly different: not a test of equivalence; the regime map "
        "and the equivalence tables test equivalence within a stated margin).",
        "",
        "| point | arm | P(dynamic failure) % | Δ (points) | p | p (Holm) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in study.points:
        for a in p.arms.values():
            c = a.vs_adaptive
            if c is None:
                lines.append(f"| {p.index} | {a.name} | {_est(a)} | (reference) | | | |")
                continue
            lines.append(f"| {p.index} | {a.name} | {_est(a)} | "
                         f"{_f(_pct(c.mean))} ± {_f(_pct(c.ci95_half_width))} | {_p(c.p)} | "
                         f"{_p(c.p_holm)} | {_verdict(c, level)} |")
    return "\n".join(lines) + "\n"


def _family_size(study):
    return sum(1 for p in study.points for a in p.arms.values()
               if a.vs_adaptive is not None and a.vs_adaptive.p is not None)


def _verdict(c, level):
    if c.p_holm is None or c.mean is None:
        return ""
    if c.p_holm > level:
        return "n.s."
    return "worse" if c.mean > 0 else "better"


def comparisons_csv(study):
    cols = ["point"] + study.axes + [
        "arm", "kind", "timeout_s", "alpha", "n", "mean", "ci95_half_width",
        "diff_vs_oracle_mean", "diff_vs_oracle_ci95_half_width", "diff_vs_oracle_p",
        f"diff_vs_{study.adaptive}_mean", f"diff_vs_{study.adaptive}_ci95_half_width",
        f"diff_vs_{study.adaptive}_p", f"diff_vs_{study.adaptive}_p_holm",
        "gap_share", "gap_share_ci95_lo", "gap_share_ci95_hi", "messages_mean",
        "best_fixed_in_hindsight"]
    import csv
    import io
    import json
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)

    def num(x):
        return "" if not is_finite(x) else repr(float(x))
    for p in study.points:
        params = [p.params.get(ax) for ax in study.axes]
        params = [v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
                  for v in params]
        for a in p.arms.values():
            o, d = a.vs_oracle, a.vs_adaptive
            ci = a.gap_share_ci or (None, None)
            w.writerow([p.index] + params + [
                a.name, a.kind, num(a.timeout_s), num(a.alpha), a.n, num(a.mean),
                num(a.ci95_half_width),
                num(o.mean if o else None), num(o.ci95_half_width if o else None),
                num(o.p if o else None),
                num(d.mean if d else None), num(d.ci95_half_width if d else None),
                num(d.p if d else None), num(d.p_holm if d else None),
                num(a.gap_share), num(ci[0]), num(ci[1]), num(a.messages_mean),
                "true" if p.best_fixed == a.name else ""])
    return buf.getvalue()


def fmt_seconds(x):
    return "" if x is None or not math.isfinite(x) else f"{x:g} s"
