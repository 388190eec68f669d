#!/usr/bin/python3
"""Validates JSON files against a JSON Schema (draft 2020-12) with python3-jsonschema.

Usage: validate_with_schema.py SCHEMA FILE...
Prints "FILE: ok" or "FILE: invalid: <first error, with its JSON path>" per file.
Exit codes: 0 every file valid, 1 some file invalid, 3 python3-jsonschema is not installed.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("python3-jsonschema is not installed (Debian: apt-get install python3-jsonschema)")
    sys.exit(3)


def main():
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        doc = json.load(open(path, encoding="utf-8"))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            e = errors[0]
            where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
            print(f"{path}: invalid: {where}: {e.message[:200]}")
        else:
            print(f"{path}: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
