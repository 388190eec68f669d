#!/usr/bin/env bash
# Regenerates everything in results/ from the shipped studies, with the same seeds, so that the
# committed results/ is exactly what this command produces (deterministic: fdsim results depend
# only on the scenario, the seed and the code; the Python tables and figures only on them).
#
#   scripts/regenerate_results.sh                 every study (flagship, fixed-vs-adaptive, paper,
#                                                 detectors, geode, swim, memberlist: about 70 min
#                                                 of wall time on 2 idle cores, an estimate from
#                                                 the CPU times below: 70 CPU-min on 2 cores plus
#                                                 memberlist's 35 min of real time)
#   scripts/regenerate_results.sh paper geode     only these studies
#   scripts/regenerate_results.sh --post-only     remake figures and tables from the sweeps
#                                                 already in the work directory (no simulation)
#   scripts/regenerate_results.sh --check-small   rerun the flagship sweep into a temporary
#                                                 directory and compare its aggregate.csv, the
#                                                 study tables and figure byte-for-byte with
#                                                 results/flagship/, and redo comparisons.csv
#                                                 from the tidy export (for CI; about 2 min of
#                                                 CPU); exit 1 if they differ
#
# Each study's sweep runs from scratch in a work directory ($FDSIM_WORK/regenerate/<study>,
# default out/regenerate: the run files, kept for inspection); results/ receives only what does
# not depend on the machine: each sweep's aggregate.csv and plan (sweep.json, whose
# fdsim_git_revision names the checkout), the figures (PNG + SVG), the tables (markdown + CSV)
# and the generated tables inside the READMEs (between <!-- BEGIN x --> and <!-- END x -->).
# Run files are left out of results/ (their run_stats hold wall times and memory).
#
# Environment: FDSIM_BUILD (build directory, default build), JOBS (parallel runs, default
# nproc), FDSIM_WORK (work root, default out). Needs /usr/bin/python3 with numpy + matplotlib.
# CPU time of the simulations: flagship 4.1 min with the main job's reduced regime map (64 + 30
# runs, measured 2 December 2026 on a shared machine, `time`); fixed-vs-adaptive: the regime map
# (216 runs) 44 min (measured 2 December 2026, run_stats.cpu_time_s summed), plus the
# load-regime study 10.5 min (320 runs, sweep and analysis, measured 2 December 2026, `time`);
# paper 5.9 min (190 runs: 5.3 + 0.6 for the drop variant),
# detectors 2.0 min, geode 2.5 min (measured 2 December 2026 on one shard per sweep, the first
# replication of every point, from run_stats.cpu_time_s, times the replications); swim 65 s +
# 16 s for the Lifeguard-paper experiment (measured whole, 2 December and 1 December 2026);
# memberlist about 35 min of wall time (the real library runs in real time). The Python
# analysis and figures come on top and were not re-measured.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${FDSIM_BUILD:-build}
fdsim=$build/fdsim
jobs=${JOBS:-$(nproc)}
work=${FDSIM_WORK:-out}/regenerate
py=/usr/bin/python3
[ -x "$py" ] || py=python3

die() { echo "regenerate_results: $*" >&2; exit 2; }
[ -x "$fdsim" ] || die "$fdsim not found: build it first (cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C $build fdsim)"

analysis() { FDSIM_PYTHON="$py" scripts/fdsim-analysis "$@"; }

# sweep STUDY_WORK_NAME SWEEP_FILE RESULT_DIR [fdsim sweep options...]
# Runs the sweep afresh in the work directory and copies its aggregate and plan to RESULT_DIR.
sweep() {
  local name=$1 file=$2 res=$3
  shift 3
  local out=$work/$name
  mkdir -p "$res"
  if [ "$post_only" = 1 ]; then
    [ -f "$out/aggregate.csv" ] || die "--post-only: $out has no aggregate: run the study first"
    cp "$out/aggregate.csv" "$out/sweep.json" "$res/"
    return 0
  fi
  rm -rf "$out"
  mkdir -p "$out"
  local t0=$SECONDS
  echo "regenerate_results: $file -> $out (-j $jobs)" >&2
  "$fdsim" sweep "$file" --out "$out" -j "$jobs" --quiet "$@"
  cp "$out/aggregate.csv" "$out/sweep.json" "$res/"
  echo "regenerate_results: $name done in $((SECONDS - t0)) s" >&2
}

# post STEP ARGS...: the Python post-processing (tables, README tables) of one study.
post() { "$py" - "$@" <<'PY'
import csv, json, math, os, sys

def num(s):
    if s is None or s == "":
        return None
    try:
        return float(s)
    except ValueError:
        return s

def load(res):
    """The aggregate of a result directory: {(point, arm, metric): row}, arm order, points."""
    rows, arms = {}, []
    with open(os.path.join(res, "aggregate.csv"), newline="") as f:
        for r in csv.DictReader(f):
            p = int(r["point"])
            rows[(p, r["arm"], r["metric"])] = {k: num(v) for k, v in r.items()}
            if r["arm"] not in arms:
                arms.append(r["arm"])
    with open(os.path.join(res, "sweep.json")) as f:
        plan = json.load(f)
    points = {pt["index"]: pt["params"] for pt in plan["points"]}
    return rows, arms, points

def g(x, sig=3):
    """A number with `sig` significant digits, fixed notation where readable."""
    if x is None:
        return "n/a"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e-3 and a < 1e5:
        d = max(0, sig - 1 - int(math.floor(math.log10(a))))
        return f"{x:.{d}f}"
    return f"{x:.{sig - 1}e}"

def pm(mean, hw, sig=3):
    if mean is None:
        return "n/a"
    if hw is None:
        return g(mean, sig)
    return f"{g(mean, sig)} ± {g(hw, 2)}"

def diff_cell(r, sig=2, sign=True):
    """Paired difference 'Δ ± hw', starred when its 95% CI excludes 0."""
    if r is None or r.get("diff_mean") is None:
        return ""
    m, hw = r["diff_mean"], r["diff_ci95_half_width"]
    star = "*" if hw is not None and abs(m) > hw else ""
    s = ("+" if m > 0 and sign else "") + g(m, sig)
    return f"{s} ± {g(hw, 2)}{star}" if hw is not None else s

def fill(path, key, text):
    """Replace the block between <!-- BEGIN key --> and <!-- END key --> of a README."""
    with open(path) as f:
        doc = f.read()
    b, e = f"<!-- BEGIN {key} -->", f"<!-- END {key} -->"
    i, j = doc.find(b), doc.find(e)
    if i < 0 or j < i:
        sys.exit(f"post: {path}: markers {b} ... {e} not found")
    doc = doc[:i + len(b)] + "\n" + text.rstrip("\n") + "\n" + doc[j:]
    with open(path, "w") as f:
        f.write(doc)

def write(path, text):
    with open(path, "w") as f:
        f.write(text)

def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"

def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in r])

# ---------------------------------------------------------------------------------------------
def holm_cells(rows, keys):
    """{key: (p, p_holm)} for the paired differences rows[key] (Holm over all of `keys`)."""
    from analysis.fdsim_analysis.multiplicity import holm, paired_t_p_value
    ps = [paired_t_p_value(rows[k].get("diff_mean"), rows[k].get("diff_sd"),
                           None if rows[k].get("diff_n") is None else int(rows[k]["diff_n"]))
          if k in rows else None for k in keys]
    return dict(zip(keys, zip(ps, holm(ps))))

def fmt_p(p):
    return "" if p is None else ("<1e-4" if p < 1e-4 else f"{p:.3g}")

def paper(res, readme, prefix):
    """Per metric: one table per value of every axis but the column axis (the load regime when
    the sweep has one, else the load), rows = arms; each cell the mean ± 95% half-width and
    the paired difference against the reference arm with its Holm-adjusted p-value (the Holm
    family: every difference of that metric in the study)."""
    rows, arms, points = load(res)
    with open(os.path.join(res, "sweep.json")) as f:
        axes = json.load(f)["axes"]
    col_axis = "$.description" if "$.description" in axes else "$.workload.arrival_rate_per_s"
    group_axes = [a for a in axes if a not in (col_axis, "$.workload.arrival_rate_per_s",
                                               "$.workload.load_phases")]
    ref = "hou_shin_extra"
    metrics = [
        ("dynamic_failure_feasible_ratio", "P(dynamic failure) of the feasible tasks (what diagnosis can change)", 3),
        ("dynamic_failure_ratio", "P(dynamic failure) = (infeasible + missed + lost + aborted + dropped) / arrived", 3),
        ("false_suspicions_count", "False suspicions per run (trust -> suspect of a live buddy, all observer pairs)", 3),
        ("detection_time_km_median_s", "Median detection time of a crash (Kaplan-Meier over observer pairs, censored at repair; s)", 3),
        ("undetected_before_repair_count", "Crash-observer pairs not detected before the repair, per run", 3),
        ("dynamic_failure_lost_to_dead_ratio", "Tasks lost in transfers to dead nodes / arrived", 3),
        ("broadcast_messages_count", "Broadcast datagrams per run (region changes, recoveries, periodic and extra broadcasts)", 3),
    ]
    pts = sorted(points)
    cols = []
    for p in pts:
        if points[p][col_axis] not in cols:
            cols.append(points[p][col_axis])
    groups = []
    for p in pts:
        key = tuple(points[p].get(a) for a in group_axes)
        if key not in groups:
            groups.append(key)
    def group_title(key):
        parts = []
        for a, v in zip(group_axes, key):
            parts.append(f"repair mean {g(v, 3)} s" if a == "$.faults[0].mean_down_s" else f"{a} = {v}")
        return ", ".join(parts)
    def point_of(key, c):
        for p in pts:
            if tuple(points[p].get(a) for a in group_axes) == key and points[p][col_axis] == c:
                return p
        return None
    sections, csv_rows = [], []
    for metric, title, sig in metrics:
        if not any(rows.get((p, a, metric), {}).get("mean") for p in pts for a in arms):
            continue  # absent, or zero everywhere
        keys = [(p, a, metric) for p in pts for a in arms if a != ref]
        ph = holm_cells(rows, keys)
        md = [f"#### {title}\n",
              f"`{metric}`: mean ± 95% half-width over the replications; second line: paired "
              f"difference arm − {ref} ± 95% half-width, then its Holm-adjusted p-value (family: "
              f"the {sum(1 for k in keys if ph[k][0] is not None)} differences of this metric; "
              f"* = adjusted p < 0.05).\n"]
        for key in groups:
            if group_axes:
                md.append(f"**{group_title(key)}**\n")
            header = ["arm"] + [(f"load {g(c, 3)}" if not isinstance(c, str) else c) for c in cols]
            body = []
            for arm in arms:
                cells = [arm]
                for c in cols:
                    p = point_of(key, c)
                    r = rows.get((p, arm, metric)) if p is not None else None
                    if r is None or r["mean"] is None:
                        cells.append("n/a")
                        continue
                    cell = pm(r["mean"], r["ci95_half_width"], sig)
                    raw, adj = ph.get((p, arm, metric), (None, None))
                    if arm != ref and r.get("diff_mean") is not None:
                        m, hw = r["diff_mean"], r["diff_ci95_half_width"]
                        d = ("+" if m > 0 else "") + g(m, 2) + (f" ± {g(hw, 2)}" if hw is not None else "")
                        star = "*" if adj is not None and adj < 0.05 else ""
                        cell += f"<br>Δ {d}, p_Holm {fmt_p(adj)}{star}"
                    cells.append(cell)
                    csv_rows.append([*(points[p].get(a) for a in group_axes), c, arm, metric,
                                     r["n"], r["mean"], r["ci95_half_width"], r.get("diff_n"),
                                     r.get("diff_mean"), r.get("diff_ci95_half_width"), raw, adj])
                body.append(cells)
            md.append(md_table(header, body))
        sections.append((metric, "\n".join(md)))
    write(os.path.join(res, "tables.md"),
          f"# {os.path.basename(res.rstrip('/'))}: tables (generated by scripts/regenerate_results.sh)\n\n" +
          "\n".join(t for _, t in sections))
    write_csv(os.path.join(res, "tables.csv"),
              [a.rsplit(".", 1)[-1] for a in group_axes] + [col_axis.rsplit(".", 1)[-1], "arm", "metric", "n",
               "mean", "ci95_half_width", "diff_n", f"diff_mean_vs_{ref}", "diff_ci95_half_width",
               "diff_p", "diff_p_holm"], csv_rows)
    fill(readme, prefix + "dynamic-failure",
         "\n".join(t for m, t in sections if m == "dynamic_failure_feasible_ratio"))
    headline = os.path.join(res, "headline.md")
    if prefix == "" and os.path.exists(headline):
        with open(headline) as f:
            fill(readme, "headline", f.read())
    fill(readme, prefix + "diagnosis",
         "\n".join(t for m, t in sections if m in ("false_suspicions_count", "detection_time_km_median_s")))
    paper_equivalence(res, readme, prefix, rows, arms, points, col_axis, group_axes, ref)

# The equivalence margin of the paper study, in points of P(dynamic failure) of the feasible
# tasks: 0.02 points (2e-4), the size of the smallest effects this repository reports as
# findings (the adaptive scheme's advantage over the best fixed timeout at loads 0.8-0.95 in
# results/fixed-vs-adaptive, 0.02-0.04 points), so "equivalent" never hides an effect of the
# size the studies are about; about 8-16 feasible tasks per node-day at loads 0.5-0.95. 0.05
# points is shown as a sensitivity column.
PAPER_DELTA_POINTS = 0.02
PAPER_DELTA_LOOSE_POINTS = 0.05

def paper_equivalence(res, readme, prefix, rows, arms, points, col_axis, group_axes, ref):
    """Every arm against the reference on P(dynamic failure) of the feasible tasks: TOST at
    PAPER_DELTA_POINTS and one-sided superiority tests, each kind Holm-adjusted over every
    comparison of the table (analysis/fdsim_analysis/equivalence.py); equivalence.md/.csv and
    the README's per-arm summary."""
    from analysis.fdsim_analysis.equivalence import family_verdicts, t_interval
    metric = "dynamic_failure_feasible_ratio"
    keys = [(p, a) for p in sorted(points) for a in arms
            if a != ref and (p, a, metric) in rows]
    def comp(k):
        r = rows[(k[0], k[1], metric)]
        n = r.get("diff_n")
        return (r.get("diff_mean"), r.get("diff_sd"), None if n is None else int(n))
    comps = [comp(k) for k in keys]
    tight = family_verdicts(comps, PAPER_DELTA_POINTS / 100, positive_is_better=False)
    loose = family_verdicts(comps, PAPER_DELTA_LOOSE_POINTS / 100, positive_is_better=False)
    m = sum(1 for v in tight if v.p_tost is not None)
    def label(p):
        parts = [f"repair {points[p][a]:g} s" if a == "$.faults[0].mean_down_s" else f"{a} = {points[p][a]}"
                 for a in group_axes]
        c = points[p][col_axis]
        parts.append(c if isinstance(c, str) else f"load {c:g}")
        return ", ".join(parts)
    def pts(x):
        return "n/a" if x is None else f"{100 * x:+.3f}"
    header = ["point", "arm", "Δ (points)", "90% interval (points)", "p TOST (Holm)",
              "p better (Holm)", "p worse (Holm)", f"verdict, δ = {PAPER_DELTA_POINTS:g}",
              f"verdict, δ = {PAPER_DELTA_LOOSE_POINTS:g}"]
    body, csvr = [], []
    for k, v, w in zip(keys, tight, loose):
        ci = t_interval(v.diff_mean, v.diff_sd, v.n, 0.90)
        body.append([f"{k[0]}: {label(k[0])}", k[1], pts(v.diff_mean),
                     "n/a" if ci is None else f"[{pts(ci[0])}, {pts(ci[1])}]",
                     fmt_p(v.p_tost_adj), fmt_p(v.p_less_adj), fmt_p(v.p_greater_adj),
                     v.verdict, w.verdict])
        csvr.append([k[0], *(points[k[0]].get(a) for a in group_axes), points[k[0]][col_axis], k[1],
                     v.n, v.diff_mean, v.diff_sd, None if ci is None else ci[0],
                     None if ci is None else ci[1], v.p_tost, v.p_tost_adj, v.p_less, v.p_less_adj,
                     v.p_greater, v.p_greater_adj, v.verdict, w.p_tost_adj, w.verdict])
    intro = (f"Every arm against `{ref}` on P(dynamic failure) of the feasible tasks "
             f"(`{metric}`), paired over replications: Δ = arm − {ref} in percentage points, its "
             f"90% Student-t interval, and three tests, each Holm-adjusted over the {m} comparisons "
             f"of this table: TOST of |Δ| < δ (two one-sided paired t tests; at 0.05 the same as "
             f"the 90% interval inside (−δ, δ) before the adjustment), and the one-sided paired t "
             f"tests of Δ < 0 (the arm better) and Δ > 0 (the arm worse). Verdict at level 0.05: "
             f"`equivalent` if the adjusted TOST p < 0.05, else `better` / `worse` if that "
             f"adjusted one-sided p < 0.05, else `inconclusive`. δ = {PAPER_DELTA_POINTS:g} "
             f"points: the smallest effects this repository reports as findings (the adaptive "
             f"scheme's advantage over the best fixed timeout at loads 0.8-0.95 in "
             f"results/fixed-vs-adaptive is 0.02-0.04 points), so `equivalent` cannot hide an "
             f"effect of that size; {PAPER_DELTA_LOOSE_POINTS:g} points as a sensitivity column. "
             f"Generated by scripts/regenerate_results.sh "
             f"(analysis/fdsim_analysis/equivalence.py).\n")
    write(os.path.join(res, "equivalence.md"),
          f"# {os.path.basename(res.rstrip('/'))}: equivalence and superiority against {ref} "
          f"(generated)\n\n" + intro + "\n" + md_table(header, body))
    write_csv(os.path.join(res, "equivalence.csv"),
              ["point"] + [a.rsplit(".", 1)[-1] for a in group_axes] +
              [col_axis.rsplit(".", 1)[-1], "arm", "diff_n", f"diff_mean_vs_{ref}", "diff_sd",
               "diff_ci90_lo", "diff_ci90_hi", "p_tost", "p_tost_holm", "p_better", "p_better_holm",
               "p_worse", "p_worse_holm", "verdict", "p_tost_loose_holm", "verdict_loose"], csvr)
    # The README's summary: per arm, the verdicts over the points; then the best fixed timeout
    # in hindsight (the fixed_* arm with the lowest mean at each point) against the scheme.
    kinds = ("better", "equivalent", "worse", "inconclusive")
    sh = ["arm"] + [f"{x} (δ = {PAPER_DELTA_POINTS:g})" for x in kinds] + [f"equivalent (δ = {PAPER_DELTA_LOOSE_POINTS:g})"]
    sb = []
    for arm in arms:
        if arm == ref:
            continue
        vs = [(v, w) for k, v, w in zip(keys, tight, loose) if k[1] == arm]
        sb.append([arm] + [str(sum(1 for v, _ in vs if v.verdict == x)) for x in kinds] +
                  [str(sum(1 for _, w in vs if w.verdict == "equivalent"))])
    bh = ["point", "best fixed (hindsight)", "Δ (points)", "90% interval", f"verdict, δ = {PAPER_DELTA_POINTS:g}",
          f"verdict, δ = {PAPER_DELTA_LOOSE_POINTS:g}"]
    bb = []
    for p in sorted(points):
        fixed = [(rows[(p, a, metric)]["mean"], a) for a in arms
                 if a.startswith("fixed_") and not a.startswith("fixed_periodic") and (p, a, metric) in rows]
        if not fixed:
            continue
        best = min(fixed)[1]
        i = keys.index((p, best))
        v, w = tight[i], loose[i]
        ci = t_interval(v.diff_mean, v.diff_sd, v.n, 0.90)
        bb.append([f"{p}: {label(p)}", best, pts(v.diff_mean),
                   "n/a" if ci is None else f"[{pts(ci[0])}, {pts(ci[1])}]", v.verdict, w.verdict])
    summary = (f"Verdicts of every arm against `{ref}` over the points (`equivalence.md`: TOST at "
               f"δ = {PAPER_DELTA_POINTS:g} points and one-sided tests, each Holm-adjusted over "
               f"the {m} comparisons; why this δ: there):\n\n" + md_table(sh, sb) +
               "\nThe best fixed timeout in hindsight at each point against the scheme:\n\n" + md_table(bh, bb))
    fill(readme, prefix + "equivalence", summary)

# ---------------------------------------------------------------------------------------------
DET_KNOBS = {  # arm -> (axis path, knob label)
    "fixed": ("$.detectors.arms[0].detector.timeout_ms", "timeout_ms"),
    "nfd_s": ("$.detectors.arms[1].detector.delta_ms", "delta_ms"),
    "nfd_e": ("$.detectors.arms[2].detector.alpha_ms", "alpha_ms"),
    "phi_accrual": ("$.detectors.arms[3].detector.threshold", "threshold"),
    "exponential_accrual": ("$.detectors.arms[4].detector.threshold", "threshold"),
    "bertier": ("$.detectors.arms[5].detector.phi", "phi"),
    "quantile": ("$.detectors.arms[6].detector.alpha", "alpha"),
}
TARGETS_S = (1.0, 1.5, 2.0, 3.0)
# The detection-time axis of the curves: Chen's mean T_D (0 s for a crash q already suspected,
# undetected crashes left out) and the unbiased Kaplan-Meier median (models/metrics/qos_metrics.md).
DET_X = {"chen": "detection_time_mean_s", "km": "detection_time_km_median_s"}

def detectors(res):
    rows, arms, points = load(res)
    curve_md, curve_csv = [], []
    curves = {k: {} for k in DET_X}
    def total(p, arm, metric):
        r = rows.get((p, arm, metric))
        return r["mean"] * r["n"] if r and r["mean"] is not None else None
    for arm in arms:
        path, label = DET_KNOBS[arm]
        pts = {k: [] for k in DET_X}
        for p in sorted(points):
            y = rows[(p, arm, "mistake_rate_per_s")]
            k = rows[(p, arm, "mistakes_count")]
            o = rows[(p, arm, "observed_time_s")]
            qa = rows[(p, arm, "query_accuracy_ratio")]
            mistakes = k["mean"] * k["n"]
            observed = o["mean"] * o["n"]
            for key, metric in DET_X.items():
                x = rows.get((p, arm, metric))
                if x is None or x["mean"] is None:
                    continue
                pts[key].append((x["mean"], x["ci95_half_width"], y["mean"], y["ci95_half_width"],
                                 points[p][path], mistakes, observed, qa["mean"]))
            x = rows[(p, arm, DET_X["chen"])]
            xk = rows.get((p, arm, DET_X["km"])) or {"mean": None, "ci95_half_width": None}
            already = total(p, arm, "already_suspected_at_crash_count")
            samples = total(p, arm, "detection_km_samples_count")
            censored = total(p, arm, "detection_km_censored_count")
            crashes_at = (already or 0) + (samples or 0)
            already_pct = 100 * already / crashes_at if already is not None and crashes_at else None
            censored_pct = 100 * censored / samples if censored is not None and samples else None
            curve_md.append([arm, f"{label} = {g(points[p][path], 3)}", pm(x["mean"], x["ci95_half_width"]),
                             pm(xk["mean"], xk["ci95_half_width"]),
                             "n/a" if already_pct is None else f"{g(already_pct, 2)}%",
                             "n/a" if censored_pct is None else f"{g(censored_pct, 2)}%",
                             pm(y["mean"], y["ci95_half_width"]), str(round(mistakes)),
                             g(qa["mean"], 6)])
            curve_csv.append([arm, label, points[p][path], x["mean"], x["ci95_half_width"], y["mean"],
                              y["ci95_half_width"], round(mistakes), observed, qa["mean"],
                              xk["mean"], xk["ci95_half_width"],
                              None if already is None else round(already),
                              None if samples is None else round(samples),
                              None if censored is None else round(censored)])
        for key in DET_X:
            curves[key][arm] = sorted(pts[key])
    curve_header = ["detector", "knob", "mean detection time, Chen (s)",
                    "KM median detection time (s)", "already suspected at crash",
                    "censored", "mistake rate (1/s)", "mistakes", "query accuracy"]
    write(os.path.join(res, "curves.md"),
          "# detector-tradeoff: every point of every curve (generated)\n\n"
          "Mean over the replications ± 95% half-width; mistakes = total over the replications. "
          "Chen's mean T_D counts a crash q already suspected as detected in 0 s and leaves "
          "undetected crashes out; the Kaplan-Meier (KM) median leaves the first out (their share "
          "of the crashes: 'already suspected at crash') and censors the second at p's repair, "
          "q's crash or the horizon (their share of the KM samples: 'censored'); "
          "models/metrics/qos_metrics.md.\n\n" +
          md_table(curve_header, curve_md))
    write_csv(os.path.join(res, "curves.csv"),
              ["detector", "knob", "knob_value", "detection_time_mean_s", "detection_time_ci95_s",
               "mistake_rate_per_s", "mistake_rate_ci95_per_s", "mistakes_total",
               "observed_time_total_s", "query_accuracy_ratio", "detection_time_km_median_s",
               "detection_time_km_median_ci95_s", "already_suspected_at_crash_total",
               "detection_km_samples_total", "detection_km_censored_total"], curve_csv)

    def at(curve, t):
        """log-linear interpolation of the mistake rate at mean detection time t between the two
        neighbouring points of the curve; a point with no mistake stands for its rule-of-three
        95% upper bound 3 / observed time (the result is then an upper bound, '<=')."""
        for a, b in zip(curve, curve[1:]):
            if a[0] <= t <= b[0]:
                w = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
                bound = False
                def val(pt, off):
                    nonlocal bound
                    y = pt[2] + off * (pt[3] or 0.0)
                    if pt[5] == 0:
                        bound = True
                        return 3.0 / pt[6]
                    return y
                def interp(ya, yb):
                    if ya <= 0 or yb <= 0:
                        return None
                    return 10 ** ((1 - w) * math.log10(ya) + w * math.log10(yb))
                mid = interp(val(a, 0), val(b, 0))
                lo = interp(val(a, -1), val(b, -1))
                hi = interp(val(a, +1), val(b, +1))
                return mid, lo, hi, bound, (a[4], b[4])
        return None

    def matched_table(curves_x, x_name):
        header = ["detector"] + [f"T_D = {t:g} s" for t in TARGETS_S]
        body, csvr = [], []
        for arm in arms:
            cells = [arm]
            for t in TARGETS_S:
                r = at(curves_x[arm], t) if curves_x[arm] else None
                if r is None:
                    if curves_x[arm]:
                        lo_x, hi_x = curves_x[arm][0][0], curves_x[arm][-1][0]
                        cells.append(f"out of range ({g(lo_x)}..{g(hi_x)} s)")
                    else:
                        cells.append("n/a")
                    csvr.append([arm, t, None, None, None, "", "out_of_range"])
                    continue
                mid, lo, hi, bound, (ka, kb) = r
                ci = f" [{g(lo) if lo else '0'}, {g(hi)}]" if not bound else ""
                cells.append(("≤ " if bound else "") + g(mid) + ci + f"<br>({DET_KNOBS[arm][1]} {g(ka)}..{g(kb)})")
                csvr.append([arm, t, mid, lo, hi, "upper_bound" if bound else "", f"{ka}..{kb}"])
            body.append(cells)
        return md_table(header, body), csvr

    matched, csvr = matched_table(curves["chen"], DET_X["chen"])
    write(os.path.join(res, "matched_detection_time.md"),
          "# detector-tradeoff: mistake rate (1/s) at a matched mean detection time (generated)\n\n" + matched)
    write_csv(os.path.join(res, "matched_detection_time.csv"),
              ["detector", "detection_time_mean_s", "mistake_rate_per_s", "mistake_rate_low_per_s",
               "mistake_rate_high_per_s", "kind", "knob_interval"], csvr)
    matched_km, csvr_km = matched_table(curves["km"], DET_X["km"])
    write(os.path.join(res, "matched_detection_time_km.md"),
          "# detector-tradeoff: mistake rate (1/s) at a matched Kaplan-Meier median detection "
          "time (generated)\n\n" + matched_km)
    write_csv(os.path.join(res, "matched_detection_time_km.csv"),
              ["detector", "detection_time_km_median_s", "mistake_rate_per_s", "mistake_rate_low_per_s",
               "mistake_rate_high_per_s", "kind", "knob_interval"], csvr_km)
    fill(os.path.join(res, "README.md"), "matched", matched)
    fill(os.path.join(res, "README.md"), "matched-km", matched_km)
    fill(os.path.join(res, "README.md"), "curves", md_table(curve_header, curve_md))

# ---------------------------------------------------------------------------------------------
PAUSES_PER_RUN = 10 * (540 - 60) / 1600  # members x window / mean interval (geode-gc-pauses.json)

def geode_gc(res):
    rows, arms, points = load(res)
    m_axis = "$.membership.member_timeout_ms"
    header = ["M (ms)", "arm", "mean removal time (s)", "false removals per run",
              "Δ vs fixed (Holm-adjusted p)", "P(false removal | pause)", "false suspicions per run",
              "crashes per run"]
    body, csvr = [], []
    curves = {}
    # Holm family: every arm-vs-fixed difference of false removals in the table.
    ph = holm_cells(rows, [(p, a, "false_removals_count") for p in sorted(points) for a in arms
                           if a != "fixed"])
    for p in sorted(points):
        M = points[p][m_axis]
        for arm in arms:
            rt = rows[(p, arm, "detection_removal_s.mean")]
            fr = rows[(p, arm, "false_removals_count")]
            fs = rows[(p, arm, "false_suspicions_count")]
            cr = rows[(p, arm, "crashes_count")]
            body.append([str(M), arm, pm(rt["mean"], rt["ci95_half_width"]),
                         pm(fr["mean"], fr["ci95_half_width"]),
                         (diff_cell(fr) + f" (p {fmt_p(ph[(p, arm, 'false_removals_count')][1])})")
                         if arm != "fixed" else "(reference)",
                         g(fr["mean"] / PAUSES_PER_RUN, 2), pm(fs["mean"], fs["ci95_half_width"]),
                         g(cr["mean"], 3)])
            csvr.append([M, arm, rt["mean"], rt["ci95_half_width"], rt["n"], fr["mean"],
                         fr["ci95_half_width"], fr.get("diff_mean"), fr.get("diff_ci95_half_width"),
                         ph.get((p, arm, "false_removals_count"), (None, None))[1],
                         fr["mean"] / PAUSES_PER_RUN, fs["mean"], cr["mean"]])
            curves.setdefault(arm, []).append((rt["mean"], fr["mean"], M))
    table = md_table(header, body)
    write(os.path.join(res, "table.md"), "# geode-gc-pauses: per member timeout and arm (generated)\n\n" + table)
    write_csv(os.path.join(res, "table.csv"),
              ["member_timeout_ms", "arm", "removal_time_mean_s", "removal_time_ci95_s", "removal_time_n",
               "false_removals_per_run", "false_removals_ci95", "false_removals_diff_vs_fixed",
               "false_removals_diff_ci95", "false_removals_diff_p_holm", "false_removal_per_pause",
               "false_suspicions_per_run",
               "crashes_per_run"], csvr)
    targets = (4.0, 5.0, 6.0, 8.0)
    mh = ["arm"] + [f"removal time {t:g} s" for t in targets]
    mb = []
    for arm in arms:
        c = sorted(v for v in curves[arm] if v[0] is not None)
        cells = [arm]
        for t in targets:
            val = None
            for a, b in zip(c, c[1:]):
                if a[0] <= t <= b[0]:
                    w = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
                    val = ((1 - w) * a[1] + w * b[1], a[2], b[2])
                    break
            cells.append("out of range" if val is None else f"{g(val[0], 2)} (M {val[1]}..{val[2]})")
        mb.append(cells)
    matched = md_table(mh, mb)
    write(os.path.join(res, "matched_removal_time.md"),
          "# geode-gc-pauses: false removals per run at a matched mean removal time (generated)\n\n" + matched)
    readme = os.path.join(os.path.dirname(res), "README.md")
    fill(readme, "gc-table", table)
    fill(readme, "gc-matched", matched)

def geode_removal(res, runs_dir):
    """Removal and first-suspicion times, one crash per run, from the run files of the sweep."""
    with open(os.path.join(res, "sweep.json")) as f:
        plan = json.load(f)
    per = {}
    csvr = []
    for pt in plan["points"]:
        prof = pt["params"]["$.membership.profile"]
        for rep, rid in enumerate(pt["run_ids"]):
            with open(os.path.join(runs_dir, rid + ".json")) as f:
                run = json.load(f)
            m = run["metrics"][run["manifest"]["arm_order"][0]]
            rm, su = m["detection_removal_s"], m["detection_first_suspicion_s"]
            if rm["count"] != 1:
                sys.exit(f"post: run {rid}: expected exactly one removal, got {rm['count']}")
            per.setdefault(prof, {"removal": [], "suspicion": [], "false_susp": 0, "false_rem": 0})
            d = per[prof]
            d["removal"].append(rm["mean"])
            d["suspicion"].append(su["mean"])
            d["false_susp"] += m["false_suspicions_count"]
            d["false_rem"] += m["false_removals_count"]
            csvr.append([prof, run["manifest"]["replication"], su["mean"], rm["mean"],
                         m["detection_all_survivors_s"]["mean"]])
    write_csv(os.path.join(res, "removal_times.csv"),
              ["profile", "replication", "first_suspicion_s", "removal_s", "all_survivors_s"], csvr)
    M, C, R, d = 5.0, 0.3, 0.1, 0.001
    bounds = {  # (acceptance case 16, models/geode/README.md derivation with F = M for M = 5000 ms)
        "current": ("[2M + 0.3 s, 3M + 0.3 s + delays] = [10.300, 15.3 + delays]",
                    (2 * M + C + 3 * d, 3 * M + C + 6 * d), (M + d, 2 * M + d)),
        "wiki": ("one tick (T = M/2) later than current",
                 (2.5 * M + C + 3 * d, 3.5 * M + C + 6 * d), (1.5 * M + d, 2.5 * M + d)),
    }
    def q(v, p):
        v = sorted(v)
        i = (len(v) - 1) * p
        lo = math.floor(i)
        return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)
    header = ["profile", "crashes", "removal min (s)", "median (s)", "max (s)", "mean (s)",
              "derived bounds (s)", "acceptance bounds (s)", "inside", "first suspicion min..max (s)",
              "suspicion bounds (s)", "false suspicions", "false removals"]
    body = []
    for prof in ("current", "wiki"):
        if prof not in per:
            continue
        d = per[prof]
        r, s = d["removal"], d["suspicion"]
        spec, (lo, hi), (slo, shi) = bounds[prof]
        inside = sum(1 for x in r if lo <= x <= hi)
        body.append([prof, str(len(r)), f"{min(r):.3f}", f"{q(r, 0.5):.3f}", f"{max(r):.3f}",
                     f"{sum(r) / len(r):.3f}", f"[{lo:.3f}, {hi:.3f}]", spec, f"{inside}/{len(r)}",
                     f"{min(s):.3f}..{max(s):.3f}", f"({slo:.3f}, {shi:.3f})",
                     str(d["false_susp"]), str(d["false_rem"])])
    table = md_table(header, body)
    write(os.path.join(res, "removal_summary.md"),
          "# geode-gc-pauses-removal: removal time of one crash, 10 members, M = 5000 ms (generated)\n\n" + table)
    fill(os.path.join(os.path.dirname(res), "README.md"), "removal-table", table)

def headline(res, readme):
    """The study's headline table (written by `analysis study`) into its README."""
    with open(os.path.join(res, "headline.md")) as f:
        fill(readme, "headline", f.read())

def regime_map(res, readme):
    """The regime map's table (written by `analysis study regime-map`) into its README."""
    with open(os.path.join(res, "regime_map.md")) as f:
        fill(readme, "regime-map", f.read())
    with open(os.path.join(res, "budget-a0.3", "regime_map.md")) as f:
        fill(readme, "regime-map-a0.3", f.read())

step = sys.argv[1]
if step == "headline":
    headline(sys.argv[2], sys.argv[3])
elif step == "regime-map":
    regime_map(sys.argv[2], sys.argv[3])
elif step == "paper":
    paper(sys.argv[2], sys.argv[3], sys.argv[4])
elif step == "detectors":
    detectors(sys.argv[2])
elif step == "geode-gc":
    geode_gc(sys.argv[2])
elif step == "geode-removal":
    geode_removal(sys.argv[2], sys.argv[3])
else:
    sys.exit(f"post: unknown step {step}")
PY
}

# ---------------------------------------------------------------------------------------------
study_flagship() {
  if [ "$post_only" = 1 ]; then
    FDSIM_RESULTS=results/flagship FDSIM_KEEP_WORK=1 FDSIM_WORK=$work JOBS=$jobs FDSIM_BUILD=$build ./scripts/flagship.sh >/dev/null
  else
    FDSIM_RESULTS=results/flagship FDSIM_WORK=$work JOBS=$jobs FDSIM_BUILD=$build ./scripts/flagship.sh >/dev/null
  fi
}

# The fixed-versus-adaptive study: the regime map (issue 29; 18 regimes x 12 replications, every
# arm family with its cost frontier) into results/fixed-vs-adaptive/, and the earlier load-regime
# study (40 replications; the flagship is its first 8) into results/fixed-vs-adaptive/load-regimes/.
study_fixed_vs_adaptive() {
  local res=results/fixed-vs-adaptive old=results/fixed-vs-adaptive/load-regimes
  sweep regime-map scenarios/studies/regime-map-sweep.json $res --reference-arm oracle
  analysis study regime-map --sweep "$work/regime-map" --out $res --format png,svg >/dev/null
  analysis study regime-map --sweep "$work/regime-map" --out $res/budget-a0.3 \
    --budget-arm hou_shin_extra_a0.3 --format png,svg >/dev/null
  post regime-map $res $res/README.md
  sweep fixed-vs-adaptive scenarios/studies/fixed-vs-adaptive-sweep.json $old \
    --reference-arm oracle
  analysis study fixed-vs-adaptive --sweep "$work/fixed-vs-adaptive" --out $old \
    --format png,svg >/dev/null
  post headline $old $old/README.md
}

study_paper() {
  local res=results/paper drop=results/paper/unplaced-drop
  sweep paper scenarios/paper/hou-shin-1994-sweep.json $res --reference-arm hou_shin_extra
  sweep paper-drop scenarios/paper/hou-shin-1994-drop-sweep.json $drop --reference-arm hou_shin_extra
  # Per (repair time, load regime): every fixed timeout against the adaptive arms and the
  # oracle (figure, headline with gap shares, every comparison with Holm-adjusted p).
  analysis study fixed-vs-adaptive --sweep "$work/paper" --out $res --format png,svg >/dev/null
  paper_figures $drop
  post paper $res $res/README.md ""
  post paper $drop $res/README.md "drop-"
}

# paper_figures DIR: P(dynamic failure) against load with the paired-difference panel, every
# arm; and, if there is a fixed_2s arm, the same without it (its large difference flattens
# the others).
paper_figures() {
  local res=$1 xl="Load: per-node arrival rate"
  analysis figure loadsharing --sweep $res --diff --size double --out $res \
    --name dynamic_failure --format png,svg --x-label "$xl" >/dev/null
  grep -q ',fixed_2s,' $res/aggregate.csv || return 0
  local arms=()
  for a in $("$py" -c 'import csv,sys
seen=[]
for r in csv.DictReader(open(sys.argv[1])):
    if r["arm"] not in seen: seen.append(r["arm"])
print(" ".join(a for a in seen if a != "fixed_2s"))' $res/aggregate.csv); do arms+=(--arm "$a"); done
  analysis figure loadsharing --sweep $res --diff --size double --out $res "${arms[@]}" \
    --name dynamic_failure_zoom --format png,svg --x-label "$xl" >/dev/null
}

study_detectors() {
  local res=results/detectors
  sweep detectors scenarios/studies/detector-tradeoff-sweep.json $res
  analysis figure qos --sweep $res --group-by arm --size double --out $res \
    --name qos_tradeoff --format png,svg 2>/dev/null >/dev/null
  analysis figure qos --sweep $res --group-by arm --size double --out $res \
    --x-metric detection_time_km_median --name qos_tradeoff_km --format png,svg 2>/dev/null >/dev/null
  post detectors $res
}

study_geode() {
  local gc=results/geode/gc-pauses rm=results/geode/removal
  sweep geode-gc scenarios/studies/geode-gc-pauses-sweep.json $gc
  analysis figure geode-gc --sweep "$work/geode-gc" --group-by arm --size double --out $gc \
    --name false_removals_vs_removal_time --format png,svg 2>/dev/null >/dev/null
  post geode-gc $gc
  sweep geode-removal scenarios/studies/geode-gc-pauses-removal-sweep.json $rm
  analysis figure cdf --sweep "$work/geode-removal" --size double --out $rm \
    --name removal_time_cdf --format png,svg >/dev/null
  post geode-removal $rm "$work/geode-removal/runs"
}

# SWIM: Lifeguard on/off and the Geode ring under pauses and loss (65 s of CPU, measured).
study_swim() {
  PYTHONPATH=analysis "$py" -m fdsim_analysis.studies.swim_tradeoff --fdsim "$fdsim" \
    --work "$work/swim"
  # The Lifeguard paper's experiment with starved members (16 s of CPU, measured).
  PYTHONPATH=analysis "$py" -m fdsim_analysis.studies.swim_lifeguard_paper --fdsim "$fdsim" \
    --work "$work/swim-lifeguard-paper"
  PYTHONPATH=analysis "$py" -m fdsim_analysis.studies.swim_lifeguard_paper --fdsim "$fdsim" \
    --timers on_time --work "$work/swim-lifeguard-paper-on-time"
}

# SWIM against the real hashicorp/memberlist library (about 35 min of wall time: the library
# runs in real time). Reuses results/validation/memberlist/raw/*.jsonl unless they are deleted.
study_memberlist() {
  "$py" validation/memberlist/compare.py --fdsim "$fdsim" --work "$work/memberlist"
}

check_tmp=""
check_small() {
  check_tmp=$(mktemp -d)
  [ -n "${FDSIM_KEEP_CHECK:-}" ] || trap 'rm -rf "$check_tmp"' EXIT
  local tmp=$check_tmp
  echo "regenerate_results: --check-small: scenarios/sweeps/flagship.json -> $tmp (-j $jobs)" >&2
  "$fdsim" sweep scenarios/sweeps/flagship.json --out "$tmp/flagship" -j "$jobs" \
    --reference-arm oracle --quiet
  if cmp -s "$tmp/flagship/aggregate.csv" results/flagship/aggregate.csv; then
    echo "regenerate_results: --check-small: aggregate.csv identical to results/flagship/aggregate.csv"
  else
    echo "regenerate_results: --check-small: aggregate.csv DIFFERS from results/flagship/aggregate.csv:" >&2
    diff "$tmp/flagship/aggregate.csv" results/flagship/aggregate.csv | head -20 >&2 || true
    exit 1
  fi
  # The analysis step: the same runs must give the committed tables and figure (SVG; it is
  # made together with the PNG because the tight bounding box depends on the formats asked).
  local post=$tmp/post
  mkdir -p "$post"
  analysis study fixed-vs-adaptive --sweep "$tmp/flagship" --out "$post" --format png,svg \
    >/dev/null
  local f
  for f in headline.md comparisons.md comparisons.csv fixed_vs_adaptive.svg; do
    cmp -s "$post/$f" "results/flagship/$f" ||
      { diff "$post/$f" "results/flagship/$f" | head -10 >&2; die "--check-small: $f regenerated from the runs DIFFERS from results/flagship/$f"; }
  done
  echo "regenerate_results: --check-small: headline.md, comparisons.md, comparisons.csv and fixed_vs_adaptive.svg identical"
  # The tidy export and its pandas example redo the published comparisons.csv (skipped, with a
  # message, where pandas is not installed; ./quickstart.sh test installs it).
  if "$py" -c 'import pandas' 2>/dev/null; then
    "$fdsim" export "$tmp/flagship" --format csv --quiet
    "$py" analysis/examples/tidy_export.py "$tmp/flagship/tidy.csv" \
      --compare results/flagship/comparisons.csv | tail -1
  else
    echo "regenerate_results: --check-small: pandas missing: tidy-export example not checked" >&2
  fi
}

studies=()
post_only=0
for a in "$@"; do
  case "$a" in
    --check-small) check_small; exit 0 ;;
    --post-only) post_only=1 ;;
    flagship|paper|detectors|geode|swim|memberlist) studies+=("$a") ;;
    fixed-vs-adaptive) studies+=(fixed_vs_adaptive) ;;
    -h|--help) sed -n 2,26p "$0"; exit 0 ;;
    *) die "unknown argument '$a' (studies: flagship fixed-vs-adaptive paper detectors geode swim memberlist; options --post-only, --check-small)" ;;
  esac
done
[ ${#studies[@]} -gt 0 ] || studies=(flagship fixed_vs_adaptive paper detectors geode swim memberlist)

t_all=$SECONDS
for s in "${studies[@]}"; do
  t0=$SECONDS
  "study_$s"
  echo "regenerate_results: study $s done in $((SECONDS - t0)) s" >&2
done
echo "regenerate_results: all done in $((SECONDS - t_all)) s; see results/*/README.md" >&2
