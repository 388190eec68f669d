"""The calibrated regime map: in each regime, is the adaptive Hou-Shin scheme better than,
equivalent to or worse than the best fixed scheme that sends exactly as many messages?

A design file (studies/calibrated-map/design.json) declares the study; this module
reads it, writes the fdsim sweep of each regime and block, reads the runs back into one row per
(regime, block, replication, arm), and decides the verdicts from those rows alone
(calibrated_map_run.py runs the sweeps, calibrated_map_report.py writes the tables and figure).

Design format (every key required unless a default is given; unknown keys are errors):
- base: the base scenario, relative to the design file. Its load_sharing.arms hold the adaptive
  arm, the controls and one arm per calibrated fixed family.
- metric (a load-sharing metric, a ratio; reported in points of %), cost_metric (a dotted
  metric path, the cost), adaptive_arm, none_arm, oracle_arm: arm names of the base.
- calibration: {tolerance_rel, pilot_replications, max_iterations}: the settings of every
  calibrated axis (docs/sweeps.md, "Calibrated axes").
- calibrated: [{arm, path, bracket, linked (optional), pilot_replications (optional),
  if_unreachable (optional)}]: one calibrated axis per fixed arm, each solved so that the arm's
  mean cost equals the adaptive arm's on the same pilot runs (target {"arm": adaptive_arm}: the
  budget is the adaptive arm's own cost, no tolerance beyond the calibration's).
  pilot_replications overrides calibration.pilot_replications for that arm (an arm whose cost
  varies with the crashes needs more pilots to hit the budget on other seeds).
  if_unreachable: {"value": v, "why": text}: a family whose cost cannot reach the budget in
  some regimes (its cheapest setting costs more): where fdsim refuses its calibration (the target
  is not bracketed, or the cost is not monotone over the bracket), the arm runs at `value` and is
  left out of the baseline pool of that regime, with fdsim's refusal line recorded (excluded.csv);
  without if_unreachable such a refusal fails the regime.
- replication: {block, min_blocks, cap, level, margin_share}: the precision rule
  (inference.replications_needed) and the family level of the verdicts.
- regimes: [{key, class ("stress" | "realistic"), label, set: {JSON path: value},
  brackets (optional): {arm: [lo, hi]}, brackets_why}]: each regime is the base with the
  `set` leaves replaced; keys unique and non-empty; `brackets` replaces a calibrated arm's
  bracket in that regime (where the cost is not monotone over the common one), with the reason.

Procedure (contract of regime_sweep and analyse):
- Seeds: the discovery block of regime k runs with seed inference.regime_seed(k), the held-out
  block with inference.holdout_seed(k) (SHA-256 of the key): independent random numbers per
  regime, whatever the order of the list.
- The discovery sweep has the calibrated axes; the held-out sweep sets each calibrated arm's
  leaves (the solved value and its linked leaves) to the values the discovery solved, read
  from the discovery runs' resolved configuration, so both blocks measure the same arms.
- Budget of a regime = the adaptive arm's mean cost over the discovery replications. Cost
  error of a fixed arm = its mean cost / budget - 1 (reported; the table flags |error| > 0.5 %).
- Margin = margin_share x (mean metric of none - mean metric of oracle) over the discovery
  replications (inference.value_of_detection_margin), in points of %.
- Baseline pick = the calibrated fixed arm with the lowest mean metric over the discovery
  replications (in hindsight: this favours the baseline; the held-out block re-measures the
  same arm on fresh seeds, without picking again).
- Delta per replication = metric(baseline pick) - metric(adaptive arm), in points of %:
  positive = the adaptive arm fails fewer tasks. Verdicts: regime_verdicts.regime_verdicts
  (Sidak across the regimes, six verdicts, held-out confirmation of every verdict other than
  "equivalent" and "inconclusive").
"""

import copy
import csv
import io
import json
import math
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .errors import AnalysisInputError
from .inference import holdout_seed, regime_seed, value_of_detection_margin
from .regime_verdicts import RegimeComparison

CLASSES = ("stress", "realistic")
BLOCKS = ("discovery", "held-out")
COST_TOLERANCE_REL = 0.005   # the achieved cost a calibrated arm must be within (reported)

_TOP = {"name", "description", "base", "metric", "cost_metric", "adaptive_arm", "none_arm",
        "oracle_arm", "calibration", "calibrated", "replication", "regimes"}
_CAL = {"tolerance_rel", "pilot_replications", "max_iterations"}
_AXIS = {"arm", "path", "bracket", "linked", "pilot_replications", "if_unreachable"}
_REP = {"block", "min_blocks", "cap", "level", "margin_share"}
_REGIME = {"key", "class", "label", "set", "brackets", "brackets_why"}


def _fail(path, where, what):
    raise AnalysisInputError(f"{path}: {where}: {what}")


def _keys(path, where, obj, allowed, optional=()):
    if not isinstance(obj, dict):
        _fail(path, where, "expected an object")
    for k in obj:
        if k not in allowed:
            _fail(path, f"{where}.{k}", f"unknown key (expected: {', '.join(sorted(allowed))})")
    for k in allowed:
        if k not in obj and k not in optional:
            _fail(path, f"{where}.{k}", "missing")


def _number(path, where, v, lo, hi, integer=False):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if ok and integer:
        ok = float(v).is_integer()
    if not ok or not lo <= v <= hi:
        _fail(path, where, f"expected {'an integer' if integer else 'a number'} in "
                           f"[{lo}, {hi}], got {json.dumps(v)}")
    return v


def load_design(path):
    """The design as a dict (validated), with "dir" and "base_path" added."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise AnalysisInputError(f"{path}: {e}") from None
    _keys(path, "$", d, _TOP, optional=("description",))
    for k in ("name", "base", "metric", "cost_metric", "adaptive_arm", "none_arm", "oracle_arm"):
        if not isinstance(d[k], str) or not d[k]:
            _fail(path, f"$.{k}", "expected a non-empty string")
    _keys(path, "$.calibration", d["calibration"], _CAL)
    c = d["calibration"]
    _number(path, "$.calibration.tolerance_rel", c["tolerance_rel"], 1e-6, 0.5)
    _number(path, "$.calibration.pilot_replications", c["pilot_replications"], 1, 1000, True)
    _number(path, "$.calibration.max_iterations", c["max_iterations"], 1, 200, True)
    if not isinstance(d["calibrated"], list) or not d["calibrated"]:
        _fail(path, "$.calibrated", "expected a non-empty array")
    arms = set()
    for i, a in enumerate(d["calibrated"]):
        w = f"$.calibrated[{i}]"
        _keys(path, w, a, _AXIS, optional=("linked", "pilot_replications", "if_unreachable"))
        if "pilot_replications" in a:
            _number(path, w + ".pilot_replications", a["pilot_replications"], 1, 1000, True)
        if "if_unreachable" in a:
            u = a["if_unreachable"]
            _keys(path, w + ".if_unreachable", u, {"value", "why"})
            _number(path, w + ".if_unreachable.value", u["value"], -1e300, 1e300)
            if not isinstance(u["why"], str) or not u["why"]:
                _fail(path, w + ".if_unreachable.why", "expected a non-empty string")
        if not isinstance(a["arm"], str) or a["arm"] in arms:
            _fail(path, w + ".arm", "expected a string naming a distinct arm")
        arms.add(a["arm"])
        b = a["bracket"]
        if not (isinstance(b, list) and len(b) == 2 and all(isinstance(x, (int, float)) for x in b)
                and b[0] < b[1]):
            _fail(path, w + ".bracket", f"expected [lo, hi] with lo < hi, got {json.dumps(b)}")
    _keys(path, "$.replication", d["replication"], _REP)
    r = d["replication"]
    _number(path, "$.replication.block", r["block"], 2, 1000, True)
    _number(path, "$.replication.min_blocks", r["min_blocks"], 1, 1000, True)
    _number(path, "$.replication.cap", r["cap"], r["block"] * r["min_blocks"], 100000, True)
    if r["cap"] % r["block"]:
        _fail(path, "$.replication.cap", "expected a whole number of blocks")
    _number(path, "$.replication.level", r["level"], 1e-6, 0.5)
    _number(path, "$.replication.margin_share", r["margin_share"], 1e-6, 0.999999)
    if not isinstance(d["regimes"], list) or not d["regimes"]:
        _fail(path, "$.regimes", "expected a non-empty array")
    keys = set()
    for i, g in enumerate(d["regimes"]):
        w = f"$.regimes[{i}]"
        _keys(path, w, g, _REGIME, optional=("brackets", "brackets_why"))
        if not isinstance(g["key"], str) or not g["key"] or g["key"] in keys:
            _fail(path, w + ".key", "expected a non-empty string, distinct from the others")
        keys.add(g["key"])
        if g["class"] not in CLASSES:
            _fail(path, w + ".class", f"expected one of {', '.join(CLASSES)}")
        if not isinstance(g["label"], str) or not g["label"]:
            _fail(path, w + ".label", "expected a non-empty string")
        if not isinstance(g["set"], dict) or any(not k.startswith("$.") for k in g["set"]):
            _fail(path, w + ".set", "expected an object of JSON paths ($. ...) to values")
        for arm, b in g.get("brackets", {}).items():
            if arm not in arms:
                _fail(path, f"{w}.brackets.{arm}", "not a calibrated arm")
            if not (isinstance(b, list) and len(b) == 2 and
                    all(isinstance(x, (int, float)) for x in b) and b[0] < b[1]):
                _fail(path, f"{w}.brackets.{arm}", f"expected [lo, hi] with lo < hi, got "
                                                   f"{json.dumps(b)}")
        if "brackets" in g and not isinstance(g.get("brackets_why"), str):
            _fail(path, w + ".brackets_why", "a regime's own brackets need their reason")
    d = dict(d)
    d["dir"] = os.path.dirname(os.path.abspath(path))
    d["base_path"] = os.path.join(d["dir"], d["base"])
    if not os.path.isfile(d["base_path"]):
        _fail(path, "$.base", f"{d['base_path']}: no such file")
    return d


def fixed_arms(design):
    return [a["arm"] for a in design["calibrated"]]


def regime(design, key):
    for g in design["regimes"]:
        if g["key"] == key:
            return g
    raise AnalysisInputError(f"{design['name']}: no regime {key!r} (regimes: "
                             f"{', '.join(g['key'] for g in design['regimes'])})")


def _axis_name(path):
    return path.replace("$.", "").replace(".", "_").replace("[", "_").replace("]", "")


def regime_sweep(design, key, block, replications, solved=None, excluded=()):
    """The fdsim sweep document of one regime and block: single-valued axes for the seed and the
    regime's `set` leaves, then (discovery) one calibrated axis per fixed arm (an arm in
    `excluded`: its if_unreachable value and linked leaves, single-valued) or (held-out) the
    leaves in `solved` ({path: value}, from the discovery's resolved configuration)."""
    g = regime(design, key)
    if block not in BLOCKS:
        raise ValueError(f"unknown block {block!r}")
    seed = regime_seed(key) if block == "discovery" else holdout_seed(key)
    axes = [{"name": "regime_seed", "path": "$.seed", "values": [seed]}]
    axes += [{"name": _axis_name(p), "path": p, "values": [v]} for p, v in g["set"].items()]
    if block == "discovery":
        for a in design["calibrated"]:
            if a["arm"] in excluded:
                x = a["if_unreachable"]["value"]
                axes.append({"name": a["arm"], "path": a["path"], "values": [x]})
                axes += [{"name": _axis_name(l["path"]), "path": l["path"],
                          "values": [round(l.get("scale", 1.0) * x + l.get("offset", 0.0), 6)]}
                         for l in a.get("linked", [])]
                continue
            cal = {"arm": a["arm"], "metric": design["cost_metric"],
                   "target": {"arm": design["adaptive_arm"]},
                   "bracket": g.get("brackets", {}).get(a["arm"], a["bracket"])}
            cal.update(design["calibration"])
            if "pilot_replications" in a:
                cal["pilot_replications"] = a["pilot_replications"]
            if a.get("linked"):
                cal["linked"] = a["linked"]
            axes.append({"name": a["arm"], "path": a["path"], "calibrate": cal})
    else:
        if not solved:
            raise ValueError("a held-out sweep needs the discovery's solved leaves")
        axes += [{"name": _axis_name(p), "path": p, "values": [v]} for p, v in solved.items()]
    return {"name": f"{design['name']}-{key}-{block}", "description": g["label"],
            "base": design["base_path"], "replications": int(replications), "axes": axes}


def _arm_index(path):
    """arms[i] of a $.load_sharing.arms[i].leaf path."""
    pre = "$.load_sharing.arms["
    if not path.startswith(pre):
        raise AnalysisInputError(f"calibrated path {path}: expected {pre}i].leaf")
    return int(path[len(pre):path.index("]")]), path[path.index("]") + 2:]


def solved_leaves(design, resolved_config):
    """{path: value} of every calibrated leaf and its linked leaves in a discovery run's
    resolved configuration."""
    arms = resolved_config["load_sharing"]["arms"]
    out = {}
    for a in design["calibrated"]:
        for p in [a["path"]] + [l["path"] for l in a.get("linked", [])]:
            i, leaf = _arm_index(p)
            out[p] = arms[i][leaf]
    return out


def _dotted(metrics, path):
    cur = metrics
    for k in path.split("."):
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return float(cur) if isinstance(cur, (int, float)) and not isinstance(cur, bool) else None


ROW_COLUMNS = ("regime", "block", "seed", "replication", "arm", "metric", "cost", "crashes",
               "tasks_feasible")


def rows_of_runs(design, key, block, runs):
    """One row per (replication, arm) of the load-sharing arms of the runs, sorted."""
    out = []
    for r in runs:
        rep = r.replication
        seed = r.manifest.get("seed")
        for arm in r.arm_order:
            m = r.metrics[arm]
            out.append({"regime": key, "block": block, "seed": seed, "replication": rep,
                        "arm": arm, "metric": _dotted(m, design["metric"]),
                        "cost": _dotted(m, design["cost_metric"]),
                        "crashes": _dotted(m, "crashes_count"),
                        "tasks_feasible": _dotted(m, "tasks_feasible_count")})
    out.sort(key=lambda x: (x["replication"], x["arm"]))
    return out


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() and abs(v) < 2 ** 53 else repr(v)
    return str(v)


def rows_csv(rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(ROW_COLUMNS)
    for r in rows:
        w.writerow([_cell(r[c]) for c in ROW_COLUMNS])
    return buf.getvalue()


def read_rows_csv(path):
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            row = dict(r)
            row["replication"] = int(row["replication"])
            row["seed"] = int(row["seed"]) if row["seed"] else None
            for k in ("metric", "cost", "crashes", "tasks_feasible"):
                row[k] = float(row[k]) if row[k] != "" else None
            out.append(row)
    return out


@dataclass
class ArmSummary:
    name: str
    n: int
    metric_mean: float          # points of %
    cost_mean: float
    cost_error_rel: Optional[float] = None   # fixed arms: cost / budget - 1


@dataclass
class RegimeResult:
    key: str
    cls: str
    label: str
    n: int
    budget: float
    arms: Dict[str, ArmSummary]
    crashes: float                        # over every discovery replication (adaptive arm's run)
    margin: Optional[float]               # points of %
    pick: Optional[str]
    diffs: List[float] = field(default_factory=list)
    holdout_diffs: List[float] = field(default_factory=list)
    holdout_n: int = 0
    holdout_crashes: float = 0.0
    family_diffs: Dict[str, List[float]] = field(default_factory=dict)
    note: str = ""
    # Calibrated arms left out of the baseline pool: {arm: fdsim's refusal of its calibration}.
    excluded: Dict[str, str] = field(default_factory=dict)


def _by_rep(rows, arm):
    return {r["replication"]: r for r in rows if r["arm"] == arm}


def _paired_points(rows, a, b):
    """metric(a) - metric(b) per replication, in points of %, replication order."""
    ra, rb = _by_rep(rows, a), _by_rep(rows, b)
    return [100.0 * (ra[k]["metric"] - rb[k]["metric"]) for k in sorted(ra)
            if k in rb and ra[k]["metric"] is not None and rb[k]["metric"] is not None]


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return math.fsum(xs) / len(xs) if xs else None


def summarise_regime(design, key, rows, excluded=None):
    """RegimeResult of one regime from its rows (discovery, and held-out when present);
    `excluded`: {arm: reason} of the calibrated arms left out of the baseline pool (their rows
    are summarised, never picked)."""
    g = regime(design, key)
    disc = [r for r in rows if r["regime"] == key and r["block"] == "discovery"]
    held = [r for r in rows if r["regime"] == key and r["block"] == "held-out"]
    if not disc:
        raise AnalysisInputError(f"regime {key}: no discovery rows")
    ad = design["adaptive_arm"]
    arms = {}
    names = sorted({r["arm"] for r in disc})
    for a in names:
        rs = [r for r in disc if r["arm"] == a]
        arms[a] = ArmSummary(a, len(rs), 100.0 * _mean([r["metric"] for r in rs]),
                             _mean([r["cost"] for r in rs]))
    for a in (ad, design["none_arm"], design["oracle_arm"]):
        if a not in arms:
            raise AnalysisInputError(f"regime {key}: no arm {a!r} in the rows")
    budget = arms[ad].cost_mean
    for a in fixed_arms(design):
        if a in arms:
            arms[a].cost_error_rel = arms[a].cost_mean / budget - 1.0
    n = arms[ad].n
    crashes = math.fsum(r["crashes"] or 0.0 for r in disc if r["arm"] == ad)
    res = RegimeResult(key, g["class"], g["label"], n, budget, arms, crashes, None, None,
                       excluded=dict(excluded or {}))
    try:
        res.margin = value_of_detection_margin(arms[design["none_arm"]].metric_mean,
                                               arms[design["oracle_arm"]].metric_mean,
                                               design["replication"]["margin_share"])
    except ValueError as e:
        res.note = f"no margin: {e}"
    eligible = [a for a in fixed_arms(design) if a in arms and a not in res.excluded]
    if eligible:
        res.pick = min(eligible, key=lambda a: (arms[a].metric_mean, a))
        res.diffs = _paired_points(disc, res.pick, ad)
        for a in eligible:
            res.family_diffs[a] = _paired_points(disc, a, ad)
    if held and res.pick is not None:
        res.holdout_diffs = _paired_points(held, res.pick, ad)
        res.holdout_n = len(res.holdout_diffs)
        res.holdout_crashes = math.fsum(r["crashes"] or 0.0 for r in held if r["arm"] == ad)
    return res


def comparison(res):
    """The RegimeComparison of a regime (margin None is refused by the verdict machinery:
    such a regime is reported apart)."""
    return RegimeComparison(res.key, res.diffs, res.holdout_diffs, res.margin)
