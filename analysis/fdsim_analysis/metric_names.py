"""The one mapping from figure roles to metric paths and config paths.

Every figure, table and summary of `fdsim_analysis` names metrics through the roles
below, never through literal metric names: when a model renames a metric, change the path here
(one line) and every figure follows.

Metric paths are relative to one arm's metrics (the "metric" column of OUT/aggregate.csv):
dotted keys, list elements as "name[3]". Config paths are sweep-axis style paths into a run's
manifest.resolved_config ("$.membership.profile").

Where the names come from (grep in models/*/*.cpp, *.h):
- heartbeat-study QoS: models/metrics/qos_summary.h (detection_time_mean_s, mistake_rate_per_s,
  query_accuracy_ratio, ...).
- load sharing: models/loadsharing/ (metrics JSON of LoadSharingModel).
- Geode ring: models/geode/ (GeodeModel::metrics()).
Each entry says whether it was checked against the model source (VERIFIED) or is the expected
name from the model documentation, still to be confirmed against the model output (EXPECTED).
"""

# --- Scalar metrics: role -> metric path -------------------------------------------------
METRICS = {
    # Load sharing (docs/metrics.md section 3; models/loadsharing/loadsharing_metrics.cpp).
    "dynamic_failure_probability": "dynamic_failure_ratio",               # VERIFIED
    "response_time_mean": "response_time_mean_s",                         # VERIFIED
    # Pairwise heartbeat study QoS (models/metrics/qos_summary.h).
    "detection_time_mean": "detection_time_mean_s",                       # VERIFIED
    "detection_time_p99": "detection_time_p99_s",                         # VERIFIED
    "detection_time_km_median": "detection_time_km_median_s",             # VERIFIED
    "mistake_rate": "mistake_rate_per_s",                                 # VERIFIED
    "mistake_recurrence_time_mean": "mistake_recurrence_time_mean_s",     # VERIFIED
    "mistake_duration_mean": "mistake_duration_mean_s",                   # VERIFIED
    "query_accuracy": "query_accuracy_ratio",                             # VERIFIED
    # Geode ring (docs/metrics.md section 2; models/geode/geode_metrics.cpp). The detection times are
    # summaries {mean, min, p50, max, count} over the run's measured crashes.
    "geode_first_suspicion_time_mean": "detection_first_suspicion_s.mean",  # VERIFIED
    "geode_removal_time_mean": "detection_removal_s.mean",                # VERIFIED
    "geode_all_survivors_time_mean": "detection_all_survivors_s.mean",    # VERIFIED
    "geode_false_removals": "false_removals_count",                       # VERIFIED
    "geode_false_removal_rate": "false_removals_per_member_hour",         # VERIFIED
    "geode_false_suspicions": "false_suspicions_count",                   # VERIFIED
}

# Human labels of the roles (without unit: the unit is derived from the path's suffix).
LABELS = {
    "dynamic_failure_probability": "P(dynamic failure)",
    "response_time_mean": "Mean response time",
    "detection_time_mean": "Mean detection time",
    "detection_time_p99": "Detection time p99",
    "detection_time_km_median": "Kaplan–Meier median detection time",
    "mistake_rate": "Mistake rate",
    "mistake_recurrence_time_mean": "Mean mistake recurrence time",
    "mistake_duration_mean": "Mean mistake duration",
    "query_accuracy": "Query accuracy",
    "geode_first_suspicion_time_mean": "Mean time to first suspicion",
    "geode_removal_time_mean": "Mean removal time",
    "geode_all_survivors_time_mean": "Mean time to view at all survivors",
    "geode_false_removals": "False removals per run",
    "geode_false_removal_rate": "False removal rate",
    "geode_false_suspicions": "False suspicions per run",
}

# --- Per-run lists (for CDFs): role -> where one run's samples are ------------------------
# "list": a JSON array of numbers in one arm's metrics (an object with a "values" array is
# accepted too). When a run has no such list, the run's summary is used instead: "mean" with
# "count" samples; exact when count is 0 or 1 (one crash per run), otherwise the CDF mixes in
# per-run means and the figure says so in its notes and title.
# The Geode recorder (models/geode/geode_metrics.cpp) lists the per-crash samples under
# "samples_s" (at most the first 1000 crashes of a run; "count" says how many there were).
LISTS = {
    "geode_detection_times": {"list": "detection_first_suspicion_s.samples_s",
                              "mean": "detection_first_suspicion_s.mean",
                              "count": "detection_first_suspicion_s.count"},
    "geode_removal_times": {"list": "detection_removal_s.samples_s",
                            "mean": "detection_removal_s.mean",
                            "count": "detection_removal_s.count"},
}
LIST_LABELS = {
    "geode_detection_times": "Crash to first suspicion",
    "geode_removal_times": "Crash to removal (new view)",
}
LIST_UNITS = {"geode_detection_times": "s", "geode_removal_times": "s"}

# --- Headline metric of `summary`: the first role present in the data --------------------
HEADLINE_ROLES = (
    "dynamic_failure_probability",
    "geode_removal_time_mean",
    "mistake_rate",
    "detection_time_mean",
)

# What the headline metric counts, said in the `summary` header (its definition in
# docs/metrics.md, in a few words).
HEADLINE_NOTES = {
    "dynamic_failure_probability": "counts every task missed or lost per task arrived, "
                                   "including tasks infeasible at arrival (execution time > "
                                   "deadline; dynamic_failure_infeasible_ratio is that part)",
}

# --- Config paths (into manifest.resolved_config) ----------------------------------------
GEODE_PROFILE = "$.membership.profile"
GEODE_MEMBER_TIMEOUT = "$.membership.member_timeout_ms"
# Legend text of a grouping value, by config path ("{}" is the value); other paths show as
# "<last key>=<value>".
GROUP_LABELS = {GEODE_PROFILE: "{}", GEODE_MEMBER_TIMEOUT: "M={} ms"}
# Sweep axes tried, in order, as the load (x) axis of the load-sharing figure when
# --x-axis is not given: the first axis whose path ends with one of these.
LOAD_AXIS_SUFFIXES = ("load", "arrival_rate_per_s", "rate_per_s")

# Where each model lists its arms, and the field giving an arm's "kind" (detector kind,
# diagnosis): (arm list path, kind field path within an arm, kind when that field is absent).
ARM_LISTS = (
    ("$.detectors.arms", "$.detector.kind", None),
    ("$.membership.neighbour_check", "$.detector.kind", "fixed"),
    ("$.load_sharing.arms", "$.diagnosis", None),
)


def metric_path(role_or_path):
    """The metric path of a role, or the argument itself if it is not a role (a literal path)."""
    return METRICS.get(role_or_path, role_or_path)


def unit_of(path):
    """The unit implied by a metric or config path's suffix ("s", "ms", "1/s", ...) or ""."""
    last = path.replace("[", ".").split(".")
    names = [p for p in last if p and not p.rstrip("]").isdigit()]
    # "removal_time_s.mean": the unit sits on the last named component that carries one.
    for name in reversed(names):
        for suffix, unit in (("_per_member_hour", "1/(member h)"), ("_per_s", "1/s"),
                             ("_ms", "ms"), ("_s", "s"), ("_ratio", ""), ("_count", ""),
                             ("_bytes", "B")):
            if name.endswith(suffix):
                return unit
    return ""


def label_of(role_or_path):
    """An axis label with its unit: "Mean detection time (s)", "mistake_rate_per_s (1/s)"."""
    path = metric_path(role_or_path)
    base = LABELS.get(role_or_path)
    if base is None:
        base = next((LABELS[r] for r, p in METRICS.items() if p == path), None)
    if base is None:
        base = path.lstrip("$.")
    unit = unit_of(path)
    return f"{base} ({unit})" if unit else base
