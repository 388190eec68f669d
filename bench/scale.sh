#!/usr/bin/env bash
# bench/scale.sh: how each model's cost grows with the cluster size (issue 27, item 6).
#
# Usage: bench/scale.sh [BUILD_DIR] [MODEL ...]
#   BUILD_DIR  the build with fdsim (default: build)
#   MODEL      swim, geode, geode-removal, loadsharing, detectors (default: all five)
# Environment: SIZES="100 1000" overrides the sizes of every model; HORIZON_S overrides the
# simulated time; TIMEOUT_S (default 1800) bounds each run's wall time; KEEP=dir keeps the generated scenarios and results there;
# REPS (default 1) runs each scenario that many times and prints medians (see geode-removal).
#
# For every model and size it writes one scenario (one arm, one replication; the model's
# shipped example set-up with nodes.count = N), runs `fdsim run` on it and prints one row from
# the result's run_stats: simulated seconds, events, wall and CPU seconds, events per CPU
# second, peak RSS and peak RSS per node. Sizes: 100, 1 000, 10 000, 100 000 (load sharing 16,
# 64, 256, 1 024, 4 096). A size that `fdsim validate` refuses (for SWIM: the memory bound of
# models/swim/README.md) is printed as refused with validation's message. Figures move by tens
# of percent on a shared machine: compare rows of one invocation, run it on a quiet machine
# (under the build lock when sharing one).
#
# geode-removal: the Geode `current` profile (M = 5 s, 60 s simulated) in four cases per size
# (1 000, 10 000, 100 000; SIZES overrides): `startup` (no fault), `crash1` (one crash at 20 s),
# `crash10` (ten crashes at 20 s, spread over the view) and `partition1` (at 20 s a tenth of
# the members, the last ones in view order, is cut off until the end). The model column names
# the case. Removal cost is what these rows compare: crash1 minus startup is one removal.
# After the four rows of a size come three difference rows, crash1-startup, crash10-startup and
# partition1-startup: events added, and the CPU, wall and peak-RSS differences of runs made
# one right after the other (the median over the REPS pairs, the range in the last column).
#
# CASES="startup crash1" runs only those cases (default all four).
# REPS=k (default 1) runs every case of a size k times, the cases in turn (startup, crash1, ...,
# then again), and prints the median wall and CPU seconds and peak RSS of the k runs (events
# are the same in every run: the simulation is deterministic). One removal at 10^4 members is
# a difference of about 0.1 CPU s between two runs of about 1.5 s, inside the run-to-run noise
# of a shared machine: measure it with REPS=5 or more. With REPS=1 the results are kept as
# before (KEEP: out-CASE-N); with more, as out-CASE-N-repR.
set -euo pipefail
build=${1:-build}
shift || true
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(swim geode geode-removal loadsharing detectors)
fdsim="$build/fdsim"
[ -x "$fdsim" ] || { echo "bench/scale.sh: no $fdsim (build the fdsim target first)" >&2; exit 2; }
reps=${REPS:-1}
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench/scale.sh: REPS must be a positive integer, not '$reps'" >&2; exit 2; }
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

printf '%-18s %8s %6s %12s %9s %9s %12s %10s %10s  %s\n' model nodes sim_s events wall_s cpu_s \
  events/cpu_s peak_MB KB/node "swim: first suspicion / first removal / removal by all (s after the crash)"
for model in "${models[@]}"; do
  case $model in
    loadsharing) sizes=${SIZES:-"16 64 256 1024 4096"} ;;
    swim|geode|detectors) sizes=${SIZES:-"100 1000 10000 100000"} ;;
    geode-removal) sizes=${SIZES:-"1000 10000 100000"} ;;
    *) echo "bench/scale.sh: unknown model $model (swim, geode, geode-removal, loadsharing, detectors)" >&2; exit 2 ;;
  esac
  cases=("$model")
  if [ "$model" = geode-removal ]; then
    read -r -a cases <<< "${CASES:-startup crash1 crash10 partition1}"
    for c in "${cases[@]}"; do
      case $c in startup|crash1|crash10|partition1) ;;
        *) echo "bench/scale.sh: unknown geode-removal case $c in CASES (startup, crash1, crash10, partition1)" >&2; exit 2 ;;
      esac
    done
  fi
  for n in $sizes; do
  runnable=()  # the labels of this size that validation accepted
  for case in "${cases[@]}"; do
    label=$case
    [ "$model" = geode-removal ] || label=$model
    scen="$work/$label-$n.json"
    /usr/bin/python3 - "$model" "$n" "${HORIZON_S:-}" "$case" > "$scen" <<'PY'
import json, sys
model, n, horizon, case = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
net = {"latency": {"model": "exponential", "min_ms": 0.2, "mean_ms": 1}, "loss": 0.01}
# One crash at a third of the run, so detection and dissemination are exercised.
if model == "swim":
    h = float(horizon or 60)
    s = {"swim": {"arms": [{"name": "lifeguard"}]},
         "faults": [{"kind": "crash", "at_s": h / 3, "nodes": [n // 2]}]}
elif model == "geode":
    h = float(horizon or 60)
    s = {"nodes": {"count": n, "locators": [0]},
         "faults": [{"kind": "crash", "at_s": h / 3, "nodes": [n // 2]}],
         "membership": {"profile": "wiki", "member_timeout_ms": 5000, "members": "all",
                        "send_jitter_ms": 10, "start_offset_max_ms": 100,
                        "neighbour_check": [{"name": "fixed"}]}}
elif model == "geode-removal":
    h = float(horizon or 60)
    faults = {"startup": [],
              "crash1": [{"kind": "crash", "at_s": h / 3, "nodes": [n // 2]}],
              "crash10": [{"kind": "crash", "at_s": h / 3,
                           "nodes": [1 + i * (n // 10) for i in range(10)]}],
              "partition1": [{"kind": "partition", "at_s": h / 3,
                              "a": {"from": n - n // 10, "to": n - 1}}]}[case]
    s = {"nodes": {"count": n, "locators": [0]}, "faults": faults,
         "membership": {"profile": "current", "member_timeout_ms": 5000, "members": "all",
                        "send_jitter_ms": 10, "start_offset_max_ms": 100}}
elif model == "loadsharing":
    h = float(horizon or 120)
    s = {"faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 600, "mean_down_s": 60}],
         "workload": {"arrival_rate_per_s": 0.7,
                      "execution": {"distribution": "exponential", "rate_per_s": 1},
                      "deadline": {"kind": "uniform", "min_s": 2, "max_s": 10}},
         "load_sharing": {"scheduling": "mlfs", "th_u": 1, "th_f": 4, "buddy_size": 10,
                          "arms": [{"name": "hs05", "diagnosis": "hou_shin", "alpha": 0.05}]}}
else:  # detectors: the heartbeat-detector study's set-up with its quantile arm
    h = float(horizon or 60)
    s = {"faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 300,
                     "mean_down_s": 30, "start_s": 10}],
         "detectors": {"senders": "all", "monitors_per_sender": 2, "heartbeat_period_ms": 1000,
                       "send_jitter_ms": 20,
                       "arms": [{"name": "quantile", "detector": {"kind": "quantile",
                                 "alpha": 0.01, "delay_allowance_ms": 50}}]}}
scen = {"name": f"scale-{model}-{n}", "seed": 1, "horizon_s": h, "nodes": {"count": n},
        "network": net}
scen.update(s)
json.dump(scen, sys.stdout)
PY
    if ! msg=$("$fdsim" validate "$scen" 2>&1 >/dev/null); then
      printf '%-18s %8s refused: %s\n' "$label" "$n" "$(echo "$msg" | head -1)"
      continue
    fi
    runnable+=("$label")
  done
  # The runs: every case once per repetition, in turn, so that a difference of two cases
  # compares runs made one right after the other.
  declare -A outs=()
  declare -A failed=()
  for ((rep = 1; rep <= reps; rep++)); do
    for label in "${runnable[@]}"; do
      [ -n "${failed[$label]:-}" ] && continue
      out="$work/out-$label-$n"
      [ "$reps" -gt 1 ] && out="$out-rep$rep"
      if ! timeout "${TIMEOUT_S:-1800}" "$fdsim" run "$work/$label-$n.json" --out "$out" --quiet; then
        printf '%-18s %8s failed or over TIMEOUT_S=%s s\n' "$label" "$n" "${TIMEOUT_S:-1800}"
        failed[$label]=1
        continue
      fi
      outs[$label]="${outs[$label]:-} $out"
    done
  done
  done_runs=()  # label=dir,dir,... per case that ran every repetition
  for label in "${runnable[@]}"; do
    [ -n "${failed[$label]:-}" ] && continue
    dirs=${outs[$label]# }
    done_runs+=("$label=${dirs// /,}")
  done
  [ ${#done_runs[@]} -eq 0 ] && continue
  /usr/bin/python3 - "$model" "$n" "${done_runs[@]}" <<'PY'
import glob, json, statistics, sys
model, n = sys.argv[1], int(sys.argv[2])
runs = {}  # label -> result of each repetition, in order
for arg in sys.argv[3:]:
    label, dirs = arg.split("=", 1)
    runs[label] = []
    for d in dirs.split(","):
        (path,) = glob.glob(d + "/*.json")
        runs[label].append(json.load(open(path)))
row = "%-18s %8d %6g %12d %9.2f %9.2f %12.0f %10.1f %10.2f  %s"
for label, rs in runs.items():
    st = [r["run_stats"] for r in rs]
    med = lambda k: statistics.median(s[k] for s in st)
    events = st[0]["events_dispatched_count"]
    r = rs[0]
    extra = ""
    if label == "swim":
        m = next(iter(r["metrics"].values()))
        val = lambda k: m[k]["mean"] if m.get(k, {}).get("count") else float("nan")
        extra = "%.3f / %.3f / %.3f" % (val("detection_first_suspicion_s"),
                                        val("detection_first_removal_s"),
                                        val("detection_removal_all_s"))
    if len(rs) > 1:
        extra = ("cpu_s %.2f..%.2f over %d runs " % (min(s["cpu_time_s"] for s in st),
                                                    max(s["cpu_time_s"] for s in st), len(rs))
                 + extra).strip()
    cpu = med("cpu_time_s")
    print(row % (label, n, r["manifest"]["horizon_s"], events, med("wall_time_s"), cpu,
                 events / cpu if cpu > 0 else 0.0, med("peak_rss_kb") / 1024,
                 med("peak_rss_kb") / n, extra))
if model == "geode-removal" and "startup" in runs:
    base = runs["startup"]
    for label in ("crash1", "crash10", "partition1"):
        if label not in runs:
            continue
        pairs = list(zip(runs[label], base))
        d = lambda k: [a["run_stats"][k] - b["run_stats"][k] for a, b in pairs]
        cpu = d("cpu_time_s")
        events = (runs[label][0]["run_stats"]["events_dispatched_count"]
                  - base[0]["run_stats"]["events_dispatched_count"])
        c = statistics.median(cpu)
        rss = statistics.median(d("peak_rss_kb"))
        print(row % (label + "-startup", n, base[0]["manifest"]["horizon_s"], events,
                     statistics.median(d("wall_time_s")), c, events / c if c > 0 else 0.0,
                     rss / 1024, rss / n,
                     "cpu_s %.3f..%.3f over %d pairs" % (min(cpu), max(cpu), len(cpu))))
PY
  unset outs failed
  done
done
