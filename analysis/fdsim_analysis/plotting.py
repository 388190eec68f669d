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
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=STYLE["legend.fontsize"], frameon=False, **kw)


def line_with_ci(ax, xs, ys, half_widths=None, x_half_widths=None, label=None, index=0,
                 band=False):
    """One series: markers + line, with 95% error bars (or a band) from the half-widths.
    Colour and marker follow `index` (the series' place in the full arm list), so one arm looks
    the same in every panel even when a panel leaves some arms out (the reference arm of a
    paired-difference panel)."""
    xs, ys = list(xs), list(ys)
    marker = MARKERS[index % len(MARKERS)]
    color = f"C{index % 10}"
    if band and half_widths is not None:
        (line,) = ax.plot(xs, ys, marker=marker, label=label, color=color,
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
                            capsize=STYLE["errorbar.capsize"],
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
    (line,) = ax.step([xs[0]] + xs, [0.0] + ps, where="post", label=label,
                      linewidth=STYLE["lines.linewidth"],
                      linestyle=("-", "--", ":", "-.")[(index // 10) % 4])
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
            fig.savefig(path, format=fmt, dpi=300, metadata=metadata)
        paths.append(path)
    return paths
