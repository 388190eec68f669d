"""Formatting and file helpers shared by the study tables (paper, detectors, Geode).

Contract: load(res) reads a result folder's aggregate.csv and sweep.json; the number formats
(g, pm, diff_cell, fmt_p) are those of every committed study table, so changing one changes
committed outputs (the runner's --check then says which); fill() replaces the text between
<!-- BEGIN key --> and <!-- END key --> of a README and raises AnalysisInputError naming the
README when the markers are missing.
"""
import csv
import json
import math
import os

from ..errors import AnalysisInputError
from ..multiplicity import holm, paired_t_p_value

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
        raise AnalysisInputError(f"{path}: markers {b} ... {e} not found")
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


def holm_cells(rows, keys):
    """{key: (p, p_holm)} for the paired differences rows[key] (Holm over all of `keys`)."""
    ps = [paired_t_p_value(rows[k].get("diff_mean"), rows[k].get("diff_sd"),
                           None if rows[k].get("diff_n") is None else int(rows[k]["diff_n"]))
          if k in rows else None for k in keys]
    return dict(zip(keys, zip(ps, holm(ps))))

def fmt_p(p):
    return "" if p is None else ("<1e-4" if p < 1e-4 else f"{p:.3g}")

