#!/usr/bin/python3
"""Grammar-aware edge fuzzer for fdsim (issue 24): every numeric leaf of every shipped scenario
at the edge values, through the real binary.

For every scenario under scenarios/ (sweep files excluded), `fdsim explain` gives the resolved
document, so every default is an explicit leaf. Each case sets one numeric leaf of one resolved
document to one edge value:
  0, -1, 5e-324 (the smallest subnormal), 1e-300, 2^53, 2^63, 1e308, -1e308, the leaf times
  1e6, and the documented bounds: the minimum and maximum that the leaf's own range message
  names ("expected a number >= A and <= B"), learnt by first trying 1e308 and -1e308.
Each mutant is validated (`fdsim validate`) and, when it validates, run (`fdsim run`,
replications 1) with the horizon capped (horizon_s <= 0.5 s, so that a valid source at the
event-rate budget of 1e8 events per simulated second is a run of seconds, not a false "hang";
a case that mutates the horizon is validated only above the cap) and at most 64 nodes, under a memory cap (RLIMIT_AS, 4 GiB) and a
timeout. It fails on a signal, a timeout, an exit code other than 0 or 2 (no
exit 1 at all: running out of memory is exit 2 with a budget line), or an exit-2 line that
does not start with the file's name (or "fdsim: memory budget exceeded: " outside a run). Failing inputs are copied to --keep.

The case list is deterministic; --seed shuffles it and --seconds bounds the wall time (the case
order is printed with its seed, so a failure is reproduced with the same --seed). Usage:
  edge_fuzz.py FDSIM [--seconds 180] [--seed 1] [--timeout-s 60] [--mem-mb 4096] [--cases N]
Prints "N passed, N failed (M cases of T, seed S)" at the end; exit 1 if any case failed.
"""
import argparse
import copy
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDGES = [0, -1, 5e-324, 1e-300, 2**53, 2**63, 1e308, -1e308]
HORIZON_CAP_S = 0.5
MAX_NODES = 64
# A budget stop outside any simulation names no file (sim/cli/out_of_memory.h, main.cpp).
BUDGET_LINE = "fdsim: memory budget exceeded: "


def limit_memory(mb):
    import resource

    def f():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return f


def shipped_scenarios():
    out = []
    for f in sorted(glob.glob(os.path.join(REPO, "scenarios", "**", "*.json"), recursive=True)):
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except Exception:
            continue
        if isinstance(doc, dict) and "base" not in doc and "axes" not in doc:
            out.append(f)
    return out


def absolutize_files(doc, base_dir):
    """Data file paths ("file" keys) made absolute, so a mutant written elsewhere finds them."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "file" and isinstance(v, str) and not v.startswith("/"):
                doc[k] = os.path.normpath(os.path.join(base_dir, v))
            else:
                absolutize_files(v, base_dir)
    elif isinstance(doc, list):
        for v in doc:
            absolutize_files(v, base_dir)


def numeric_leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from numeric_leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from numeric_leaves(v, path + (i,))
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        yield path, doc


def set_at(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def path_text(path):
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def capped(doc):
    """The document with horizon and node count capped; None if too large to run."""
    doc = copy.deepcopy(doc)
    h = doc.get("horizon_s")
    if isinstance(h, (int, float)) and not isinstance(h, bool) and h > HORIZON_CAP_S:
        doc["horizon_s"] = HORIZON_CAP_S
        w = doc.get("warmup_s")
        if isinstance(w, (int, float)) and not isinstance(w, bool) and w >= HORIZON_CAP_S:
            doc["warmup_s"] = HORIZON_CAP_S / 2
    nodes = doc.get("nodes")
    if isinstance(nodes, dict) and isinstance(nodes.get("count"), int) and nodes["count"] > MAX_NODES:
        return None
    doc["replications"] = 1
    return doc


def run(fdsim, args, cwd, timeout_s, mem_mb):
    try:
        p = subprocess.run([fdsim] + args, cwd=cwd, capture_output=True, timeout=timeout_s,
                           preexec_fn=limit_memory(mem_mb))
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stderr.decode("utf-8", "replace")


def verdict(code, err, name, timeout_s):
    if code is None:
        return f"no answer within {timeout_s} s (hang)"
    if code < 0:
        return f"killed by signal {-code}: {err[-300:]!r}"
    if code not in (0, 2):
        return f"exit {code}: {err[-400:]!r}"
    if code == 2:
        for line in err.splitlines():
            if not line.startswith(name + ": ") and not line.startswith(BUDGET_LINE):
                return f"exit 2 with a line that does not name the file: {line[:200]!r}"
    return None


BOUND_RE = re.compile(r"(>=?|<=?) (-?[0-9][0-9.e+\-]*)")


def documented_bounds(err, leaf):
    """The numbers the range message of `leaf` names (e.g. 'expected a number >= 0 and <= 1e9')."""
    out = []
    for line in err.splitlines():
        if path_text(leaf) + ":" not in line:
            continue
        for op, num in BOUND_RE.findall(line):
            try:
                v = float(num)
            except ValueError:
                continue
            if v == int(v) and abs(v) < 2**63:
                v = int(v)
            out.append(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fdsim")
    ap.add_argument("--seconds", type=float, default=180.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=0, help="stop after N cases (0: no limit)")
    ap.add_argument("--timeout-s", type=float, default=60.0)
    ap.add_argument("--mem-mb", type=int, default=4096)
    ap.add_argument("--keep", default=os.path.join(REPO, "tests", "fuzz", "found"))
    a = ap.parse_args()
    fdsim = os.path.abspath(a.fdsim)
    start = time.monotonic()
    print(f"edge_fuzz: seed {a.seed}, budget {a.seconds:g} s", flush=True)

    with tempfile.TemporaryDirectory(prefix="fdsim-edge-") as tmp:
        docs = []
        for f in shipped_scenarios():
            p = subprocess.run([fdsim, "explain", f], capture_output=True)
            if p.returncode != 0:
                print(f"FAIL explain {os.path.relpath(f, REPO)}: exit {p.returncode}")
                return 1
            doc = json.loads(p.stdout)
            absolutize_files(doc, os.path.dirname(f))
            docs.append((os.path.relpath(f, REPO), doc))
        cases = []
        for di, (src, doc) in enumerate(docs):
            for leaf, value in numeric_leaves(doc):
                for edge in EDGES + [value * 1_000_000 if isinstance(value, int) else value * 1e6]:
                    cases.append((di, leaf, edge))
        random.Random(a.seed).shuffle(cases)
        total = len(cases)
        # Documented bounds are learnt from the 1e308/-1e308 cases and queued after them.
        learnt = set()
        passed = failed = done = 0
        i = 0
        while i < len(cases):
            if time.monotonic() - start > a.seconds or (a.cases and done >= a.cases):
                break
            di, leaf, edge = cases[i]
            i += 1
            src, doc = docs[di]
            mutant = copy.deepcopy(doc)
            set_at(mutant, leaf, edge)
            name = f"e{done}.json"
            path = os.path.join(tmp, name)
            with open(path, "w") as fh:
                json.dump(mutant, fh)
            code, err = run(fdsim, ["validate", name], tmp, a.timeout_s, a.mem_mb)
            why = verdict(code, err, name, a.timeout_s)
            if why is None and code == 2 and edge in (1e308, -1e308):
                for b in documented_bounds(err, leaf):
                    if (di, leaf, b) not in learnt:
                        learnt.add((di, leaf, b))
                        cases.insert(i, (di, leaf, b))
                        total += 1
            if why is None and code == 0:
                horizon_leaf = leaf == ("horizon_s",)
                small = capped(mutant)
                if small is not None and not (horizon_leaf and edge > HORIZON_CAP_S):
                    with open(path, "w") as fh:
                        json.dump(small, fh)
                    code, err = run(fdsim, ["validate", name], tmp, a.timeout_s, a.mem_mb)
                    if code == 0:
                        out = os.path.join(tmp, "out")
                        code, err = run(fdsim, ["run", name, "--quiet", "--out", out], tmp,
                                        a.timeout_s, a.mem_mb)
                        shutil.rmtree(out, ignore_errors=True)
                    why = verdict(code, err, name, a.timeout_s)
            done += 1
            if why is None:
                passed += 1
            else:
                failed += 1
                os.makedirs(a.keep, exist_ok=True)
                kept = os.path.join(a.keep, f"edge-seed{a.seed}-case{done - 1}.json")
                shutil.copy(path, kept)
                print(f"FAIL {src} {path_text(leaf)} = {edge!r}: {why}; kept {kept}", flush=True)
            os.remove(path)
    print(f"edge_fuzz: {passed} passed, {failed} failed ({done} cases of {total}, seed {a.seed}, "
          f"{time.monotonic() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
