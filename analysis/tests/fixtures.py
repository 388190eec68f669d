"""Small fixed inputs for the analysis tests, written into temporary directories.

The sweep outputs imitate what `fdsim sweep` writes (sim/sweep/plan.cpp plan_manifest,
sim/sweep/aggregate.cpp aggregate_csv / aggregate_jsonl): OUT/sweep.json, OUT/runs/<id>.json,
OUT/aggregate.jsonl and OUT/aggregate.csv with the same columns and cell formats.
"""

import csv
import io
import json
import os

from fdsim_analysis.aggregate import aggregate_runs
from fdsim_analysis.loading import load_run


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def run_doc(resolved_config, metrics, replication=0, scenario_hash="h", name="fixture"):
    return {"manifest": {"fdsim_version": "0.1.0", "scenario_name": name,
                         "scenario_hash": scenario_hash, "seed": 1, "replication": replication,
                         "arm_order": list(metrics), "resolved_config": resolved_config},
            "metrics": metrics, "run_stats": {"wall_time_s": 0.1}}


def _num(v):
    return "" if v is None else json.dumps(v)


def write_aggregate_files(out_dir, table):
    """aggregate.csv and aggregate.jsonl in the format of sim/sweep/aggregate.cpp."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["point"] + table.axes + ["arm", "metric", "n", "mean", "sd", "ci95_half_width",
                                         "reference_arm", "diff_n", "diff_mean", "diff_sd",
                                         "diff_ci95_half_width"])
    lines = []
    for r in table.rows:
        axis_cells = [r.params[a] if isinstance(r.params[a], str) else json.dumps(r.params[a])
                      for a in table.axes]
        diff = r.diff_n is not None
        w.writerow([r.point] + axis_cells + [
            r.arm, r.metric, r.n, _num(r.mean), _num(r.sd), _num(r.ci95_half_width),
            r.reference_arm or "",
            r.diff_n if diff else "", _num(r.diff_mean) if diff else "",
            _num(r.diff_sd) if diff else "", _num(r.diff_ci95_half_width) if diff else ""])
        lines.append(json.dumps({
            "point": r.point, "params": {a: r.params[a] for a in table.axes}, "arm": r.arm,
            "metric": r.metric, "n": r.n, "mean": r.mean, "sd": r.sd,
            "ci95_half_width": r.ci95_half_width, "reference_arm": r.reference_arm,
            "diff_n": r.diff_n, "diff_mean": r.diff_mean, "diff_sd": r.diff_sd,
            "diff_ci95_half_width": r.diff_ci95_half_width}))
    with open(os.path.join(out_dir, "aggregate.csv"), "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
    with open(os.path.join(out_dir, "aggregate.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def write_sweep(out_dir, axes, points, make_run, replications, axis_names=None):
    """A sweep output: points is a list of param dicts; make_run(params, rep) -> run doc;
    axis_names ({path: name}) as sweep.json records named axes."""
    manifest_points = []
    paths = []
    for i, params in enumerate(points):
        ids = []
        for rep in range(replications):
            rid = f"{i:04x}{rep:012x}"
            ids.append(rid)
            path = os.path.join(out_dir, "runs", rid + ".json")
            write_json(path, make_run(params, rep))
            paths.append(path)
        manifest_points.append({"index": i, "params": params, "run_ids": ids})
    manifest = {"fdsim_version": "0.1.0", "name": "fixture", "source": "sweeps/fixture.json",
                "scenario_source": "base.json", "reference_arm": None, "axes": axes}
    if axis_names:
        manifest["axis_names"] = axis_names
    manifest.update(points=manifest_points, distinct_runs=len(paths), sweep={})
    write_json(os.path.join(out_dir, "sweep.json"), manifest)
    runs = [load_run(p) for p in paths]
    table = aggregate_runs(runs, axes)
    write_aggregate_files(out_dir, table)
    return table


# --- the load-sharing study -------------------------------------------------------------------
LS_AXIS = "$.workload.arrival_rate_per_s"
LS_ARMS = ("none", "fixed_5s", "oracle")
LS_LOADS = (0.5, 0.7, 0.9)


def ls_run(params, rep):
    load = params[LS_AXIS]
    base = {"none": 0.10, "fixed_5s": 0.06, "oracle": 0.04}
    metrics = {arm: {"dynamic_failure_ratio": base[arm] * load * 2 + 0.01 * rep,
                     "tasks_arrived_count": 1000 + rep,
                     "response_time_mean_s": 1.0 / (1.0 - load) + 0.1 * rep,
                     "membership": None}
               for arm in LS_ARMS}
    cfg = {"workload": {"arrival_rate_per_s": load},
           "load_sharing": {"arms": [{"name": "none", "diagnosis": "none"},
                                     {"name": "fixed_5s", "diagnosis": "fixed",
                                      "timeout_ms": 5000},
                                     {"name": "oracle", "diagnosis": "oracle"}]}}
    return run_doc(cfg, metrics, rep, scenario_hash=f"ls{load}")


def write_ls_sweep(out_dir, replications=3):
    return write_sweep(out_dir, [LS_AXIS], [{LS_AXIS: x} for x in LS_LOADS], ls_run,
                       replications)


# --- the heartbeat study (detector QoS) -----------------------------------------------------
QOS_AXIS = "$.detectors.arms[0].detector.threshold"


def qos_run(params, rep):
    th = params[QOS_AXIS]
    metrics = {
        "phi": {"detection_time_mean_s": 1.0 + 0.5 * th + 0.01 * rep,
                "mistake_rate_per_s": 10.0 ** (-th / 2) * (1 + 0.1 * rep),
                "query_accuracy_ratio": 0.999},
        "fixed": {"detection_time_mean_s": 3.5 + 0.01 * rep,
                  "mistake_rate_per_s": 0.0 if th > 10 else 1e-3 * (1 + 0.1 * rep),
                  "query_accuracy_ratio": 0.99},
    }
    cfg = {"detectors": {"arms": [{"name": "phi", "detector": {"kind": "phi_accrual",
                                                              "threshold": th}},
                                  {"name": "fixed", "detector": {"kind": "fixed",
                                                                 "timeout_ms": 3000}}]}}
    return run_doc(cfg, metrics, rep, scenario_hash=f"qos{th}")


def write_qos_sweep(out_dir, thresholds=(4, 8, 12), replications=2):
    return write_sweep(out_dir, [QOS_AXIS], [{QOS_AXIS: t} for t in thresholds], qos_run,
                       replications)


# --- the Geode ring ---------------------------------------------------------------------------
def geode_run(profile, member_timeout_ms, rep, with_lists=True):
    m = member_timeout_ms / 1000.0 * (1.0 if profile == "wiki" else 0.6)
    det = [m + 0.1 * k + 0.01 * rep for k in range(3)]
    rem = [x + 0.5 for x in det]
    arms = {}
    for arm, shift in (("fixed", 0.0), ("phi", -0.5)):
        # The summaries of models/geode/geode_metrics.cpp, plus the per-run lists.
        first = {"mean": sum(det) / 3 + shift, "min": det[0] + shift, "p50": det[1] + shift,
                 "max": det[2] + shift, "count": 3}
        removal = {"mean": sum(rem) / 3 + shift, "min": rem[0] + shift, "p50": rem[1] + shift,
                   "max": rem[2] + shift, "count": 3}
        if with_lists:
            first["samples_s"] = [x + shift for x in det]
            removal["samples_s"] = [x + shift for x in rem]
        arms[arm] = {"detection_first_suspicion_s": first, "detection_removal_s": removal,
                     "false_removals_count": (2 if arm == "fixed" else 1) + rep}
    cfg = {"membership": {"profile": profile, "member_timeout_ms": member_timeout_ms,
                          "neighbour_check": [{"name": "fixed"},
                                              {"name": "phi",
                                               "detector": {"kind": "phi_accrual"}}]}}
    return run_doc(cfg, arms, rep, scenario_hash=f"g{profile}{member_timeout_ms}")


GEODE_AXES = ["$.membership.profile", "$.membership.member_timeout_ms"]


def write_geode_sweep(out_dir, replications=2, with_lists=True):
    points = [{GEODE_AXES[0]: p, GEODE_AXES[1]: m}
              for p in ("wiki", "current") for m in (2000, 5000)]
    return write_sweep(out_dir, GEODE_AXES, points,
                       lambda params, rep: geode_run(params[GEODE_AXES[0]],
                                                     params[GEODE_AXES[1]], rep, with_lists),
                       replications)


# --- a GC-pause study with three axes (one a bare unit), for names, --where and facets ------
PAUSE_AXIS = "$.faults[0].pause.ms"
PROFILE_AXIS = "$.membership.profile"
PAUSE_AXES = [PAUSE_AXIS, PROFILE_AXIS, LS_AXIS]


def pause_run(params, rep):
    """Load-sharing and Geode metrics that depend on all three axes (known exactly)."""
    pause, profile, load = params[PAUSE_AXIS], params[PROFILE_AXIS], params[LS_AXIS]
    k = 1.0 if profile == "wiki" else 2.0
    metrics = {}
    for arm, f in (("fixed", 1.0), ("phi", 0.5)):
        metrics[arm] = {"dynamic_failure_ratio": f * k * load * pause / 1000.0 + 0.001 * rep,
                        "detection_removal_s": {"mean": f * (5 + pause / 100.0) + 0.01 * rep,
                                                "count": 1,
                                                "samples_s": [f * (5 + pause / 100.0)]},
                        "false_removals_count": k * pause / 100.0 * f + rep}
    cfg = {"faults": [{"pause": {"ms": pause}}],
           "membership": {"profile": profile, "member_timeout_ms": 5000,
                          "neighbour_check": [{"name": "fixed"},
                                              {"name": "phi",
                                               "detector": {"kind": "phi_accrual"}}]},
           "workload": {"arrival_rate_per_s": load}}
    return run_doc(cfg, metrics, rep, scenario_hash=f"p{pause}{profile}{load}")


def write_pause_sweep(out_dir, axis_names=None, replications=2):
    points = [{PAUSE_AXIS: p, PROFILE_AXIS: pr, LS_AXIS: x}
              for p in (100, 500) for pr in ("wiki", "current") for x in (0.5, 0.9)]
    return write_sweep(out_dir, PAUSE_AXES, points, pause_run, replications, axis_names)
