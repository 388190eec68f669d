#!/usr/bin/env python3
"""CITATION.cff against the Citation File Format 1.2.0 rules that matter, and against the
repository: the required keys and their types, the licence identifier matching LICENSE, the
version matching CMakeLists.txt's project() version (the one `fdsim --version` and every result
manifest print), and the README pointing to both files.

The full CFF schema is not shipped with Debian, so this checks the schema's required keys,
their types and formats by hand (cff-version, message, title, authors with a name; version,
date-released as YYYY-MM-DD, license as an SPDX identifier).

usage: check_citation.py REPO_ROOT      exit 0 ok, 1 with one line per problem
"""
import datetime
import pathlib
import re
import sys

import yaml


def problems_of(root: pathlib.Path) -> list:
    out = []
    cff_path = root / "CITATION.cff"
    try:
        cff = yaml.safe_load(cff_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        return [f"{cff_path}: cannot read: {e}"]
    if not isinstance(cff, dict):
        return [f"{cff_path}: not a YAML mapping"]
    for key in ("cff-version", "message", "title", "authors"):
        if key not in cff:
            out.append(f"{cff_path}: missing required key {key!r}")
    if cff.get("cff-version") != "1.2.0":
        out.append(f"{cff_path}: cff-version must be the string \"1.2.0\", got {cff.get('cff-version')!r}")
    for key in ("message", "title"):
        if key in cff and (not isinstance(cff[key], str) or not cff[key].strip()):
            out.append(f"{cff_path}: {key} must be a non-empty string")
    authors = cff.get("authors")
    if not isinstance(authors, list) or not authors:
        out.append(f"{cff_path}: authors must be a non-empty list")
    else:
        for i, a in enumerate(authors):
            if not isinstance(a, dict) or not (a.get("name") or a.get("family-names")):
                out.append(f"{cff_path}: authors[{i}] needs \"name\" (entity) or \"family-names\" (person)")
    if cff.get("type", "software") not in ("software", "dataset"):
        out.append(f"{cff_path}: type must be software or dataset")
    date = cff.get("date-released")
    if date is not None:
        # YAML reads an unquoted date as datetime.date; CFF wants the YYYY-MM-DD form either way.
        text = date.isoformat() if isinstance(date, datetime.date) else str(date)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            out.append(f"{cff_path}: date-released must be YYYY-MM-DD, got {text!r}")

    # The version users cite is the one the binary reports.
    cmake = (root / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(fdsim VERSION ([0-9.]+)", cmake)
    if not m:
        out.append("CMakeLists.txt: no project(fdsim VERSION x.y.z)")
    elif str(cff.get("version")) != m.group(1):
        out.append(f"{cff_path}: version {cff.get('version')!r} is not CMakeLists.txt's {m.group(1)}")

    licence = (root / "LICENSE").read_text(encoding="utf-8")
    if cff.get("license") != "Apache-2.0":
        out.append(f"{cff_path}: license must be Apache-2.0 (the LICENSE file), got {cff.get('license')!r}")
    if "Apache License" not in licence or "Version 2.0, January 2004" not in licence:
        out.append("LICENSE: not the Apache License 2.0 text")

    readme = (root / "README.md").read_text(encoding="utf-8")
    for name in ("LICENSE", "CITATION.cff"):
        if f"]({name})" not in readme:
            out.append(f"README.md: does not link to {name}")
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = problems_of(pathlib.Path(sys.argv[1]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
