#!/usr/bin/python3
"""CLI-level mutation fuzzer for fdsim (issue 16): mutates shipped scenarios and the bad-input
corpus, runs each mutant through `fdsim validate` and, when it validates, through `fdsim run`
(horizon and node count capped), under a memory cap and a timeout, and fails on:
  - a signal (crash, abort) or a timeout (hang),
  - an exit code other than 0 or 2 (1 = internal error is a bug on any input),
  - an exit-2 message line that does not start with the file's name (no path).

Deterministic: the mutants depend only on --seed and --cases. Every failing input is copied to
--keep (default tests/fuzz/found/) for the regression corpus.

Usage: cli_mutation_fuzz.py FDSIM [--cases N] [--seed S] [--timeout-s T] [--mem-mb M]
Prints "N passed, N failed" at the end; exit 1 if any case failed.
"""
import argparse
import copy
import glob
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXTREME_NUMBERS = [0, -1, 1, 0.5, 1e-7, 1e-300, 1e300, -1e300, 2**63, 2**64, -(2**63), 1e9, 3.7]
EXTREME_STRINGS = ["", "all", "x" * 5000, "\n", "\u00e9", "none", "fixed", "geode_ring", "$.a"]


def seeds():
    files = sorted(glob.glob(os.path.join(REPO, "scenarios", "**", "*.json"), recursive=True))
    files += sorted(glob.glob(os.path.join(REPO, "tests", "cli", "bad_input", "*.json")))
    files += sorted(glob.glob(os.path.join(REPO, "tests", "fuzz", "corpus", "*")))
    out = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                out.append((f, fh.read()))
        except OSError:
            pass
    return out


def walk(doc, path=()):
    """Yields (path, value) of every node of a JSON document."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from walk(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from walk(v, path + (i,))


def set_at(doc, path, value):
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


def mutate_json(doc, rng):
    doc = copy.deepcopy(doc)
    nodes = list(walk(doc))
    path, value = rng.choice(nodes)
    kind = rng.randrange(8)
    if kind == 0:
        new = rng.choice(EXTREME_NUMBERS)
    elif kind == 1:
        new = rng.choice(EXTREME_STRINGS)
    elif kind == 2:
        new = rng.choice([None, True, False, [], {}])
    elif kind == 3:  # deep nesting
        new = json.loads("[" * 300 + "]" * 300) if rng.random() < 0.5 else [[[[1]]]]
    elif kind == 4 and isinstance(value, dict) and value:
        k = rng.choice(list(value))
        del value[k]
        return doc
    elif kind == 5 and isinstance(value, dict):
        value[rng.choice(["sead", "extra", "from", "to", "kind", "arms"])] = rng.choice(EXTREME_NUMBERS)
        return doc
    elif kind == 6 and isinstance(value, list) and value:
        value.append(copy.deepcopy(rng.choice(value)))
        return doc
    elif kind == 7 and isinstance(value, (int, float)) and not isinstance(value, bool):
        new = value * rng.choice([-1, 0, 1e-9, 1e9, 1000])
    else:
        new = rng.choice(EXTREME_NUMBERS)
    return set_at(doc, path, new)


def mutate_bytes(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            b = bytearray(b"{")
        i = rng.randrange(len(b))
        op = rng.randrange(4)
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randint(1, 8)]
        elif op == 2:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 16)]
        else:
            b[i:i] = rng.choice([b"{", b"}", b"[", b"]", b",", b'"', b"\\u0000", b"1e400", b"-"])
    return bytes(b)


def make_mutant(source, data, rng):
    try:
        doc = json.loads(data)
    except Exception:
        doc = None
    if doc is not None and rng.random() < 0.8:
        try:
            for _ in range(rng.randint(1, 3)):
                doc = mutate_json(doc, rng)
            return json.dumps(doc).encode()
        except RecursionError:  # a mutant nested deeper than Python copies: mutate bytes
            pass
    return mutate_bytes(data, rng)


def capped_for_run(data):
    """The mutant with its horizon and node count capped so that `run` stays short."""
    try:
        doc = json.loads(data)
    except Exception:
        return None
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("horizon_s"), (int, float)) and not isinstance(doc["horizon_s"], bool):
        doc["horizon_s"] = min(doc["horizon_s"], 30)
        if isinstance(doc.get("warmup_s"), (int, float)) and not isinstance(doc["warmup_s"], bool):
            doc["warmup_s"] = min(doc["warmup_s"], doc["horizon_s"] / 2)
    nodes = doc.get("nodes")
    if isinstance(nodes, dict) and isinstance(nodes.get("count"), int) and nodes["count"] > 64:
        return None  # large mutants are validated only
    doc["replications"] = 1
    return json.dumps(doc).encode()


def limit_memory(mb):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return f


def check(fdsim, args, cwd, name, timeout_s, mem_mb):
    """Runs fdsim; returns None if the outcome keeps the contract, else why not."""
    try:
        p = subprocess.run([fdsim] + args, cwd=cwd, capture_output=True, timeout=timeout_s,
                           preexec_fn=limit_memory(mem_mb))
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout_s} s (hang)"
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}: {p.stderr[-300:]!r}"
    if p.returncode not in (0, 2):
        return f"exit {p.returncode}: {p.stderr[-300:]!r}"
    if p.returncode == 2:
        for line in p.stderr.decode("utf-8", "replace").splitlines():
            if not line.startswith(name + ": ") and not line.startswith(
                    "fdsim: memory budget exceeded: "):  # outside a run (out_of_memory.h)
                return f"exit 2 with a line that does not name the file: {line[:200]!r}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fdsim")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout-s", type=float, default=60.0)
    ap.add_argument("--mem-mb", type=int, default=4096)
    ap.add_argument("--keep", default=os.path.join(REPO, "tests", "fuzz", "found"))
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    fdsim = os.path.abspath(a.fdsim)
    rng = random.Random(a.seed)
    corpus = seeds()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fdsim-fuzz-") as tmp:
        for case in range(a.cases):
            source, data = rng.choice(corpus)
            mutant = make_mutant(source, data, rng)
            name = f"m{case}.json"
            # Relative data files (delay samples, execution times) stay reachable.
            sub = os.path.join(tmp, os.path.relpath(os.path.dirname(source), REPO))
            os.makedirs(sub, exist_ok=True)
            for extra in glob.glob(os.path.join(os.path.dirname(source), "*.txt")):
                dst = os.path.join(sub, os.path.basename(extra))
                if not os.path.exists(dst):
                    shutil.copy(extra, dst)
            with open(os.path.join(sub, name), "wb") as f:
                f.write(mutant)
            why = check(fdsim, ["validate", name], sub, name, a.timeout_s, a.mem_mb)
            if why is None:
                capped = capped_for_run(mutant)
                if capped is not None and subprocess.run([fdsim, "validate", name], cwd=sub,
                                                         capture_output=True).returncode == 0:
                    with open(os.path.join(sub, name), "wb") as f:
                        f.write(capped)
                    why = check(fdsim, ["run", name, "--quiet", "--out", f"out{case}"], sub, name,
                                a.timeout_s, a.mem_mb)
                    shutil.rmtree(os.path.join(sub, f"out{case}"), ignore_errors=True)
            if why is None:
                passed += 1
            else:
                failed += 1
                os.makedirs(a.keep, exist_ok=True)
                kept = os.path.join(a.keep, f"seed{a.seed}-case{case}.json")
                shutil.copy(os.path.join(sub, name), kept)
                print(f"FAIL case {case} (from {os.path.relpath(source, REPO)}): {why}; kept {kept}")
            os.remove(os.path.join(sub, name))
    print(f"cli_mutation_fuzz: {a.cases} cases from {len(corpus)} seed files, seed {a.seed}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
