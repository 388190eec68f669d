"""Tables and figures of the regime map (regime_map.analyse).

- map_markdown / map_csv: one row per regime: budget, the two picks, delta with its 95 %
  interval (points of P(df) and relative), tasks per node-day, the margin, the three
  Holm-adjusted p-values and the verdict.
- family_markdown: per regime, the adaptive pick against the best arm of each baseline family
  within the budget (paired delta and 95 % interval), and each family's frontier.
- mechanism_markdown / mechanism_csv: the two picks' false suspicions and live-suspected time
  by the target's region (U/M/O), detections never made and transfers to dead nodes, per
  node-hour.
- alpha_markdown: the adaptive arms' P(df) at every alpha and their paired difference against
  alpha = 0.05 (the sensitivity to the scheme's own knob).
- figure_map: the headline figure, a forest plot of the relative delta per regime with its
  95 % interval and the +-margin band, coloured by verdict.
- figure_frontiers: cost (messages per node per s) against P(df) of every arm of the named
  regimes, each family's frontier as a line, the budget as a vertical line.
"""

import csv
import io

from .plotting import legend_right, new_figure, series_style
from .regime_map import BASELINES, CONTROLS, FAMILIES, REGIONS
from .stats import summarize

CONTROL_LABELS = {"none": "none", "oracle": "oracle", "oracle_extra": "oracle + extra",
                  "oracle_periodic": "oracle + periodic", "periodic_no_diagnosis":
                  "periodic, no diagnosis"}
VERDICT_COLOURS = {"adaptive better": "C2", "equivalent": "C0", "adaptive worse": "C3",
                   "inconclusive": "0.5"}


def _pts(x, digits=3):
    """A ratio as percentage points (P(df) in %)."""
    return "–" if x is None else f"{100 * x:.{digits}f}"


def _p(x):
    if x is None:
        return "–"
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def _rel(d, base):
    if d is None or base is None or base == 0:
        return None
    return d / base


def map_rows(rmap):
    rows = []
    for r in rmap.regimes:
        base = r.arms.get(r.baseline_pick) if r.baseline_pick else None
        ad = r.arms.get(r.adaptive_pick) if r.adaptive_pick else None
        d, dn = r.delta, r.delta_per_node_day
        bm = base.mean if base else None
        rows.append({
            "regime": r.label, "anchor": r.anchor, "nodes": r.nodes,
            "budget_messages_per_node_s": r.budget,
            "adaptive_pick": r.adaptive_pick, "adaptive_pdf": ad.mean if ad else None,
            "adaptive_messages_per_node_s": ad.cost_mean if ad else None,
            "baseline_pick": r.baseline_pick, "baseline_pdf": bm,
            "baseline_messages_per_node_s": base.cost_mean if base else None,
            "delta": d.mean if d else None, "delta_ci95": d.ci95 if d else None,
            "delta_rel": _rel(d.mean, bm) if d else None,
            "delta_rel_ci95": _rel(d.ci95, bm) if d else None,
            "delta_tasks_per_node_day": dn.mean if dn else None,
            "delta_tasks_per_node_day_ci95": dn.ci95 if dn else None,
            "margin": r.margin, "n": d.n if d else 0,
            "p_better_holm": d.p_greater_holm if d else None,
            "p_worse_holm": d.p_less_holm if d else None,
            "p_equivalent_holm": d.p_tost_holm if d else None,
            "verdict": r.verdict,
        })
    return rows


def map_markdown(rmap):
    out = io.StringIO()
    out.write(f"Per regime: the adaptive scheme's best arm (hou_shin or hou_shin_extra, any α) "
              f"against the best fixed-family arm (fixed, fixed_on_silence, fixed_periodic, "
              f"geode_ring) whose message cost is within the budget (the cost of "
              f"`{rmap.budget_arm}` + 2 %), both chosen in hindsight. Δ = P(df) of the baseline "
              f"pick − P(df) of the adaptive pick, paired over {rmap.replications} replications "
              f"(positive: adaptive fails fewer tasks), in points of % with the 95 % interval, "
              f"relative to the baseline pick and in tasks per node-day. Margin δ = "
              f"{100 * rmap.delta_rel:g} % of the baseline pick's P(df); p-values one-sided "
              f"paired t (TOST for equivalence), each Holm-adjusted across the "
              f"{len(rmap.regimes)} regimes. Cost in messages per node per s "
              f"(traffic.messages_per_node_s).\n\n")
    out.write("| regime | budget (msg/node/s) | adaptive pick: P(df) % (cost) | baseline pick: "
              "P(df) % (cost) | Δ (points) | Δ relative | Δ tasks/node-day | δ (points) | "
              "p better | p worse | p equivalent | verdict |\n")
    out.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for row in map_rows(rmap):
        rel = ("–" if row["delta_rel"] is None else
               f"{100 * row['delta_rel']:+.1f} % ± {100 * row['delta_rel_ci95']:.1f}")
        tpd = ("–" if row["delta_tasks_per_node_day"] is None else
               f"{row['delta_tasks_per_node_day']:+.1f} ± "
               f"{row['delta_tasks_per_node_day_ci95']:.1f}")
        out.write(
            f"| {row['regime']} | {row['budget_messages_per_node_s']:.2f} | "
            f"{row['adaptive_pick']}: {_pts(row['adaptive_pdf'])} "
            f"({row['adaptive_messages_per_node_s']:.2f}) | "
            f"{row['baseline_pick']}: {_pts(row['baseline_pdf'])} "
            f"({row['baseline_messages_per_node_s']:.2f}) | "
            f"{100 * row['delta']:+.3f} ± {100 * row['delta_ci95']:.3f} | {rel} | {tpd} | "
            f"{_pts(row['margin'])} | {_p(row['p_better_holm'])} | {_p(row['p_worse_holm'])} | "
            f"{_p(row['p_equivalent_holm'])} | **{row['verdict']}** |\n")
    counts = {}
    for r in rmap.regimes:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    out.write("\nVerdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".\n")
    return out.getvalue()


def _csv(rows, fields):
    """Rows (dicts) as CSV: empty cells for None, floats to 6 significant digits."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: ("" if v is None else (f"{v:.6g}" if isinstance(v, float) else v))
                    for k, v in row.items()})
    return out.getvalue()


def map_csv(rmap):
    rows = map_rows(rmap)
    return _csv(rows, list(rows[0].keys()) if rows else ["regime"])


def family_markdown(rmap):
    out = io.StringIO()
    out.write("Per regime and baseline family: the family's best arm within the budget and "
              "Δ = its P(df) − the adaptive pick's (points of %, paired 95 % interval; "
              "positive: adaptive better), then every family's frontier (arms no other arm of "
              "the family beats on both cost and P(df), by increasing cost).\n\n")
    out.write("| regime | " + " | ".join(BASELINES) + " |\n")
    out.write("|---|" + "---|" * len(BASELINES) + "\n")
    for r in rmap.regimes:
        cells = []
        for fam in BASELINES:
            b, t = r.family_best.get(fam), r.family_delta.get(fam)
            if b is None or t is None or t.mean is None:
                cells.append("none within budget")
            else:
                ci = "" if t.ci95 is None else f" ± {100 * t.ci95:.3f}"
                cells.append(f"{b}: {100 * t.mean:+.3f}{ci}")
        out.write(f"| {r.label} | " + " | ".join(cells) + " |\n")
    out.write("\nFrontiers (arm: messages per node per s, P(df) %):\n\n")
    for r in rmap.regimes:
        out.write(f"- **{r.label}**\n")
        for fam in FAMILIES:
            pts = ", ".join(f"{n} ({r.arms[n].cost_mean:.2f}, {_pts(r.arms[n].mean)})"
                            for n in r.frontiers.get(fam, []))
            out.write(f"  - {fam}: {pts}\n")
        ctl = ", ".join(f"{a.name} ({a.cost_mean:.2f}, {_pts(a.mean)})"
                        for a in r.arms.values() if a.kind in CONTROLS and a.mean is not None)
        out.write(f"  - controls: {ctl}\n")
    return out.getvalue()


def alpha_markdown(rmap, kinds=("hou_shin_extra", "hou_shin")):
    """Per regime: P(df) (%) and cost of each adaptive arm, by kind and alpha, and the paired
    difference of each alpha against alpha = 0.05 (points of %, 95 % interval): alpha is a
    tuning knob, and this is its sensitivity."""
    out = io.StringIO()
    out.write("α sensitivity: per regime and adaptive kind, P(df) in % at each α (cost in "
              "messages per node per s) and, in brackets, the paired difference against α = "
              "0.05 in points of % with its 95 % interval (positive: worse than 0.05).\n\n")
    for kind in kinds:
        arms0 = [a for a in rmap.regimes[0].arms.values() if a.kind == kind] if rmap.regimes else []
        names = [a.name for a in arms0]
        ref = next((n for n in names if n.endswith("a0.05")), None)
        out.write(f"**{kind}**\n\n| regime | " + " | ".join(names) + " |\n")
        out.write("|---|" + "---|" * len(names) + "\n")
        for r in rmap.regimes:
            cells = []
            for n in names:
                a = r.arms.get(n)
                if a is None or a.mean is None:
                    cells.append("–")
                    continue
                cell = f"{_pts(a.mean)} ({a.cost_mean:.2f})"
                if ref and n != ref and ref in r.arms:
                    d = [x - y for x, y in zip(a.values, r.arms[ref].values)
                         if x is not None and y is not None]
                    sm = summarize(d)
                    if sm.mean is not None and sm.ci95_half_width is not None:
                        cell += f" [{100 * sm.mean:+.3f} ± {100 * sm.ci95_half_width:.3f}]"
                cells.append(cell)
            out.write(f"| {r.label} | " + " | ".join(cells) + " |\n")
        out.write("\n")
    return out.getvalue()


MECH_FIELDS = ([f"{r}.false_suspicions_count" for r in REGIONS[:3]] +
               [f"{r}.live_suspected_time_s" for r in REGIONS[:3]] +
               [f"{r}.detections_never_count" for r in REGIONS[:3]] +
               [f"{r}.detection_time_mean_s" for r in REGIONS[:3]] +
               ["transfers_to_dead_count", "unplaced_no_receiver_count"])


def mechanism_rows(rmap):
    rows = []
    for r in rmap.regimes:
        for role, name in (("adaptive", r.adaptive_pick), ("baseline", r.baseline_pick)):
            if name is None:
                continue
            m = r.arms[name].mechanism
            row = {"regime": r.label, "role": role, "arm": name}
            row.update({k: m.get(k) for k in MECH_FIELDS})
            rows.append(row)
    return rows


def mechanism_markdown(rmap):
    def f(x, d=1):
        return "–" if x is None else f"{x:.{d}f}"
    out = io.StringIO()
    out.write("Per regime, the two picks of the map: false suspicions per node-hour by the "
              "target's region in the observer's view when the suspicion began (U: the only "
              "region that receives transfers), seconds per node-hour a live target spent "
              "suspected by region, crashes (observer pairs) per node-hour never detected before "
              "the repair or horizon by the region of the crashed target, mean detection time "
              "(s) by region, and per node-hour the transfers sent to a dead node and the tasks "
              "that found no receiver.\n\n")
    out.write("| regime | arm | false susp. U / M / O | live-suspected s U / M / O | "
              "never detected U / M / O | detection s U / M / O | transfers to dead | "
              "no receiver |\n|---|---|---|---|---|---|---|---|\n")
    for row in mechanism_rows(rmap):
        g = lambda k, d=1: " / ".join(f(row[f"{r}.{k}"], d) for r in REGIONS[:3])
        out.write(f"| {row['regime']} | {row['role']}: {row['arm']} | "
                  f"{g('false_suspicions_count', 2)} | {g('live_suspected_time_s', 1)} | "
                  f"{g('detections_never_count', 3)} | {g('detection_time_mean_s', 2)} | "
                  f"{f(row['transfers_to_dead_count'], 2)} | "
                  f"{f(row['unplaced_no_receiver_count'], 2)} |\n")
    return out.getvalue()


def mechanism_csv(rmap):
    return _csv(mechanism_rows(rmap), ["regime", "role", "arm"] + MECH_FIELDS)


def figure_map(rmap):
    rows = [row for row in map_rows(rmap) if row["delta_rel"] is not None]
    fig, ax = new_figure("double")
    fig.set_size_inches(7.0, 0.9 + 0.24 * len(rows))
    ys = list(range(len(rows)))[::-1]
    for y, row in zip(ys, rows):
        c = VERDICT_COLOURS.get(row["verdict"], "k")
        margin_rel = rmap.delta_rel
        ax.fill_betweenx([y - 0.35, y + 0.35], -100 * margin_rel, 100 * margin_rel,
                         color="C0", alpha=0.12, linewidth=0)
        ax.errorbar(100 * row["delta_rel"], y, xerr=100 * row["delta_rel_ci95"], fmt="o",
                    color=c, markersize=4, capsize=2)
    ax.axvline(0, color="k", linewidth=0.6)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{row['regime']}  [{row['adaptive_pick']} vs {row['baseline_pick']}]"
                        for row in rows], fontsize=6.5)
    ax.set_xlabel("Δ P(df) relative to the best fixed-family arm within budget (%), 95 % CI; "
                  "> 0: adaptive better")
    ax.set_title(f"Adaptive vs fixed at equal message cost ({rmap.replications} paired "
                 f"replications; shaded: ± {100 * rmap.delta_rel:g} % equivalence margin)",
                 fontsize=7)
    ax.grid(axis="y", alpha=0)
    handles = [ax.plot([], [], "o", color=c, label=v)[0] for v, c in VERDICT_COLOURS.items()]
    legend_right(ax, handles, list(VERDICT_COLOURS))
    return fig


def figure_frontiers(rmap, keys):
    regs = [r for r in rmap.regimes if r.anchor in keys and ":" in r.label]
    regs = regs or rmap.regimes[:2]
    fig, axes = new_figure("double", ncols=len(regs))
    axes = axes if isinstance(axes, list) else [axes]
    for ax, r in zip(axes, regs):
        for i, fam in enumerate(FAMILIES):
            arms = sorted((a for a in r.arms.values() if a.kind == fam and a.mean is not None),
                          key=lambda a: a.cost_mean)
            if not arms:
                continue
            colour, marker, _ = series_style(i)
            ax.plot([a.cost_mean for a in arms], [100 * a.mean for a in arms], marker,
                    color=colour, alpha=0.35, markersize=3)
            fr = [r.arms[n] for n in r.frontiers.get(fam, [])]
            ax.plot([a.cost_mean for a in fr], [100 * a.mean for a in fr], marker + "-",
                    color=colour, label=fam, markersize=3.5)
        controls = [a for a in r.arms.values() if a.kind in CONTROLS and a.mean is not None]
        right = max((a.cost_mean for a in r.arms.values() if a.cost_mean is not None),
                    default=0)
        for a in controls:
            ax.plot([a.cost_mean], [100 * a.mean], "x", color="k", markersize=4)
            near_right = a.cost_mean > 0.7 * right
            below = a.kind in ("oracle", "oracle_periodic")
            ax.annotate(CONTROL_LABELS.get(a.kind, a.name), (a.cost_mean, 100 * a.mean),
                        fontsize=5, xytext=(-3 if near_right else 3, -6 if below else 2),
                        textcoords="offset points", ha="right" if near_right else "left")
        # The interesting range: from the best arm to a little above no diagnosis; arms worse
        # than no diagnosis (short fixed timeouts) leave through the top.
        levels = [100 * a.mean for a in r.arms.values() if a.mean is not None]
        none = r.arms.get("none")
        if levels and none is not None and none.mean is not None:
            lo, hi = min(levels), 100 * none.mean
            pad = 0.08 * (hi - lo) if hi > lo else 0.01
            ax.set_ylim(lo - pad, hi + pad)
        if r.budget is not None:
            ax.axvline(r.budget, color="k", linestyle=":", linewidth=0.8)
        ax.set_title(r.label, fontsize=7)
        ax.set_xlabel("messages per node per s (traffic); dotted: budget")
    axes[0].set_ylabel("P(dynamic failure) of feasible tasks (%)")
    h, l = axes[0].get_legend_handles_labels()
    legend_right(axes[-1], h, l)
    return fig
