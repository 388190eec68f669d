"""Plotting helpers: paper-size figures, labelled axes, error bars, CDFs, PNG + SVG output.

Contract:
- Figures are matplotlib.figure.Figure objects made without pyplot (no global state, no GUI
  backend: rendering goes through Agg), so tests can inspect them and several can coexist.
- Sizes are for papers: "single" (one column, 3.4 x 2.5 in), "double" (two columns, 7.0 x 2.8
  in); 8 pt text; 300 dpi PNG.
- save_figure() writes <out_dir>/<name>.<fmt> for each format (png, svg, pdf) and returns the
  paths. The SVG and PDF carry no date and use a fixed hash salt, so the same figure gives the
  same bytes; PNG output is deterministic for a given matplotlib version.
- Error bars are the 95% half-widths as given (a missing half-width draws no bar).
- Series styles: series_style(i) gives series i a (colour, marker, line style) that no other
  series of the first 40 shares (10 colours; the marker and line style change every 10).
- Legends never cover data: up to LEGEND_INSIDE_MAX entries go inside the axes where they
  overlap the fewest points ("best"); more go outside, to the right of the axes
  (legend_outside()), where the saved figure makes room for them.
- Count axes start at zero (start_counts_at_zero()).
"""

import os

import matplotlib
from matplotlib.figure import Figure

SIZES_IN = {"single": (3.4, 2.5), "double": (7.0, 2.8), "square": (3.4, 3.2)}

STYLE = {
    "font.size": 8,
    "axes.labelsize": 8,
    "axes.titlesize": 8,
    "legend.fontsize": 6.5,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "lines.markersize": 3.5,
    "errorbar.capsize": 2,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "legend.frameon": False,
    "svg.hashsalt": "fdsim",
    "svg.fonttype": "none",
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
}

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
LINESTYLES = ("-", "--", ":", "-.")
LEGEND_INSIDE_MAX = 4


def series_style(index):
    """(colour, marker, line style) of series `index`: distinct for the first 40 series."""
    color = f"C{index % 10}"
    marker = MARKERS[(index + index // 10) % len(MARKERS)]
    linestyle = LINESTYLES[(index // 10) % len(LINESTYLES)]
    return color, marker, linestyle


def legend_outside(n_entries):
    """True if a legend of `n_entries` goes outside the axes (too big to sit on the data)."""
    return n_entries > LEGEND_INSIDE_MAX


def legend_columns(n_entries):
    """Columns of an outside legend: one up to 20 entries, then as many as keep 20 rows."""
    return max(1, -(-n_entries // 20))


def start_counts_at_zero(ax, x_path=None, y_path=None):
    """A linear axis of a count ("..._count" metric) starts at 0, so bars of different
    heights are not read as ratios of their visible parts."""
    def is_count(path):
        return bool(path) and any(part.endswith("_count") for part in path.split("."))
    if is_count(y_path) and ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)
    if is_count(x_path) and ax.get_xscale() == "linear":
        ax.set_xlim(left=0)


def new_figure(size="single", ncols=1, nrows=1, sharey=False):
    """A paper-size Figure and its axes (a single Axes, or a list when ncols * nrows > 1)."""
    if size not in SIZES_IN:
        raise ValueError(f"unknown figure size {size!r} (sizes: {', '.join(SIZES_IN)})")
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=SIZES_IN[size], layout="constrained")
        axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat:
        _style_axes(ax)
    return fig, (flat[0] if len(flat) == 1 else flat)


def _style_axes(ax):
    ax.grid(True, alpha=STYLE["grid.alpha"], linewidth=STYLE["grid.linewidth"])
    ax.tick_params(labelsize=STYLE["xtick.labelsize"])
    ax.xaxis.label.set_size(STYLE["axes.labelsize"])
    ax.yaxis.label.set_size(STYLE["axes.labelsize"])
    ax.title.set_size(STYLE["axes.titlesize"])


def legend(ax, **kw):
    """The axes' legend: inside ("best") when small, else outside on the right."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if legend_outside(len(handles)):
        kw = {k: v for k, v in kw.items() if k != "loc"}
        leg = ax.legend(fontsize=STYLE["legend.fontsize"], frameon=False, loc="upper left",
                        bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                        ncol=legend_columns(len(handles)), **kw)
        # Outside the layout: the axes keep their size and the saved figure (bbox "tight")
        # grows to hold the legend.
        leg.set_in_layout(False)
        return leg
    kw.setdefault("loc", "best")
    return ax.legend(fontsize=STYLE["legend.fontsize"], frameon=False, **kw)


def legend_right(ax, handles, labels):
    """A legend of the given entries outside the axes, on their right (used for one legend
    shared by side-by-side panels, put right of the last one); outside the layout, like the
    large legends of legend()."""
    if not handles:
        return None
    leg = ax.legend(handles, labels, fontsize=STYLE["legend.fontsize"], frameon=False,
                    loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                    ncol=legend_columns(len(handles)))
    leg.set_in_layout(False)
    return leg


def line_with_ci(ax, xs, ys, half_widths=None, x_half_widths=None, label=None, index=0,
                 band=False):
    """One series: markers + line, with 95% error bars (or a band) from the half-widths.
    Colour and marker follow `index` (the series' place in the full arm list), so one arm looks
    the same in every panel even when a panel leaves some arms out (the reference arm of a
    paired-difference panel)."""
    xs, ys = list(xs), list(ys)
    color, marker, linestyle = series_style(index)
    if band and half_widths is not None:
        (line,) = ax.plot(xs, ys, marker=marker, label=label, color=color, linestyle=linestyle,
                          markersize=STYLE["lines.markersize"],
                          linewidth=STYLE["lines.linewidth"])
        lo = [y - (h or 0.0) for y, h in zip(ys, half_widths)]
        hi = [y + (h or 0.0) for y, h in zip(ys, half_widths)]
        ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color(), linewidth=0)
        return line
    yerr = None if half_widths is None else [h if h is not None else 0.0 for h in half_widths]
    xerr = None if x_half_widths is None else [h if h is not None else 0.0
                                                for h in x_half_widths]
    container = ax.errorbar(xs, ys, yerr=yerr, xerr=xerr, marker=marker, label=label, color=color,
                            linestyle=linestyle, capsize=STYLE["errorbar.capsize"],
                            markersize=STYLE["lines.markersize"],
                            linewidth=STYLE["lines.linewidth"], elinewidth=0.7)
    return container.lines[0]


def ecdf(values):
    """(sorted values, cumulative probabilities i/n) of an empirical CDF."""
    xs = sorted(float(v) for v in values)
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


def step_cdf(ax, values, label=None, index=0):
    """An empirical CDF as a right-continuous step line starting at probability 0."""
    xs, ps = ecdf(values)
    if not xs:
        return None
    color, _, linestyle = series_style(index)
    (line,) = ax.step([xs[0]] + xs, [0.0] + ps, where="post", label=label, color=color,
                      linewidth=STYLE["lines.linewidth"], linestyle=linestyle)
    return line


def save_figure(fig, out_dir, name, formats=("png", "svg")):
    """Writes the figure as <out_dir>/<name>.<fmt>; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for fmt in formats:
        path = os.path.join(out_dir, f"{name}.{fmt}")
        metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None,
                            "Producer": None}}.get(fmt)
        if metadata is None:
            raise ValueError(f"unsupported figure format {fmt!r} (png, svg, pdf)")
        with matplotlib.rc_context(STYLE):
            # Legends placed outside the layout (legend()) still belong in the saved image.
            extra = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
            fig.savefig(path, format=fmt, dpi=300, metadata=metadata,
                        bbox_extra_artists=extra)
        paths.append(path)
    return paths
